package transcript

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// benchTranscript returns a 1 GiB transcript of real shape, generated once by
// bench/gen and kept in the user's cache folder (or $BATON_BENCH_CACHE).
func benchTranscript(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("BATON_BENCH_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			b.Skip("no cache folder for the benchmark data")
		}
		dir = filepath.Join(cache, "baton-bench")
	}
	path := filepath.Join(dir, "transcript-1GiB.jsonl")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".tmp"
	cmd := exec.Command("go", "run", "./bench/gen", "transcript", "-size", "1GiB", "-out", tmp)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("generate transcript: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRead reads a 1 GiB transcript from the start; MB/s is the scan
// rate and peak-heap-MB shows memory does not grow with the file.
func BenchmarkRead(b *testing.B) {
	path := benchTranscript(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	var peak uint64
	for b.Loop() {
		msgs := 0
		end, err := Read(context.Background(), path, 0, func(m *Message) error {
			msgs++
			if msgs%200000 == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			return nil
		})
		if err != nil || end != fi.Size() || msgs == 0 {
			b.Fatalf("read: end %d of %d, %d messages, err %v", end, fi.Size(), msgs, err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
