package cli

import (
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/modelserver"
)

// TestE2EContinuityInEverydayUse runs the real CLI through the most common
// flows after plain `baton init`: a task with a failing command, a decision
// and an announced next step the person approves; three /compacts whose
// summary keeps nothing; the session's end; a fresh session that only says
// "hello"; then --continue. The first request to the model after each step
// carries the original task, the approved decision, the next step and the
// failing command, in exactly one full briefing.
func TestE2EContinuityInEverydayUse(t *testing.T) {
	const (
		task     = "Deploy the report service: write deploy.sh so it exports DB_URL and starts the server on port 8081"
		failing  = "ls missing-deploy-config.txt"
		decision = "Serve the report service on port 8081"
		next     = "Next I will set DB_URL in deploy.sh and rerun it."
	)
	s := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": failing, "description": "Look for the deploy config"}),
		modelserver.Text("The deploy config is missing.\n\nDecision: "+decision+"\nWhy: port 8080 is taken by the proxy\nAlternatives: a random port; a unix socket\nConsequences: deploy.sh exports the port\n\n"+next),
		modelserver.Text("OK."),
	)
	s.OnSide(func(r *modelserver.Request) modelserver.Turn {
		if r.Kind == modelserver.KindCompact {
			return modelserver.Text("<summary>\nNothing.\n</summary>")
		}
		return modelserver.Text(modelserver.Fallback)
	})
	e, baton := e2eRepo(t, s)
	runBaton(t, e, baton, "init")
	runBaton(t, e, baton, "issue", "new", "--title", "Report service deploy")
	runBaton(t, e, baton, "issue", "label", "1", "--add", "status:in-progress")

	e.Run(t, "-p", task, "--allowedTools", "Bash")
	e.Run(t, "-p", "--continue", "LGTM")
	runBaton(t, e, baton, "decisions", "capture", "--yes")

	check := func(step string, args ...string) {
		t.Helper()
		s.Add(modelserver.Text("OK."))
		before := len(s.Requests())
		e.Run(t, args...)
		reqs := s.Requests()[before:]
		if len(reqs) == 0 {
			t.Fatalf("%s: no request to the model", step)
		}
		sent := reqs[0].Text()
		if n := strings.Count(sent, "## baton: where this worktree stands"); n != 1 {
			t.Errorf("%s: the first request carries %d full briefings; want exactly 1", step, n)
		}
		for _, want := range []string{task, decision, next, failing} {
			if !strings.Contains(sent, want) {
				t.Errorf("%s: the first request lacks %q", step, want)
			}
		}
		if t.Failed() {
			t.Logf("%s: the first request:\n%s", step, sent)
		}
	}
	for i := range 3 {
		e.Run(t, "-p", "--continue", "/compact")
		check("after /compact "+string(rune('1'+i)), "-p", "--continue", "go on")
	}
	check("a fresh session that says hello", "-p", "hello")
	check("--continue after hello", "-p", "--continue", "go on")
}
