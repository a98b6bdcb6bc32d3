package claudecode

import "strings"

// ScreenState is what Claude Code's terminal screen shows at its bottom.
type ScreenState int

const (
	// Starting: neither the input box nor a dialog is drawn yet (the CLI
	// is starting, or the screen is something baton does not know).
	Starting ScreenState = iota
	// Ready: the input box is drawn; text typed now lands in it (while the
	// agent works, a submitted text is queued for its next turn).
	Ready
	// Dialog: a question replaces the input box (a permission prompt, a
	// choice); a key pressed now answers it.
	Dialog
)

// A Screen is a parsed view of Claude Code's screen.
type Screen struct {
	State ScreenState
	// Input is the input box's text, its lines joined by spaces, when
	// State is Ready.
	Input string
}

// ParseScreen reads the visible screen of a Claude Code 2.1 session (tmux
// capture-pane -p): the input box is a line starting with "❯" between two
// rules of "─"; a dialog is drawn under the last rule instead and offers
// "Esc to cancel" or a numbered choice marked "❯ 1.".
func ParseScreen(screen string) Screen {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	var rules []int
	scrolled := map[int]bool{}
	for i, l := range lines {
		if rule, more := isRule(l); rule {
			rules = append(rules, i)
			scrolled[i] = more
		}
	}
	if n := len(rules); n >= 2 {
		top, bottom := rules[n-2], rules[n-1]
		// A box scrolled down shows a later line of its text first.
		if first := strings.TrimSpace(lines[top+1]); top+1 < bottom && (strings.HasPrefix(first, "❯") || scrolled[top]) {
			box := make([]string, 0, bottom-top-1)
			for _, l := range lines[top+1 : bottom] {
				box = append(box, strings.TrimSpace(l))
			}
			box[0] = strings.TrimSpace(strings.TrimPrefix(box[0], "❯"))
			return Screen{State: Ready, Input: strings.TrimSpace(strings.Join(box, " "))}
		}
	}
	if n := len(rules); n >= 1 {
		for _, l := range lines[rules[n-1]+1:] {
			t := strings.TrimSpace(l)
			if strings.Contains(t, "Esc to cancel") || strings.HasPrefix(t, "❯ 1.") {
				return Screen{State: Dialog}
			}
		}
	}
	return Screen{State: Starting}
}

// isRule reports whether l is a rule Claude Code draws around its input
// box and above a dialog: a run of "─" across the screen. A box whose text
// is taller than the box says so in its rule ("─── ↑ 1 more ───", or "↓"
// below): more is set then.
func isRule(l string) (rule, more bool) {
	t := strings.TrimSpace(l)
	if len(t) < 3*10 || !strings.HasPrefix(t, "───") || !strings.HasSuffix(t, "───") {
		return false, false
	}
	inner := strings.TrimSpace(strings.Trim(t, "─"))
	if inner == "" {
		return true, false
	}
	more = (strings.HasPrefix(inner, "↑ ") || strings.HasPrefix(inner, "↓ ")) && strings.HasSuffix(inner, " more")
	return more, more
}
