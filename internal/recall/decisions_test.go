package recall

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDecisionLine(t *testing.T) {
	tests := []struct {
		name string
		d    Decision
		want string
	}{
		{"issue kind completed", Decision{Date: "2026-05-01", Summary: "Use SQLite", Source: "issue", Issue: 12}, "- [2026-05-01] Use SQLite (source: issue #12)"},
		{"thread from its field", Decision{Date: "2026-05-02", Summary: "Ship at 6:00", Thread: "1778246185.616809"}, "- [2026-05-02] Ship at 6:00 (source: thread 1778246185.616809)"},
		{"session shortened", Decision{Date: "2026-05-03", Summary: "x", Source: "session", Session: "0123456789abcdef"}, "- [2026-05-03] x (source: session 01234567)"},
		{"free text kept", Decision{Date: "2026-05-04", Summary: "multi\nline  text", Source: "CEO in #general"}, "- [2026-05-04] multi line text (source: CEO in #general)"},
		{"nothing known", Decision{Date: "2026-05-05", Summary: "y"}, "- [2026-05-05] y (source: -)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Line(); got != tt.want {
				t.Errorf("Line() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestAppendDecisions(t *testing.T) {
	f := files(t, stateDir(t))
	n, err := AppendDecisions(f,
		Decision{Date: "2026-05-01", Slug: "use-sqlite", Summary: "Use SQLite for the index", Source: "issue", Issue: 3},
		Decision{Date: "2026-05-01", Summary: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rotated", Source: "session", Session: "s1"},
	)
	if err != nil || n != 2 {
		t.Fatalf("AppendDecisions = %d, %v; want 2, nil", n, err)
	}
	// A replayed capture: same slug and issue, skipped; same slug on another
	// issue, kept.
	n, err = AppendDecisions(f,
		Decision{Date: "2026-05-02", Slug: "use-sqlite", Summary: "Use SQLite for the index", Source: "issue", Issue: 3},
		Decision{Date: "2026-05-02", Slug: "use-sqlite", Summary: "Use SQLite here too", Source: "issue", Issue: 4},
	)
	if err != nil || n != 1 {
		t.Fatalf("second AppendDecisions = %d, %v; want 1, nil", n, err)
	}
	got, err := ReadDecisions(f, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Issue != 4 || got[0].Route != "default" {
		t.Fatalf("log = %+v; want 3 decisions, the last for issue 4, route default", got)
	}
	if strings.Contains(got[1].Summary, "ghp_") {
		t.Errorf("secret reached the log: %q", got[1].Summary)
	}
	for _, bad := range []Decision{{Date: "13/05/2026", Summary: "x"}, {Date: "2026-05-13", Summary: "  "}} {
		if _, err := AppendDecisions(f, bad); !errors.Is(err, ErrDecision) {
			t.Errorf("AppendDecisions(%+v) = %v; want ErrDecision", bad, err)
		}
	}
}

// TestArchiveDecisions moves decisions past the archive age with an
// injected clock, keeps them readable, and keeps what it does not know.
func TestArchiveDecisions(t *testing.T) {
	f := files(t, stateDir(t))
	if _, err := AppendDecisions(f,
		Decision{Date: "2026-01-01", Summary: "old one", Source: "issue", Issue: 1},
		Decision{Date: "2026-02-12", Summary: "exactly 90 days", Source: "issue", Issue: 2},
		Decision{Date: "2026-05-01", Summary: "recent", Source: "issue", Issue: 3},
	); err != nil {
		t.Fatal(err)
	}
	// A line from a newer writer with a field this version does not know.
	raw := `{"date":"2025-12-01","summary":"from the future","source":"thread","thread":"1.1","reviewer":"kim"}` + "\n"
	if err := appendRaw(f.Decisions(), []byte(raw)); err != nil {
		t.Fatal(err)
	}

	now := time.Date(2026, 5, 13, 9, 0, 0, 0, time.UTC)
	moved, err := ArchiveDecisions(f, now, 90*24*time.Hour)
	if err != nil || moved != 2 {
		t.Fatalf("ArchiveDecisions = %d, %v; want 2 moved", moved, err)
	}
	active, _ := ReadDecisions(f, false)
	if len(active) != 2 || active[0].Summary != "exactly 90 days" || active[1].Summary != "recent" {
		t.Errorf("active = %+v; want the 90-day-old and the recent one", active)
	}
	all, _ := ReadDecisions(f, true)
	if len(all) != 4 || all[0].Summary != "old one" {
		t.Errorf("with archive = %+v; want all 4, archived first", all)
	}
	archived, _ := os.ReadFile(f.ArchivedDecisions())
	if !strings.Contains(string(archived), `"reviewer":"kim"`) {
		t.Errorf("archive lost an unknown field:\n%s", archived)
	}

	// Again, later: nothing twice.
	moved, err = ArchiveDecisions(f, now, 90*24*time.Hour)
	if err != nil || moved != 0 {
		t.Fatalf("second run = %d, %v; want 0", moved, err)
	}
	moved, _ = ArchiveDecisions(f, now.AddDate(0, 0, 1), 90*24*time.Hour)
	all, _ = ReadDecisions(f, true)
	if moved != 1 || len(all) != 4 {
		t.Errorf("a day later: moved %d, %d in all; want 1 and 4", moved, len(all))
	}
	// A crash after the archive was written but before the active log was
	// rewritten leaves a line in both; the next run does not archive it twice.
	if err := appendRaw(f.Decisions(), []byte(`{"date":"2026-01-01","summary":"old one","source":"issue","issue":1,"route":"default"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(f.ArchivedDecisions())
	if _, err := ArchiveDecisions(f, now, 90*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(f.ArchivedDecisions())
	if string(before) != string(after) {
		t.Errorf("archive grew with a line it held:\n%s", after)
	}
}

// TestArchiveWhileAppending checks that no decision is lost when writers
// append while the log is archived.
func TestArchiveWhileAppending(t *testing.T) {
	f := files(t, stateDir(t))
	now := time.Date(2026, 5, 13, 9, 0, 0, 0, time.UTC)
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				date := "2026-05-10"
				if i%2 == 0 {
					date = "2025-01-01"
				}
				if _, err := AppendDecisions(f, Decision{Date: date, Summary: fmt.Sprintf("w%d-%d", w, i), Source: "session", Session: "s"}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if _, err := ArchiveDecisions(f, now, 90*24*time.Hour); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	all, err := ReadDecisions(f, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range all {
		seen[d.Summary]++
	}
	for w := range writers {
		for i := range each {
			if s := fmt.Sprintf("w%d-%d", w, i); seen[s] != 1 {
				t.Errorf("%s present %d times; want once", s, seen[s])
			}
		}
	}
}

func TestFilesForRoutes(t *testing.T) {
	d := stateDir(t)
	f, err := FilesFor(d, "sales")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(f.L1(), "/context/sales-l1.jsonl") || !strings.HasSuffix(f.ArchivedDecisions(), "/context/archive/sales-decisions.jsonl") {
		t.Errorf("files %s, %s; want sales- prefixed names under context/", f.L1(), f.ArchivedDecisions())
	}
	def := files(t, d)
	if !strings.HasSuffix(def.Decisions(), "/context/decisions.jsonl") {
		t.Errorf("default decisions file %s; want context/decisions.jsonl", def.Decisions())
	}
	for _, bad := range []string{"../x", "A", "a/b", ".hidden"} {
		if _, err := FilesFor(d, bad); !errors.Is(err, ErrRoute) {
			t.Errorf("FilesFor(%q) = %v; want ErrRoute", bad, err)
		}
	}
}

// A job whose state folder is gone writes nothing, and in particular does
// not make the folder again.
func TestNoStateFolderNoWrite(t *testing.T) {
	d := stateDir(t)
	if err := os.Remove(d.Root); err != nil {
		t.Fatal(err)
	}
	_, err := AppendDecisions(files(t, d), Decision{Date: "2026-05-13", Summary: "x"})
	if err == nil {
		t.Fatal("AppendDecisions succeeded with no state folder")
	}
	if _, err := os.Stat(d.Root); !os.IsNotExist(err) {
		t.Errorf("state folder made again: %v", err)
	}
}
