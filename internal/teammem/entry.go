// Package teammem keeps the memory a repository's people share through the
// repository's own git remote: approved decisions, their retractions,
// session summaries, each branch's task and open loops, and sessions handed
// to another machine. Entries are JSON Lines, one file per author and
// machine, committed on the ref refs/baton/memory with git's plumbing (no
// working tree, index or branch is touched) and fetched from and pushed to
// the repository's origin with the person's own git credentials.
//
// Entries are content-addressed: merging two copies of the ref is the union
// of their entries, and a retraction hides its entry everywhere. What is
// read from the ref is untrusted data: entries whose id does not match
// their content, of an unknown kind or too large are dropped, and callers
// fence the text they show the model.
//
// It does not decide what a briefing shows; it writes small view files
// (View) that the session-start hook reads without running git.
package teammem

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/recall"
)

// The kinds of entry.
const (
	// KindDecision is an approved decision.
	KindDecision = "decision"
	// KindRetract hides the entry named by Target everywhere.
	KindRetract = "retract"
	// KindSummary is a session's recent summary: its goal and open loops.
	KindSummary = "summary"
	// KindBranch is a branch's task and open loops as its author left them.
	KindBranch = "branch"
	// KindHandoff is a session handed to another machine.
	KindHandoff = "handoff"
	// KindPickup marks the handoff named by Target as picked up.
	KindPickup = "pickup"
)

// The kinds a person can choose to share (memory.kinds).
const (
	ShareDecisions = "decisions"
	ShareSummaries = "summaries"
	ShareBranch    = "branch"
)

// Limits on what an entry read from the ref may hold.
const (
	maxLine  = 64 << 10
	maxItems = 20
	maxText  = 2000
)

// An Entry is one line of an author's file on the ref.
type Entry struct {
	// ID is the hex SHA-256 of the entry's content (see Sum): the same
	// content is the same entry wherever it comes from.
	ID   string    `json:"id"`
	Kind string    `json:"kind"`
	TS   time.Time `json:"ts"`
	// Author is the git identity of the person who shared it,
	// "Name <email>"; Machine the id of the machine it was shared from.
	// Neither is part of the ID.
	Author  string `json:"author,omitempty"`
	Machine string `json:"machine,omitempty"`

	// A decision: the day it was approved, its slug, what was decided and
	// where.
	Date    string `json:"date,omitempty"`
	Slug    string `json:"slug,omitempty"`
	Summary string `json:"summary,omitempty"`
	Source  string `json:"source,omitempty"`

	// A retraction or a pickup: the entry it is about.
	Target string `json:"target,omitempty"`

	// A branch state, a summary or a handoff: the branch, its task (a
	// summary's goal) and its open loops.
	Branch string   `json:"branch,omitempty"`
	Task   string   `json:"task,omitempty"`
	Loops  []string `json:"loops,omitempty"`

	// A handoff: the session, the commit its branch was pushed at and the
	// path of its transcript on the ref.
	Session    string `json:"session,omitempty"`
	Commit     string `json:"commit,omitempty"`
	Transcript string `json:"transcript,omitempty"`
}

// Sum is the entry's content address: the SHA-256 of its JSON without the
// id, the author and the machine.
func Sum(e Entry) string {
	e.ID, e.Author, e.Machine = "", "", ""
	e.TS = e.TS.UTC()
	b, _ := json.Marshal(e)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Seal sets the entry's ID from its content.
func (e *Entry) Seal() { e.ID = Sum(*e) }

// ShortID is the part of an id people type: its first 12 characters.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

var errEntry = errors.New("invalid entry")

// check refuses an entry read from the ref that this version cannot trust:
// a wrong id, an unknown kind, fields past their limits.
func (e *Entry) check() error {
	if e.ID != Sum(*e) {
		return errEntry
	}
	switch e.Kind {
	case KindDecision:
		if strings.TrimSpace(e.Summary) == "" {
			return errEntry
		}
	case KindRetract, KindPickup:
		if len(e.Target) != 64 {
			return errEntry
		}
	case KindSummary, KindBranch:
		if e.Task == "" && len(e.Loops) == 0 {
			return errEntry
		}
	case KindHandoff:
		if e.Session == "" || e.Branch == "" || !strings.HasPrefix(e.Transcript, handoffsDir+"/") || strings.Contains(e.Transcript, "..") {
			return errEntry
		}
	default:
		return errEntry
	}
	if len(e.Loops) > maxItems {
		return errEntry
	}
	for _, s := range append([]string{e.Summary, e.Task, e.Source, e.Author, e.Branch, e.Slug, e.Date, e.Session, e.Commit, e.Transcript}, e.Loops...) {
		if len(s) > maxText || strings.IndexFunc(s, isControl) >= 0 {
			return errEntry
		}
	}
	return nil
}

// isControl reports the characters no entry's text holds: line breaks
// (every field is one line) and the control characters a terminal or a
// briefing could read as more than text.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 }

// Texts are the entry's fields that hold text people wrote: what the
// secret scan looks at before the entry leaves the machine.
func (e *Entry) Texts() []string {
	return slices.DeleteFunc(append([]string{e.Summary, e.Source, e.Slug, e.Task, e.Branch}, e.Loops...), func(s string) bool { return s == "" })
}

// parseLines reads a file of entries, dropping what check refuses and any
// id seen before.
func parseLines(b []byte, seen map[string]bool) []Entry {
	var out []Entry
	for len(b) > 0 {
		var line []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		if len(line) == 0 || len(line) > maxLine {
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) != nil || e.check() != nil || seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		out = append(out, e)
	}
	return out
}

// encodeLines writes entries as JSON Lines.
func encodeLines(es []Entry) []byte {
	var b []byte
	for _, e := range es {
		line, _ := json.Marshal(e)
		b = append(append(b, line...), '\n')
	}
	return b
}

// Describe is the entry in one line for people: its kind's main text.
func Describe(e Entry) string {
	switch e.Kind {
	case KindDecision:
		if e.Slug != "" {
			return e.Slug + ": " + e.Summary
		}
		return e.Summary
	case KindSummary, KindBranch, KindHandoff:
		s := e.Task
		if e.Branch != "" {
			s = e.Branch + ": " + s
		}
		return s
	}
	return e.Kind + " " + ShortID(e.Target)
}

// FromDecision is the shared entry of an approved decision of the local
// log. Its id does not depend on who shares it, so a clone can tell which
// of its own decisions a teammate retracted.
func FromDecision(d recall.Decision) Entry {
	ts := d.TS.UTC().Truncate(time.Second)
	if d.TS.IsZero() {
		ts, _ = time.Parse(recall.DateLayout, d.Date)
	}
	e := Entry{Kind: KindDecision, TS: ts, Date: d.Date, Slug: d.Slug, Summary: d.Summary, Source: d.SourceText()}
	e.Seal()
	return e
}
