package index_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
)

// The held-out corpus (testdata/heldout) was written by someone who had not
// read the ranking code, to check that search ranking holds on sessions
// nobody tuned it for. It is not edited once committed: a ranking change
// that needs the corpus changed is tuned to it.
//
// Each query has one deciding session: the one that states how the question
// was settled (a fix, a pin, a root cause, a choice with its reason), in
// words other than "decision". Louder sessions around it repeat the query's
// words: the question asked twice, a list of links, a log pasted into a
// prompt or an answer, an explanation that "it only happens on staging after
// a deploy", a weekly status summary.
const heldOutDir = "testdata/heldout"

// Targets of issue #25: the deciding session first for at least 14 of 16
// queries (87.5%), and in the top three for at least 90%. Below either the
// test fails.
const (
	heldOutFirst = 14.0 / 16
	heldOutTop3  = 0.90
)

// heldOutEnforce, set to 1, also logs where each query puts its deciding
// session (the figures are logged always).
const heldOutEnforce = "BATON_HELDOUT_ENFORCE"

type heldOutQuery struct {
	text, session, lang, note string
}

func readHeldOutQueries(t *testing.T) []heldOutQuery {
	t.Helper()
	f, err := os.Open(filepath.Join(heldOutDir, "queries.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.FieldsPerRecord = 4
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "query,session,lang,note" {
		t.Fatalf("queries.tsv: want the header query, session, lang, note and rows, got %q", rows)
	}
	var qs []heldOutQuery
	for _, row := range rows[1:] {
		qs = append(qs, heldOutQuery{text: row[0], session: row[1], lang: row[2], note: row[3]})
	}
	return qs
}

// heldOutIndex lays the corpus out as Claude Code does, under a HOME of its
// own, and builds the index from it the way `baton search` does.
func heldOutIndex(t *testing.T) *index.Index {
	t.Helper()
	home := t.TempDir()
	worktree := filepath.Join(t.TempDir(), "ledgerd")
	dirs := index.TranscriptDirs(home, []string{worktree})
	if len(dirs) != 1 {
		t.Fatalf("TranscriptDirs: got %q, want one folder", dirs)
	}
	if err := os.MkdirAll(dirs[0], 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(heldOutDir, "transcripts", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in %s: %v", heldOutDir, err)
	}
	for _, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[0], filepath.Base(src)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := state.At(worktree)
	if err := os.MkdirAll(st.Root, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ix, err := index.Open(context.Background(), st.Index(), index.Options{
		Now:     func() time.Time { return now },
		Sources: index.Sources{State: st, TranscriptDirs: dirs},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.CatchUp(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// sessionRank is where session comes among the sessions of the hits, in
// their order (1 is first), and the position of its first hit; 0, 0 when no
// hit is from it.
func sessionRank(hits []index.Hit, session string) (rank, hit int) {
	seen := map[string]bool{}
	for i, h := range hits {
		if !seen[h.Session] {
			seen[h.Session] = true
		}
		if h.Session == session {
			return len(seen), i + 1
		}
	}
	return 0, 0
}

// decisionWord is what a deciding session must not say: it states the
// resolution without naming it a decision.
var decisionWord = regexp.MustCompile(`(?i)decision|decided|決定`)

func TestHeldOutRanking(t *testing.T) {
	ctx := context.Background()
	qs := readHeldOutQueries(t)
	ix := heldOutIndex(t)

	langs := map[string]int{}
	for _, q := range qs {
		langs[q.lang]++
		d, err := ix.SessionDetail(ctx, q.session)
		if err != nil {
			t.Fatalf("deciding session %s of %q: %v", q.session, q.text, err)
		}
		for _, m := range d.Messages {
			if w := decisionWord.FindString(m.Body); w != "" {
				t.Fatalf("deciding session %s of %q says %q", q.session, q.text, w)
			}
		}
	}
	if len(qs) < 24 || langs["ja"] < 10 || langs["en"] < 10 {
		t.Fatalf("got %d queries (%v), want at least 24, both ja and en", len(qs), langs)
	}

	var first, top3 int
	perLang := map[string][2]int{}
	var table strings.Builder
	fmt.Fprintf(&table, "%-4s %-4s %-4s %-8s %-34s %s\n", "rank", "hit", "lang", "first", "query", "first-ranked hit")
	for _, q := range qs {
		res, err := ix.Search(ctx, index.Query{Text: q.text, Limit: index.DefaultLimit})
		if err != nil {
			t.Fatalf("search %q: %v", q.text, err)
		}
		rank, hit := sessionRank(res.Hits, q.session)
		c := perLang[q.lang]
		if rank == 1 {
			first++
			c[0]++
		}
		if rank >= 1 && rank <= 3 {
			top3++
			c[1]++
		}
		perLang[q.lang] = c
		shown, where := "-", "-"
		if rank > 0 {
			shown, where = fmt.Sprint(rank), fmt.Sprint(hit)
		}
		top := "(no hit)"
		if len(res.Hits) > 0 {
			h := res.Hits[0]
			top = textcut.Chars(textcut.OneLine(fmt.Sprintf("%s %s: %s", h.Kind, textcut.ShortID(h.Session), h.Marked("«", "»"))), 90)
		}
		relaxed := ""
		if res.Relaxed {
			relaxed = " (relaxed)"
		}
		fmt.Fprintf(&table, "%-4s %-4s %-4s %-8s %-34s %s\n", shown, where, q.lang, textcut.ShortID(q.session), q.text+relaxed, top)
	}
	n := len(qs)
	short := float64(first) < heldOutFirst*float64(n) || float64(top3) < heldOutTop3*float64(n)
	if short || os.Getenv(heldOutEnforce) == "1" {
		t.Logf("held-out ranking, %d queries (ja %d, en %d), rank = place of the deciding session among the sessions of the hits:\n%s", n, langs["ja"], langs["en"], table.String())
	}
	for _, lang := range []string{"en", "ja"} {
		c := perLang[lang]
		t.Logf("%s: first %d/%d, top 3 %d/%d", lang, c[0], langs[lang], c[1], langs[lang])
	}
	t.Logf("deciding session first: %d/%d (%.1f%%, target ≥ %.1f%%); in the top 3: %d/%d (%.1f%%, target ≥ %.0f%%)",
		first, n, pct(first, n), heldOutFirst*100, top3, n, pct(top3, n), heldOutTop3*100)
	if short {
		t.Errorf("held-out ranking below target: first %d/%d, top 3 %d/%d", first, n, top3, n)
	}
}

func pct(k, n int) float64 { return 100 * float64(k) / float64(n) }
