package statusline

import (
	"strings"
	"time"

	"golang.org/x/text/width"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/pricing"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Line is what one status line is made of.
type Line struct {
	Payload Payload
	// State is the worktree's state.json; nil when the worktree has none.
	State *wtstate.State
	// Status is the state folder's statusline.json; nil when there is
	// none.
	Status *Status
	// Recorded is false when the session is not being recorded: no state
	// folder, or the hook never saw the session.
	Recorded bool
	Now      time.Time
}

// Style is how the line is drawn.
type Style struct {
	Lang i18n.Lang
	// Color draws the parts in ANSI colours.
	Color bool
	// Width is the most terminal columns the line takes; the task is cut
	// to fit, and the least important parts go first when even that is
	// not enough.
	Width int
}

// DefaultWidth is the width when the terminal's is not known.
const DefaultWidth = 120

var (
	msgContext  = i18n.Msg{JA: "文脈 %.0f%%", EN: "ctx %.0f%%"}
	msgSession  = i18n.Msg{JA: "セッション %s", EN: "session %s"}
	msgToday    = i18n.Msg{JA: "今日 %s", EN: "today %s"}
	msgBlock    = i18n.Msg{JA: "5h枠 残り %s", EN: "block %s left"}
	msgTask     = i18n.Msg{JA: "タスク: %s", EN: "task: %s"}
	msgLoops    = i18n.Msg{JA: "未決 %d", EN: "open %d"}
	msgReview   = i18n.Msg{JA: "確認待ち %d", EN: "%d to review"}
	msgNotRec   = i18n.Msg{JA: "⚠ 記録されていません", EN: "⚠ not recorded"}
	msgDuration = i18n.Msg{JA: "%d時間%02d分", EN: "%dh%02dm"}
)

// ANSI colours of the parts.
const (
	cReset  = "\x1b[0m"
	cDim    = "\x1b[2m"
	cBold   = "\x1b[1m"
	cCyan   = "\x1b[36m"
	cGreen  = "\x1b[32m"
	cYellow = "\x1b[33m"
	cRed    = "\x1b[31m"
)

// part is one piece of the line; rank orders which go first when the line
// is too wide (higher goes first): today's cost, the block, the session's
// cost, then baton's own parts, the task last; the model, the context and
// the unrecorded mark stay.
type part struct {
	text, color string
	rank        int
	task        bool
}

// Render draws the line.
func Render(l Line, st Style) string {
	lang := st.Lang
	var parts []part
	if m := l.Payload.Model.DisplayName; m != "" {
		parts = append(parts, part{text: "[" + textcut.OneLine(m) + "]", color: cBold})
	} else if m := l.Payload.Model.ID; m != "" {
		parts = append(parts, part{text: "[" + textcut.OneLine(m) + "]", color: cBold})
	}
	if pct, ok := l.Payload.ContextUsed(); ok {
		c := cGreen
		switch {
		case pct >= 80:
			c = cRed
		case pct >= 60:
			c = cYellow
		}
		parts = append(parts, part{text: msgContext.Format(lang, pct), color: c})
	}
	if cost, ok := l.sessionCost(); ok {
		parts = append(parts, part{text: msgSession.Format(lang, pricing.USD(cost)), rank: 4})
	}
	if s := l.Status; s != nil && s.Day == l.Now.Format(time.DateOnly) {
		parts = append(parts, part{text: msgToday.Format(lang, pricing.USD(s.TodayUSD)), rank: 6})
	}
	if s := l.Status; s != nil && s.Block != nil && l.Now.Before(s.Block.End) {
		left := s.Block.End.Sub(l.Now)
		c := ""
		if left < 30*time.Minute {
			c = cYellow
		}
		parts = append(parts, part{text: msgBlock.Format(lang, duration(left, lang)), color: c, rank: 5})
	}
	if !l.Recorded {
		parts = append(parts, part{text: msgNotRec.In(lang), color: cRed})
	}
	if ws := l.State; ws != nil {
		if ws.Task != nil && ws.Task.Text != "" {
			parts = append(parts, part{text: textcut.OneLine(ws.Task.Text), color: cCyan, task: true, rank: 1})
		}
		loops := len(ws.Failing)
		if ws.Next != nil {
			loops++
		}
		if loops > 0 {
			c := cYellow
			if len(ws.Failing) > 0 {
				c = cRed
			}
			parts = append(parts, part{text: msgLoops.Format(lang, loops), color: c, rank: 2})
		}
	}
	if s := l.Status; s != nil && s.Pending > 0 {
		parts = append(parts, part{text: msgReview.Format(lang, s.Pending), color: cYellow, rank: 3})
	}
	return draw(parts, st)
}

const sep = " · "

// draw joins the parts within st.Width: the task takes what the others
// leave, cut to fit (at least a few characters); when even that is not
// enough, parts go by rank until the rest fit.
func draw(parts []part, st Style) string {
	w := st.Width
	if w <= 0 {
		w = DefaultWidth
	}
	const minTask = 8
	for {
		fixed, n, taskAt := 0, 0, -1
		for i, p := range parts {
			if p.task {
				taskAt = i
				continue
			}
			fixed += cols(p.text)
			n++
		}
		if taskAt >= 0 {
			n++
		}
		room := w - fixed - cols(sep)*max(n-1, 0)
		if taskAt >= 0 {
			label := cols(msgTask.Format(st.Lang, ""))
			if room-label >= minTask {
				parts[taskAt].text = msgTask.Format(st.Lang, cutCols(parts[taskAt].text, room-label))
				break
			}
		} else if room >= 0 {
			break
		}
		// Drop the part that goes first, or stop when none can.
		drop := -1
		for i, p := range parts {
			if p.rank > 0 && (drop < 0 || p.rank > parts[drop].rank) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		parts = append(parts[:drop], parts[drop+1:]...)
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		if st.Color && p.color != "" {
			b.WriteString(p.color + p.text + cReset)
			continue
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// sessionCost is Claude Code's own figure for the session when the payload
// has one, else what the status file counted.
func (l Line) sessionCost() (float64, bool) {
	if c := l.Payload.Cost; c != nil && c.TotalCostUSD != nil {
		return *c.TotalCostUSD, true
	}
	if s := l.Status; s != nil && l.Payload.SessionID != "" {
		cost, ok := s.Sessions[l.Payload.SessionID]
		return cost, ok
	}
	return 0, false
}

func duration(d time.Duration, lang i18n.Lang) string {
	m := int64(d / time.Minute)
	return msgDuration.Format(lang, m/60, m%60)
}

// cols is how many terminal columns s takes: two for a wide character.
func cols(s string) int {
	n := 0
	for _, r := range s {
		n += runeCols(r)
	}
	return n
}

func runeCols(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cutCols keeps the start of s that fits in n columns, marking a cut with
// an ellipsis.
func cutCols(s string, n int) string {
	if cols(s) <= n {
		return s
	}
	used := 0
	for i, r := range s {
		if used+runeCols(r) > n-1 {
			return s[:i] + textcut.Ellipsis
		}
		used += runeCols(r)
	}
	return s
}
