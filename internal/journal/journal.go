package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// Files inside the state folder.
const (
	// ActiveName is the file Append writes to.
	ActiveName = "auto.jsonl"
	// lockName is the lock file every writer holds exclusively while it
	// appends or rotates, and readers hold shared while they open the active
	// file and list the archive. It is never renamed, unlike the active file.
	lockName = "auto.jsonl.lock"
	// archiveName is the folder of rotated segments.
	archiveName = "archive"
)

// DefaultMaxSize is the size past which the active file is rotated when
// Options.MaxSize is 0.
const DefaultMaxSize = 32 << 20

// defaultBlockSize is how much Tail reads at a time going backwards.
const defaultBlockSize = 64 << 10

// ErrOffset means Scan was given an offset before 0 or past the end of the
// journal. An offset from an earlier Scan only gets there when the journal
// was deleted or replaced, or its newest archive segment removed: start again
// from 0.
var ErrOffset = errors.New("offset outside the journal")

// ErrRotate marks an Append error that happened after the records were
// written, while rotating the active file: the records are in the journal.
var ErrRotate = errors.New("rotate journal")

// Options configures a Journal.
type Options struct {
	// MaxSize is the size in bytes past which Append rotates the active file
	// into the archive. 0 means DefaultMaxSize; a negative value never rotates.
	MaxSize int64
	// Now is the clock for records without a time and for archive names.
	// nil means time.Now.
	Now func() time.Time
	// CacheTail keeps in memory the end of the active file that a Tail with
	// MaxBytes read, and later such Tails of this Journal read it from there.
	// It is for a process that makes several Tails of the same window at
	// once, as a session start does; the memory is held with the Journal.
	CacheTail bool
}

// Journal is the journal in one state folder. It holds no open files, and no
// in-memory state but what Options.CacheTail keeps (bytes that stay true while
// the file they came from exists), so any number of Journals, in any number
// of processes, can use the same folder at once. Its methods are safe for
// concurrent use.
//
// The journal is a sequence of segments: the archived ones under archive/,
// oldest first, then the active file auto.jsonl. An Offset is a byte position
// in their concatenation, so it stays valid when the active file is rotated.
//
// Its files are opened without following links below the folder holding
// the state folder (state.Dir.Base): a link planted there is refused with an
// error wrapping safepath.ErrLink.
//
// Writers that are not baton must take the lock file auto.jsonl.lock
// exclusively (flock) around their appends, or rotation may lose their lines.
type Journal struct {
	dir, root string
	maxSize   int64
	now       func() time.Time
	blockSize int
	cache     *tailCache // nil unless Options.CacheTail
}

// Offset is a byte position in the journal: in the concatenation of all its
// segments, oldest archive first, then the active file.
type Offset int64

// Open returns the journal kept in the state folder dir. It does no I/O: the
// folder and files are created by the first Append.
func Open(dir string, opts Options) *Journal {
	j := &Journal{dir: dir, root: state.Dir{Root: dir}.Base(), maxSize: opts.MaxSize, now: opts.Now, blockSize: defaultBlockSize}
	if opts.CacheTail {
		j.cache = &tailCache{}
	}
	if j.maxSize == 0 {
		j.maxSize = DefaultMaxSize
	}
	if j.now == nil {
		j.now = time.Now
	}
	return j
}

// Path returns the path of the active file, auto.jsonl.
func (j *Journal) Path() string { return filepath.Join(j.dir, ActiveName) }

func (j *Journal) lockPath() string   { return filepath.Join(j.dir, lockName) }
func (j *Journal) archiveDir() string { return filepath.Join(j.dir, archiveName) }

// openDir opens the state folder under the trusted root, refusing links on
// the way; with create it makes the missing folders.
func (j *Journal) openDir(create bool) (safepath.Dir, error) {
	d, err := safepath.OpenDir(j.root, j.dir, create, 0o700)
	if err != nil {
		return d, fmt.Errorf("open state folder: %w", err)
	}
	return d, nil
}

// lockExclusive takes the writers' lock, creating the state folder and the
// lock file when they are missing. Closing the descriptor releases it.
func (j *Journal) lockExclusive() (fdFile, error) {
	d, err := j.openDir(true)
	if err != nil {
		return -1, err
	}
	defer d.Close()
	return lockExclusiveIn(d)
}

// lockExclusiveIn is lockExclusive in the state folder d, already open.
func lockExclusiveIn(d safepath.Dir) (fdFile, error) {
	fd, err := lockFD(d, lockName, syscall.O_RDONLY|syscall.O_CREAT, syscall.LOCK_EX)
	if err != nil {
		return -1, fmt.Errorf("lock journal: %w", err)
	}
	return fdFile(fd), nil
}

// lockShared takes the lock shared in the state folder d and returns its
// release. Without a lock file no baton writer ever ran here: readers go on
// unlocked rather than create files.
func lockShared(d safepath.Dir) (unlock func(), err error) {
	fd, err := lockFD(d, lockName, syscall.O_RDONLY, syscall.LOCK_SH)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	return func() { syscall.Close(fd) }, nil
}

// snapshot is the journal's segments seen at one instant.
type snapshot struct {
	active   *segmentFile // nil when there is no active file
	activeID fileID
	archived []segment // oldest first
}

// snapshot opens the active file and lists the archive under the shared lock,
// so a rotation cannot slip between the two. Once open, the active file can
// be renamed without harm; archived segments are immutable.
func (j *Journal) snapshot() (*snapshot, error) {
	s := &snapshot{}
	d, err := j.openDir(false)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil // no state folder: an empty journal
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	unlock, err := lockShared(d)
	if err != nil {
		return nil, err
	}
	defer unlock()

	fd, err := d.OpenFD(ActiveName, syscall.O_RDONLY, 0)
	switch {
	case err == nil:
		f := fdFile(fd)
		st, err := f.stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("stat journal: %w", err)
		}
		s.active = &segmentFile{at: f, closer: f, size: st.Size}
		s.activeID = idOf(st)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open journal: %w", err)
	}
	if s.archived, err = j.listArchive(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *snapshot) close() {
	if s.active != nil {
		s.active.Close()
	}
}

// syncDir makes the renames and removals in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
