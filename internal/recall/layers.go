package recall

import (
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/textcut"
)

// Layer names a context layer.
type Layer string

// The layers, in the order they are pushed.
const (
	L3 Layer = "l3"
	L1 Layer = "l1"
	L2 Layer = "l2"
)

// Limits of what one entry holds, so that an entry always fits in the
// session-start context beside the others.
const (
	// MaxItem is the most characters of one item (a goal, an action, a
	// decision).
	MaxItem = 240
	// MaxActions is the most Recent Actions an L1 entry lists; MinActions
	// is how many it aims for when the records allow.
	MaxActions = 7
	MinActions = 5
	// MaxLoops is the most Open Loops or Pending Tasks an entry lists.
	MaxLoops = 5
	// MaxThreads is the most Threads Engaged an L2 entry lists.
	MaxThreads = 8
	// MaxDayDecisions is the most Decisions Made an L2 entry lists.
	MaxDayDecisions = 10
)

// Section names, as they appear in the layers' text.
const (
	secGoal      = "Goal"
	secActions   = "Recent Actions"
	secLoops     = "Open Loops"
	secDailyGoal = "Daily Goal"
	secThreads   = "Threads Engaged"
	secDecisions = "Decisions Made"
	secPending   = "Pending Tasks"
	secDecision  = "Decision"
)

// A Section is a named part of a summary: a single line (Goal) or a list.
type Section struct {
	Name  string
	Items []string
}

// schema lists a layer's sections; single ones hold one line.
type schema struct {
	names  []string
	single map[string]bool
}

func schemaOf(l Layer) schema {
	switch l {
	case L1:
		return schema{names: []string{secGoal, secActions, secLoops}, single: map[string]bool{secGoal: true}}
	case L2:
		return schema{names: []string{secDailyGoal, secThreads, secDecisions, secPending}, single: map[string]bool{secDailyGoal: true}}
	default:
		return schema{names: []string{secDecision}, single: map[string]bool{secDecision: true}}
	}
}

// Recent is an L1 entry: what was going on at the end of a stretch of work.
type Recent struct {
	TS         time.Time `json:"ts"`
	Route      string    `json:"route"`
	Session    string    `json:"session,omitempty"`
	Trigger    string    `json:"trigger,omitempty"` // PreCompact, SessionEnd, manual
	Summarizer string    `json:"summarizer"`
	Goal       string    `json:"goal"`
	Actions    []string  `json:"recent_actions"`
	OpenLoops  []string  `json:"open_loops"`
	// From and To span the records summarized; Records counts them.
	From    time.Time `json:"from,omitzero"`
	To      time.Time `json:"to,omitzero"`
	Records int       `json:"records"`
}

// Daily is an L2 entry: one day of a route.
type Daily struct {
	TS         time.Time `json:"ts"`
	Route      string    `json:"route"`
	Date       string    `json:"date"` // YYYY-MM-DD
	Summarizer string    `json:"summarizer"`
	Goal       string    `json:"daily_goal"`
	Threads    []string  `json:"threads_engaged"`
	Decisions  []string  `json:"decisions_made"`
	Pending    []string  `json:"pending_tasks"`
	Records    int       `json:"records"`
}

func (r *Recent) sections() []Section {
	return []Section{{secGoal, oneOrNone(r.Goal)}, {secActions, r.Actions}, {secLoops, r.OpenLoops}}
}

func (r *Recent) setSections(s []Section) {
	r.Goal = first(find(s, secGoal))
	r.Actions = capItems(find(s, secActions), MaxActions)
	r.OpenLoops = capItems(find(s, secLoops), MaxLoops)
}

func (d *Daily) sections() []Section {
	return []Section{{secDailyGoal, oneOrNone(d.Goal)}, {secThreads, d.Threads}, {secDecisions, d.Decisions}, {secPending, d.Pending}}
}

func (d *Daily) setSections(s []Section) {
	d.Goal = first(find(s, secDailyGoal))
	d.Threads = capItems(find(s, secThreads), MaxThreads)
	d.Decisions = capItems(find(s, secDecisions), MaxDayDecisions)
	d.Pending = capItems(find(s, secPending), MaxLoops)
}

// Text is the entry in the layer's text format.
func (r *Recent) Text() string { return renderSections(r.sections(), schemaOf(L1)) }

// Text is the entry in the layer's text format.
func (d *Daily) Text() string { return renderSections(d.sections(), schemaOf(L2)) }

// renderSections writes
//
//	Goal: one line
//	Recent Actions:
//	- item
//
// with "(none)" for an empty section.
func renderSections(secs []Section, sc schema) string {
	var b strings.Builder
	for i, s := range secs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.Name)
		b.WriteByte(':')
		if sc.single[s.Name] {
			b.WriteByte(' ')
			if len(s.Items) == 0 {
				b.WriteString("(none)")
			} else {
				b.WriteString(textcut.OneLine(s.Items[0]))
			}
			continue
		}
		if len(s.Items) == 0 {
			b.WriteString(" (none)")
		}
		for _, it := range s.Items {
			b.WriteString("\n- ")
			b.WriteString(textcut.OneLine(it))
		}
	}
	return b.String()
}

// parseSections reads the text format back, as an LLM was asked to write
// it: section headings at the start of a line (any case, optional markdown
// emphasis or heading marks), items as "- ", "* " or "1. " lines, or a
// single line after the colon. Text before the first heading, text after
// a section's list, and unknown headings are ignored. ok is false when no heading of the schema appears.
func parseSections(text string, sc schema) (secs []Section, ok bool) {
	index := map[string]int{}
	bulleted := map[int]bool{}
	cur := -1
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if name, rest, isHead := heading(line, sc); isHead {
			i, seen := index[name]
			if !seen {
				i = len(secs)
				index[name] = i
				secs = append(secs, Section{Name: name})
			}
			cur = i
			if rest = cleanItem(rest); rest != "" && !isNone(rest) {
				secs[cur].Items = append(secs[cur].Items, cutItem(rest))
			}
			continue
		}
		if cur < 0 {
			continue
		}
		item := cleanItem(trimBullet(line))
		bullet := trimBullet(line) != line
		if bullet {
			bulleted[cur] = true
		} else if bulleted[cur] {
			continue // text after a list is chatter, not an item
		}
		if item == "" || isNone(item) || (sc.single[secs[cur].Name] && len(secs[cur].Items) > 0) {
			continue
		}
		secs[cur].Items = append(secs[cur].Items, cutItem(item))
	}
	return secs, len(secs) > 0
}

// heading recognises "Name:" or "**Name**:" or "## Name" for the schema's
// names and returns the text after the colon.
func heading(line string, sc schema) (name, rest string, ok bool) {
	l := strings.TrimLeft(line, "#*_ ")
	for _, n := range sc.names {
		if len(l) < len(n) || !strings.EqualFold(l[:len(n)], n) {
			continue
		}
		after := strings.TrimLeft(l[len(n):], "*_ ")
		switch {
		case strings.HasPrefix(after, ":"):
			return n, strings.TrimLeft(after[1:], "*_ "), true
		case strings.HasPrefix(after, "："):
			return n, after[len("："):], true
		case after == "" && strings.HasPrefix(line, "#"):
			return n, "", true
		}
	}
	return "", "", false
}

// cleanItem drops the emphasis marks and space around an item.
func cleanItem(s string) string { return strings.Trim(s, "*_ \t") }

func trimBullet(line string) string {
	switch {
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "• "):
		_, rest, _ := strings.Cut(line, " ")
		return rest
	}
	// "1. item" or "1) item"
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return line[i+2:]
	}
	return line
}

func isNone(s string) bool {
	switch strings.ToLower(strings.Trim(s, "()*_ .")) {
	case "none", "n/a", "なし", "-":
		return true
	}
	return false
}

func find(secs []Section, name string) []string {
	for _, s := range secs {
		if s.Name == name {
			return s.Items
		}
	}
	return nil
}

func first(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return items[0]
}

func oneOrNone(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// capItems keeps the last n items (the newest, for time-ordered lists) cut
// to MaxItem characters.
func capItems(items []string, n int) []string {
	if len(items) > n {
		items = items[len(items)-n:]
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it = cutItem(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// cutItem makes s one line of at most MaxItem characters, marking a cut
// with "…".
func cutItem(s string) string { return textcut.Chars(textcut.OneLine(s), MaxItem) }
