package cli

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// TestE2EInitToolsExist: plain `baton init`, as the quick start says,
// then sessions with the real CLI. Every baton tool the text baton gives
// the model names (the session-start briefing, the recall at a prompt) is
// among the request's tools or its deferred tools, which Claude Code
// 2.1.328 loads with ToolSearch.
func TestE2EInitToolsExist(t *testing.T) {
	s := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": "echo queue > queue.txt", "description": "Note the queue"}),
		modelserver.Text("The queue runs on River."),
	)
	e, baton := e2eRepo(t, s)
	runBaton(t, e, baton, "init")
	if out, err := exec.Command("git", "-C", e.Dir, "status", "--porcelain").CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("git status after baton init: %v\n%s; want nothing", err, out)
	}

	e.Run(t, "-p", "Set up the job queue for the worker", "--allowedTools", "Bash")
	files, err := recall.FilesFor(state.At(e.Dir), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := recall.AppendDecisions(files, recall.Decision{Date: time.Now().Format(recall.DateLayout), Summary: "Use River with SQLite for the job queue", Source: "issue", Issue: 12}); err != nil {
		t.Fatal(err)
	}
	runBaton(t, e, baton, "context", "recall", "--quiet")

	before := len(s.Requests())
	s.Add(modelserver.Text("River with SQLite."))
	e.Run(t, "-p", "What did we decide about the job queue?")
	reqs := s.Requests()[before:]
	if len(reqs) == 0 {
		t.Fatal("no request of the second session")
	}
	r := reqs[0]
	named := map[string]bool{}
	var available []string
	available = append(available, r.Tools...)
	// The deferred tools are listed one name a line; baton's text names
	// tools inside its sentences, after "… hook additional context:".
	hooked := false
	for line := range strings.SplitSeq(r.Text(), "\n") {
		line = strings.TrimSpace(line)
		hooked = hooked || strings.Contains(line, "hook additional context:")
		switch {
		case toolName.MatchString(line) && toolName.FindString(line) == line:
			available = append(available, line)
		case hooked:
			for _, n := range toolName.FindAllString(line, -1) {
				named[n] = true
			}
		}
	}
	if !named["mcp__baton__decisions"] {
		t.Errorf("baton's text names no mcp__baton__decisions; the test no longer shows the tools it names exist:\n%s", r.Text())
	}
	for n := range named {
		if !slices.Contains(available, n) {
			t.Errorf("baton's text names %s, which is neither among the tools %v nor deferred:\n%s", n, r.Tools, r.Text())
		}
	}
	t.Logf("named %d baton tools, all available: %v", len(named), named)
}

var toolName = regexp.MustCompile(`mcp__baton__[a-z_]+`)
