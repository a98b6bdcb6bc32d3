package usage

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// benchCorpus returns a folder of transcripts generated once by bench/gen
// with args and kept under $BATON_BENCH_DIR (default the user's cache
// folder's baton-bench).
func benchCorpus(b *testing.B, name string, args ...string) string {
	b.Helper()
	dir := os.Getenv("BATON_BENCH_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			b.Skip("no cache folder for the benchmark data")
		}
		dir = filepath.Join(cache, "baton-bench")
	}
	path := filepath.Join(dir, "usage-"+name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	os.RemoveAll(tmp)
	out := tmp
	if args[0] == "transcript" {
		out = filepath.Join(tmp, "project", "session.jsonl")
	}
	cmd := exec.Command("go", append([]string{"run", "./bench/gen"}, append(args, "-out", out)...)...)
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("generate transcripts: %v\n%s", err, msg)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchScan(b *testing.B, dir string) {
	files, err := Files(dir)
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	var peak uint64
	for b.Loop() {
		r, err := Scan(context.Background(), files, Options{})
		if err != nil || r.Responses == 0 {
			b.Fatalf("scan: %d responses, err %v", r.Responses, err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapSys)
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-sys-MB")
}

// BenchmarkScanLarge counts one 700 MiB transcript.
func BenchmarkScanLarge(b *testing.B) {
	benchScan(b, benchCorpus(b, "700MiB", "transcript", "-size", "700MiB"))
}

// BenchmarkScanMany counts 3,000 transcripts of 300 MiB in all.
func BenchmarkScanMany(b *testing.B) {
	benchScan(b, benchCorpus(b, "3000x300MiB", "transcripts", "-files", "3000", "-size", "300MiB"))
}

// BenchmarkParseLine parses the usage lines of the first 8 MiB of a
// generated transcript, on one core.
func BenchmarkParseLine(b *testing.B) {
	dir := benchCorpus(b, "700MiB", "transcript", "-size", "700MiB")
	files, err := Files(dir)
	if err != nil || len(files) == 0 {
		b.Fatalf("files: %v", err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 8<<20)
	n, _ := io.ReadFull(f, buf)
	var ls [][]byte
	var size int64
	for _, l := range bytes.Split(buf[:n], []byte("\n")) {
		if bytes.Contains(l, usageMarker) {
			ls = append(ls, l)
			size += int64(len(l))
		}
	}
	b.SetBytes(size)
	for b.Loop() {
		read := 0
		for _, l := range ls {
			if _, ok := parseLine(l); ok {
				read++
			}
		}
		if read == 0 {
			b.Fatal("no line read")
		}
	}
}
