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
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// SessionState is sessions/<session_id>.json: how far a session's transcript
// has been reviewed and which decisions were captured from it. Keys written
// by other tools are kept as they are.
type SessionState struct {
	// SkillRanAt is when capture last ran (RFC 3339), whatever its outcome.
	SkillRanAt string `json:"skill_ran_at,omitempty"`
	// LastProcessedOffset is the transcript offset reviewed up to.
	LastProcessedOffset int64 `json:"last_processed_offset"`
	// CapturedSlugs are the decisions posted from this session.
	CapturedSlugs []string `json:"captured_slugs"`
	// Issue is the issue the session's decisions went to, when known.
	Issue int `json:"issue_number,omitempty"`

	extra map[string]json.RawMessage
}

// Keys a patch may set with a meaning; others are stored as given.
const (
	KeySkillRanAt = "skill_ran_at"
	KeyOffset     = "last_processed_offset"
	KeyCaptured   = "captured_slugs"
	KeyIssue      = "issue_number"
	KeySession    = "session_id"
	// corruptTimeForm names a file moved aside, as the original tool does.
	corruptTimeForm = "20060102T150405.000000"
)

// legacyFiles are the files called name in dir's legacy folders (where the
// original tool kept per-session files), in the folders' order.
func legacyFiles(dir state.Dir, name string) []string {
	var out []string
	for _, d := range dir.Legacy {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// legacyFile is the first of legacyFiles, or "".
func legacyFile(dir state.Dir, name string) string {
	if files := legacyFiles(dir, name); len(files) > 0 {
		return files[0]
	}
	return ""
}

// StatePath is the state file of session.
func StatePath(dir state.Dir, session string) string {
	return filepath.Join(dir.Sessions(), session+".json")
}

// LoadState reads a session's state; a missing file is the zero state. A
// file that is not a JSON object is reported in warning and read as the zero
// state (CommitState moves it aside).
func LoadState(dir state.Dir, session string) (st SessionState, warning string, err error) {
	if err := CheckSessionID(session); err != nil {
		return st, "", err
	}
	path := StatePath(dir, session)
	b, err := safepath.ReadFile(dir.Base(), path)
	if errors.Is(err, fs.ErrNotExist) {
		if path = legacyFile(dir, session+".json"); path == "" {
			return st, "", nil
		}
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return st, "", fmt.Errorf("read session state: %w", err)
	}
	st, err = decodeState(b)
	if err != nil {
		return SessionState{}, fmt.Sprintf("session state %s is corrupt (%v); starting from the beginning", path, err), nil
	}
	return st, "", nil
}

func decodeState(b []byte) (SessionState, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return SessionState{}, err
	}
	if m == nil {
		return SessionState{}, errors.New("not a JSON object")
	}
	st := SessionState{extra: map[string]json.RawMessage{}}
	for k, v := range m {
		if err := st.set(k, v, false); err != nil {
			return SessionState{}, err
		}
	}
	return st, nil
}

// set applies one key; with appendSlugs, captured_slugs are added to the
// ones there rather than replacing them.
func (st *SessionState) set(key string, v json.RawMessage, appendSlugs bool) error {
	var err error
	switch key {
	case KeySkillRanAt:
		var s string
		if err = json.Unmarshal(v, &s); err == nil {
			if _, perr := time.Parse(time.RFC3339, s); perr != nil && s != "" {
				err = perr
			}
			st.SkillRanAt = s
		}
	case KeyOffset:
		var n int64
		if err = json.Unmarshal(v, &n); err == nil && n < 0 {
			err = errors.New("negative")
		}
		st.LastProcessedOffset = n
	case KeyCaptured:
		var slugs []string
		if err = json.Unmarshal(v, &slugs); err == nil {
			for _, s := range slugs {
				if !ValidSlug(s) {
					err = fmt.Errorf("slug %q is not kebab-case", s)
				}
			}
		}
		if !appendSlugs {
			st.CapturedSlugs = nil
		}
		st.CapturedSlugs = appendNew(st.CapturedSlugs, slugs...)
	case KeyIssue:
		err = json.Unmarshal(v, &st.Issue)
	default:
		if st.extra == nil {
			st.extra = map[string]json.RawMessage{}
		}
		if !json.Valid(v) {
			err = errors.New("not JSON")
		}
		st.extra[key] = v
	}
	if err != nil {
		return fmt.Errorf("%s: %v: %w", key, err, ErrInvalid)
	}
	return nil
}

// MarshalJSON writes the known keys and the kept ones, sorted.
func (st SessionState) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for k, v := range st.extra {
		m[k] = v
	}
	if st.SkillRanAt != "" {
		m[KeySkillRanAt] = st.SkillRanAt
	}
	m[KeyOffset] = st.LastProcessedOffset
	m[KeyCaptured] = append([]string{}, st.CapturedSlugs...)
	if st.Issue != 0 {
		m[KeyIssue] = st.Issue
	}
	return json.Marshal(m)
}

// Patch is a change to a session's state: the keys to set. captured_slugs are
// appended to the ones recorded (each slug once); every other key replaces
// what was there.
type Patch map[string]json.RawMessage

// NewPatch builds the patch the capture flow commits: the run time, the
// offset when it moves, and the slugs captured.
func NewPatch(ranAt time.Time, offset *int64, captured []string) Patch {
	p := Patch{}
	p[KeySkillRanAt], _ = json.Marshal(ranAt.UTC().Format(time.RFC3339))
	if offset != nil {
		p[KeyOffset], _ = json.Marshal(*offset)
	}
	if len(captured) > 0 {
		p[KeyCaptured], _ = json.Marshal(captured)
	}
	return p
}

// patchOrder lists patch's keys in the order they are written to a new
// state file: the contract's keys in the order the skill sends them, then
// any others sorted.
func patchOrder(patch Patch) []string {
	var keys, rest []string
	for _, k := range []string{KeySkillRanAt, KeyOffset, KeyCaptured, KeyIssue} {
		if _, ok := patch[k]; ok {
			keys = append(keys, k)
		}
	}
	for k := range patch {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// CommitState merges patch into the session's state file under its lock and
// writes it atomically, as the original tool does: the keys there keep their
// order and values, session_id is set, and the patch's keys replace theirs
// (captured_slugs are added to the ones recorded). A new file holds exactly
// session_id and the patch. When baton has no file for the session yet but
// the original tool has one, that file's keys are the starting point. A
// corrupt file is moved aside to <name>.corrupt-<timestamp> first and
// reported in warning.
func CommitState(dir state.Dir, session string, patch Patch, now time.Time) (path, warning string, err error) {
	if err := CheckSessionID(session); err != nil {
		return "", "", err
	}
	// Check the patch before touching the file.
	var probe SessionState
	for k, v := range patch {
		if err := probe.set(k, v, true); err != nil {
			return "", "", err
		}
	}
	path = StatePath(dir, session)
	err = atomicfile.UpdateIn(dir.Base(), path, 0o600, func(old []byte) ([]byte, error) {
		obj := &object{}
		if old == nil {
			// No file of baton's yet: the original tool's, when it reads,
			// is the starting point.
			if legacy := legacyFile(dir, session+".json"); legacy != "" {
				if b, err := os.ReadFile(legacy); err == nil {
					if o, derr := decodeObject(b); derr == nil {
						obj = o
					}
				}
			}
		} else if len(bytes.TrimSpace(old)) > 0 {
			var derr error
			if obj, derr = decodeObject(old); derr != nil {
				aside := path + ".corrupt-" + now.UTC().Format(corruptTimeForm)
				if err := os.Rename(path, aside); err != nil {
					return nil, fmt.Errorf("move corrupt session state aside: %w", err)
				}
				warning = fmt.Sprintf("session state %s was corrupt (%v); moved it to %s", path, derr, aside)
				obj = &object{}
			}
		}
		sid, _ := json.Marshal(session)
		obj.set(KeySession, sid)
		for _, k := range patchOrder(patch) {
			v := patch[k]
			if k == KeyCaptured {
				var had, add []string
				if json.Unmarshal(obj.get(k), &had) != nil {
					had = nil
				}
				json.Unmarshal(v, &add)
				v, _ = json.Marshal(appendNew(had, add...))
			}
			obj.set(k, v)
		}
		return obj.encode()
	})
	if err != nil {
		return "", warning, fmt.Errorf("commit session state: %w", err)
	}
	return path, warning, nil
}

// appendNew appends the items of add not already in list, in order.
func appendNew(list []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
