package recall

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/benchdata"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// BenchmarkPush1GB is the session-start push (restart detection on the
// journal's tail, then the three layers assembled within the limit) on a
// 1 GB journal of realistic records, with layers far larger than the limit:
// 300 decisions, 300 recent and 60 daily summaries. The journal is written
// once by bench/gen and kept in $BATON_BENCH_DIR (default the system temp
// folder), shared with the resume benchmark.
func BenchmarkPush1GB(b *testing.B) { benchPush(b, "1GiB", 1<<30) }

// BenchmarkPush10MB is BenchmarkPush1GB on a 10 MB journal: the journal's
// size does not matter, only its last block is read.
func BenchmarkPush10MB(b *testing.B) { benchPush(b, "10MiB", 10<<20) }

func benchPush(b *testing.B, name string, size int64) {
	d := state.Dir{Root: b.TempDir()}
	if err := os.Link(benchdata.Journal(b, name, size), d.Journal()); err != nil && !errors.Is(err, fs.ErrExist) {
		b.Fatal(err)
	}
	f, err := FilesFor(d, "")
	if err != nil {
		b.Fatal(err)
	}
	seedBenchLayers(b, f)
	o := PushOptions{
		State: d, Session: "bench-session", Source: "startup", Now: time.Now(), Lang: i18n.EN,
		Budget: hook.MaxContext - 2000, Journal: journal.Open(d.Root, journal.Options{}),
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, err := Push(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		if p.Kept[L1] != 1 || p.Left[L3] == 0 || hook.Len(p.Text) > o.Budget {
			b.Fatalf("kept %v left %v, %d characters", p.Kept, p.Left, hook.Len(p.Text))
		}
	}
}

func seedBenchLayers(b *testing.B, f Files) {
	b.Helper()
	var ds []Decision
	for i := range 300 {
		ds = append(ds, Decision{Date: time.Now().AddDate(0, 0, -80+i/4).Format(DateLayout), Summary: "decision " + itoa(i) + " keep the format stable and the tests fast", Source: "issue", Issue: i + 1})
	}
	if _, err := AppendDecisions(f, ds...); err != nil {
		b.Fatal(err)
	}
	long := func(c string) string { return strings.Repeat(c, 200) }
	for i := range 300 {
		r := Recent{TS: time.Now().Add(-time.Duration(300-i) * time.Minute), Route: "default", Session: "s" + itoa(i), Trigger: "SessionEnd", Summarizer: "extractive",
			Goal: "goal " + itoa(i), Actions: []string{long("a"), long("b"), long("c"), long("d"), long("e")}, OpenLoops: []string{long("l")}}
		if err := appendLine(f.L1(), r); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 60 {
		d := Daily{TS: time.Now(), Route: "default", Date: time.Now().AddDate(0, 0, -60+i).Format(DateLayout), Summarizer: "extractive",
			Goal: "day " + itoa(i), Threads: []string{long("t"), long("u")}, Pending: []string{long("p")}}
		if err := appendLine(f.L2(), d); err != nil {
			b.Fatal(err)
		}
	}
}
