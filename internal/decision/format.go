package decision

import (
	"fmt"
	"strings"
)

// The comment formats shared with existing tools. A decision comment starts
// with DecisionMarker(slug); a session summary with SummaryMarker(session).
const (
	markerPrefix        = "<!-- claude-issueops:decision:"
	summaryMarkerPrefix = "<!-- claude-issueops:session-closer:summary:"
	markerSuffix        = " -->"
)

// DecisionMarker is the hidden line that identifies a decision comment.
func DecisionMarker(slug string) string { return markerPrefix + slug + markerSuffix }

// SummaryMarker is the hidden line that identifies a session's summary.
func SummaryMarker(session string) string { return summaryMarkerPrefix + session + markerSuffix }

// SummaryAnchor is how every summary comment starts: the marker line and the
// "## Session summary" heading. It is also the summary's body when no
// decision was captured.
func SummaryAnchor(session string) string { return SummaryMarker(session) + "\n## Session summary\n" }

// Field labels of a decision block, in order.
var fields = []struct {
	label string
	get   func(*Candidate) *string
}{
	{"What", func(c *Candidate) *string { return &c.What }},
	{"Why", func(c *Candidate) *string { return &c.Why }},
	{"Alternatives considered", func(c *Candidate) *string { return &c.Alternatives }},
	{"Consequences", func(c *Candidate) *string { return &c.Consequences }},
}

// Render is the comment that records c on an issue.
func Render(c Candidate) string {
	var b strings.Builder
	b.WriteString(DecisionMarker(c.Slug) + "\n")
	fmt.Fprintf(&b, "## Decision: %s\n", c.Slug)
	for _, f := range fields {
		fmt.Fprintf(&b, "\n**%s:** %s\n", f.label, strings.TrimSpace(*f.get(&c)))
	}
	return b.String()
}

// RenderSummary is a session's summary comment: SummaryAnchor and, when slugs
// were captured, a "### Captured decisions (N)" heading directly followed by
// a bullet per slug. Empty slugs are left out.
func RenderSummary(session string, slugs []string) string {
	var b strings.Builder
	b.WriteString(SummaryAnchor(session))
	var kept []string
	for _, s := range slugs {
		if s != "" {
			kept = append(kept, s)
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "\n### Captured decisions (%d)\n", len(kept))
		for _, s := range kept {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return b.String()
}

var (
	headingRE = lazyRE(`^## Decision: ([a-z0-9-]+)\s*$`)
	anyHeadRE = lazyRE(`^#{1,6}\s`)
	fieldRE   = lazyRE(`^\*\*([A-Za-z ]+):\*\*\s?(.*)$`)
	fenceRE   = lazyRE("^\\s{0,3}(```+|~~~+)")
)

// DropFences removes fenced code blocks (``` or ~~~, an unclosed one to the
// end), so examples inside code never count as decisions.
func DropFences(text string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		m := fenceRE().FindStringSubmatch(line)
		switch {
		case fence == "" && m != nil:
			fence = m[1]
		case fence != "":
			if m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[strings.Index(line, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
		default:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// Parse finds the decision blocks in text, in the comment format:
//
//	## Decision: <slug>
//	**What:** …
//	**Why:** …
//	**Alternatives considered:** …
//	**Consequences:** …
//
// Fenced code is dropped first; a block runs from its heading to the next
// heading; each field runs to the next **Name:** line; a block with an empty
// field is left out. An optional **Scope:** cross-issue line sets the scope
// hint (default issue).
func Parse(text string) []Candidate {
	var out []Candidate
	var cur *Candidate
	var field *string
	finish := func() {
		if cur == nil {
			return
		}
		for _, f := range fields {
			p := f.get(cur)
			*p = strings.TrimSpace(*p)
		}
		if cur.Validate() == nil {
			out = append(out, *cur)
		}
		cur, field = nil, nil
	}
	for _, line := range strings.Split(DropFences(text), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := headingRE().FindStringSubmatch(line); m != nil {
			finish()
			cur = &Candidate{Slug: m[1], ScopeHint: ScopeIssue}
			continue
		}
		if anyHeadRE().MatchString(line) {
			finish()
			continue
		}
		if cur == nil {
			continue
		}
		if m := fieldRE().FindStringSubmatch(line); m != nil {
			field = nil
			if strings.EqualFold(m[1], "Scope") {
				if s := strings.ToLower(strings.TrimSpace(m[2])); ValidScope(s) {
					cur.ScopeHint = s
				}
				continue
			}
			for _, f := range fields {
				if strings.EqualFold(m[1], f.label) || (f.label == "Alternatives considered" && strings.EqualFold(m[1], "Alternatives")) {
					field = f.get(cur)
					*field = m[2]
				}
			}
			continue
		}
		if field != nil {
			*field += "\n" + line
		}
	}
	finish()
	return out
}

// SlugsIn returns the slugs of the complete decision blocks in a comment,
// outside fenced code. A marker line alone does not count: like the
// original tool, a decision is on an issue only when its block parses, all
// four fields filled.
func SlugsIn(body string) []string {
	var out []string
	for _, c := range Parse(body) {
		out = append(out, c.Slug)
	}
	return out
}
