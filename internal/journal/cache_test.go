package journal

import (
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
