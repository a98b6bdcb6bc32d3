package claudecode

import (
	"strings"
	"testing"
)

// Screens as Claude Code 2.1.328 draws them in a 200-column tmux pane
// (rules shortened to 40 columns).
func TestParseScreen(t *testing.T) {
	rule := strings.Repeat("─", 40)
	tests := []struct {
		name   string
		screen string
		want   Screen
	}{
		{"blank while starting", "\n\n\n", Screen{State: Starting}},
		{"banner without the box yet", " ▐▛███▛█   Claude Code v2.1.328\n▝▜██████▀  Opus 5.5\n", Screen{State: Starting}},
		{"empty box", "  Claude Code v2.1.328\n" + rule + "\n❯ \n" + rule + "\n  ⏸ manual mode on · ? for shortcuts\n", Screen{State: Ready}},
		{"typed text", rule + "\n❯ hello there friend\n" + rule + "\n  ⏸ manual mode on\n", Screen{State: Ready, Input: "hello there friend"}},
		{"wrapped text", rule + "\n❯ Round 1 of the debate\n  — 議論を続けてください。   \n" + rule + "\n  ⏵⏵ auto mode on (shift+tab to cycle)\n", Screen{State: Ready, Input: "Round 1 of the debate — 議論を続けてください。"}},
		{"working, history above", "❯ hello there friend\n✻ Whirlpooling…\n" + rule + "\n❯ \n" + rule + "\n  ⏸ manual mode on · esc to interrupt\n", Screen{State: Ready}},
		{"permission prompt", "❯ run it\n  Touching\n" + rule + "\n Bash command\n touch\n" + strings.Repeat("╌", 40) + "\n touch /tmp/x\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel · Tab to amend\n", Screen{State: Dialog}},
		{"notice with a choice", rule + "\n  Auto mode can't check actions in this session\n  Enter to stay in auto mode · shift+Tab to leave · Esc to cancel\n", Screen{State: Dialog}},
		{"a long text scrolled in the box", "❯ earlier\n" + "─── ↑ 1 more " + rule + "\n  topic and the rules, then, as the con side,\n  in that round.\n" + rule + "\n  ⏸ manual mode on\n", Screen{State: Ready, Input: "topic and the rules, then, as the con side, in that round."}},
		{"a rule in the history is no box", "❯ hello\n" + rule + "\n● Noted.\n", Screen{State: Starting}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseScreen(tt.screen); got != tt.want {
				t.Errorf("ParseScreen = %+v; want %+v", got, tt.want)
			}
		})
	}
}
