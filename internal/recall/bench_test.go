package recall

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if err := os.Link(generatedJournal(b, name, size), d.Journal()); err != nil && !errors.Is(err, fs.ErrExist) {
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

// generatedJournal returns a journal file of at least size bytes written by
// bench/gen, reusing one from an earlier run (the resume benchmark's too).
func generatedJournal(b *testing.B, name string, size int64) string {
	b.Helper()
	root := os.Getenv("BATON_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "baton-bench")
	}
	path := filepath.Join(root, "resume-"+name, "auto.jsonl")
	if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
		return path
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("no go tool to generate the journal: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Logf("writing a %s journal to %s", name, path)
	tmp := path + ".tmp"
	cmd := exec.Command(goTool, "run", "./bench/gen", "journal", "-size", name, "-out", tmp)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("bench/gen: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}
