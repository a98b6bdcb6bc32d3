package wtstate

import (
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/textcut"
)

// Step is the next step the agent announced ("Next I will …"). It is an
// open loop of the worktree: it stays, whatever is said in between (the
// person's "LGTM", the agent's "OK."), until the agent announces another or
// reports it done, or until a failing command it was about works.
type Step struct {
	Text    string    `json:"text"`
	Session string    `json:"session,omitempty"`
	TS      time.Time `json:"ts"`
	// After is the commands that failed in the turn that announced it: the
	// step is the way out of their failure.
	After []string `json:"after,omitempty"`
}

// MaxStep is the most characters of a next step kept.
const MaxStep = 500

// answer applies an agent's answer (redacted) to the next step: one it
// announces replaces the step; one that reports work done, announcing
// nothing, closes it.
// since is when the turn answered began (the session's previous event).
func (s *State) answer(r journal.Record, msg string, since time.Time) {
	if step := NextStep(msg); step != "" {
		s.Next = &Step{Text: textcut.Chars(step, MaxStep), Session: r.Session, TS: r.TS}
		for _, f := range s.Failing {
			if f.At.After(since) {
				s.Next.After = append(s.Next.After, f.Cmd)
			}
		}
		return
	}
	if s.Next != nil && reportsDone(msg) {
		s.Next = nil
	}
}

// worked applies a failing command that works now to the next step: a step
// announced after its failure, or one that names it ("set DB_URL in
// deploy.sh and rerun it"), is done.
func (s *State) worked(cmd string) {
	if s.Next != nil && (slices.ContainsFunc(s.Next.After, func(c string) bool { return SameCommand(c, cmd) }) || names(s.Next.Text, cmd)) {
		s.Next = nil
	}
}

// names reports whether text names command: the script or file it runs
// (deploy.sh for "DB_URL=x ./deploy.sh staging") or its program with its
// subcommand ("go test" for "go test ./...").
func names(text, command string) bool {
	l := strings.ToLower(text)
	for _, w := range commandWords(strings.ToLower(command)) {
		if hasCue(l, []string{w}) {
			return true
		}
	}
	return false
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

// doneCues mark an answer that reports work done; notCues a sentence that
// says it is not ("not done yet", "still fails").
var (
	doneCues = []string{"done", "finished", "completed", "fixed", "now works", "works now", "now passes", "passes now", "succeeded", "完了", "終わりました", "終えました", "できました", "済みです", "済ませました", "直りました", "解決しました", "成功しました"}
	notCues  = []string{"not", "isn't", "aren't", "wasn't", "didn't", "doesn't", "haven't", "hasn't", "never", "yet", "still", "まだ"}
)

// reportsDone reports whether an answer says work is done.
func reportsDone(msg string) bool {
	for _, s := range textcut.Sentences(msg) {
		if hasCue(s, doneCues) && !hasCue(s, notCues) {
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
