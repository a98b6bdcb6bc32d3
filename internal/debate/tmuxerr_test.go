package debate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tmux"
)

// tmuxSaid is a tmux command that failed printing stderr.
func tmuxSaid(stderr string) error {
	return &tmux.Error{Args: []string{"split-window"}, Stderr: stderr + "\n", Err: errors.New("exit status 1")}
}

func TestTmuxErrorsInWords(t *testing.T) {
	tests := []struct {
		name string
		err  error
		// raw: tmux's own text is kept as detail.
		raw    bool
		en, ja string
	}{
		{name: "no room to open", err: openError(tmuxSaid("no space for new pane"), Con, "%3"),
			en: "tmux has no room in the window for the con side's pane (next to pane %3)", ja: "反対派のペインを開く余地がありません（pane %3 の隣）"},
		{name: "pane too small", err: openError(tmuxSaid("create pane failed: pane too small"), Pro, "%1"),
			en: "no room in the window for the pro side's pane", ja: "賛成派のペインを開く余地"},
		{name: "split next to a closed pane", err: openError(tmuxSaid("can't find pane: %7"), Pro, "%7"),
			en: "could not open the pro side's pane: pane %7, next to which it was to open, is gone", ja: "pane %7 はもう存在しません"},
		{name: "no server when opening", err: openError(tmuxSaid("no server running on /tmp/tmux-0/x"), Moderator, ""),
			en: "no tmux server is running: start tmux, or check debate.tmux_socket", ja: "tmux サーバーが動いていません"},
		{name: "other refusal keeps tmux's text", err: openError(tmuxSaid("duplicate session: cc-debate-x"), Moderator, ""), raw: true,
			en: "tmux could not open the moderator's pane: tmux split-window: duplicate session: cc-debate-x", ja: "tmux がモデレーターのペインを開けませんでした: tmux split-window: duplicate session"},
		{name: "send to a closed pane", err: sendError(tmuxSaid("can't find pane: %4"), Con, "%4"),
			en: "pane %4 (con side) is gone", ja: "pane %4（反対派）はもう存在しません"},
		{name: "send with no server", err: sendError(tmuxSaid("error connecting to /tmp/tmux-0/x (No such file or directory)"), Pro, "%2"),
			en: "no tmux server is running", ja: "tmux サーバーが動いていません"},
		{name: "other send failure keeps tmux's text", err: sendError(tmuxSaid("not a terminal"), Pro, "%2"), raw: true,
			en: "tmux did not take the input for the pro side (pane %2): tmux split-window: not a terminal", ja: "tmux が賛成派（pane %2）への入力を受け付けませんでした: tmux split-window: not a terminal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var le Localized
			if !errors.As(tt.err, &le) {
				t.Fatalf("err = %#v; want one worded in both languages", tt.err)
			}
			en, ja := le.In(i18n.EN), le.In(i18n.JA)
			if !strings.Contains(en, tt.en) {
				t.Errorf("English = %q; want it to hold %q", en, tt.en)
			}
			if !strings.Contains(ja, tt.ja) {
				t.Errorf("Japanese = %q; want it to hold %q", ja, tt.ja)
			}
			if !tt.raw && (strings.Contains(en, "tmux split-window") || strings.Contains(ja, "tmux split-window")) {
				t.Errorf("messages %q / %q carry tmux's raw text", en, ja)
			}
		})
	}
	plain := errors.New("exec: no such file")
	if err := openError(plain, Pro, "%1"); !errors.Is(err, plain) || !strings.Contains(err.Error(), "open pro pane") {
		t.Errorf("openError(non-tmux error) = %v; want it wrapped", err)
	}
}

// TestOpenPanesNoRoom splits a tiny window of a real tmux server until tmux
// refuses, and checks that the person is told what to do in words.
func TestOpenPanesNoRoom(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	ctx := context.Background()
	c := tmux.Client{Socket: fmt.Sprintf("baton-debate-noroom-%d", os.Getpid())}
	t.Cleanup(func() { c.KillServer(context.Background()) })
	pane, err := c.NewSession(ctx, "tiny", 30, 8, tmux.Spawn{Command: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_, err = OpenPanes(ctx, c, "cc-debate-20260310-100000-ab12", pane, t.TempDir(), []string{"sleep", "600"})
		if err != nil {
			break
		}
	}
	var de *Error
	if !errors.As(err, &de) || de.Msg != msgTmuxNoSpace {
		t.Fatalf("OpenPanes in a full window: err = %v; want the no-room message", err)
	}
	en, ja := de.In(i18n.EN), de.In(i18n.JA)
	if strings.Contains(en, "no space for new pane") || !strings.Contains(en, "close some panes or make the window larger") {
		t.Errorf("English = %q", en)
	}
	if !strings.Contains(ja, "ウィンドウを広げる") {
		t.Errorf("Japanese = %q", ja)
	}
}
