package debate_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/panes"
)

// TestStopLeavesClaudeCodeDialogAlone holds the real Claude Code at a
// permission prompt (a command not in its allow list) and stops the debate
// it takes part in: nothing is typed into the dialog, the command does not
// run, and the person is told the pane waits for their approval.
func TestStopLeavesClaudeCodeDialogAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Claude Code in tmux")
	}
	srv := modelserver.New(t)
	marker := filepath.Join(t.TempDir(), "approved")
	srv.Add(modelserver.ToolUse("Bash", map[string]any{"command": "touch " + marker, "description": "touch a file"}))
	srv.Add(modelserver.Text("Done."))
	e := claudetest.New(t, srv)
	trustFolder(t, e)
	c, pane := claudePane(t, e, "--permission-mode", "default")
	registry := filepath.Join(t.TempDir(), "pane-state.json")
	if err := panes.Update(registry, func(r panes.Registry) bool {
		r[pane] = panes.Entry{Status: panes.Working, Dir: e.Dir}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	tr := &debate.Tmux{Client: c, Registry: registry, EnterDelay: (&config.Config{}).DebateEnterDelay(), Screen: claudecode.ParseScreen}
	if err := tr.Deliver(t.Context(), []debate.Message{{Role: debate.Pro, Pane: pane, Text: "Run the command."}}); err != nil {
		t.Fatal(err)
	}
	waitPane(t, c, pane, "the permission prompt", func(string) bool {
		screen, _ := c.Run(t.Context(), "capture-pane", "-p", "-t", pane)
		return claudecode.ParseScreen(screen).State == claudecode.Dialog
	})
	// The dialog is what is drawn under the last rule; the banner above it
	// animates on its own.
	dialog := func() string {
		screen, err := c.Run(t.Context(), "capture-pane", "-p", "-t", pane)
		if err != nil {
			t.Fatal(err)
		}
		return screen[strings.LastIndex(screen, "────")+len("────"):]
	}
	before := dialog()

	d := debate.Dir{Root: filepath.Join(t.TempDir(), "dialogues")}
	s := &debate.Session{ID: "cc-debate-20260101-120000-ab12", Topic: "tabs or spaces", PanePro: pane, MaxRounds: 3, Status: debate.Active, Transport: debate.TransportTmux, Lang: i18n.EN}
	if err := d.Create(s); err != nil {
		t.Fatal(err)
	}
	res, err := d.Stop(t.Context(), s.ID, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Told) != 0 || len(res.NotTold) != 1 {
		t.Fatalf("told %v, not told %v; want the pro side not told", res.Told, res.NotTold)
	}
	var de *debate.DeliveryError
	if !errors.As(res.NotTold[0], &de) || de.Problem != debate.AwaitingApproval {
		t.Fatalf("not told because %v; want waiting for approval", res.NotTold[0])
	}
	if got, want := de.In(i18n.EN), "waiting for your approval in pane "+pane; !strings.HasPrefix(got, want) {
		t.Errorf("message %q; want it to start with %q", got, want)
	}
	if after := dialog(); after != before {
		t.Errorf("the dialog changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran (stat %v): a key reached the dialog", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests; want 1 (the instruction, nothing after it)", n)
	}
}
