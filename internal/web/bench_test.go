package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

// benchPage measures rendering path with o, without the network.
func benchPage(b *testing.B, o Options, path string) {
	b.Helper()
	s, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d", path, rec.Code)
		}
	}
}

// BenchmarkTimelineFromJournal renders the sessions page from the
// journal's newest DefaultJournalRecords records (200 sessions in 4
// worktrees), as the dashboard does without an index.
func BenchmarkTimelineFromJournal(b *testing.B) {
	fx := newFixture(b)
	j := journal.Open(fx.State.Root, journal.Options{MaxSize: -1})
	recs := make([]journal.Record, 0, 1000)
	t0 := fxNow.Add(-48 * time.Hour)
	for i := range DefaultJournalRecords {
		wt := fmt.Sprintf("%s-%d", fx.Main, i%4)
		r := journal.Record{TS: t0.Add(time.Duration(i) * time.Second), Event: "PostToolUse", Tool: "Edit",
			File: fmt.Sprintf("internal/pkg%d/file%d.go", i%17, i%101), Session: fmt.Sprintf("session-%03d", i%200), Worktree: wt, Branch: "main"}
		if i%10 == 0 {
			r.Event, r.Tool, r.File, r.Prompt = "UserPromptSubmit", "", "", "refactor the export and keep the tests green"
		}
		if recs = append(recs, r); len(recs) == cap(recs) {
			if err := j.Append(recs...); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	benchPage(b, fx.options(), "/")
}

// BenchmarkSessionFromIndex renders a session page from the index.
func BenchmarkSessionFromIndex(b *testing.B) {
	fx := newFixture(b)
	o := fx.options()
	o.Index = fx.index(b)
	benchPage(b, o, "/sessions/"+fxSession)
}

// BenchmarkSearchPage renders a page of search hits from the index.
func BenchmarkSearchPage(b *testing.B) {
	fx := newFixture(b)
	o := fx.options()
	o.Index = fx.index(b)
	benchPage(b, o, "/search?q=csv")
}
