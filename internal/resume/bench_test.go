package resume

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/benchdata"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/teammem/teammemtest"
)

// BenchmarkResume1GB builds the briefing on a 1 GB journal of realistic
// records (written once by bench/gen and kept in $BATON_BENCH_DIR, default
// the system temp folder). Its time and B/op match BenchmarkResume10MB's:
// only the journal's tail is read.
//
//	with-records: the worktree's records are near the end (the usual case)
//	no-records:   the worktree has none, so the whole scan bound is read
//	state-file:   current.md is in progress; the journal is still read for
//	              the last activity
func BenchmarkResume1GB(b *testing.B) { benchResume(b, "1GiB", 1<<30) }

// BenchmarkResume10MB is BenchmarkResume1GB on a 10 MB journal, to show that
// the journal's size does not matter.
func BenchmarkResume10MB(b *testing.B) { benchResume(b, "10MiB", 10<<20) }

func benchResume(b *testing.B, name string, size int64) {
	journalFile := benchdata.Journal(b, name, size)
	const current = `---
updated: 2026-09-01T09:00:00+09:00
status: in_progress
current_task: Benchmark the briefing
---
## いまやってること
- measuring

## 次の一手
- report the figures
`
	for _, bb := range []struct {
		name, worktree, current string
		source                  Source
	}{
		{"with-records", "/home/dev/project/wt0", "", FromJournal},
		{"no-records", "/home/dev/elsewhere", "", FromNothing},
		{"state-file", "/home/dev/project/wt0", current, FromState},
	} {
		b.Run(bb.name, func(b *testing.B) {
			dir := linkJournal(b, journalFile)
			if bb.current != "" {
				if err := os.WriteFile(filepath.Join(dir, "current.md"), []byte(bb.current), 0o600); err != nil {
					b.Fatal(err)
				}
			}
			o := Options{
				State: state.Dir{Root: dir}, Worktree: bb.worktree, Main: "/home/dev/project/wt0",
				Now: time.Now(), Records: 30, Stale: 7 * 24 * time.Hour, ScanBytes: scanBytes(),
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				br, err := BuildBrief(ctx, BriefOptions{Options: o, Lang: i18n.JA, Budget: 10000, Own: true})
				if err != nil {
					b.Fatal(err)
				}
				if br.Source != bb.source {
					b.Fatalf("source = %s; want %s", br.Source, bb.source)
				}
			}
		})
	}
}

// scanBytes is the scan bound to measure: $BATON_BENCH_SCAN, else the default.
func scanBytes() int64 {
	if v, err := config.ParseSize(os.Getenv("BATON_BENCH_SCAN")); err == nil && v > 0 {
		return int64(v)
	}
	return config.DefaultResumeScanBytes
}

// linkJournal makes a state folder whose auto.jsonl is the generated file,
// linked rather than copied.
func linkJournal(b *testing.B, journalFile string) string {
	b.Helper()
	dir := b.TempDir()
	dst := filepath.Join(dir, "auto.jsonl")
	if err := os.Link(journalFile, dst); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			if err := os.Symlink(journalFile, dst); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dir
}

// BenchmarkBriefShared builds the session-start briefing of a worktree on
// main with 300 approved decisions of its own, without and with the view a
// sync of 10,000 teammates' entries leaves (100 decisions kept, 500
// branches, main's among them).
func BenchmarkBriefShared(b *testing.B) {
	now := time.Now()
	for _, n := range []int{0, 10000} {
		b.Run(fmt.Sprintf("shared-%d", n), func(b *testing.B) {
			d := state.Dir{Root: b.TempDir()}
			f, err := recall.FilesFor(d, "")
			if err != nil {
				b.Fatal(err)
			}
			var ds []recall.Decision
			for i := range 300 {
				at := now.Add(-time.Duration(300-i) * time.Hour)
				ds = append(ds, recall.Decision{Date: at.Format(recall.DateLayout), TS: at, Summary: fmt.Sprintf("The journal keeps its tail in internal/journal; decision %d", i)})
			}
			if _, err := recall.AppendDecisions(f, ds...); err != nil {
				b.Fatal(err)
			}
			if n > 0 {
				if err := teammem.DirOf(d).WriteView(teammem.MakeView(teammemtest.SharedEntries(n, now), "m-me", nil, now)); err != nil {
					b.Fatal(err)
				}
			}
			o := BriefOptions{
				Options: Options{State: d, Worktree: "/home/dev/project", Main: "/home/dev/project", Branch: "main", Now: now, Records: 30, Stale: 7 * 24 * time.Hour, ScanBytes: scanBytes()},
				Lang:    i18n.EN, Budget: 10000, Own: true, Layers: true, Source: "startup",
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				br, err := BuildBrief(ctx, o)
				if err != nil {
					b.Fatal(err)
				}
				if got := br.Kept[recall.LTeam] > 0; got != (n > 0) {
					b.Fatalf("teammates' entries kept: %v; want %v", got, n > 0)
				}
			}
		})
	}
}
