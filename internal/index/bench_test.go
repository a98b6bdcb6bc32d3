package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/state"
)

// benchIndex returns an index of a journal of 1M generated records, built
// once and kept under $BATON_BENCH_DIR (default /tmp/baton-bench).
func benchIndex(b *testing.B) *Index {
	b.Helper()
	dir := os.Getenv("BATON_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "baton-bench")
	}
	st := state.Dir{Root: filepath.Join(dir, "index-1M")}
	ctx := context.Background()
	opts := Options{Sources: Sources{State: st}}
	if _, err := os.Stat(st.Index() + ".done"); err != nil {
		os.RemoveAll(st.Root)
		if err := os.MkdirAll(st.Root, 0o755); err != nil {
			b.Fatal(err)
		}
		// About 265 bytes a record.
		cmd := exec.Command("go", "run", "./bench/gen", "journal", "-size", "270MiB", "-out", st.Journal())
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("generate journal: %v\n%s", err, out)
		}
		ix, err := Open(ctx, st.Index(), opts)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := ix.CatchUp(ctx, nil); err != nil {
			b.Fatal(err)
		}
		n, _ := ix.Stats(ctx)
		b.Logf("indexed %d records in %v", n[KindJournal], time.Since(start))
		ix.Close()
		if err := os.WriteFile(st.Index()+".done", nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ix, err := Open(ctx, st.Index(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	// Nothing to do when it is caught up; everything to read again when a
	// newer schema emptied it.
	if err := ix.CatchUp(ctx, nil); err != nil {
		b.Fatal(err)
	}
	n, err := ix.Stats(ctx)
	if err != nil || n[KindJournal] < 1_000_000 {
		b.Fatalf("index holds %d records (%v); want 1M", n[KindJournal], err)
	}
	return ix
}

// BenchmarkSearch1M runs typical searches over 1M journal records after
// catch-up (CatchUp with nothing new is part of each search, as in `baton
// search`); the median of the queries' times is reported as median-ms.
func BenchmarkSearch1M(b *testing.B) {
	ix := benchIndex(b)
	ctx := context.Background()
	queries := []Query{
		{Text: "handler_test.go"},
		{Text: "web/src/components/index.tsx"},
		{Text: "テスト"},
		{Text: `"git status"`},
		{Text: "Makefile", Kinds: []Kind{KindJournal}},
		{Text: "refactor AND 設計"},
		{Text: "decision", Since: time.Date(2026, 9, 20, 0, 0, 0, 0, time.UTC)},
		{Text: "worktree OR branch", Limit: 50, Offset: 100},
	}
	var times []time.Duration
	for _, q := range queries {
		b.Run(q.Text, func(b *testing.B) {
			for b.Loop() {
				if err := ix.CatchUp(ctx, nil); err != nil {
					b.Fatal(err)
				}
				r, err := ix.Search(ctx, q)
				if err != nil || r.Total == 0 {
					b.Fatalf("search %q: %v, %d hits", q.Text, err, r.Total)
				}
			}
			times = append(times, b.Elapsed()/time.Duration(b.N))
		})
	}
	slices.Sort(times)
	if len(times) > 0 {
		b.Logf("median of %d queries: %v (fastest %v, slowest %v)", len(times), times[len(times)/2], times[0], times[len(times)-1])
	}
}

// BenchmarkRebuild rebuilds an index of 300 MiB of generated transcripts
// (bench/gen transcripts, kept under $BATON_BENCH_DIR), as `baton reindex`
// does; bench/reindex measures the whole command's wall time and memory.
func BenchmarkRebuild(b *testing.B) {
	dir := os.Getenv("BATON_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "baton-bench")
	}
	projects := filepath.Join(dir, "transcripts-300M")
	if _, err := os.Stat(projects + ".done"); err != nil {
		os.RemoveAll(projects)
		cmd := exec.Command("go", "run", "./bench/gen", "transcripts", "-files", "600", "-size", "300MiB", "-out", projects)
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("generate transcripts: %v\n%s", err, out)
		}
		if err := os.WriteFile(projects+".done", nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(projects, "*"))
	st := state.Dir{Root: b.TempDir()}
	ctx := context.Background()
	ix, err := Open(ctx, st.Index(), Options{Sources: Sources{State: st, TranscriptDirs: dirs}})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for b.Loop() {
		if err := ix.Rebuild(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
}
