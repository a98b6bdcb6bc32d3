package journal

import (
	"io"
	"sync"
	"syscall"
)

// fileID tells files apart while they exist: device and inode.
type fileID struct{ dev, ino uint64 }

func idOf(st *syscall.Stat_t) fileID { return fileID{dev: uint64(st.Dev), ino: st.Ino} }

// activeKey tells active files apart: a rotation can free an inode that the
// next active file gets, but it also adds the newest archived segment.
type activeKey struct {
	id    fileID
	after string // the newest archived segment, "" when there is none
}

func (s *snapshot) activeKey() activeKey {
	k := activeKey{id: s.activeID}
	if n := len(s.archived); n > 0 {
		k.after = s.archived[n-1].base
	}
	return k
}

// tailCache keeps the end of the active file that a bounded Tail read, for
// the Journal's next bounded Tails. The active file only grows while it is
// active, so bytes read once stay true for as long as it is the same file.
type tailCache struct {
	mu   sync.Mutex
	key  activeKey
	base int64 // offset in the file of data[0]
	data []byte
}

// maxCached is the widest window a tailCache reads ahead of need: a Tail
// may stop after a few lines of a wide window, and the cache must not turn
// that into reading megabytes.
const maxCached = 1 << 20

// readerAt returns a reader of the active file f, identified by key and
// size bytes long, that answers from memory for [size-window, size), reading
// those bytes first unless they are already cached. A window wider than
// maxCached is read from f.
func (c *tailCache) readerAt(f io.ReaderAt, key activeKey, size, window int64) io.ReaderAt {
	if window > maxCached {
		return f
	}
	lo := max(size-window, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data == nil || c.key != key || lo < c.base {
		data := make([]byte, size-lo)
		if _, err := f.ReadAt(data, lo); err != nil {
			return f
		}
		c.key, c.base, c.data = key, lo, data
	}
	return cachedFile{f: f, base: c.base, data: c.data}
}

// cachedFile reads from data what lies in it and from f the rest.
type cachedFile struct {
	f    io.ReaderAt
	base int64
	data []byte
}

func (c cachedFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.base && off+int64(len(p)) <= c.base+int64(len(c.data)) {
		return copy(p, c.data[off-c.base:]), nil
	}
	return c.f.ReadAt(p, off)
}
