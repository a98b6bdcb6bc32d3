package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// DefaultRoute is the route of a repository's agent sessions.
const DefaultRoute = config.DefaultContextRoute

// ErrRoute marks a route name that cannot be used.
var ErrRoute = errors.New("invalid route name")

// Files are the layer files of one route in a state folder.
type Files struct {
	// Dir is the state folder's context/ folder.
	Dir string
	// Route is the route's name.
	Route string
}

// FilesFor returns the files of route in the state folder d. An empty route
// is the default one. Files reached through a link are refused.
func FilesFor(d state.Dir, route string) (Files, error) {
	if route == "" {
		route = DefaultRoute
	}
	if !config.ValidRoute(route) {
		return Files{}, fmt.Errorf("%w: %q", ErrRoute, route)
	}
	f := Files{Dir: d.Context(), Route: route}
	if err := f.check(d.Base()); err != nil {
		return Files{}, err
	}
	return f, nil
}

// check refuses the files when a folder on the way from root (the folder
// holding the state folder) or one of the files or their locks is a link
// (an error wrapping safepath.ErrLink): a cloned repository can plant
// them, and the files are opened by name after this.
func (f Files) check(root string) error {
	paths := []string{f.L1(), f.L2(), f.Decisions(), f.ArchivedDecisions(), f.Candidates(), f.Usage()}
	for _, p := range paths {
		for _, q := range []string{p, p + ".lock"} {
			if err := safepath.Check(root, q); err != nil {
				return fmt.Errorf("context files: %w", err)
			}
		}
	}
	return nil
}

func (f Files) name(base string) string {
	if f.Route == DefaultRoute {
		return base
	}
	return f.Route + "-" + base
}

// L1 is the recent-summary file.
func (f Files) L1() string { return filepath.Join(f.Dir, f.name("l1.jsonl")) }

// L2 is the daily-summary file.
func (f Files) L2() string { return filepath.Join(f.Dir, f.name("l2.jsonl")) }

// Decisions is the approved-decision log (L3).
func (f Files) Decisions() string { return filepath.Join(f.Dir, f.name("decisions.jsonl")) }

// ArchivedDecisions is where decisions past the archive age go.
func (f Files) ArchivedDecisions() string {
	return filepath.Join(f.Dir, "archive", f.name("decisions.jsonl"))
}

// Candidates holds approval-phrase candidates waiting for a person.
func (f Files) Candidates() string { return filepath.Join(f.Dir, f.name("candidates.json")) }

// Usage holds the LLM tokens each route used per day.
func (f Files) Usage() string { return filepath.Join(f.Dir, "usage.json") }

// appendLine appends v as one JSON line to path under the lock that
// rewrites of path (archiving) take too, so an append is never lost to a
// concurrent rewrite. The context folder is made when missing, but not the
// state folder above it: a job whose repository has gone writes nothing.
func appendLine(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return appendRaw(path, append(b, '\n'))
}

func appendRaw(path string, lines []byte) error {
	if err := mkdirUnder(filepath.Dir(path)); err != nil {
		return err
	}
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", filepath.Base(path), err)
	}
	defer lock.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append %s: %w", filepath.Base(path), err)
	}
	if _, err := f.Write(lines); err != nil {
		f.Close()
		return fmt.Errorf("append %s: %w", filepath.Base(path), err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// mkdirUnder makes dir when its parent exists: context/ inside an existing
// state folder, archive/ inside context/.
func mkdirUnder(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		if errors.Is(err, fs.ErrNotExist) && filepath.Base(dir) == "archive" {
			if err := mkdirUnder(filepath.Dir(dir)); err != nil {
				return err
			}
			return mkdirUnder(dir)
		}
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

// tailLines returns the complete, non-empty lines in the last limit bytes
// of path (all of it when limit <= 0), oldest first. A missing file has
// none. It reads once and decodes nothing, so callers can decode from the
// newest line back and stop early.
func tailLines(path string, limit int64) ([][]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	size, off := fi.Size(), int64(0)
	if limit > 0 && size > limit {
		off = size - limit - 1 // one byte more: does the window start a line?
	}
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if off > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, nil
		}
		buf = buf[i+1:]
	}
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i] // a last line without its newline is still being written
	} else {
		return nil, nil
	}
	var lines [][]byte
	for line := range bytes.SplitSeq(buf, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines, nil
}

// lastOf returns the newest line of path, within its last limit bytes,
// that decodes into a T; ok is false when there is none. Only the lines
// after it are decoded too.
func lastOf[T any](path string, limit int64) (v T, ok bool, err error) {
	lines, err := tailLines(path, limit)
	if err != nil {
		return v, false, err
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var x T
		if json.Unmarshal(lines[i], &x) == nil {
			return x, true, nil
		}
	}
	return v, false, nil
}

// readAll decodes every line of path (its last limit bytes when limit > 0)
// into a T, skipping lines that do not decode (a line written by a newer
// version, a damaged one).
func readAll[T any](path string, limit int64) ([]T, error) {
	lines, err := tailLines(path, limit)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(lines))
	for _, line := range lines {
		var x T
		if json.Unmarshal(line, &x) == nil {
			out = append(out, x)
		}
	}
	return out, nil
}

// Layers is everything a route holds, for showing it.
type Layers struct {
	Decisions  []Decision
	Recent     []Recent
	Daily      []Daily
	Candidates []Candidate
}

// ReadRecent returns the route's recent summaries (L1) in the last limit
// bytes of their file (all of it when limit <= 0), oldest first.
func ReadRecent(f Files, limit int64) ([]Recent, error) {
	return readAll[Recent](f.L1(), limit)
}

// ReadLayers reads a route's layers: the decisions (archived ones first
// with archived), every L1 and L2 entry, oldest first, and the candidates
// waiting for approval.
func ReadLayers(f Files, archived bool) (Layers, error) {
	var l Layers
	var err error
	if l.Decisions, err = ReadDecisions(f, archived); err != nil {
		return l, err
	}
	if l.Recent, err = readAll[Recent](f.L1(), 0); err != nil {
		return l, err
	}
	if l.Daily, err = readAll[Daily](f.L2(), 0); err != nil {
		return l, err
	}
	l.Candidates, err = Pending(f)
	return l, err
}
