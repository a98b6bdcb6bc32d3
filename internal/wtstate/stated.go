package wtstate

import (
	"slices"
	"time"

	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/stated"
	"github.com/baton-cli/baton/internal/textcut"
)

// A Statement is a decision stated in the conversation ("we will use port
// 8081 because 8080 is taken") that no person approved: an open loop kept
// until the briefing finds it among the approved decisions, so that it is
// not lost with the message that said it.
type Statement struct {
	// Text is the decision with its reason; What the decision alone.
	Text    string    `json:"text"`
	What    string    `json:"what"`
	Session string    `json:"session,omitempty"`
	TS      time.Time `json:"ts"`
	// Person is true when the person said it, false for the agent.
	Person bool `json:"person,omitempty"`
}

// MaxStated is how many stated decisions state.json keeps, the newest;
// MaxStatement the most characters of one.
const (
	MaxStated    = 20
	MaxStatement = 500
)

// statedIn returns the decisions stated in text, redacted.
func statedIn(text string) []Statement {
	var out []Statement
	for _, d := range stated.Find(text) {
		out = append(out, Statement{
			Text: textcut.Chars(redact.Redact(d.Line()), MaxStatement),
			What: textcut.Chars(redact.Redact(d.What), MaxStatement),
		})
	}
	return out
}

// state keeps the decisions stated in a prompt (person) or an answer; it
// reports whether the list changed. One said again keeps its first place
// and time.
func (s *State) state(said []Statement, session string, ts time.Time, person bool) bool {
	changed := false
	for _, st := range said {
		if slices.ContainsFunc(s.Stated, func(x Statement) bool { return x.Text == st.Text }) {
			continue
		}
		st.Session, st.TS, st.Person = session, ts, person
		s.Stated = append(s.Stated, st)
		changed = true
	}
	if n := len(s.Stated); n > MaxStated {
		s.Stated = slices.Delete(s.Stated, 0, n-MaxStated)
	}
	return changed
}
