package teammem

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// Visible returns the entries that are not retracted, without the
// retractions and pickups themselves, oldest first; and the ids that
// retractions hide.
func Visible(es []Entry) (visible []Entry, hidden map[string]bool) {
	hidden = map[string]bool{}
	for _, e := range es {
		if e.Kind == KindRetract {
			hidden[e.Target] = true
		}
	}
	for _, e := range es {
		if e.Kind != KindRetract && e.Kind != KindPickup && !hidden[e.ID] {
			visible = append(visible, e)
		}
	}
	slices.SortStableFunc(visible, func(a, b Entry) int { return a.TS.Compare(b.TS) })
	return visible, hidden
}

// PickedUp returns the pickups of a handoff, oldest first.
func PickedUp(es []Entry, handoff string) []Entry {
	var out []Entry
	for _, e := range es {
		if e.Kind == KindPickup && e.Target == handoff {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.TS.Compare(b.TS) })
	return out
}

// Limits of the view the session-start hook reads.
const (
	// ViewDecisions is how many of the newest teammates' decisions the
	// view keeps: more than a briefing's budget holds.
	ViewDecisions = 100
	// ViewBranches is how many branches' states it keeps, the newest.
	ViewBranches = 500
)

// View is what a briefing shows of the shared memory, written by a sync so
// that the session-start hook reads two small files and runs no git.
type View struct {
	SyncedAt time.Time `json:"synced_at"`
	// Decisions are the newest teammates' decisions, oldest first.
	Decisions []Entry `json:"decisions"`
	// HiddenOwn are the clone's own decisions a retraction hides, by
	// OwnKey.
	HiddenOwn []string `json:"hidden_own,omitempty"`
	// Handoffs are the sessions handed off and not picked up yet, oldest
	// first.
	Handoffs []Entry `json:"handoffs,omitempty"`
	// Branches are the newest state of each branch someone else left, by
	// branch: one file each (see Dir.ReadBranch), so that a briefing reads
	// only its own branch's.
	Branches map[string]Entry `json:"-"`
}

// OwnKey names a decision of the local log in View.HiddenOwn: its day
// and its text, compared without hashing on the hook's path.
func OwnKey(date, summary string) string { return date + "\x00" + summary }

// MakeView builds the view of entries for machine, whose own decisions
// (the local log's, as FromDecision makes them) are own.
func MakeView(es []Entry, machine string, own []Entry, now time.Time) View {
	v := View{SyncedAt: now, Branches: map[string]Entry{}}
	visible, hidden := Visible(es)
	for _, e := range own {
		if hidden[e.ID] {
			v.HiddenOwn = append(v.HiddenOwn, OwnKey(e.Date, e.Summary))
		}
	}
	var branches []Entry
	for _, e := range visible {
		mine := e.Machine == machine
		switch e.Kind {
		case KindDecision:
			if !mine {
				v.Decisions = append(v.Decisions, e)
			}
		case KindBranch:
			if !mine {
				branches = append(branches, e)
			}
		case KindHandoff:
			if len(PickedUp(es, e.ID)) == 0 {
				v.Handoffs = append(v.Handoffs, e)
			}
		}
	}
	if n := len(v.Decisions); n > ViewDecisions {
		v.Decisions = v.Decisions[n-ViewDecisions:]
	}
	for _, e := range branches {
		v.Branches[e.Branch] = e // newest wins: visible is oldest first
	}
	if len(v.Branches) > ViewBranches {
		keep := slices.SortedFunc(maps.Values(v.Branches), func(a, b Entry) int { return cmp.Compare(b.TS.UnixNano(), a.TS.UnixNano()) })[:ViewBranches]
		v.Branches = map[string]Entry{}
		for _, e := range keep {
			v.Branches[e.Branch] = e
		}
	}
	return v
}

// Dir is the folder of a repository's view files, under its state folder.
type Dir struct {
	// Base is the folder trusted above it (links under it are refused);
	// Path the folder itself.
	Base, Path string
}

// DirOf is the view folder of a repository's state folder.
func DirOf(s state.Dir) Dir { return Dir{Base: s.Base(), Path: s.Shared()} }

func (d Dir) view() string   { return filepath.Join(d.Path, "view.json") }
func (d Dir) status() string { return filepath.Join(d.Path, "sync.json") }

// WriteView replaces the view file and the branch files: each branch's
// file is replaced, those of branches no longer in the view removed.
func (d Dir) WriteView(v View) error {
	keep := map[string]bool{}
	for name, e := range v.Branches {
		base := branchFile(name)
		keep[base] = true
		if err := d.write(filepath.Join(d.branches(), base), e); err != nil {
			return err
		}
	}
	if names, err := os.ReadDir(d.branches()); err == nil {
		for _, n := range names {
			if !keep[n.Name()] && strings.HasSuffix(n.Name(), ".json") {
				_ = os.Remove(filepath.Join(d.branches(), n.Name()))
			}
		}
	}
	return d.write(d.view(), v)
}

func (d Dir) branches() string { return filepath.Join(d.Path, "branches") }

// branchFile names a branch's file: a hash, since a branch name is no file
// name.
func branchFile(branch string) string {
	h := sha256.Sum256([]byte(branch))
	return hex.EncodeToString(h[:10]) + ".json"
}

// ReadBranch reads the state someone else left branch in; ok is false
// when there is none.
func (d Dir) ReadBranch(branch string) (e Entry, ok bool, err error) {
	err = d.read(filepath.Join(d.branches(), branchFile(branch)), &e)
	return e, err == nil && e.Branch == branch, err
}

// ReadBranches reads every branch's state, by branch.
func (d Dir) ReadBranches() (map[string]Entry, error) {
	out := map[string]Entry{}
	names, err := os.ReadDir(d.branches())
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		var e Entry
		if err := d.read(filepath.Join(d.branches(), n.Name()), &e); err != nil {
			return nil, err
		}
		if e.Branch != "" {
			out[e.Branch] = e
		}
	}
	return out, nil
}

func (d Dir) write(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := safepath.MkdirAll(d.Base, filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("shared memory folder: %w", err)
	}
	return atomicfile.WriteIn(d.Base, path, b, 0o600)
}

// maxViewFile bounds what ReadView reads: a view of the limits above is a
// few hundred kilobytes at most.
const maxViewFile = 4 << 20

// ReadView reads the view; a clone that never synced has the zero View.
func (d Dir) ReadView() (View, error) {
	var v View
	err := d.read(d.view(), &v)
	return v, err
}

func (d Dir) read(path string, v any) error {
	b, err := safepath.ReadFile(d.Base, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(b) > maxViewFile {
		return fmt.Errorf("%s: too large", path)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Status is what the last sync did, for `baton doctor`.
type Status struct {
	At      time.Time `json:"at"`
	Came    int       `json:"came"`
	Went    int       `json:"went"`
	Entries int       `json:"entries"`
	Refused []string  `json:"refused,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// WriteStatus replaces the status file.
func (d Dir) WriteStatus(s Status) error { return d.write(d.status(), s) }

// ReadStatus reads the status file; the zero Status when there is none.
func (d Dir) ReadStatus() (Status, error) {
	var s Status
	err := d.read(d.status(), &s)
	return s, err
}
