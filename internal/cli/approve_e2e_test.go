package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/recall"
)

// TestE2EApproveInConversation: the agent proposes, the person answers
// "LGTM" (and later "それでいこう"), and the proposal is a candidate for
// `baton context approve` as soon as the agent has answered: found by the
// job the Stop hook starts (the only hooks installed here are the session
// start, the prompt and Stop, so no compaction or session end can have
// found it). Approving logs the decision the proposal holds, with its
// reason, not its first sentence.
func TestE2EApproveInConversation(t *testing.T) {
	s := modelserver.New(t,
		modelserver.Text("Added /health and switched the server to port 8081. I propose we keep 8081 for the server because 8080 is taken by the dev proxy. OK?"),
		modelserver.Text("OK, keeping 8081."),
		modelserver.Text("/metrics を追加しました。ダッシュボードが 9090 を見るので、メトリクスは 9090 で公開しましょう。"),
		modelserver.Text("了解です。"),
	)
	e, baton := e2eRepo(t, s)
	e.WriteProjectSettings(t, claudetest.HookSettings("baton hook", "SessionStart", "UserPromptSubmit", "Stop"))
	pending := func(n int) []recall.Candidate {
		t.Helper()
		var cs []recall.Candidate
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			cs = nil
			if err := json.Unmarshal(runBaton(t, e, baton, "context", "approve", "--json"), &cs); err != nil {
				t.Fatal(err)
			}
			if len(cs) >= n {
				return cs
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d candidates after 30 s; want %d: %+v", len(cs), n, cs)
			}
		}
	}
	approve := func(c recall.Candidate) recall.Decision {
		t.Helper()
		var d recall.Decision
		if err := json.Unmarshal(runBaton(t, e, baton, "context", "approve", c.ID, "--json"), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}

	e.Run(t, "-p", "Add a health endpoint")
	e.Run(t, "-p", "--continue", "LGTM")
	cs := pending(1)
	if c := cs[0]; c.Approval != "LGTM" || !strings.HasPrefix(c.Proposal, "Added /health") {
		t.Fatalf("candidate %+v; want the proposal and its LGTM", c)
	}
	if d := approve(cs[0]); d.Summary != "Keep 8081 for the server because 8080 is taken by the dev proxy." {
		t.Errorf("decision %q; want the decision the proposal holds, with its reason", d.Summary)
	}

	e.Run(t, "-p", "--continue", "メトリクスも足して")
	e.Run(t, "-p", "--continue", "それでいこう")
	cs = pending(1)
	if d := approve(cs[0]); d.Summary != "ダッシュボードが 9090 を見るので、メトリクスは 9090 で公開しましょう。" {
		t.Errorf("decision %q; want the proposing sentence", d.Summary)
	}
}

// runBaton runs the baton program in e's folder and environment and
// returns its standard output; it fails t, showing what baton said, when
// baton fails.
func runBaton(t *testing.T, e *claudetest.Env, baton string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(baton, args...)
	cmd.Dir, cmd.Env = e.Dir, e.Environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("baton %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}
