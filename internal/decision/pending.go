package decision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/state"
)

// PendingSchema is the schema_version of pending-decision files.
const PendingSchema = 1

// PendingFile is sessions/<session_id>.pending-decisions.json: approved
// decisions that could not be posted, kept for `baton decisions retry`.
type PendingFile struct {
	SchemaVersion int            `json:"schema_version"`
	Entries       []PendingEntry `json:"entries"`
}

// PendingEntry is one save: when, for which issue, and the decisions.
type PendingEntry struct {
	SavedAt   string         `json:"saved_at"`
	Issue     int            `json:"issue_number,omitempty"`
	Decisions []UserDecision `json:"decisions"`
}

// PendingPath is the pending file of session.
func PendingPath(dir state.Dir, session string) string {
	return filepath.Join(dir.Sessions(), session+".pending-decisions.json")
}

// SavePending appends an entry with decisions to the session's pending file,
// under its lock, atomically. A corrupt file is moved aside and reported.
func SavePending(dir state.Dir, session string, issue int, decisions []UserDecision, now time.Time) (path, warning string, err error) {
	if err := CheckSessionID(session); err != nil {
		return "", "", err
	}
	for _, d := range decisions {
		if err := d.Validate(); err != nil {
			return "", "", err
		}
	}
	path = PendingPath(dir, session)
	err = atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
		pf, w, err := decodePending(path, old, now)
		if err != nil {
			return nil, err
		}
		warning = w
		pf.Entries = append(pf.Entries, PendingEntry{SavedAt: now.UTC().Format(time.RFC3339), Issue: issue, Decisions: decisions})
		return encodePending(pf)
	})
	if err != nil {
		return "", warning, fmt.Errorf("save pending decisions: %w", err)
	}
	return path, warning, nil
}

// LoadPending reads a session's pending file; a missing file has no entries.
func LoadPending(dir state.Dir, session string) (PendingFile, error) {
	if err := CheckSessionID(session); err != nil {
		return PendingFile{}, err
	}
	b, err := os.ReadFile(PendingPath(dir, session))
	if errors.Is(err, fs.ErrNotExist) {
		return PendingFile{SchemaVersion: PendingSchema}, nil
	}
	if err != nil {
		return PendingFile{}, fmt.Errorf("read pending decisions: %w", err)
	}
	var pf PendingFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return PendingFile{}, fmt.Errorf("read pending decisions %s: %w", PendingPath(dir, session), err)
	}
	return pf, nil
}

// RemovePending drops the given slugs of issue from the session's pending
// file, and the file itself once it holds nothing.
func RemovePending(dir state.Dir, session string, issue int, slugs []string, now time.Time) error {
	if len(slugs) == 0 {
		return nil
	}
	path := PendingPath(dir, session)
	empty := false
	err := atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, atomicfile.ErrUnchanged
		}
		pf, _, err := decodePending(path, old, now)
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
		return atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
			pf, _, err := decodePending(path, old, now)
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

// PendingSessions lists the sessions that have a pending file.
func PendingSessions(dir state.Dir) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(dir.Sessions(), "*.pending-decisions.json"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		out = append(out, filepath.Base(m[:len(m)-len(".pending-decisions.json")]))
	}
	return out, nil
}

func decodePending(path string, old []byte, now time.Time) (PendingFile, string, error) {
	pf := PendingFile{SchemaVersion: PendingSchema}
	if len(bytes.TrimSpace(old)) == 0 {
		return pf, "", nil
	}
	if err := json.Unmarshal(old, &pf); err != nil || pf.SchemaVersion != PendingSchema {
		if err == nil {
			err = fmt.Errorf("schema_version %d", pf.SchemaVersion)
		}
		aside := path + ".corrupt-" + now.UTC().Format(corruptTimeForm)
		if rerr := os.Rename(path, aside); rerr != nil {
			return pf, "", fmt.Errorf("move corrupt pending file aside: %w", rerr)
		}
		return PendingFile{SchemaVersion: PendingSchema}, fmt.Sprintf("pending decisions %s were unreadable (%v); moved them to %s", path, err, aside), nil
	}
	return pf, "", nil
}

func encodePending(pf PendingFile) ([]byte, error) {
	pf.SchemaVersion = PendingSchema
	b, err := json.MarshalIndent(pf, "", "  ")
	return append(b, '\n'), err
}
