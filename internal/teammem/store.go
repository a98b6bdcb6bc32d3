package teammem

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/redact"
)

// Store is one clone's copy of the shared memory.
type Store struct {
	Git Git
	// Author is the person's git identity; Machine this machine's id.
	Author, Machine string
	// LockPath is the lock file that keeps two syncs of one clone apart.
	LockPath string
	// Attempts bounds how many times a push rejected because the remote
	// moved is fetched, merged and tried again (default 10).
	Attempts int

	// beforePush, when set, runs before each push (tests move the remote
	// there).
	beforePush func()
}

// ErrRemoteMoved means every attempt to push found that someone else had
// pushed in between.
var ErrRemoteMoved = errors.New("the remote's memory kept moving while pushing")

// entriesDir and handoffsDir are the ref's two folders.
const (
	entriesDir  = "entries"
	handoffsDir = "handoffs"
)

// File is the path on the ref of the file this author and machine write.
func (s *Store) File() string {
	return entriesDir + "/" + fileKey(s.Author) + "." + fileKey(s.Machine) + ".jsonl"
}

// fileKey makes a name safe as one path part: an identity's email (or the
// whole text without one), lower-case letters, digits, '.', '-', '_' and
// '@'.
func fileKey(s string) string {
	if i, j := strings.LastIndex(s, "<"), strings.LastIndex(s, ">"); i >= 0 && j > i {
		s = s[i+1 : j]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '-', r == '_', r == '@':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

// HandoffPath is where a handoff's transcript is kept on the ref.
func HandoffPath(id string) string { return handoffsDir + "/" + id + ".jsonl" }

// Change is what a sync adds: entries of this author and machine, and
// files (handoff transcripts) by path.
type Change struct {
	Entries []Entry
	Files   map[string][]byte
}

// A Refusal is an entry held back because it would carry a secret.
type Refusal struct {
	Entry Entry
	// Kinds are the kinds of secret found, as redact names them.
	Kinds []string
}

// Result is what a sync did.
type Result struct {
	// Came are the entries of others new in this clone; Went ours pushed.
	Came, Went []Entry
	Refused    []Refusal
	// Pushed is false when the sync only fetched (nothing of ours was new).
	Pushed bool
	// Retries counts pushes rejected because the remote moved.
	Retries int
	// Entries are every entry the clone holds now.
	Entries []Entry
}

// Sync fetches the remote's memory, merges it with this clone's and ch,
// and pushes the result when it holds something the remote lacks. With
// push false it only fetches and merges. An entry that would carry a secret
// is held back and listed in Result.Refused.
func (s *Store) Sync(ctx context.Context, ch Change, push bool) (Result, error) {
	var res Result
	lock := flock.New(s.LockPath)
	if err := lock.Lock(); err != nil {
		return res, fmt.Errorf("lock shared memory: %w", err)
	}
	defer lock.Unlock()

	startFiles, err := s.Git.filesAt(ctx, Ref)
	if err != nil {
		return res, err
	}
	add := make([]Entry, 0, len(ch.Entries))
	for _, e := range ch.Entries {
		e.Author, e.Machine = s.Author, s.Machine
		e.Seal()
		if e.check() != nil {
			continue // no clone would read it
		}
		add = append(add, e)
	}
	scanned := map[string][]string{}
	attempts := s.Attempts
	if attempts <= 0 {
		attempts = 10
	}
	for try := 0; ; try++ {
		remote, err := s.Git.fetch(ctx)
		if err != nil {
			return res, err
		}
		local, err := s.Git.tip(ctx, Ref)
		if err != nil {
			return res, err
		}
		tree, went, refused, err := s.merge(ctx, local, remote, add, ch.Files, scanned)
		if err != nil {
			return res, err
		}
		remoteTree, err := s.Git.treeOf(ctx, remote)
		if err != nil {
			return res, err
		}
		res.Refused = refused
		if tree == remoteTree {
			// The remote holds everything: take its commit.
			if local != remote {
				if err := s.Git.setRef(ctx, Ref, remote, local); err != nil {
					return res, err
				}
			}
			res.Went = nil
			break
		}
		parents := []string{remote}
		if local != remote {
			parents = append(parents, local)
		}
		c, err := s.Git.commit(ctx, tree, "baton: shared memory", parents...)
		if err != nil {
			return res, err
		}
		if err := s.Git.setRef(ctx, Ref, c, local); err != nil {
			return res, err
		}
		res.Went = went
		if !push {
			break
		}
		if s.beforePush != nil {
			s.beforePush()
		}
		if err := s.Git.push(ctx); err == nil {
			res.Pushed = true
			break
		} else if try+1 >= attempts {
			return res, fmt.Errorf("%w: %w", ErrRemoteMoved, err)
		}
		res.Retries++
		if err := backoff(ctx, try); err != nil {
			return res, err
		}
	}
	endFiles, err := s.Git.filesAt(ctx, Ref)
	if err != nil {
		return res, err
	}
	res.Entries, err = s.read(ctx, endFiles, nil)
	if err != nil {
		return res, err
	}
	// What came is in the others' files that changed since the start:
	// only those are read as they were.
	changed := func(p string) bool { return startFiles[p] != endFiles[p] && p != s.File() }
	before, err := s.read(ctx, startFiles, changed)
	if err != nil {
		return res, err
	}
	had := map[string]bool{}
	for _, e := range before {
		had[e.ID] = true
	}
	now, err := s.read(ctx, endFiles, changed)
	if err != nil {
		return res, err
	}
	for _, e := range now {
		if !had[e.ID] && e.Machine != s.Machine {
			res.Came = append(res.Came, e)
		}
	}
	return res, nil
}

// secretsIn returns the kinds of secret the entry's text holds.
func secretsIn(e Entry) []string {
	var kinds []string
	for _, t := range e.Texts() {
		if r := redact.Redact(t); r != t {
			for _, k := range redactedKinds(r) {
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
		}
	}
	return kinds
}

// redactedKinds lists the kinds in the [REDACTED:<kind>] markers of s; a
// private span removed leaves none, and reads as "private".
func redactedKinds(s string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(s, "[REDACTED:")
		if !ok {
			break
		}
		kind, after, ok := strings.Cut(rest, "]")
		if !ok {
			break
		}
		out = append(out, kind)
		s = after
	}
	if len(out) == 0 {
		out = append(out, "private")
	}
	return out
}

// merge writes the union of the local and remote trees, with add appended
// to this author's file and files added, and returns the tree, the entries
// of add that were new, and those of them held back because they would
// carry a secret. Only new entries are scanned; scanned keeps what was
// found across attempts.
func (s *Store) merge(ctx context.Context, local, remote string, add []Entry, files map[string][]byte, scanned map[string][]string) (string, []Entry, []Refusal, error) {
	lf, err := s.Git.files(ctx, local)
	if err != nil {
		return "", nil, nil, err
	}
	rf, err := s.Git.files(ctx, remote)
	if err != nil {
		return "", nil, nil, err
	}
	out := maps.Clone(rf)
	var differ []string
	for path, blob := range lf {
		if r, ok := rf[path]; ok && r != blob {
			differ = append(differ, path)
		}
		if _, ok := rf[path]; !ok {
			out[path] = blob
		}
	}
	mine := s.File()
	var need []string
	for _, p := range differ {
		need = append(need, lf[p], rf[p])
	}
	if b, ok := out[mine]; ok && len(add) > 0 && !slices.Contains(differ, mine) {
		need = append(need, b)
	}
	blobs, err := s.Git.blobs(ctx, need)
	if err != nil {
		return "", nil, nil, err
	}
	content := map[string][]byte{}
	for _, p := range differ {
		content[p] = unionLines(blobs[lf[p]], blobs[rf[p]])
	}
	var went []Entry
	var refused []Refusal
	if len(add) > 0 {
		cur, ok := content[mine]
		if !ok {
			cur = blobs[out[mine]]
		}
		seen := idsIn(cur)
		for _, e := range add {
			if seen[e.ID] {
				continue
			}
			seen[e.ID] = true
			kinds, ok := scanned[e.ID]
			if !ok {
				kinds = secretsIn(e)
				scanned[e.ID] = kinds
			}
			if len(kinds) > 0 {
				refused = append(refused, Refusal{Entry: e, Kinds: kinds})
				continue
			}
			went = append(went, e)
		}
		if len(went) > 0 {
			content[mine] = append(append([]byte(nil), cur...), encodeLines(went)...)
		}
	}
	for p, b := range files {
		if _, ok := out[p]; !ok {
			content[p] = b
		}
	}
	for p, b := range content {
		id, err := s.Git.writeBlob(ctx, b)
		if err != nil {
			return "", nil, nil, err
		}
		out[p] = id
	}
	if len(out) == 0 {
		return "", went, refused, nil
	}
	tree, err := s.Git.writeTree(ctx, out)
	return tree, went, refused, err
}

// idsIn returns the ids of a file of this author's entries, without
// checking them: they only keep an entry from being appended twice.
func idsIn(b []byte) map[string]bool {
	seen := map[string]bool{}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		var e struct {
			ID string `json:"id"`
		}
		if len(line) > 0 && json.Unmarshal(line, &e) == nil {
			seen[e.ID] = true
		}
	}
	return seen
}

// unionLines is a's lines, then b's lines that a lacks.
func unionLines(a, b []byte) []byte {
	have := map[string]bool{}
	for _, l := range bytes.Split(a, []byte{'\n'}) {
		have[string(l)] = true
	}
	out := append([]byte(nil), a...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		if len(l) > 0 && !have[string(l)] {
			have[string(l)] = true
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

// read returns the entries of the authors' files among files (those only
// admits, every one when only is nil), each id once.
func (s *Store) read(ctx context.Context, files map[string]string, only func(path string) bool) ([]Entry, error) {
	var paths, ids []string
	for p, id := range files {
		if strings.HasPrefix(p, entriesDir+"/") && strings.HasSuffix(p, ".jsonl") && (only == nil || only(p)) {
			paths = append(paths, p)
			ids = append(ids, id)
		}
	}
	slices.Sort(paths)
	blobs, err := s.Git.blobs(ctx, ids)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Entry
	for _, p := range paths {
		out = append(out, parseLines(blobs[files[p]], seen)...)
	}
	return out, nil
}

// Entries returns the entries this clone holds, without fetching.
func (s *Store) Entries(ctx context.Context) ([]Entry, error) {
	files, err := s.Git.filesAt(ctx, Ref)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, files, nil)
}

// ReadFile returns a file of the ref as this clone holds it, nil when it
// has none.
func (s *Store) ReadFile(ctx context.Context, path string) ([]byte, error) {
	files, err := s.Git.filesAt(ctx, Ref)
	if err != nil {
		return nil, err
	}
	id, ok := files[path]
	if !ok {
		return nil, nil
	}
	b, err := s.Git.blobs(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	return b[id], nil
}

// backoff waits a random while up to a bound that doubles with each try
// (100 ms, 200 ms, … at most 3 s), so that clones pushing at once stop
// meeting.
func backoff(ctx context.Context, try int) error {
	d := time.Duration(rand.Int64N(int64(min(100*time.Millisecond<<min(try, 5), 3*time.Second))))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
