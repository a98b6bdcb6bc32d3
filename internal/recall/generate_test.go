package recall

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// failing is a summarizer that always fails, as an LLM that is down does.
type failing struct{ tokens int }

func (failing) Name() string { return "failing" }
func (f failing) Summarize(context.Context, Input) (Output, error) {
	return Output{Tokens: f.tokens}, errors.New("model unavailable")
}

// counting answers like Extractive and reports a token cost.
type counting struct {
	tokens int
	calls  *int
}

func (counting) Name() string { return "counting" }
func (c counting) Summarize(ctx context.Context, in Input) (Output, error) {
	*c.calls++
	out, err := Extractive{}.Summarize(ctx, in)
	out.Tokens = c.tokens
	return out, err
}

func maker(d state.Dir, j *journal.Journal, now time.Time) *Maker {
	f, _ := FilesFor(d, "")
	return &Maker{
		Files: f, Journal: j, Recent: Extractive{}, Daily: Extractive{}, Phrases: config.DefaultApprovalPhrases(),
		Records: 10, Lang: i18n.EN, Now: func() time.Time { return now }, Log: discard(),
	}
}

// sessionRecords is one session's work on the test day, an approval among it.
func sessionRecords(session string, day time.Time) []journal.Record {
	ts := func(m int) time.Time { return day.Add(time.Duration(m) * time.Minute) }
	return []journal.Record{
		{TS: ts(0), Event: "SessionStart", Session: session, Source: "startup"},
		{TS: ts(1), Event: "UserPromptSubmit", Session: session, Prompt: "Add CSV export"},
		{TS: ts(2), Event: "PostToolUse", Session: session, Tool: "Edit", File: "report.go"},
		{TS: ts(3), Event: "Stop", Session: session, Message: "I propose exporting as UTF-8 with a header row. Shall I?"},
		{TS: ts(4), Event: "UserPromptSubmit", Session: session, Prompt: "OK 進めて"},
		{TS: ts(5), Event: "PostToolUse", Session: session, Tool: "Bash", Desc: "go test ./..."},
		{TS: ts(6), Event: "Stop", Session: session, Message: "Done. TODO: document the format."},
		{TS: ts(7), Event: "SessionEnd", Session: session, Reason: "other"},
	}
}

func TestMakeRecent(t *testing.T) {
	d := stateDir(t)
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	j := writeJournal(t, d, append(sessionRecords("other", day.Add(-time.Hour)), sessionRecords("s1", day)...)...)
	m := maker(d, j, fixedNow())

	r, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1", Trigger: "SessionEnd"})
	if err != nil || !ok {
		t.Fatalf("MakeRecent = %v, %v; want an entry", ok, err)
	}
	if r.Goal != "Add CSV export" || r.Session != "s1" || r.Trigger != "SessionEnd" || r.Summarizer != "extractive" || r.Records != 6 {
		t.Errorf("entry %+v; want goal, session, trigger, summarizer and 6 records of s1 only", r)
	}
	if !strings.Contains(strings.Join(r.OpenLoops, "\n"), "TODO: document the format.") {
		t.Errorf("open loops %q; want the TODO", r.OpenLoops)
	}
	// The approval became a candidate, not a decision.
	pend, _ := Pending(m.Files)
	if len(pend) != 1 || pend[0].Phrase != "OK" || !strings.HasPrefix(pend[0].Proposal, "I propose exporting") {
		t.Fatalf("candidates %+v; want one for the proposal", pend)
	}
	if _, err := os.Stat(m.Files.Decisions()); !os.IsNotExist(err) {
		t.Errorf("a phrase alone wrote the decision log: %v", err)
	}
	// Nothing new: a second run (PreCompact then SessionEnd) adds nothing.
	if _, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1", Trigger: "SessionEnd"}); ok || err != nil {
		t.Errorf("second MakeRecent = %v, %v; want no new entry", ok, err)
	}
	all, _ := readAll[Recent](m.Files.L1(), 0)
	if len(all) != 1 {
		t.Errorf("%d L1 entries; want 1", len(all))
	}
	// A compaction of the same records leaves an entry of its own, once.
	for i, want := range []bool{true, false} {
		if _, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1", Trigger: "PreCompact"}); ok != want || err != nil {
			t.Errorf("PreCompact run %d = %v, %v; want %v", i, ok, err, want)
		}
	}
	// A session with no records: nothing written.
	if _, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "nobody"}); ok || err != nil {
		t.Errorf("MakeRecent for an unknown session = %v, %v; want nothing", ok, err)
	}
}

// TestMakeRecentGoalIsTheTask: a session that went on with "go on" after
// its task was set has the task as its goal, not the newest prompt.
func TestMakeRecentGoalIsTheTask(t *testing.T) {
	d := stateDir(t)
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	recs := sessionRecords("s1", day)
	recs = append(recs[:len(recs)-1], journal.Record{TS: day.Add(8 * time.Minute), Event: "UserPromptSubmit", Session: "s1", Prompt: "go on"},
		journal.Record{TS: day.Add(9 * time.Minute), Event: "PostToolUse", Session: "s1", Tool: "Edit", File: "doc.md"})
	m := maker(d, writeJournal(t, d, recs...), fixedNow())
	for _, tt := range []struct{ task, want string }{{"", "go on"}, {"Export the report as CSV", "Export the report as CSV"}} {
		os.Remove(m.Files.L1())
		r, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1", Trigger: "PreCompact", Task: tt.task})
		if err != nil || !ok {
			t.Fatalf("MakeRecent = %v, %v; want an entry", ok, err)
		}
		if r.Goal != tt.want {
			t.Errorf("task %q: goal %q; want %q", tt.task, r.Goal, tt.want)
		}
	}
}

// TestMakeRecentSkipsTalk: a session that only greeted or asked where
// things stand leaves no L1 entry, so the last entry that summed up work
// stays the newest; a session that did work, or asked for it, leaves one.
func TestMakeRecentSkipsTalk(t *testing.T) {
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	rec := func(m int, session, event, prompt, msg, tool string) journal.Record {
		return journal.Record{TS: day.Add(time.Duration(m) * time.Minute), Event: event, Session: session, Prompt: prompt, Message: msg, Tool: tool}
	}
	for _, tt := range []struct {
		name string
		recs []journal.Record
		want bool
	}{
		{"a greeting", []journal.Record{rec(1, "s", "UserPromptSubmit", "hello", "", ""), rec(2, "s", "Stop", "", "Hello! How can I help?", "")}, false},
		{"acknowledgements", []journal.Record{rec(1, "s", "UserPromptSubmit", "thanks!", "", ""), rec(2, "s", "UserPromptSubmit", "了解です", "", ""), rec(3, "s", "UserPromptSubmit", "/cost", "", "")}, false},
		{"questions", []journal.Record{rec(1, "s", "UserPromptSubmit", "where are we?", "", ""), rec(2, "s", "Stop", "", "The deploy works now.", ""),
			rec(3, "s", "UserPromptSubmit", "今どこまで？", "", ""), rec(4, "s", "Stop", "", "デプロイは動いています。", "")}, false},
		{"a tool call", []journal.Record{rec(1, "s", "UserPromptSubmit", "hello", "", ""), rec(2, "s", "PostToolUse", "", "", "Bash")}, true},
		{"a request in words the task rule does not take", []journal.Record{rec(1, "s", "UserPromptSubmit", "Tidy up the build scripts", "", ""), rec(2, "s", "Stop", "", "Tidied.", "")}, true},
		{"a request for work", []journal.Record{rec(1, "s", "UserPromptSubmit", "Add a /health endpoint that returns the build version", "", ""), rec(2, "s", "Stop", "", "Shall I use JSON?", "")}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := stateDir(t)
			m := maker(d, writeJournal(t, d, tt.recs...), fixedNow())
			_, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s", Trigger: "SessionEnd"})
			if err != nil || ok != tt.want {
				t.Errorf("MakeRecent = %v, %v; want an entry: %v", ok, err, tt.want)
			}
		})
	}
}

func TestMakeRecentFailureKeepsThePrevious(t *testing.T) {
	d := stateDir(t)
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	j := writeJournal(t, d, sessionRecords("s1", day)...)
	m := maker(d, j, fixedNow())
	if _, _, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(m.Files.L1())
	if err := j.Append(journal.Record{TS: day.Add(time.Hour), Event: "PostToolUse", Session: "s1", Tool: "Bash", Desc: "make"}); err != nil {
		t.Fatal(err)
	}
	m.Recent = failing{}
	if _, ok, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1"}); err == nil || ok {
		t.Fatalf("MakeRecent with a failing summarizer = %v, %v; want an error", ok, err)
	}
	after, _ := os.ReadFile(m.Files.L1())
	if !bytes.Equal(before, after) {
		t.Errorf("a failed summary changed the layer:\n%s", after)
	}
}

func TestMakeRecentFromSessionLog(t *testing.T) {
	d := stateDir(t)
	log := d.Root + "/bot-session.jsonl"
	body := `{"ts":"2026-05-13T01:00:00Z","thread":"1778246185.616809","prompt":"価格はどうする？"}
{"ts":"2026-05-13T01:01:00Z","thread":"1778246185.616809","response":"月額 10 ドルを提案します。よろしいですか？"}
not json
{"ts":"2026-05-13T01:02:00Z","thread":"1778246185.616809","prompt":"承認"}
`
	if err := os.WriteFile(log, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadSessionLog(log, 10)
	if err != nil || len(entries) != 3 {
		t.Fatalf("ReadSessionLog = %d entries, %v; want 3", len(entries), err)
	}
	f, _ := FilesFor(d, "sales")
	m := maker(d, nil, fixedNow())
	m.Files, m.Lang = f, i18n.JA
	r, ok, err := m.MakeRecent(context.Background(), RecentOptions{Entries: entries, Trigger: "manual"})
	if err != nil || !ok {
		t.Fatalf("MakeRecent = %v, %v", ok, err)
	}
	if r.Goal != "価格はどうする？" || r.Route != "sales" {
		t.Errorf("entry %+v; want the question as goal on route sales", r)
	}
	pend, _ := Pending(f)
	if len(pend) != 1 || pend[0].Thread != "1778246185.616809" {
		t.Errorf("candidates %+v; want one on the thread", pend)
	}
	if _, err := os.Stat(f.L1()); err != nil || !strings.HasSuffix(f.L1(), "sales-l1.jsonl") {
		t.Errorf("route file %s: %v", f.L1(), err)
	}
}

func TestMakeDaily(t *testing.T) {
	d := stateDir(t)
	loc := fixedNow().Location()
	day := time.Date(2026, 5, 12, 9, 0, 0, 0, loc)
	j := writeJournal(t, d, append(sessionRecords("s0", day.AddDate(0, 0, -1)), sessionRecords("s1", day)...)...)
	m := maker(d, j, fixedNow())
	if _, err := AppendDecisions(m.Files, Decision{Date: "2026-05-12", Summary: "Export as UTF-8", Source: "issue", Issue: 3}); err != nil {
		t.Fatal(err)
	}
	prev, ok, err := m.MakeDaily(context.Background(), DailyOptions{Day: "2026-05-11"})
	if err != nil || !ok || prev.Records != 6 {
		t.Fatalf("day before: %+v, %v, %v; want an entry of 6 records", prev, ok, err)
	}
	got, ok, err := m.MakeDaily(context.Background(), DailyOptions{Day: "2026-05-12"})
	if err != nil || !ok {
		t.Fatalf("MakeDaily = %v, %v", ok, err)
	}
	if got.Goal != "Add CSV export" || got.Records != 6 || len(got.Threads) != 1 || got.Decisions[0] != "[2026-05-12] Export as UTF-8 (source: issue #3)" {
		t.Errorf("entry %+v", got)
	}
	// Safe to run twice: nothing new, nothing written.
	if _, ok, err := m.MakeDaily(context.Background(), DailyOptions{Day: "2026-05-12"}); ok || err != nil {
		t.Errorf("second run = %v, %v; want no new entry", ok, err)
	}
	// Fewer records than the entry was made from (the journal lost some):
	// the entry is kept.
	m2 := maker(d, writeJournal(t, stateDir(t), sessionRecords("s1", day)[:3]...), fixedNow())
	m2.Files = m.Files
	if _, ok, err := m2.MakeDaily(context.Background(), DailyOptions{Day: "2026-05-12"}); ok || err != nil {
		t.Errorf("run with fewer records = %v, %v; want the entry kept", ok, err)
	}
	all, _ := readAll[Daily](m.Files.L2(), 0)
	if len(all) != 2 {
		t.Errorf("%d L2 entries; want 2", len(all))
	}
	// A different summarizer rebuilds the day; the newest entry wins.
	calls := 0
	m.Daily = counting{tokens: 10, calls: &calls}
	if _, ok, _ := m.MakeDaily(context.Background(), DailyOptions{Day: "2026-05-12"}); !ok || calls != 1 {
		t.Errorf("rebuild with another summarizer: ok %v calls %d", ok, calls)
	}
	newest, _, _ := newestDaily(m.Files, "2026-05-12")
	if newest.Summarizer != "counting" {
		t.Errorf("newest entry by %q; want counting", newest.Summarizer)
	}
	// A day with nothing: no entry.
	if _, ok, err := m.MakeDaily(context.Background(), DailyOptions{Day: "2026-04-01"}); ok || err != nil {
		t.Errorf("empty day = %v, %v", ok, err)
	}
	if _, _, err := m.MakeDaily(context.Background(), DailyOptions{Day: "yesterday"}); err == nil {
		t.Error("a bad day was accepted")
	}
}

func TestBudgeted(t *testing.T) {
	d := stateDir(t)
	f := files(t, d)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	calls := 0
	clock := fixedNow()
	b := Budgeted{Inner: counting{tokens: 3000, calls: &calls}, Fallback: Extractive{}, Log: log,
		Budget: Budget{Files: f, Limit: 5000, Now: func() time.Time { return clock }}}
	in := Input{Layer: L1, Entries: []Entry{{TS: fixedNow(), Event: evPrompt, Prompt: "do it"}}}

	out, err := b.Summarize(context.Background(), in)
	if err != nil || out.By != "counting" || calls != 1 {
		t.Fatalf("first: by %q err %v calls %d; want the LLM", out.By, err, calls)
	}
	if used, _ := b.Budget.Used(); used != 3000 {
		t.Errorf("used %d; want 3000", used)
	}
	// 3000 used, a request of ~500 more fits under 5000; the next does not.
	out, _ = b.Summarize(context.Background(), in)
	if out.By != "counting" || calls != 2 {
		t.Fatalf("second: by %q; want the LLM", out.By)
	}
	out, err = b.Summarize(context.Background(), in)
	if err != nil || out.By != "extractive" || calls != 2 {
		t.Fatalf("third: by %q err %v calls %d; want the extractive fallback", out.By, err, calls)
	}
	if !strings.Contains(logs.String(), "over the daily token budget") {
		t.Errorf("fallback not logged: %s", logs.String())
	}
	// The next day the budget is fresh.
	clock = fixedNow().AddDate(0, 0, 1)
	if out, _ = b.Summarize(context.Background(), in); out.By != "counting" {
		t.Errorf("next day: by %q; want the LLM", out.By)
	}
	// A failed LLM call is charged too.
	b.Inner = failing{tokens: 700}
	if _, err := b.Summarize(context.Background(), in); err == nil {
		t.Error("failure not reported")
	}
	if used, _ := b.Budget.Used(); used != 3700 {
		t.Errorf("used %d after a failed call; want 3700", used)
	}
}

func TestApprove(t *testing.T) {
	d := stateDir(t)
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	m := maker(d, writeJournal(t, d, sessionRecords("s1", day)...), fixedNow())
	if _, _, err := m.MakeRecent(context.Background(), RecentOptions{Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	pend, _ := Pending(m.Files)
	if len(pend) != 1 {
		t.Fatalf("candidates %+v; want 1", pend)
	}
	if _, err := Approve(context.Background(), m.Files, "zzzz", "", Extractive{}, Input{}, fixedNow()); !errors.Is(err, ErrNoCandidate) {
		t.Errorf("Approve(unknown) = %v; want ErrNoCandidate", err)
	}
	dec, err := Approve(context.Background(), m.Files, pend[0].ID[:4], "", Extractive{}, Input{Lang: i18n.EN}, fixedNow())
	if err != nil {
		t.Fatal(err)
	}
	if dec.Summary != "Exporting as UTF-8 with a header row." || dec.Date != "2026-05-13" || dec.SourceText() != "session s1" {
		t.Errorf("decision %+v; want what the proposal proposes, from session s1", dec)
	}
	logged, _ := ReadDecisions(m.Files, false)
	if len(logged) != 1 || logged[0].Summary != dec.Summary {
		t.Errorf("log %+v; want the decision", logged)
	}
	if pend, _ = Pending(m.Files); len(pend) != 0 {
		t.Errorf("still pending: %+v", pend)
	}
	// The same approval seen again (the next L1 job) stays settled.
	if n, _ := AddCandidates(m.Files, FindCandidates(entriesOf(sessionRecords("s1", day)), config.DefaultApprovalPhrases()), fixedNow()); n != 0 {
		t.Errorf("re-added %d settled candidates", n)
	}
}

func entriesOf(recs []journal.Record) []Entry {
	out := make([]Entry, len(recs))
	for i := range recs {
		out[i] = FromRecord(&recs[i])
	}
	return out
}

func TestFindCandidates(t *testing.T) {
	phrases := config.DefaultApprovalPhrases()
	e := func(m int, prompt, msg string) Entry {
		return Entry{TS: at(m), Session: "s", Prompt: prompt, Message: msg}
	}
	tests := []struct {
		name    string
		entries []Entry
		want    int
	}{
		{"approval after a proposal", []Entry{e(0, "", "Use Go?"), e(1, "LGTM", "")}, 1},
		{"a question is not an approval", []Entry{e(0, "", "Plan A."), e(1, "OK?", "")}, 0},
		{"no proposal before it", []Entry{e(1, "OK", "")}, 0},
		{"one answer per proposal", []Entry{e(0, "", "Plan A."), e(1, "OK", ""), e(2, "OK", "")}, 1},
		{"the word inside another is not a phrase", []Entry{e(0, "", "Plan A."), e(1, "check the booking", "")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FindCandidates(tt.entries, phrases); len(got) != tt.want {
				t.Errorf("got %d candidates %+v; want %d", len(got), got, tt.want)
			}
		})
	}
}

// TestFindApprovals: the approvals among a session's records become
// candidates, once, and no layer is written.
func TestFindApprovals(t *testing.T) {
	d := stateDir(t)
	day := time.Date(2026, 5, 13, 9, 0, 0, 0, fixedNow().Location())
	m := maker(d, writeJournal(t, d, append(sessionRecords("other", day.Add(-time.Hour)), sessionRecords("s1", day)...)...), fixedNow())
	for i, want := range []int{1, 0} {
		n, err := m.FindApprovals(context.Background(), "s1")
		if err != nil || n != want {
			t.Fatalf("run %d: FindApprovals = %d, %v; want %d", i, n, err, want)
		}
	}
	pend, _ := Pending(m.Files)
	if len(pend) != 1 || pend[0].Session != "s1" || pend[0].Approval != "OK 進めて" {
		t.Errorf("candidates %+v; want s1's one", pend)
	}
	if _, err := os.Stat(m.Files.L1()); !os.IsNotExist(err) {
		t.Errorf("FindApprovals wrote the recent summary: %v", err)
	}
}
