package wtstate

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

// Failure is a Bash command that failed and has not worked since.
type Failure struct {
	Cmd   string    `json:"command"`
	Exit  *int      `json:"exit"`
	Error string    `json:"error"`
	At    time.Time `json:"ts"`
}

// MaxFailing is how many failing commands state.json keeps, the newest.
const MaxFailing = 100

// ApplyFailing applies a record to a list of failing commands: a Bash
// command that failed joins it (its newest failure), one that exited 0
// after its failure leaves it. It returns the list and whether it
// changed; the list given is not modified.
func ApplyFailing(list []Failure, r journal.Record) ([]Failure, bool) {
	if r.Tool != "Bash" || r.Cmd == "" {
		return list, false
	}
	i := slices.IndexFunc(list, func(f Failure) bool { return f.Cmd == r.Cmd })
	switch {
	case r.Event == "PostToolUseFailure":
		if i >= 0 && list[i].At.After(r.TS) {
			return list, false
		}
		out := slices.Clone(list)
		if i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, Failure{Cmd: r.Cmd, Exit: r.Exit, Error: r.Error, At: r.TS})
		if n := len(out); n > MaxFailing {
			out = out[n-MaxFailing:]
		}
		return out, true
	case r.Event == "PostToolUse" && r.Exit != nil && *r.Exit == 0:
		// The command works now, or the same with variables set before it
		// ("DB_URL=… ./deploy.sh" after "./deploy.sh" failed).
		out := slices.DeleteFunc(slices.Clone(list), func(f Failure) bool {
			return SameCommand(f.Cmd, r.Cmd) && !f.At.After(r.TS)
		})
		return out, len(out) != len(list)
	}
	return list, false
}

// failing keeps the worktree's failing commands in state.json, beyond the
// records' window. A success changes nothing most of the time: it is
// decided on a read, and again under the lock only when it does.
func (d Dir) failing(r journal.Record) error {
	if r.Event == "PostToolUse" {
		if r.Exit == nil || *r.Exit != 0 {
			return nil // only an exit 0 can take a command off the list
		}
		failing, err := d.readFailing()
		if err != nil {
			return err
		}
		if _, changed := ApplyFailing(failing, r); !changed {
			return nil
		}
	}
	return d.Update(func(s *State) bool {
		var changed bool
		s.Failing, changed = ApplyFailing(s.Failing, r)
		if changed && r.Event == "PostToolUse" {
			s.worked(r.Cmd)
		}
		return changed
	})
}

// readFailing is the failing commands of state.json, decoded without the
// rest: every successful command's hook decides on them, and decoding the
// sessions' answers would cost it more than the rest of the call. What it
// cannot decode is no list; Update decides again on the whole state.
func (d Dir) readFailing() ([]Failure, error) {
	b, err := d.readBounded(stateName, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("read worktree state: %w", err)
	}
	var s struct {
		Failing []Failure `json:"failing"`
	}
	if len(b) > 0 && json.Unmarshal(b, &s) != nil {
		return nil, nil
	}
	return s.Failing, nil
}
