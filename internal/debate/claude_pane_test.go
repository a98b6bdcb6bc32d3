package debate_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/tmux"
)

// TestTmuxSubmitsToClaudeCode types instructions into the real Claude Code
// CLI running in a tmux pane, with the shipped Enter pause, from the moment
// the pane exists, and checks that each reaches the model as one whole
// prompt: Claude Code drops what is typed before it draws its input box, and
// takes text and an Enter that it reads together for a paste, where the
// Enter is a line break and nothing is submitted.
func TestTmuxSubmitsToClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Claude Code in tmux")
	}
	const rounds = 6
	srv := modelserver.New(t)
	for range rounds {
		srv.Add(modelserver.Text("Noted."))
	}
	e := claudetest.New(t, srv)
	trustFolder(t, e)
	c, pane := claudePane(t, e)
	// The first instruction goes in as soon as the pane exists, as start
	// does when the agent's hook registers it: Deliver waits for the input
	// box itself.
	tr := &debate.Tmux{Client: c, EnterDelay: (&config.Config{}).DebateEnterDelay(), Screen: claudecode.ParseScreen}
	for i := range rounds {
		text := fmt.Sprintf("Round %d of the debate in /tmp/x.md is complete. Read the other side's file, then append your round %d argument under a \"## Round %d\" heading.\nWhen it is written, run: baton debate reply cc-debate-x — 議論を続けてください。", i+1, i+2, i+2)
		before := len(srv.Requests())
		if err := tr.Deliver(t.Context(), []debate.Message{{Role: debate.Con, Pane: pane, Round: i + 2, Text: text}}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(srv.Requests()) == before {
			if time.Now().After(deadline) {
				screen, _ := c.CapturePane(t.Context(), pane)
				t.Fatalf("instruction %d was typed but never submitted; pane:\n%s", i+1, screen)
			}
			time.Sleep(10 * time.Millisecond)
		}
		reqs := srv.Requests()
		// Claude Code puts reminders of its own before the typed text.
		prompt := reqs[len(reqs)-1].Prompt()
		if got, want := prompt[strings.LastIndex(prompt, "\n")+1:], tmux.OneLine(text); got != want {
			t.Fatalf("instruction %d reached the model as %q; want %q", i+1, got, want)
		}
		// The answer shows before the next instruction is typed, as in a
		// debate, where a round is written between two instructions.
		waitPane(t, c, pane, "the answer", func(screen string) bool { return strings.Count(screen, "Noted.") == i+1 })
	}
}

// claudePane starts Claude Code (with args) in a pane of a private tmux
// server, without waiting for it, and stops the server after the test.
func claudePane(t *testing.T, e *claudetest.Env, args ...string) (tmux.Client, string) {
	t.Helper()
	c := tmux.Client{Socket: fmt.Sprintf("baton-claude-pane-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6), Env: append(e.Environ(), "TERM=xterm-256color")}
	pane, err := c.NewSession(t.Context(), "debate", 200, 50, tmux.Spawn{Dir: e.Dir, Command: append([]string{e.Bin}, args...), Env: e.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := c.Run(t.Context(), "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	// Claude Code writes into its home until it has exited, and the home
	// is removed after this cleanup.
	t.Cleanup(func() {
		c.KillServer(context.Background())
		n, _ := strconv.Atoi(pid)
		for deadline := time.Now().Add(10 * time.Second); n > 0 && syscall.Kill(n, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	})
	return c, pane
}

// trustFolder lets Claude Code start in e.Dir without asking anything.
func trustFolder(t *testing.T, e *claudetest.Env) { e.TrustDir(t) }

// waitPane polls pane's screen until ok holds.
func waitPane(t *testing.T, c tmux.Client, pane, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		screen, err := c.CapturePane(t.Context(), pane)
		if err == nil && ok(screen) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; pane:\n%s (err %v)", what, screen, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
