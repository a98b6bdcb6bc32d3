package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/recall"
)

// Bounds of what the layer pages read: the newest entries are at the end
// of each file, and entries are small.
const (
	layerReadBytes = 4 << 20
	maxLayerLine   = 1 << 20
	// layerEntries is how many of a layer's newest entries are shown.
	layerEntries = 30
)

// readLayer decodes the JSON lines of a layer file into recall's entry type
// T, reading at most the file's last layerReadBytes; a missing file has
// none, and lines that do not decode (torn, or from a newer version) are
// skipped. The recall package writes these files; it has no reader of
// its own for L1 and L2 entries.
func readLayer[T any](path string) ([]T, error) {
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
	var r io.Reader = f
	partial := false
	if fi.Size() > layerReadBytes {
		if _, err := f.Seek(fi.Size()-layerReadBytes, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
		}
		partial = true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLayerLine)
	var out []T
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if partial {
			partial = false // the window's first line may have begun before it
			continue
		}
		var v T
		if len(line) > 0 && json.Unmarshal(line, &v) == nil {
			out = append(out, v)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return out, nil
}

// newest returns the last n of xs, newest first.
func newest[T any](xs []T, n int) []T {
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// layerSuffixes are the files a route other than the default one has in
// the context folder, after "<route>-".
var layerSuffixes = []string{"-l1.jsonl", "-l2.jsonl", "-decisions.jsonl", "-candidates.json"}

// routes lists the repository's route first, then the configured ones and
// those with layer files, each once.
func (s *Server) routes() ([]string, error) {
	out := []string{cmp0(s.o.Route, recall.DefaultRoute)}
	add := func(r string) {
		if config.ValidRoute(r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	add(recall.DefaultRoute)
	for _, r := range s.o.Routes {
		add(r)
	}
	entries, err := os.ReadDir(s.o.State.Context())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list context layers: %w", err)
	}
	var found []string
	for _, e := range entries {
		for _, suf := range layerSuffixes {
			if r, ok := strings.CutSuffix(e.Name(), suf); ok {
				found = append(found, r)
			}
		}
	}
	slices.Sort(found)
	for _, r := range found {
		add(r)
	}
	return out, nil
}

func cmp0(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type contextPage struct {
	Routes     []string
	Route      string
	Decisions  []recall.Decision
	Archived   int
	Recents    []recall.Recent
	Dailies    []recall.Daily
	Candidates []recall.Candidate
	Shown      int
}

// context shows one route's layers: L3 decisions, L1 recent summaries and
// L2 daily ones, newest first, and the approvals waiting for a person.
func (s *Server) context(w http.ResponseWriter, r *http.Request) {
	routes, err := s.routes()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := contextPage{Routes: routes, Route: routes[0], Shown: layerEntries}
	if want := r.URL.Query().Get("route"); want != "" {
		if !slices.Contains(routes, want) {
			s.fail(w, r, http.StatusNotFound, errNotFound)
			return
		}
		p.Route = want
	}
	f, err := recall.FilesFor(s.o.State, p.Route)
	if err != nil {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	all, err := recall.ReadDecisions(f, true)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	active, err := recall.ReadDecisions(f, false)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Decisions = newest(active, len(active))
	p.Archived = len(all) - len(active)
	recents, err := readLayer[recall.Recent](f.L1())
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Recents = newest(recents, layerEntries)
	dailies, err := readLayer[recall.Daily](f.L2())
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Dailies = newest(dailies, layerEntries)
	if p.Candidates, err = recall.Pending(f); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, http.StatusOK, "context", "context", msgNavContext.In(s.o.Lang), p)
}
