package decision

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/state"
)

// PendingSchema is the schema_version of pending-decision files.
const PendingSchema = 1

// ErrPendingFile reports a pending file baton will not rewrite: not JSON, or
// of another schema_version. The file is left as it is: it may be the only
// record of decisions not posted yet.
var ErrPendingFile = errors.New("pending file refused")

// PendingFile is sessions/<session_id>.pending-decisions.json: approved
// decisions that could not be posted, kept for `baton decisions retry`. On
// disk it has the original tool's shape:
//
//	{"schema_version": 1, "session_id": …, "issue_number": …,
//	 "entries": [{"saved_at": …, "decisions": [{"slug", "what", "why",
//	   "alternatives", "consequences", "scope"}]}]}
//
// An entry saved for another issue than the latest save's also carries its
// own issue_number, so nothing is posted to the wrong issue. The JSON tags
// are those of baton's own output (`baton decisions show --json`), where
// every entry names its issue.
type PendingFile struct {
	SchemaVersion int    `json:"schema_version"`
	Session       string `json:"session_id"`
	// Issue is the issue of the latest save.
	Issue   int            `json:"issue_number"`
	Entries []PendingEntry `json:"entries"`
}

// PendingEntry is one save: when, for which issue, and the decisions.
type PendingEntry struct {
	SavedAt   string         `json:"saved_at"`
	Issue     int            `json:"issue_number"`
	Decisions []UserDecision `json:"decisions"`
}

// The file's JSON.
type (
	pendingDisk struct {
		SchemaVersion *int               `json:"schema_version"`
		SessionID     string             `json:"session_id"`
		IssueNumber   int                `json:"issue_number"`
		Entries       []pendingEntryDisk `json:"entries"`
	}
	pendingEntryDisk struct {
		SavedAt     string                `json:"saved_at"`
		IssueNumber int                   `json:"issue_number,omitempty"`
		Decisions   []pendingDecisionDisk `json:"decisions"`
	}
	pendingDecisionDisk struct {
		Slug         string `json:"slug"`
		What         string `json:"what"`
		Why          string `json:"why"`
		Alternatives string `json:"alternatives"`
		Consequences string `json:"consequences"`
		Scope        string `json:"scope"`
		// Read only: the shape earlier baton versions wrote.
		Candidate  *Candidate `json:"candidate,omitempty"`
		FinalScope string     `json:"final_scope,omitempty"`
	}
)

// PendingPath is the pending file of session.
func PendingPath(dir state.Dir, session string) string {
	return filepath.Join(dir.Sessions(), session+pendingSuffix)
}

const pendingSuffix = ".pending-decisions.json"

// savedAt is the time as the original tool writes it (Python's isoformat of
// an aware UTC time): microseconds when there are any, and +00:00.
func savedAt(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// checkPostable is what a decision needs to be posted: a kebab-case slug
// (it names the comment and, for cross-issue ones, a file) and the four
// fields filled (a block with an empty field is never found again, so it
// would be posted again and again). Its scopes do not matter for posting.
func checkPostable(c Candidate) error { return c.check(false) }

// SavePending appends an entry with decisions for issue to the session's
// pending file, under its lock, atomically. Decisions without an issue could
// never be posted, so issue must be positive. A file baton cannot read is
// refused (ErrPendingFile) and left as it is.
func SavePending(dir state.Dir, session string, issue int, decisions []UserDecision, now time.Time) (path, warning string, err error) {
	if err := CheckSessionID(session); err != nil {
		return "", "", err
	}
	if issue <= 0 {
		return "", "", fmt.Errorf("issue_number must be a positive integer (decisions saved without an issue can never be posted): %w", ErrInvalid)
	}
	for _, d := range decisions {
		if err := checkPostable(d.Candidate); err != nil {
			return "", "", err
		}
	}
	path = PendingPath(dir, session)
	err = atomicfile.UpdateIn(dir.Base(), path, 0o600, func(old []byte) ([]byte, error) {
		pf, err := decodePending(path, old)
		if err != nil {
			return nil, err
		}
		if len(pf.Entries) > 0 && pf.Issue != issue {
			warning = fmt.Sprintf("issue_number mismatch: %s held decisions for issue #%d; these are for #%d (each entry keeps its issue)", path, pf.Issue, issue)
		}
		pf.Session, pf.Issue = session, issue
		pf.Entries = append(pf.Entries, PendingEntry{SavedAt: savedAt(now), Issue: issue, Decisions: decisions})
		return encodePending(pf)
	})
	if err != nil {
		return "", warning, fmt.Errorf("save pending decisions: %w", err)
	}
	return path, warning, nil
}

// LoadPending reads a session's pending decisions: baton's file and any the
// original tool left in its folder. Missing files have no entries.
func LoadPending(dir state.Dir, session string) (PendingFile, error) {
	if err := CheckSessionID(session); err != nil {
		return PendingFile{}, err
	}
	out := PendingFile{SchemaVersion: PendingSchema, Session: session, Entries: []PendingEntry{}}
	for _, path := range append([]string{PendingPath(dir, session)}, legacyPending(dir, session)...) {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return PendingFile{}, fmt.Errorf("read pending decisions: %w", err)
		}
		pf, err := decodePending(path, b)
		if err != nil {
			return PendingFile{}, err
		}
		if out.Issue == 0 {
			out.Issue = pf.Issue
		}
		out.Entries = append(out.Entries, pf.Entries...)
	}
	return out, nil
}

// legacyPending lists the original tool's pending files of session.
func legacyPending(dir state.Dir, session string) []string {
	return legacyFiles(dir, session+pendingSuffix)
}

// importLegacyPending moves the original tool's pending decisions of session
// into baton's pending file: their entries are appended (each keeping its
// issue), then the old file is removed. A file that cannot be read is left
// where it is and reported.
func importLegacyPending(dir state.Dir, session string) error {
	for _, legacy := range legacyPending(dir, session) {
		b, err := os.ReadFile(legacy)
		if err != nil {
			return fmt.Errorf("read pending decisions: %w", err)
		}
		old, err := decodePending(legacy, b)
		if err != nil {
			return err
		}
		path := PendingPath(dir, session)
		err = atomicfile.UpdateIn(dir.Base(), path, 0o600, func(cur []byte) ([]byte, error) {
			pf, err := decodePending(path, cur)
			if err != nil {
				return nil, err
			}
			if len(old.Entries) == 0 {
				return nil, atomicfile.ErrUnchanged
			}
			if len(pf.Entries) == 0 {
				pf.Issue = old.Issue
			}
			pf.Session = session
			pf.Entries = append(pf.Entries, old.Entries...)
			return encodePending(pf)
		})
		if err != nil {
			return fmt.Errorf("import pending decisions %s: %w", legacy, err)
		}
		if err := os.Remove(legacy); err != nil {
			return fmt.Errorf("import pending decisions: %w", err)
		}
	}
	return nil
}

// RemovePending drops the given slugs of issue from the session's pending
// file, and the file itself once it holds nothing.
func RemovePending(dir state.Dir, session string, issue int, slugs []string) error {
	if len(slugs) == 0 {
		return nil
	}
	path := PendingPath(dir, session)
	empty := false
	err := atomicfile.UpdateIn(dir.Base(), path, 0o600, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, atomicfile.ErrUnchanged
		}
		pf, err := decodePending(path, old)
		if err != nil {
			return nil, err
		}
		var entries []PendingEntry
		for _, e := range pf.Entries {
			var keep []UserDecision
			for _, d := range e.Decisions {
				if e.Issue == issue && slices.Contains(slugs, d.Candidate.Slug) {
					continue
				}
				keep = append(keep, d)
			}
			if len(keep) > 0 {
				e.Decisions = keep
				entries = append(entries, e)
			}
		}
		pf.Entries = entries
		empty = len(entries) == 0
		return encodePending(pf)
	})
	if err != nil {
		return fmt.Errorf("update pending decisions: %w", err)
	}
	if empty {
		// Under the same lock as writers, so no save is lost.
		return atomicfile.UpdateIn(dir.Base(), path, 0o600, func(old []byte) ([]byte, error) {
			pf, err := decodePending(path, old)
			if err == nil && len(pf.Entries) == 0 {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
			}
			return nil, atomicfile.ErrUnchanged
		})
	}
	return nil
}

// PendingSessions lists the sessions that have a pending file, baton's or the
// original tool's.
func PendingSessions(dir state.Dir) ([]string, error) {
	var out []string
	for _, d := range append([]string{dir.Sessions()}, dir.Legacy...) {
		matches, err := filepath.Glob(filepath.Join(d, "*"+pendingSuffix))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			if s := strings.TrimSuffix(filepath.Base(m), pendingSuffix); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// decodePending reads a pending file's bytes (none: an empty file). A file
// that is not a JSON object of schema_version 1 is refused, naming path.
func decodePending(path string, b []byte) (PendingFile, error) {
	pf := PendingFile{SchemaVersion: PendingSchema}
	if len(b) == 0 {
		return pf, nil
	}
	var d pendingDisk
	if err := json.Unmarshal(b, &d); err != nil {
		return pf, fmt.Errorf("%w: %s is not a valid pending-decisions JSON object (%v); it was left as it is", ErrPendingFile, path, err)
	}
	if d.SchemaVersion == nil || *d.SchemaVersion != PendingSchema {
		got := "none"
		if d.SchemaVersion != nil {
			got = fmt.Sprint(*d.SchemaVersion)
		}
		return pf, fmt.Errorf("%w: %s has schema_version %s, this baton reads %d; it was left as it is", ErrPendingFile, path, got, PendingSchema)
	}
	pf.Session, pf.Issue = d.SessionID, d.IssueNumber
	for _, e := range d.Entries {
		pe := PendingEntry{SavedAt: e.SavedAt, Issue: e.IssueNumber}
		if pe.Issue == 0 {
			pe.Issue = d.IssueNumber
		}
		for _, x := range e.Decisions {
			if x.Candidate != nil {
				pe.Decisions = append(pe.Decisions, UserDecision{Candidate: *x.Candidate, FinalScope: x.FinalScope})
				continue
			}
			hint := ScopeIssue
			if x.Scope == ScopeCrossIssue {
				hint = ScopeCrossIssue
			}
			pe.Decisions = append(pe.Decisions, UserDecision{
				Candidate:  Candidate{Slug: x.Slug, What: x.What, Why: x.Why, Alternatives: x.Alternatives, Consequences: x.Consequences, ScopeHint: hint},
				FinalScope: x.Scope,
			})
		}
		pf.Entries = append(pf.Entries, pe)
	}
	return pf, nil
}

// encodePending writes pf in the original tool's shape and layout.
func encodePending(pf PendingFile) ([]byte, error) {
	v := PendingSchema
	d := pendingDisk{SchemaVersion: &v, SessionID: pf.Session, IssueNumber: pf.Issue, Entries: []pendingEntryDisk{}}
	for _, e := range pf.Entries {
		de := pendingEntryDisk{SavedAt: e.SavedAt, Decisions: []pendingDecisionDisk{}}
		if e.Issue != pf.Issue {
			de.IssueNumber = e.Issue
		}
		for _, x := range e.Decisions {
			c := x.Candidate
			de.Decisions = append(de.Decisions, pendingDecisionDisk{Slug: c.Slug, What: c.What, Why: c.Why, Alternatives: c.Alternatives, Consequences: c.Consequences, Scope: x.FinalScope})
		}
		d.Entries = append(d.Entries, de)
	}
	b, err := marshalPlain(d)
	if err != nil {
		return nil, err
	}
	return indentPlain(b)
}
