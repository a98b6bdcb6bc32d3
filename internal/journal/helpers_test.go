package journal

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// t0 is the time of the first test record.
var t0 = time.Date(2026, 11, 29, 18, 35, 0, 0, time.UTC)

// fixedClock returns a clock that always says t.
func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// testRecord is the i-th record of a test journal.
func testRecord(i int) Record {
	return Record{
		TS:      t0.Add(time.Duration(i) * time.Second),
		Tool:    "Edit",
		File:    fmt.Sprintf("internal/pkg%d/file%d.go", i%7, i),
		Desc:    fmt.Sprintf("change %d", i),
		Event:   "PostToolUse",
		Session: "s1",
		Offset:  int64(i),
	}
}

func testRecords(from, to int) []Record {
	var recs []Record
	for i := from; i < to; i++ {
		recs = append(recs, testRecord(i))
	}
	return recs
}

// line is rec as Append writes it, with its newline.
func line(t testing.TB, rec Record) string {
	t.Helper()
	b, err := Open("", Options{}).encode([]Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1:])
}

func lines(t testing.TB, recs []Record) string {
	var b strings.Builder
	for _, rec := range recs {
		b.WriteString(line(t, rec))
	}
	return b.String()
}

// writeActive replaces the active file's contents.
func writeActive(t testing.TB, j *Journal, data string) {
	t.Helper()
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(j.Path(), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendActive(t testing.TB, j *Journal, data string) {
	t.Helper()
	f, err := os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func mustAppend(t testing.TB, j *Journal, recs ...Record) {
	t.Helper()
	if err := j.Append(recs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

// scanned is one record handed to Scan's fn.
type scanned struct {
	rec Record
	end Offset
}

func scanAll(t testing.TB, j *Journal, from Offset) ([]scanned, Offset) {
	t.Helper()
	var got []scanned
	next, err := j.Scan(context.Background(), from, func(rec Record, end Offset) error {
		got = append(got, scanned{rec, end})
		return nil
	})
	if err != nil {
		t.Fatalf("Scan(%d): %v", from, err)
	}
	return got, next
}

func scannedRecords(s []scanned) []Record {
	var recs []Record
	for _, x := range s {
		recs = append(recs, x.rec)
	}
	return recs
}

func tailOf(t testing.TB, j *Journal, n int, opts TailOptions) []Record {
	t.Helper()
	got, err := j.Tail(context.Background(), n, opts)
	if err != nil {
		t.Fatalf("Tail(%d): %v", n, err)
	}
	return got
}

func sameRecords(t testing.TB, what string, got, want []Record) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %d records %s; want %d records %s", what, len(got), summary(got), len(want), summary(want))
	}
}

// summary shows records by their Offset field, which tests use as a number.
func summary(recs []Record) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range recs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 8 && len(recs) > 10 {
			fmt.Fprintf(&b, "… %d", recs[len(recs)-1].Offset)
			break
		}
		fmt.Fprintf(&b, "%s#%d", r.Session, r.Offset)
	}
	b.WriteByte(']')
	return b.String()
}

// archiveFiles lists the archive folder's file names.
func archiveFiles(t testing.TB, j *Journal) []string {
	t.Helper()
	entries, err := os.ReadDir(j.archiveDir())
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func countSuffix(names []string, suffix string) int {
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, suffix) {
			n++
		}
	}
	return n
}

// Vocabulary for realistic record text.
const (
	wordList = `add fix refactor test handle error parse config journal record
	offset rotate archive tail scan session worktree branch hook resume decision issue
	pane debate context summary index search usage dashboard token budget lock file
	write read update remove rename compress decode encode retry timeout cancel`
	toolList = "Edit Write Read Bash Grep Glob MultiEdit TodoWrite WebFetch Task"
)

// recordGen makes records of the size and variety hooks write: 200–400 bytes
// a line.
type recordGen struct {
	r            *rand.Rand
	words, tools []string
}

func newRecordGen(seed uint64) *recordGen {
	return &recordGen{r: rand.New(rand.NewPCG(seed, 2)), words: strings.Fields(wordList), tools: strings.Fields(toolList)}
}

func (g *recordGen) word() string { return g.words[g.r.IntN(len(g.words))] }

func (g *recordGen) sentence(n int) string {
	w := make([]string, n)
	for k := range w {
		w[k] = g.word()
	}
	return strings.Join(w, " ")
}

func (g *recordGen) record(i int) Record {
	r := g.r
	rec := Record{
		TS:       t0.Add(time.Duration(i) * 1500 * time.Millisecond),
		Tool:     g.tools[r.IntN(len(g.tools))],
		File:     filepath.Join("/home/dev/src/baton/internal", g.word(), g.word()+".go"),
		Desc:     g.sentence(3 + r.IntN(12)),
		Event:    "PostToolUse",
		Session:  fmt.Sprintf("%08x-4d2c-4b8e-9f1a-%012x", r.Uint32(), r.Uint64()&0xffffffffffff),
		Cwd:      "/home/dev/src/baton",
		Worktree: "/home/dev/src/baton",
		Branch:   "feature/" + g.word(),
		Offset:   int64(i),
	}
	if r.IntN(10) == 0 {
		rec.Tool, rec.File, rec.Desc = "", "", ""
		rec.Event = "UserPromptSubmit"
		rec.Prompt = g.sentence(10 + r.IntN(20))
	}
	return rec
}

// writeRealistic writes realistic records to a new file at path until it
// holds at least size bytes.
func writeRealistic(t testing.TB, path string, size int64) {
	t.Helper()
	j := Open("", Options{})
	g := newRecordGen(1)
	var buf bytes.Buffer
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var written int64
	for i := 0; written < size; i++ {
		b, err := j.encode([]Record{g.record(i)})
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b[1:])
		if buf.Len() >= 1<<20 || written+int64(buf.Len()) >= size {
			n, err := f.Write(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			written += int64(n)
			buf.Reset()
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
