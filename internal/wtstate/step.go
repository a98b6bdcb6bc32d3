package wtstate

import (
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/textcut"
)

// Step is the next step the agent announced ("Next I will …"). It is an
// open loop of the worktree: it stays, whatever is said in between (the
// person's "LGTM", the agent's "OK."), until the agent announces another or
// reports it done.
type Step struct {
	Text    string    `json:"text"`
	Session string    `json:"session,omitempty"`
	TS      time.Time `json:"ts"`
}

// MaxStep is the most characters of a next step kept.
const MaxStep = 500

// answer applies an agent's answer (redacted) to the next step: one it
// announces replaces the step; one that reports work done, announcing
// nothing, closes it.
func (s *State) answer(r journal.Record, msg string) {
	if step := NextStep(msg); step != "" {
		s.Next = &Step{Text: textcut.Chars(step, MaxStep), Session: r.Session, TS: r.TS}
		return
	}
	if s.Next != nil && reportsDone(msg) {
		s.Next = nil
	}
}

// NextStep is the last sentence of an agent's answer that says what it
// will do next, or "".
func NextStep(msg string) string {
	var found string
	for _, s := range textcut.Sentences(msg) {
		if hasCue(s, nextCues) {
			found = s
		}
	}
	return found
}

// nextCues mark a sentence about what comes next.
var nextCues = []string{"next", "i will", "i'll", "then i", "going to", "次は", "次に", "これから", "続いて", "このあと", "この後"}

// doneCues mark an answer that reports work done.
var doneCues = []string{"done", "finished", "completed", "完了", "終わりました", "終えました", "できました", "済みです", "済ませました"}

// reportsDone reports whether an answer says work is done.
func reportsDone(msg string) bool {
	for _, s := range textcut.Sentences(msg) {
		if hasCue(s, doneCues) {
			return true
		}
	}
	return false
}

// hasCue reports whether s holds one of cues: as a whole word for cues in
// Latin letters ("next" is not in "nexus"; "done" is not in "undone"),
// anywhere for others.
func hasCue(s string, cues []string) bool {
	l := strings.ToLower(s)
	for _, c := range cues {
		for from := 0; from < len(l); {
			i := strings.Index(l[from:], c)
			if i < 0 {
				break
			}
			i += from
			if c[0] >= 0x80 || (!wordByte(l, i-1) && !wordByte(l, i+len(c))) {
				return true
			}
			from = i + len(c)
		}
	}
	return false
}

// wordByte reports whether the byte at i of s is a letter or digit.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}
