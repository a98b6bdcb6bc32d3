package statusline_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/tmux"
)

// TestStatusLineInClaudeCode runs the real Claude Code CLI interactively in
// tmux with baton's hooks and baton's status line, starts it with a prompt
// that sets the task, and waits for the line under the prompt to show the
// task's words and the session's cost.
func TestStatusLineInClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Claude Code in tmux")
	}
	srv := modelserver.New(t, modelserver.Text("I will add the retry.").WithUsage(modelserver.Usage{InputTokens: 12000, OutputTokens: 800}))
	e := claudetest.New(t, srv)
	e.Path = []string{claudetest.BuildBaton(t)}
	if out, err := exec.Command("git", "init", "-q", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	e.TrustDir(t)
	settings := claudetest.HookSettings(claudecode.HookProgram, claudecode.HookEvents()...)
	settings["statusLine"] = map[string]any{"type": "command", "command": claudecode.StatusLineProgram, "padding": 0}
	e.WriteProjectSettings(t, settings)

	c := tmux.Client{Socket: fmt.Sprintf("baton-statusline-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6), Env: append(e.Environ(), "TERM=xterm-256color")}
	pane, err := c.NewSession(t.Context(), "line", 220, 50, tmux.Spawn{Dir: e.Dir,
		Command: []string{e.Bin, "new task: add a retry to the uploader"}, Env: e.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.KillServer(context.Background()) })

	deadline := time.Now().Add(90 * time.Second)
	for {
		screen, err := c.CapturePane(t.Context(), pane)
		if err == nil && strings.Contains(screen, "· task: add a retry to the uploader") && strings.Contains(screen, "· session $") &&
			strings.Contains(screen, "I will add the retry.") {
			for _, line := range strings.Split(screen, "\n") {
				if strings.Contains(line, "· task:") {
					t.Logf("status line: %s", strings.TrimSpace(line))
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the status line never showed the task and the cost; pane:\n%s (err %v)", screen, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
