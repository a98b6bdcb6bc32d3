package journal

import (
	"bytes"
	"io"
	"testing"
)

// TestTailCache checks a caching Journal against a plain one on the same
// folder while other writers append and rotate: every Tail must give the
// same records as reading the files.
func TestTailCache(t *testing.T) {
	dir := t.TempDir()
	cached := Open(dir, Options{CacheTail: true})
	plain := Open(dir, Options{})
	l := int64(len(line(t, testRecord(1000))))
	writer := Open(dir, Options{MaxSize: 60 * l}) // rotates after about 60 records
	cached.blockSize, plain.blockSize = 64, 64    // many reads per window

	next := 1000
	add := func(n int) {
		for range n {
			mustAppend(t, writer, testRecord(next))
			next++
		}
	}
	check := func(step string, n int, opts TailOptions) {
		t.Helper()
		sameRecords(t, step, tailOf(t, cached, n, opts), tailOf(t, plain, n, opts))
	}
	window := TailOptions{MaxBytes: 20 * l}
	odd := TailOptions{MaxBytes: 20 * l, Match: func(r *Record) bool { return r.Offset%2 == 1 }}

	add(25)
	check("first read", 10, window)
	check("same window, other filter", 10, odd)
	add(3) // newer bytes than the cache holds
	check("after appends", 10, window)
	check("wider window", 25, TailOptions{MaxBytes: 28 * l})
	// A rotation, and a new active file long enough for the window to
	// cover offsets the cache holds from the old one. The new file may even
	// get the inode that compressing the old one freed.
	add(62)
	check("after rotation", 12, window)
	check("unbounded", 50, TailOptions{})
	if got := tailOf(t, cached, 3, window); len(got) != 3 || got[2].Offset != int64(next-1) {
		t.Errorf("newest records after rotation = %+v; want up to offset %d", got, next-1)
	}
}

// TestTailCacheKey checks each half of the key: a new inode, or a new
// newest archived segment (a rotation whose new file got the old inode),
// makes the cache read the file again.
func TestTailCacheKey(t *testing.T) {
	oldFile, newFile := bytes.NewReader([]byte("0123456789")), bytes.NewReader([]byte("abcdefghij"))
	key := activeKey{id: fileID{dev: 1, ino: 7}, after: "auto-1"}
	tests := []struct {
		name string
		key  activeKey
		want string
	}{
		{name: "same file", key: key, want: "6789"},
		{name: "new inode", key: activeKey{id: fileID{dev: 1, ino: 8}, after: "auto-1"}, want: "ghij"},
		{name: "reused inode after a rotation", key: activeKey{id: fileID{dev: 1, ino: 7}, after: "auto-2"}, want: "ghij"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &tailCache{}
			c.readerAt(oldFile, key, 10, 4)
			p := make([]byte, 4)
			if _, err := c.readerAt(newFile, tt.key, 10, 4).ReadAt(p, 6); err != nil || string(p) != tt.want {
				t.Errorf("got %q, %v; want %q", p, err, tt.want)
			}
		})
	}
	c := &tailCache{}
	if r := c.readerAt(oldFile, key, 10, maxCached+1); r != io.ReaderAt(oldFile) || c.data != nil {
		t.Errorf("a window wider than maxCached was cached")
	}
}
