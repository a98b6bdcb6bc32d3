package cue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// The recall file, context/recall.idx:
//
//	baton-recall 1 <unix seconds when built>
//	<one JSON entry a line>
//	…
//	(an empty line)
//	<term>\t<offset>,<offset>,…   sorted by term, bytewise
//
// An offset is where an entry's line starts in the file. A reader reads
// the file once, finds a term by binary search over the sorted lines and
// decodes only the entries a term points to.
const (
	header = "baton-recall 1 "
	// MaxFile is the largest recall file a hook reads; a larger one is
	// refused (Build keeps far below it).
	MaxFile = 4 << 20
)

// Path is the recall file of the state folder d.
func Path(d state.Dir) string { return filepath.Join(d.Context(), "recall.idx") }

// Entry kinds.
const (
	kindDecision = "d"
	kindSession  = "s"
	kindCommand  = "c" // a Bash command that failed
	kindFile     = "f" // a tool call on a file that failed
)

// An entry is one piece of earlier work.
type entry struct {
	Kind string    `json:"k"`
	When time.Time `json:"t"`
	// Text is a decision's summary, a session's opening prompt or goal.
	Text string `json:"x,omitempty"`
	// Ref names it: a decision's source ("issue #12"), a session's id.
	Ref    string `json:"r,omitempty"`
	Slug   string `json:"slug,omitempty"`
	Branch string `json:"b,omitempty"`
	// Files are the paths it names, relative to a worktree.
	Files []string `json:"f,omitempty"`
	// A failure: the command key and line (or the tool), exit status,
	// first error line, how many times it failed in the window read, and
	// the lines of the same command that succeeded after the last failure,
	// newest first.
	Key   string `json:"key,omitempty"`
	Cmd   string `json:"c,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Exit  *int   `json:"e,omitempty"`
	Err   string `json:"err,omitempty"`
	Fails int    `json:"n,omitempty"`
	// Since is when the oldest of those failures was.
	Since  time.Time `json:"since,omitzero"`
	Worked []string  `json:"ok,omitempty"`
}

// ErrCorrupt marks a recall file that is not in the expected format.
var ErrCorrupt = errors.New("recall file is damaged")

// file is a recall file mapped into memory: only the pages a lookup
// touches are read.
type file struct {
	data  []byte
	terms []byte // the sorted term lines
	built time.Time
	unmap func() error
}

// close releases the file's memory; its data must not be used after.
func (f *file) close() {
	if f != nil && f.unmap != nil {
		f.unmap()
	}
}

// load maps the recall file of the state folder d into memory, never
// through a link (see package safepath). A missing file is an
// empty one (nil, nil); a file over MaxFile, or not in the format, is an
// error. The caller closes the file, and reads it with faults turned into
// panics (guard): the file is replaced by renames, never cut in place, but
// a file cut by someone else must not crash the hook.
func load(d state.Dir) (*file, error) {
	path := Path(d)
	f, err := safepath.Open(d.Base(), path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read recall file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read recall file: %w", err)
	}
	switch size := fi.Size(); {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("read recall file: %s is not a file", path)
	case size > MaxFile:
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrCorrupt, size, MaxFile)
	case size == 0:
		return nil, fmt.Errorf("%w: empty", ErrCorrupt)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		// Not mappable (an odd file system): read it.
		data = make([]byte, fi.Size())
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, fmt.Errorf("read recall file: %w", err)
		}
		return parse(data)
	}
	rf, err := parse(data)
	if err != nil {
		syscall.Munmap(data)
		return nil, err
	}
	rf.unmap = func() error { return syscall.Munmap(data) }
	return rf, nil
}

// guard turns a memory fault while reading a mapped recall file (a file
// cut short under the reader) into an error, in functions that defer it
// with their error result.
func guard(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			*err = fmt.Errorf("%w: read fault: %v", ErrCorrupt, r)
		}
	}
}

func parse(data []byte) (*file, error) {
	first, _, ok := bytes.Cut(data, []byte("\n"))
	rest, isRecall := bytes.CutPrefix(first, []byte(header))
	if !ok || !isRecall {
		return nil, fmt.Errorf("%w: no header", ErrCorrupt)
	}
	sec, err := strconv.ParseInt(string(rest), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: header %q", ErrCorrupt, first)
	}
	i := bytes.Index(data, []byte("\n\n"))
	if i < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, fmt.Errorf("%w: no term section", ErrCorrupt)
	}
	return &file{data: data, terms: data[i+2:], built: time.Unix(sec, 0)}, nil
}

// lookup returns the offsets of the entries holding term.
func (f *file) lookup(term string) ([]int, error) {
	if f == nil {
		return nil, nil
	}
	sec := f.terms
	lo, hi := 0, len(sec)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + bytes.LastIndexByte(sec[lo:mid], '\n') + 1 // the start of mid's line
		e := bytes.IndexByte(sec[s:hi], '\n')
		if e < 0 {
			return nil, fmt.Errorf("%w: term line not ended", ErrCorrupt)
		}
		e += s
		name, posts, ok := bytes.Cut(sec[s:e], []byte("\t"))
		if !ok {
			return nil, fmt.Errorf("%w: term line without offsets", ErrCorrupt)
		}
		switch c := strings.Compare(term, string(name)); {
		case c == 0:
			return f.offsets(posts)
		case c < 0:
			hi = s
		default:
			lo = e + 1
		}
	}
	return nil, nil
}

func (f *file) offsets(posts []byte) ([]int, error) {
	var out []int
	for p := range bytes.SplitSeq(posts, []byte(",")) {
		n, err := strconv.Atoi(string(p))
		if err != nil || n <= 0 || n >= len(f.data) || f.data[n-1] != '\n' {
			return nil, fmt.Errorf("%w: bad entry offset %q", ErrCorrupt, p)
		}
		out = append(out, n)
	}
	return out, nil
}

// entry decodes the entry whose line starts at off.
func (f *file) entry(off int) (entry, error) {
	var e entry
	end := bytes.IndexByte(f.data[off:], '\n')
	if end < 0 {
		return e, fmt.Errorf("%w: entry not ended", ErrCorrupt)
	}
	if err := json.Unmarshal(f.data[off:off+end], &e); err != nil {
		return e, fmt.Errorf("%w: entry at %d: %v", ErrCorrupt, off, err)
	}
	return e, nil
}

// writer assembles a recall file.
type writer struct {
	entries []entry
	terms   map[string][]int // term -> entry numbers
}

func newWriter() *writer { return &writer{terms: map[string][]int{}} }

// add appends e with its terms (each at most once).
func (w *writer) add(e entry, terms []string) {
	n := len(w.entries)
	w.entries = append(w.entries, e)
	for _, t := range terms {
		if t == "" || strings.ContainsAny(t, "\t\n") {
			continue
		}
		if p := w.terms[t]; len(p) > 0 && p[len(p)-1] == n {
			continue
		}
		w.terms[t] = append(w.terms[t], n)
	}
}

// bytes lays the file out. Plain words found in more than maxShare of the
// entries (and more than a few) are left out: they point at no one piece
// of work.
func (w *writer) bytes(built time.Time) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%d\n", header, built.Unix())
	offs := make([]int, len(w.entries))
	for i, e := range w.entries {
		line, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		offs[i] = b.Len()
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	limit := max(4, len(w.entries)/8)
	names := make([]string, 0, len(w.terms))
	for t, posts := range w.terms {
		if len(posts) > limit && !strings.HasPrefix(t, filePrefix) && !strings.HasPrefix(t, cmdPrefix) && !strings.HasPrefix(t, cmdWordPrefix) && !strings.HasPrefix(t, "#") {
			continue
		}
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		b.WriteString(t)
		b.WriteByte('\t')
		for i, n := range w.terms[t] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(offs[n]))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}
