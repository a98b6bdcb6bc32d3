package decision

import (
	"context"
	"strings"

	"github.com/baton-cli/baton/internal/stated"
)

// Rules is the default extractor: no network, no model, the same answer for
// the same text. It finds decision blocks in the comment format (see Parse)
// and explicit labelled lines, in English or Japanese:
//
//	Decision: keep state in one JSON file per session     決定: … / 採用: …
//	Why: readers never see a half-written file            理由: …
//	Alternatives: SQLite; one big file                     代替案: … / 検討した代替案: …
//	Consequences: a lock per session                       影響: …
//
// A label may be bold (**Decision:**) or a list item; a field runs to the
// next label, heading or blank line. A labelled decision needs all four
// fields. Its slug comes from the decision's text (see Slugify); a line
// "Scope: cross-issue" (スコープ:) marks it cross-issue.
type Rules struct{}

// Name implements Extractor.
func (Rules) Name() string { return "rules" }

// Extract implements Extractor over the assistant's text and the person's
// prompts, in which it finds decisions stated in one sentence too ("we
// decided to …", "…に決めた"; see statedDecisions).
func (Rules) Extract(_ context.Context, ex Excerpt) ([]Candidate, Usage, error) {
	kept, _ := Unique(append(ExtractRules(ex.Assistant), statedDecisions(ex.Assistant+"\n\n"+ex.Prompts)...))
	return kept, Usage{}, nil
}

var labelRE = lazyRE(`^\s*(?:[-*+]\s+)?(?:\*\*)?(Decision|決定|採用|Why|理由|Alternatives considered|Alternatives|代替案|検討した代替案|Consequences|影響|Scope|スコープ)(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(.*)$`)

// ExtractRules runs the rules extractor over text. A slug found twice is
// kept once, the first time.
func ExtractRules(text string) []Candidate {
	text = DropFences(text)
	kept, _ := Unique(append(Parse(text), labelled(text)...))
	return kept
}

func labelled(text string) []Candidate {
	var out []Candidate
	var cur *Candidate
	var field *string
	finish := func() {
		if cur == nil {
			return
		}
		for _, p := range []*string{&cur.What, &cur.Why, &cur.Alternatives, &cur.Consequences} {
			*p = strings.TrimSpace(*p)
		}
		cur.Slug = Slugify(cur.What)
		if cur.Validate() == nil {
			out = append(out, *cur)
		}
		cur, field = nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if anyHeadRE().MatchString(line) {
			finish()
			continue
		}
		m := labelRE().FindStringSubmatch(line)
		if m == nil {
			switch {
			case strings.TrimSpace(line) == "":
				field = nil
			case field != nil:
				*field += "\n" + strings.TrimSpace(line)
			}
			continue
		}
		label, value := m[1], strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), "**"))
		switch label {
		case "Decision", "決定", "採用":
			finish()
			cur = &Candidate{What: value, ScopeHint: ScopeIssue}
			field = &cur.What
			continue
		}
		if cur == nil {
			continue
		}
		switch label {
		case "Why", "理由":
			field = &cur.Why
		case "Alternatives", "Alternatives considered", "代替案", "検討した代替案":
			field = &cur.Alternatives
		case "Consequences", "影響":
			field = &cur.Consequences
		case "Scope", "スコープ":
			if s := strings.ToLower(value); ValidScope(s) {
				cur.ScopeHint = s
			}
			field = nil
			continue
		}
		*field = value
	}
	finish()
	return out
}

// msgNotStated fills the fields a decision stated in one sentence leaves
// out; msgStatedWhy its reason when it gives none.
var (
	msgNotStated = map[bool]string{false: "not stated", true: "記載なし"}
	msgStatedWhy = map[bool]string{false: "stated in the conversation without a reason", true: "理由の記載なしに会話で決定"}
)

// statedDecisions finds the decisions stated in sentences of text (see
// package stated): the decision, its reason when the sentence gives one,
// the other fields marked not stated.
func statedDecisions(text string) []Candidate {
	var out []Candidate
	for _, d := range stated.Find(DropFences(text)) {
		why := d.Why
		if why == "" {
			why = msgStatedWhy[d.JA]
		}
		c := Candidate{What: d.What, Why: why, Alternatives: msgNotStated[d.JA], Consequences: msgNotStated[d.JA], ScopeHint: ScopeIssue}
		c.Slug = Slugify(d.What)
		out = append(out, c)
	}
	return out
}
