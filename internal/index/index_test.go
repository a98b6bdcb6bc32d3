package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

var t0 = time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)

type fixture struct {
	state       state.Dir
	transcripts string
	j           *journal.Journal
	src         Sources
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{state: state.Dir{Root: filepath.Join(root, "state")}, transcripts: filepath.Join(root, "projects", "-repo")}
	for _, d := range []string{f.state.Root, f.transcripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.j = journal.Open(f.state.Root, journal.Options{MaxSize: -1})
	f.src = Sources{State: f.state, TranscriptDirs: []string{f.transcripts}}
	return f
}

func (f *fixture) open(t *testing.T) *Index {
	t.Helper()
	ix, err := Open(context.Background(), f.state.Index(), Options{Sources: f.src, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func (f *fixture) record(t *testing.T, recs ...journal.Record) {
	t.Helper()
	if err := f.j.Append(recs...); err != nil {
		t.Fatal(err)
	}
}

func msgLine(role, ts, text string) string {
	return fmt.Sprintf(`{"type":%q,"uuid":"u","timestamp":%q,"sessionId":"s1","message":{"role":%q,"content":[{"type":"text","text":%q}]}}`, role, ts, role, text)
}

func search(t *testing.T, ix *Index, q Query) *Results {
	t.Helper()
	if err := ix.CatchUp(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return r
}

func refs(r *Results) string {
	var s []string
	for _, h := range r.Hits {
		s = append(s, string(h.Kind)+":"+h.Title)
	}
	return strings.Join(s, " | ")
}

func TestSearchKinds(t *testing.T) {
	f := newFixture(t)
	f.record(t,
		journal.Record{TS: t0, Event: "UserPromptSubmit", Session: "s1", Worktree: "/repo", Branch: "main", Prompt: "CSV の出力を直して"},
		journal.Record{TS: t0.Add(time.Second), Event: "PostToolUse", Session: "s1", Tool: "Edit", File: "/repo/internal/export/csv.go"},
	)
	if err := os.WriteFile(filepath.Join(f.transcripts, "s1.jsonl"), []byte(
		msgLine("user", "2026-09-01T10:00:00.000Z", "please fix the exporter")+"\n"+
			msgLine("assistant", "2026-09-01T10:00:05.000Z", "The streaming writer now flushes every row.")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctxDir := f.state.Context()
	os.MkdirAll(ctxDir, 0o755)
	os.WriteFile(filepath.Join(ctxDir, "decisions.jsonl"), []byte(`{"date":"2026-09-01","slug":"stream-csv","summary":"Write CSV rows as a stream","issue":12,"session":"s1"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(ctxDir, "l1.jsonl"), []byte(`{"ts":"2026-09-01T11:00:00Z","route":"default","session":"s1","goal":"export CSV","recent_actions":["rewrote the writer"],"open_loops":["benchmark"]}`+"\n"), 0o644)
	ix := f.open(t)

	tests := []struct {
		name  string
		q     Query
		want  string
		total int
	}{
		{name: "journal Japanese by a run of characters", q: Query{Text: "出力"}, want: "journal:UserPromptSubmit", total: 1},
		{name: "path as a phrase", q: Query{Text: "export/csv.go"}, want: "journal:PostToolUse Edit", total: 1},
		{name: "transcript", q: Query{Text: "streaming writer"}, want: "transcript:assistant", total: 1},
		{name: "decision", q: Query{Text: "stream*", Kinds: []Kind{KindDecision}}, want: "decision:stream-csv", total: 1},
		{name: "summary", q: Query{Text: "benchmark"}, want: "summary:L1 default: export CSV", total: 1},
		{name: "kind filter drops others", q: Query{Text: "writer", Kinds: []Kind{KindSummary}}, want: "summary:L1 default: export CSV", total: 1},
		{name: "since drops older", q: Query{Text: "writer", Since: t0.Add(30 * time.Minute)}, want: "summary:L1 default: export CSV", total: 1},
		{name: "OR, stemmed (exporter finds export)", q: Query{Text: "exporter OR benchmark"}, total: 3},
		{name: "nothing", q: Query{Text: "kubernetes"}, want: "", total: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := search(t, ix, tt.q)
			if r.Total != tt.total {
				t.Errorf("total = %d (%s); want %d", r.Total, refs(r), tt.total)
			}
			if tt.want != "" && refs(r) != tt.want {
				t.Errorf("hits = %s; want %s", refs(r), tt.want)
			}
		})
	}

	r := search(t, ix, Query{Text: "streaming", Kinds: []Kind{KindTranscript}})
	if got := r.Hits[0].Marked("«", "»"); !strings.Contains(got, "«streaming»") {
		t.Errorf("snippet = %q; want «streaming» marked", got)
	}
	r = search(t, ix, Query{Text: "streaming", Kinds: []Kind{KindDecision}})
	if got := r.Hits[0].Marked("«", "»"); !strings.Contains(got, "a «stream»") {
		t.Errorf("snippet = %q; want the stem «stream» marked", got)
	}
}

func TestSearchQueryErrors(t *testing.T) {
	ix := newFixture(t).open(t)
	for _, q := range []string{`"unclosed`, `foo AND`, `(foo`, `*`, ``, `NOT`} {
		t.Run(q, func(t *testing.T) {
			_, err := ix.Search(context.Background(), Query{Text: q})
			if !errors.Is(err, ErrQuery) {
				t.Errorf("Search(%q) = %v; want ErrQuery", q, err)
			}
		})
	}
}

func TestCatchUpIncremental(t *testing.T) {
	f := newFixture(t)
	ix := f.open(t)
	f.record(t, journal.Record{TS: t0, Event: "Stop", Session: "s1", Message: "alpha"})
	if r := search(t, ix, Query{Text: "alpha"}); r.Total != 1 {
		t.Fatalf("alpha: %d hits; want 1", r.Total)
	}
	f.record(t, journal.Record{TS: t0, Event: "Stop", Session: "s1", Message: "alpha beta"})
	if r := search(t, ix, Query{Text: "alpha"}); r.Total != 2 {
		t.Errorf("alpha after append: %d hits; want 2 (no record read twice)", r.Total)
	}

	// A transcript that is replaced by a shorter one is read again.
	p := filepath.Join(f.transcripts, "s2.jsonl")
	os.WriteFile(p, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "gamma one")+"\n"+msgLine("user", "2026-09-01T10:00:01.000Z", "gamma two")+"\n"), 0o644)
	if r := search(t, ix, Query{Text: "gamma"}); r.Total != 2 {
		t.Fatalf("gamma: %d hits; want 2", r.Total)
	}
	os.WriteFile(p, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "delta")+"\n"), 0o644)
	if r := search(t, ix, Query{Text: "gamma"}); r.Total != 0 {
		t.Errorf("gamma after replacement: %d hits; want 0", r.Total)
	}
	if r := search(t, ix, Query{Text: "delta"}); r.Total != 1 || len(r.Hits) != 1 || r.Hits[0].Tier != tierPrompt {
		t.Errorf("delta after replacement: %d hits %s; want 1, in the prompt tier", r.Total, refs(r))
	}
	// Both full-text tables lost the replaced prompts.
	for _, table := range ftsTables {
		for word, want := range map[string]int{"gamma": 0, "delta": 1} {
			var n int
			if err := ix.db.QueryRow("SELECT count(*) FROM "+table+" WHERE "+table+" MATCH ?", word).Scan(&n); err != nil || n != want {
				t.Errorf("%s holds %q %d times (%v); want %d", table, word, n, err, want)
			}
		}
	}
	checkFTS(t, ix)
	// Same size, other first line: replaced too.
	os.WriteFile(p, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "omega")+"\n"), 0o644)
	if r := search(t, ix, Query{Text: "delta OR omega"}); r.Total != 1 || r.Hits[0].Snippet == nil || !strings.Contains(r.Hits[0].Marked("[", "]"), "[omega]") {
		t.Errorf("after same-size replacement: %d hits %s; want only omega", r.Total, refs(r))
	}
}

// checkFTS runs FTS5's integrity check on the index's full-text tables.
func checkFTS(t *testing.T, ix *Index) {
	t.Helper()
	for _, table := range ftsTables {
		if _, err := ix.db.Exec("INSERT INTO " + table + "(" + table + ", rank) VALUES('integrity-check', 1)"); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
}

// Malformed transcript lines are skipped; the good ones around them count.
func TestCatchUpMalformedTranscript(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.transcripts, "s3.jsonl"), []byte(
		msgLine("user", "2026-09-01T10:00:00.000Z", "kappa first")+"\n"+
			`{"type":"user","message":{"content":"kappa torn`+"\n"+
			"\x00\x01 binary junk\n"+
			msgLine("assistant", "2026-09-01T10:00:02.000Z", "kappa last")+"\n"+
			`{"type":"assistant","message":{"content":"kappa partial`), 0o644)
	ix := f.open(t)
	if r := search(t, ix, Query{Text: "kappa"}); r.Total != 2 {
		t.Errorf("kappa: %d hits (%s); want 2", r.Total, refs(r))
	}
}

// A journal rotated between and during catch-ups loses and repeats nothing.
func TestCatchUpJournalRotation(t *testing.T) {
	f := newFixture(t)
	j := journal.Open(f.state.Root, journal.Options{MaxSize: 2048})
	ix := f.open(t)
	add := func(i int) {
		if err := j.Append(journal.Record{TS: t0, Event: "Stop", Session: "s1", Message: fmt.Sprintf("rotor number%d %s", i, strings.Repeat("x", 200))}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		add(i)
	}
	if r := search(t, ix, Query{Text: "rotor"}); r.Total != 30 {
		t.Fatalf("after 30 records: %d; want 30", r.Total)
	}
	// Records appended (and rotations made) while a catch-up runs are for
	// the next one: the progress callback appends.
	n := 30
	err := ix.CatchUp(context.Background(), func(done, total int64) {
		if n < 60 {
			add(n)
			n++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		add(n)
		n++
	}
	r := search(t, ix, Query{Text: "rotor"})
	if r.Total != n {
		t.Errorf("after rotations: %d; want %d", r.Total, n)
	}
	segs, _ := filepath.Glob(filepath.Join(f.state.Archive(), "auto-*"))
	if len(segs) < 2 {
		t.Errorf("journal rotated %d times; want several", len(segs))
	}
}

func TestOpenCorrupt(t *testing.T) {
	tests := []struct {
		name  string
		write func(path string) error
	}{
		{name: "not a database", write: func(p string) error { return os.WriteFile(p, []byte("this is not sqlite at all"), 0o644) }},
		{name: "damaged pages", write: func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i := 4096; i < len(b); i += 97 {
				b[i] ^= 0x5a
			}
			return os.WriteFile(p, b, 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.record(t, journal.Record{TS: t0, Event: "Stop", Session: "s1", Message: "survivor"})
			ix := f.open(t)
			if err := ix.CatchUp(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				t.Fatal(err)
			}
			ix.Close()
			if err := tt.write(f.state.Index()); err != nil {
				t.Fatal(err)
			}
			ix2 := f.open(t)
			if ix2.Moved == "" {
				t.Fatal("damaged index not moved aside")
			}
			if _, err := os.Stat(ix2.Moved); err != nil {
				t.Errorf("moved file: %v", err)
			}
			if r := search(t, ix2, Query{Text: "survivor"}); r.Total != 1 {
				t.Errorf("after rebuild: %d hits; want 1", r.Total)
			}
		})
	}
}

func TestSearchPaging(t *testing.T) {
	f := newFixture(t)
	var recs []journal.Record
	for i := range 1200 {
		recs = append(recs, journal.Record{TS: t0.Add(time.Duration(i) * time.Second), Event: "Stop", Session: "s1", Message: fmt.Sprintf("paging item%04d", i)})
	}
	f.record(t, recs...)
	ix := f.open(t)
	seen := map[string]bool{}
	for off := 0; ; off += MaxLimit {
		r := search(t, ix, Query{Text: "paging", Limit: 10_000, Offset: off})
		if r.Total != 1200 {
			t.Fatalf("total = %d; want 1200", r.Total)
		}
		if len(r.Hits) > MaxLimit {
			t.Fatalf("page of %d; want at most %d", len(r.Hits), MaxLimit)
		}
		if len(r.Hits) == 0 {
			break
		}
		for _, h := range r.Hits {
			if seen[h.Ref] {
				t.Fatalf("hit %s on two pages", h.Ref)
			}
			seen[h.Ref] = true
		}
	}
	if len(seen) != 1200 {
		t.Errorf("paged through %d hits; want 1200", len(seen))
	}
}

func TestSessions(t *testing.T) {
	f := newFixture(t)
	f.record(t,
		journal.Record{TS: t0, Event: "SessionStart", Session: "s1", Worktree: "/repo", Branch: "main", Transcript: filepath.Join(f.transcripts, "s1.jsonl")},
		journal.Record{TS: t0.Add(time.Minute), Event: "UserPromptSubmit", Session: "s1", Worktree: "/repo", Branch: "main", Prompt: "do it"},
		journal.Record{TS: t0.Add(2 * time.Minute), Event: "PostToolUse", Session: "s1", Worktree: "/repo", Branch: "main", Tool: "Edit", File: "/repo/a.go"},
		journal.Record{TS: t0.Add(time.Hour), Event: "SessionStart", Session: "s2", Worktree: "/repo-wt", Branch: "feat/1-x"},
	)
	os.WriteFile(filepath.Join(f.transcripts, "s1.jsonl"), []byte(
		`{"type":"assistant","uuid":"u","timestamp":"2026-09-01T10:01:30.000Z","sessionId":"s1","requestId":"r","message":{"id":"msg_1","model":"m","role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":7,"output_tokens":3}}}`+"\n"), 0o644)
	ix := f.open(t)
	if err := ix.CatchUp(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ss, err := ix.Sessions(context.Background(), SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].ID != "s2" || ss[1].ID != "s1" {
		t.Fatalf("sessions = %+v; want s2 then s1", ss)
	}
	s1 := ss[1]
	if s1.Records != 3 || s1.Prompts != 1 || s1.Tools != 1 || s1.Messages != 1 || s1.Branch != "main" || !s1.First.Equal(t0) {
		t.Errorf("s1 = %+v; want 3 records, 1 prompt, 1 tool, 1 message on main from %v", s1, t0)
	}
	if got, _ := ix.Sessions(context.Background(), SessionFilter{Branch: "feat/1-x"}); len(got) != 1 || got[0].ID != "s2" {
		t.Errorf("branch filter = %+v; want s2", got)
	}
	d, err := ix.SessionDetail(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Records) != 3 || len(d.Prompts) != 1 || d.Tools["Edit"] != 1 || len(d.Files) != 1 || len(d.Messages) != 1 {
		t.Errorf("detail = %+v", d)
	}
	if d.Usage == nil || d.Usage.Total.Input != 7 || d.Usage.Total.Output != 3 {
		t.Errorf("usage = %+v; want 7 in, 3 out", d.Usage)
	}
	if _, err := ix.SessionDetail(context.Background(), "nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("unknown session: %v; want ErrNoSession", err)
	}
}

// A session whose transcript is not indexed counts the answers its Stop
// records kept as its messages, caught up in two steps.
func TestSessionMessagesFromStops(t *testing.T) {
	f := newFixture(t)
	stop := func(m int, msg string) journal.Record {
		return journal.Record{TS: t0.Add(time.Duration(m) * time.Minute), Event: "Stop", Session: "s3", Worktree: "/repo", Branch: "main", Message: msg}
	}
	f.record(t,
		journal.Record{TS: t0, Event: "UserPromptSubmit", Session: "s3", Worktree: "/repo", Branch: "main", Prompt: "go"},
		stop(1, "First answer."),
		stop(2, ""), // a Stop without an answer is not a message
	)
	ix := f.open(t)
	messages := func() int {
		t.Helper()
		if err := ix.CatchUp(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		ss, err := ix.Sessions(context.Background(), SessionFilter{})
		if err != nil || len(ss) != 1 {
			t.Fatalf("sessions = %+v, %v; want s3", ss, err)
		}
		return ss[0].Messages
	}
	if got := messages(); got != 1 {
		t.Errorf("messages = %d; want 1 (one Stop with an answer)", got)
	}
	f.record(t, stop(3, "Second answer."))
	if got := messages(); got != 2 {
		t.Errorf("messages after another answer = %d; want 2", got)
	}
}

func TestArchiveTranscripts(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.transcripts, "s1.jsonl")
	os.WriteFile(p, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "archived words")+"\n"), 0o644)
	dest := ArchiveDir(f.state)
	res, err := ArchiveTranscripts(context.Background(), []string{f.transcripts}, f.state.Base(), dest)
	if err != nil || len(res.Copied) != 1 {
		t.Fatalf("first archive: %+v, %v; want one copied", res, err)
	}
	res, err = ArchiveTranscripts(context.Background(), []string{f.transcripts}, f.state.Base(), dest)
	if err != nil || len(res.Copied) != 0 || res.Unchanged != 1 {
		t.Fatalf("second archive: %+v, %v; want one unchanged", res, err)
	}
	// The original goes (Claude Code's cleanup); a rebuilt index still
	// finds it, from the archive.
	os.Remove(p)
	ix := f.open(t)
	if r := search(t, ix, Query{Text: "archived"}); r.Total != 1 {
		t.Errorf("from the archive: %d hits; want 1", r.Total)
	}
}

// Unarchived counts the old transcripts with no copy, or a copy made before
// the transcript last changed, and none of the recent ones.
func TestUnarchived(t *testing.T) {
	f := newFixture(t)
	dest := ArchiveDir(f.state)
	now := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	write := func(name string, age time.Duration) string {
		p := filepath.Join(f.transcripts, name)
		if err := os.WriteFile(p, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", name)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("kept.jsonl", 40*24*time.Hour)
	changed := write("changed.jsonl", 30*24*time.Hour)
	if _, err := ArchiveTranscripts(context.Background(), []string{f.transcripts}, f.state.Base(), dest); err != nil {
		t.Fatal(err)
	}
	// Written again after its copy, with the same old time and another size.
	os.WriteFile(changed, []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "longer than before")+"\n"), 0o644)
	os.Chtimes(changed, now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour))
	write("old.jsonl", 25*24*time.Hour)
	write("recent.jsonl", 2*24*time.Hour)

	n, oldest, err := Unarchived(context.Background(), []string{f.transcripts, filepath.Join(f.transcripts, "missing")}, dest, now.Add(-23*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(-30 * 24 * time.Hour); n != 2 || !oldest.Equal(want) {
		t.Errorf("Unarchived = %d, oldest %v; want 2 (changed, old), oldest %v", n, oldest, want)
	}
}

// Many matches are all ranked, counted and paged: the best comes first
// even when it is the oldest, equal ones newest first, and Newest orders by
// time.
func TestSearchBroad(t *testing.T) {
	f := newFixture(t)
	var recs []journal.Record
	const n = 6000
	for i := range n {
		msg := fmt.Sprintf("broad item%05d", i)
		if i == 0 {
			msg = "broad broad broad item00000"
		}
		recs = append(recs, journal.Record{TS: t0.Add(time.Duration(i) * time.Second), Event: "Stop", Session: "s1", Message: msg})
	}
	f.record(t, recs...)
	ix := f.open(t)
	r := search(t, ix, Query{Text: "broad", Limit: 3})
	if r.Total != n || !r.Ranked {
		t.Fatalf("total %d, ranked %v; want %d, true", r.Total, r.Ranked, n)
	}
	for i, want := range []string{"item00000", fmt.Sprintf("item%05d", n-1), fmt.Sprintf("item%05d", n-2)} {
		if got := r.Hits[i].Marked("", ""); !strings.Contains(got, want) {
			t.Errorf("hit %d %q; want %s", i, got, want)
		}
	}
	last := search(t, ix, Query{Text: "broad", Limit: 50, Offset: n - 10})
	if len(last.Hits) != 10 {
		t.Errorf("last page: %d hits; want 10", len(last.Hits))
	}
	newest := search(t, ix, Query{Text: "broad", Limit: 1, Newest: true})
	if got := newest.Hits[0].Marked("", ""); newest.Ranked || !strings.Contains(got, fmt.Sprintf("item%05d", n-1)) {
		t.Errorf("newest first: %q, ranked %v; want item%05d, false", got, newest.Ranked, n-1)
	}
}

// Counting stops past CountLimit, or past the page asked for, and says
// that more match; the pages go on to the last match.
func TestSearchCountLimit(t *testing.T) {
	f := newFixture(t)
	const n = CountLimit + 50
	recs := make([]journal.Record, 0, n)
	for i := range n {
		msg := fmt.Sprintf("bulk item%05d", i)
		if i%1000 == 0 {
			msg += " rare"
		}
		recs = append(recs, journal.Record{TS: t0.Add(time.Duration(i) * time.Second), Event: "Stop", Session: "s1", Message: msg})
	}
	f.record(t, recs...)
	ix := f.open(t)
	tests := []struct {
		q         Query
		total     int
		more      bool
		hits      int
		firstItem int
	}{
		{Query{Text: "bulk"}, CountLimit, true, DefaultLimit, -1},
		{Query{Text: "bulk", Newest: true, Limit: 1}, CountLimit, true, 1, n - 1},
		{Query{Text: "bulk", Offset: n - 30, Limit: 20}, n - 10, true, 20, -1},
		{Query{Text: "bulk", Offset: n - 10, Limit: 20}, n, false, 10, -1},
		{Query{Text: "bulk", Offset: CountLimit - 5, Limit: 10}, CountLimit + 5, true, 10, -1},
		{Query{Text: "bulk rare"}, 11, false, 11, -1},
	}
	for _, tt := range tests {
		r := search(t, ix, tt.q)
		if r.Total != tt.total || r.More != tt.more || len(r.Hits) != tt.hits {
			t.Errorf("%+v: total %d, more %v, %d hits; want %d, %v, %d", tt.q, r.Total, r.More, len(r.Hits), tt.total, tt.more, tt.hits)
			continue
		}
		if want := fmt.Sprintf("item%05d", tt.firstItem); tt.firstItem >= 0 && !strings.Contains(r.Hits[0].Marked("", ""), want) {
			t.Errorf("%+v: first hit %q; want %s", tt.q, r.Hits[0].Marked("", ""), want)
		}
	}
}

// An index made before strong_fts existed is read again when it is opened,
// so that its prompts are ranked in their own table.
func TestUpgradeFillsStrongTable(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.transcripts, "s4.jsonl"), []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "upgrade the frobnicator")+"\n"), 0o644)
	ix := f.open(t)
	if r := search(t, ix, Query{Text: "frobnicator"}); len(r.Hits) != 1 {
		t.Fatalf("frobnicator: %s; want 1 hit", refs(r))
	}
	// Made into an index of the three migrations before: the transcript
	// read, no strong_fts (migration 004, made again by 008), nor the later
	// columns.
	for _, q := range []string{"DROP TABLE strong_fts", "DROP INDEX docs_settled", "ALTER TABLE docs DROP COLUMN settles",
		"ALTER TABLE sessions DROP COLUMN agent", "DROP INDEX docs_msg", "DROP INDEX docs_twin", "ALTER TABLE docs DROP COLUMN msg",
		"ALTER TABLE docs DROP COLUMN twin", "PRAGMA user_version = 3"} {
		if _, err := ix.db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	ix.Close()
	ix = f.open(t)
	r := search(t, ix, Query{Text: "frobnicator"})
	if len(r.Hits) != 1 || r.Hits[0].Tier != tierPrompt {
		t.Errorf("frobnicator after the upgrade: %d hits (%s); want 1, in the prompt tier", len(r.Hits), refs(r))
	}
	checkFTS(t, ix)
}

// The first catch-up of an index reads everything as a rebuild does, and
// leaves FTS5 merging as usual afterwards (the settings are in FTS5's config
// table only when a bulk load wrote them); Fresh tells it is coming.
func TestFirstCatchUpLoadsInBulk(t *testing.T) {
	f := newFixture(t)
	f.record(t, journal.Record{TS: t0, Event: "UserPromptSubmit", Session: "s1", Prompt: "first words"})
	ix := f.open(t)
	ctx := context.Background()
	if fresh, err := ix.Fresh(ctx); err != nil || !fresh {
		t.Fatalf("Fresh of a new index = %v, %v; want true", fresh, err)
	}
	var calls int
	if err := ix.CatchUp(ctx, func(done, total int64) { calls++ }); err != nil {
		t.Fatal(err)
	}
	if fresh, err := ix.Fresh(ctx); err != nil || fresh {
		t.Errorf("Fresh after a catch-up = %v, %v; want false", fresh, err)
	}
	if calls == 0 {
		t.Error("no progress reported")
	}
	for _, table := range ftsTables {
		for k, want := range map[string]int{"automerge": ftsAutomerge, "crisismerge": ftsCrisisDefault} {
			var got int
			if err := ix.db.QueryRow("SELECT v FROM "+table+"_config WHERE k = ?", k).Scan(&got); err != nil || got != want {
				t.Errorf("%s %s after the first catch-up = %d (%v); want %d", table, k, got, err, want)
			}
		}
	}
	if r := search(t, ix, Query{Text: "words"}); r.Total != 1 || r.Hits[0].Tier != tierPrompt {
		t.Errorf("words: %d hits (%s); want the prompt, in the prompt tier", r.Total, refs(r))
	}
	checkFTS(t, ix)
}

// A load of everything cut short (Ctrl-C, a deadline) after some of it was
// committed goes on as a load at the next catch-up, to the end: the index
// is still Fresh, and FTS5's merging is put back only then.
func TestInterruptedLoadGoesOn(t *testing.T) {
	for _, kind := range []Kind{KindJournal, KindTranscript} {
		t.Run(string(kind), func(t *testing.T) { testInterruptedLoad(t, kind) })
	}
}

func testInterruptedLoad(t *testing.T, kind Kind) {
	f := newFixture(t)
	const n = 2*batchDocs + 500
	if kind == KindJournal {
		recs := make([]journal.Record, n)
		for i := range recs {
			recs[i] = journal.Record{TS: t0, Event: "Stop", Session: "s1", Message: fmt.Sprintf("loading item%d", i)}
		}
		f.record(t, recs...)
	} else {
		var b strings.Builder
		for i := range n {
			b.WriteString(msgLine("user", "2026-09-01T10:00:00.000Z", fmt.Sprintf("loading item%d", i)) + "\n")
		}
		if err := os.WriteFile(filepath.Join(f.transcripts, "s5.jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := f.open(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := ix.CatchUp(ctx, func(done, total int64) {
		var committed int
		ix.db.QueryRow("SELECT count(*) FROM docs").Scan(&committed)
		if committed > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cut-short catch-up: %v; want context.Canceled", err)
	}
	var partial int
	ix.db.QueryRow("SELECT count(*) FROM docs").Scan(&partial)
	if partial == 0 || partial >= n {
		t.Fatalf("%d documents committed before the cut; want some of %d", partial, n)
	}
	if fresh, err := ix.Fresh(context.Background()); err != nil || !fresh {
		t.Errorf("Fresh after a cut-short load = %v, %v; want true", fresh, err)
	}
	if err := ix.CatchUp(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if fresh, err := ix.Fresh(context.Background()); err != nil || fresh {
		t.Errorf("Fresh after the load ended = %v, %v; want false", fresh, err)
	}
	if got, err := ix.Stats(context.Background()); err != nil || got[kind] != n {
		t.Errorf("%d %s documents indexed (%v); want %d", got[kind], kind, err, n)
	}
	var automerge int
	if err := ix.db.QueryRow("SELECT v FROM docs_fts_config WHERE k = 'automerge'").Scan(&automerge); err != nil || automerge != ftsAutomerge {
		t.Errorf("automerge after the load = %d (%v); want %d", automerge, err, ftsAutomerge)
	}
	checkFTS(t, ix)
}

// A prompt and an answer kept both in the transcript and in the journal are
// one hit each, the transcript's, with the journal's branch, whichever source
// was read first; the count and the pages agree with the hits, and a journal
// record of another text stays.
func TestSearchOneHitPerMessage(t *testing.T) {
	records := []journal.Record{
		{TS: t0, Event: "UserPromptSubmit", Session: "s1", Worktree: "/repo", Branch: "feature/port", Prompt: "Which port does the   server listen on?"},
		{TS: t0.Add(5 * time.Second), Event: "Stop", Session: "s1", Worktree: "/repo", Branch: "feature/port", Message: "The server listens on port 8081."},
		{TS: t0.Add(9 * time.Second), Event: "UserPromptSubmit", Session: "s1", Worktree: "/repo", Branch: "feature/port", Prompt: "Keep port 8081 in the config"},
	}
	lines := msgLine("user", "2026-09-01T10:00:00.000Z", "Which port does the server listen on?") + "\n" +
		msgLine("assistant", "2026-09-01T10:00:05.000Z", "The server listens on port 8081.") + "\n"
	for _, order := range []string{"journal first", "transcript first", "together"} {
		t.Run(order, func(t *testing.T) {
			f := newFixture(t)
			ix := f.open(t)
			writeTranscript := func() {
				if err := os.WriteFile(filepath.Join(f.transcripts, "s1.jsonl"), []byte(lines), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			switch order {
			case "journal first":
				f.record(t, records...)
				search(t, ix, Query{Text: "port"})
				writeTranscript()
			case "transcript first":
				writeTranscript()
				search(t, ix, Query{Text: "port"})
				f.record(t, records...)
			default:
				f.record(t, records...)
				writeTranscript()
			}
			r := search(t, ix, Query{Text: "port"})
			var got []string
			for _, h := range r.Hits {
				got = append(got, string(h.Kind)+":"+h.Event+":"+h.Branch)
			}
			slices.Sort(got)
			want := []string{"journal:UserPromptSubmit:feature/port", "transcript:assistant:feature/port", "transcript:user:feature/port"}
			if !slices.Equal(got, want) {
				t.Errorf("hits = %q; want %q", got, want)
			}
			if r.Total != len(want) {
				t.Errorf("total = %d; want %d", r.Total, len(want))
			}
			var paged []string
			for off := 0; off < len(want)+1; off++ {
				for _, h := range search(t, ix, Query{Text: "port", Limit: 1, Offset: off}).Hits {
					paged = append(paged, string(h.Kind)+":"+h.Event+":"+h.Branch)
				}
			}
			slices.Sort(paged)
			if !slices.Equal(paged, want) {
				t.Errorf("pages of one = %q; want %q", paged, want)
			}
			checkFTS(t, ix)
		})
	}
}
