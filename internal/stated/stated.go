// Package stated finds decisions stated in one sentence of a conversation,
// in the person's words or the agent's: "we decided to use port 8081
// because 8080 is taken", "let's go with SQLite", "we will use port 8081
// because 8080 is taken", "…に決めた", "…ことにしました". It reads words
// only: no model, the same answer for the same text, fast enough for a
// hook.
package stated

import (
	"regexp"
	"strings"
	"sync"

	"github.com/baton-cli/baton/internal/textcut"
)

// A Decision is one stated in a sentence: what was chosen and, when the
// sentence gives it, why ("" otherwise). JA marks a Japanese sentence.
type Decision struct {
	What, Why string
	JA        bool
}

// Line is the decision on one line: what, then why when there is one.
func (d Decision) Line() string {
	switch {
	case d.Why == "":
		return d.What
	case d.JA:
		return d.Why + "ので、" + d.What
	}
	return d.What + " because " + d.Why
}

var (
	// decidedRE finds a decision stated outright. Group 1 is the English
	// decision; a Japanese sentence is its own decision.
	decidedRE = lazyRE(`(?i)(?:\bwe(?:'ve| have)? (?:decided|agreed) (?:to|on|that)|\blet's go with|\bwe(?:'ll| will) go with|\bthe decision is to)\s+(.+)|(?:に決め(?:た|ました)|ことに(?:した|しました)|に決定(?:した|しました)?|で決定(?:した|しました)?)[。.!！]?$`)
	// choiceRE finds a choice announced with a reason ("we will use port
	// 8081 because 8080 is taken"): without the reason it is a plan, not a
	// decision. Group 1 is the choice from its verb on.
	choiceRE = lazyRE(`(?i)\b(?:we|i)(?:'ll| will| are going to|'re going to| am going to|'m going to) ((?:use|keep|pick|choose|switch to|stay with|stick with|pin|move to)\s+.+)`)
	// reasonRE splits an English decision from its reason.
	reasonRE = lazyRE(`(?i)[,;]?\s+(?:because|since|as|so that)\s+`)
	// jaReasonRE splits a Japanese sentence into its reason and decision.
	jaReasonRE = lazyRE(`(?:ので|ため|から)[、,]`)
)

// cues are words that every statement decidedRE or choiceRE finds holds,
// in any case: a sentence with none of them is not matched against the
// expressions, so that most prompts' hooks never compile them. No cue has
// a k or an s, the letters (?i) also matches a rune outside ASCII for
// (K, ſ), so comparing ASCII letters without case is enough.
var cues = []string{"deci", "agreed", "go with", "'ll", " will", " going to", "決", "ことにし"}

// mayState reports whether s holds one of the cues.
func mayState(s string) bool {
	for _, c := range cues {
		if containsFold(s, c) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds w, comparing ASCII letters without
// case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && lowerASCII(s[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Find returns the decisions stated in the sentences of text, in order.
func Find(text string) []Decision {
	var out []Decision
	for _, s := range textcut.Sentences(text) {
		if d, ok := find(s); ok {
			out = append(out, d)
		}
	}
	return out
}

func find(s string) (Decision, bool) {
	var d Decision
	if !mayState(s) {
		return d, false
	}
	if m := decidedRE().FindStringSubmatch(s); m != nil {
		d.JA = m[1] == ""
		d.What = strings.TrimSpace(m[1])
		if d.JA {
			d.What = strings.TrimRight(s, "。.!！ ")
			if loc := jaReasonRE().FindStringIndex(d.What); loc != nil {
				d.Why, d.What = d.What[:loc[0]], d.What[loc[1]:]
			}
		} else {
			d.What, d.Why = splitReason(d.What)
		}
	} else if m := choiceRE().FindStringSubmatch(s); m != nil && !strings.HasSuffix(strings.TrimSpace(s), "?") {
		d.What, d.Why = splitReason(m[1])
		if d.Why == "" {
			return Decision{}, false
		}
	} else {
		return Decision{}, false
	}
	d.What = strings.TrimRight(strings.TrimSpace(d.What), ".!,;:")
	d.Why = strings.TrimRight(strings.TrimSpace(d.Why), ".!。")
	if d.What == "" {
		return Decision{}, false
	}
	if !d.JA {
		d.What = strings.ToUpper(d.What[:1]) + d.What[1:]
	}
	return d, true
}

// splitReason cuts an English decision at its reason.
func splitReason(s string) (what, why string) {
	if loc := reasonRE().FindStringIndex(s); loc != nil {
		return s[:loc[0]], s[loc[1]:]
	}
	return s, ""
}

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
