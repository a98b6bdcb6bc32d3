package recall

import (
	"regexp"
	"strings"
	"sync"

	"github.com/baton-cli/baton/internal/stated"
)

// proposedDecision is the decision a proposal the person approved holds,
// on one line: the sentence that proposes ("I propose we keep port 8081",
// "Shall I use SQLite?", "…にしましょう"), its lead-in dropped, with the
// reason the proposal gives ("because 8080 is the proxy's", "8080 clashed
// with the proxy, so I'd keep 8081") when the sentence has none. A status
// line before it ("Added /health and switched the server to port 8081.")
// is not the decision. Without a proposing sentence it is the decision the
// proposal states (see package stated), else its first sentence.
func proposedDecision(proposal string) string {
	ss := sentences(proposal)
	what, why := "", ""
	for _, s := range ss {
		if d, w := proposing(s); d != "" {
			what, why = d, w
		}
	}
	if what == "" {
		// No proposing sentence: a decision stated outright ("We will use
		// port 8081 because 8080 is taken."), the last one, else the first
		// sentence.
		if ds := stated.Find(proposal); len(ds) > 0 {
			return ds[len(ds)-1].Line()
		}
		return firstSentence(proposal)
	}
	if why == "" && !reasonRE().MatchString(what) {
		for _, s := range ss {
			if d, _ := proposing(s); d == "" && reasonRE().MatchString(s) && !isQuestion(s) {
				why = s
				break
			}
		}
	}
	if why == "" {
		return what
	}
	sep := ": "
	if !wordy(what) {
		sep = "："
	}
	return strings.TrimRight(what, ".。") + sep + why
}

func isQuestion(s string) bool { return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") }

var (
	// leadRE is the lead-in of an English proposal, at the start of a
	// sentence or after a clause ("…, so I'd keep …"); what follows it is
	// the decision. Group 1 is the word joining it to the clause before
	// ("so": that clause is the reason); group 2 the verb a lead-in like
	// "I'd" leaves in the decision.
	leadRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[,;:]\s+(so\s+|and\s+|then\s+)?)(?:i (?:propose|suggest|recommend)(?: that)?(?: we)?|i'd (?:propose|suggest|recommend)(?: that)?(?: we)?|my (?:proposal|suggestion|recommendation) is(?: to| that we)?|proposal:|suggestion:|let's|we should|i think we should|shall (?:i|we)|should (?:i|we)|how about|what about|(?:i'd|i would) (go with|keep|use|switch to|stay with|pick|choose))\s+`)
	})
	// jaProposeRE marks a Japanese proposing sentence.
	jaProposeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:しましょう|しませんか|ませんか|ましょうか|を提案します|を提案|がよさそうです|がいいと思います|が良いと思います|にしたいです|でいいですか|でよいですか)`)
	})
	// reasonRE marks a sentence or clause that gives a reason.
	reasonRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:because|since|so that|as it|as they)\b|ので|ため|から、`)
	})
)

// proposing returns the decision a sentence proposes, its lead-in dropped,
// and the reason before the lead-in when it comes after a clause; "" when
// the sentence proposes nothing.
func proposing(s string) (what, why string) {
	if loc := leadRE().FindStringSubmatchIndex(s); loc != nil {
		rest := s[loc[1]:]
		if loc[4] >= 0 {
			rest = s[loc[4]:loc[5]] + " " + rest
		}
		what = strings.TrimSpace(strings.TrimRight(rest, "?？ "))
		if what == "" {
			return "", ""
		}
		if loc[2] >= 0 && strings.EqualFold(strings.TrimSpace(s[loc[2]:loc[3]]), "so") {
			why = strings.TrimSpace(strings.TrimRight(s[:loc[0]], ",;: "))
		}
		return strings.ToUpper(what[:1]) + what[1:], why
	}
	if jaProposeRE().MatchString(s) {
		return s, ""
	}
	return "", ""
}
