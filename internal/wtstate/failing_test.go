package wtstate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

func TestApplyFailing(t *testing.T) {
	exit0, exit1 := 0, 1
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	fail := func(cmd string, m int) journal.Record {
		return journal.Record{TS: at(m), Event: "PostToolUseFailure", Tool: "Bash", Cmd: cmd, Exit: &exit1}
	}
	ok := func(cmd string, m int) journal.Record {
		return journal.Record{TS: at(m), Event: "PostToolUse", Tool: "Bash", Cmd: cmd, Exit: &exit0}
	}
	tests := []struct {
		name string
		recs []journal.Record
		want string // commands failing, oldest first, with the minute of their failure
	}{
		{"failures join", []journal.Record{fail("make", 1), fail("go vet", 2)}, "make@1 go vet@2"},
		{"a failure again moves it", []journal.Record{fail("make", 1), fail("go vet", 2), fail("make", 3)}, "go vet@2 make@3"},
		{"a success removes it", []journal.Record{fail("make", 1), fail("go vet", 2), ok("make", 3)}, "go vet@2"},
		{"an older success does not", []journal.Record{fail("make", 5), ok("make", 3)}, "make@5"},
		{"an older failure does not replace", []journal.Record{fail("make", 5), fail("make", 3)}, "make@5"},
		{"other tools and no command change nothing", []journal.Record{fail("make", 1), {TS: at(2), Event: "PostToolUseFailure", Tool: "Edit"}, {TS: at(3), Event: "PostToolUseFailure", Tool: "Bash"}}, "make@1"},
		{"a run without exit status is not a success", []journal.Record{fail("make", 1), {TS: at(2), Event: "PostToolUse", Tool: "Bash", Cmd: "make"}}, "make@1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list []Failure
			for _, r := range tt.recs {
				list, _ = ApplyFailing(list, r)
			}
			var got []string
			for _, f := range list {
				got = append(got, fmt.Sprintf("%s@%d", f.Cmd, int(f.At.Sub(t0)/time.Minute)))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("failing %q; want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

// TestFailingOutlastsTheRecordsCut: the commands failing stay in
// state.json after their records are cut from records.jsonl, until they
// work again.
func TestFailingOutlastsTheRecordsCut(t *testing.T) {
	d := At("", t.TempDir())
	exit0, exit1 := 0, 1
	observe := func(r journal.Record) {
		t.Helper()
		if err := d.Observe(Event{Record: r}); err != nil {
			t.Fatal(err)
		}
	}
	ts := t0
	for i := range 8 {
		ts = ts.Add(time.Minute)
		observe(journal.Record{TS: ts, Event: "PostToolUseFailure", Session: "s1", Tool: "Bash", Cmd: fmt.Sprintf("ls missing-%d.txt", i), Exit: &exit1, Error: "No such file"})
	}
	for range 2000 {
		ts = ts.Add(time.Second)
		observe(journal.Record{TS: ts, Event: "PostToolUse", Session: "s1", Tool: "Edit", File: "/repo/" + strings.Repeat("x", 100) + ".go"})
	}
	recs, err := d.Records()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Event == "PostToolUseFailure" {
			t.Fatalf("the failures are still among the records: the cut did not happen")
		}
	}
	observe(journal.Record{TS: ts.Add(time.Minute), Event: "PostToolUse", Session: "s1", Tool: "Bash", Cmd: "ls missing-3.txt", Exit: &exit0})
	s, err := d.Read()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Failing {
		got = append(got, f.Cmd)
	}
	want := "ls missing-0.txt ls missing-1.txt ls missing-2.txt ls missing-4.txt ls missing-5.txt ls missing-6.txt ls missing-7.txt"
	if strings.Join(got, " ") != want {
		t.Errorf("failing %q; want %q", strings.Join(got, " "), want)
	}
}
