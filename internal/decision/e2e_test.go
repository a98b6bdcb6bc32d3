package decision_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/modelserver"
)

// The model's reply in a real Claude Code session: a decision in the comment
// format, marked cross-issue.
const reply = `Agreed. Recording it:

## Decision: one-state-file-per-session

**What:** Keep decision-capture state in one JSON file per session.

**Why:** Two sessions never contend for one file, and a write is atomic.

**Alternatives considered:** One shared file; a SQLite table.

**Consequences:** A lock per session; many small files in sessions/.

**Scope:** cross-issue
`

// TestE2ECloseAfterARealSession runs a real Claude Code session against the
// scripted model, with baton's hooks installed, then `baton decisions close
// --yes` against the fake GitHub: the decision and the summary are posted
// once, a second run posts nothing, and the cross-issue decision's index line
// lands in Claude Code's memory folder and in the next session's request.
func TestE2ECloseAfterARealSession(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the agent CLI")
	}
	server := modelserver.New(t, modelserver.Text(reply))
	env := claudetest.New(t, server)
	bin := claudetest.BuildBaton(t)
	env.Path = append(env.Path, bin)
	gh := githubtest.New(t)
	issue := gh.AddIssue(githubtest.Issue{Title: "Decision capture", Labels: []string{decision.DefaultInProgressLabel}})
	env.Extra = append(env.Extra, gh.Env()...)

	baton := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "baton"), args...)
		cmd.Dir = env.Dir
		cmd.Env = env.Environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("baton %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out, err := exec.Command("git", "init", "-q", "-b", "main", env.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(env.Dir, ".baton.yaml"), []byte("tracker:\n  kind: github\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	baton("init")

	res := env.RunJSON(t, "-p", "How should decision capture keep its state?")
	if res.IsError || !strings.Contains(res.Result, "one-state-file-per-session") {
		t.Fatalf("session result: %+v", res)
	}

	out := baton("decisions", "close", "--yes")
	if !strings.Contains(out, "Posted 1 decisions, escalated 1 to memory, skipped 0 duplicates.") {
		t.Errorf("first close: %s", out)
	}
	out = baton("decisions", "close", "--yes")
	if !strings.Contains(out, "Posted 0 decisions, escalated 0 to memory, skipped 0 duplicates.") {
		t.Errorf("second close: %s", out)
	}
	var decisions, summaries int
	for _, c := range gh.Comments(issue) {
		if strings.HasPrefix(c.Body, decision.DecisionMarker("one-state-file-per-session")+"\n## Decision: one-state-file-per-session\n") {
			decisions++
		}
		if strings.HasPrefix(c.Body, decision.SummaryMarker(res.SessionID)) && strings.Contains(c.Body, "- one-state-file-per-session") {
			summaries++
		}
	}
	if decisions != 1 || summaries != 1 || len(gh.Comments(issue)) != 2 {
		t.Errorf("issue comments: %d decision, %d summary, %d in all; want 1, 1, 2", decisions, summaries, len(gh.Comments(issue)))
	}

	line := "- [one-state-file-per-session](reference_one-state-file-per-session.md) — Keep decision-capture state in one JSON file per session."
	mem := claudecode.MemoryDir(env.Home, env.Dir)
	idx, err := os.ReadFile(filepath.Join(mem, decision.MemoryIndex))
	if err != nil || !strings.Contains(string(idx), line) {
		t.Fatalf("MEMORY.md: %q, %v; want %q", idx, err, line)
	}

	// The next session's request carries the memory index.
	server.Add(modelserver.Text("noted"))
	env.Run(t, "-p", "What did we decide last time?")
	reqs := server.Requests()
	if got := reqs[len(reqs)-1]; !strings.Contains(got.Text(), line) {
		t.Errorf("the next session's request does not carry the index line %q", line)
	}
}
