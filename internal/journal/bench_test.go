package journal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkAppend(b *testing.B) {
	j := Open(b.TempDir(), Options{})
	rec := newRecordGen(1).record(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := j.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTail measures Tail(30) on journals of realistic records; its B/op
// is the same whatever the journal's size. The 1 GB journal is made once and
// kept in $BATON_BENCH_DIR (default: the system temp folder) for later runs.
func BenchmarkTail(b *testing.B) {
	for _, bb := range []struct {
		name string
		size int64
	}{
		{"10MB", 10 << 20},
		{"1GB", 1 << 30},
	} {
		b.Run(bb.name, func(b *testing.B) {
			j := Open(benchJournal(b, bb.name, bb.size), Options{})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				recs, err := j.Tail(ctx, 30, TailOptions{})
				if err != nil || len(recs) != 30 {
					b.Fatalf("Tail: got %d records, %v; want 30", len(recs), err)
				}
			}
		})
	}
}

// benchJournal returns a state folder whose active file holds at least size
// bytes of realistic records, reusing one made by an earlier run.
func benchJournal(b *testing.B, name string, size int64) string {
	b.Helper()
	root := os.Getenv("BATON_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "baton-bench")
	}
	dir := filepath.Join(root, "journal-"+name)
	path := filepath.Join(dir, ActiveName)
	if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
		return withLockFile(b, dir)
	}
	b.Logf("writing a %s journal to %s", name, path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	// Written aside and renamed, so that an interrupted run is not reused.
	tmp := path + ".tmp"
	writeRealistic(b, tmp, size)
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return withLockFile(b, dir)
}

// withLockFile adds the lock file a journal written by Append has, so that
// Tail pays for taking it.
func withLockFile(b *testing.B, dir string) string {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return dir
}
