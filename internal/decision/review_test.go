package decision

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/wtstate"
)

func TestPendingReviewProvider(t *testing.T) {
	dir := testDir(t)
	j := journal.Open(dir.Root, journal.Options{})
	at := func(m int) time.Time { return fixedNow.Add(time.Duration(m) * time.Minute) }
	recs := []journal.Record{
		{TS: at(1), Event: "Stop", Session: "reviewed-1", Transcript: "/t/r.jsonl", Offset: 100, Branch: "main"},
		{TS: at(2), Event: "PreCompact", Session: "grown-2222222", Transcript: "/t/g.jsonl", Offset: 50, Branch: "feat/2-x"},
		{TS: at(3), Event: "SessionEnd", Session: "grown-2222222", Transcript: "/t/g.jsonl", Offset: 300, Branch: "feat/2-x"},
		{TS: at(4), Event: "PostToolUse", Session: "tools-only", Tool: "Bash"},
		{TS: at(5), Event: "Stop", Session: "never-3", Transcript: "/t/n.jsonl", Offset: 10},
		{TS: at(6), Event: "Stop", Session: "current", Transcript: "/t/c.jsonl", Offset: 10},
		{TS: at(7), Event: "Stop", Session: "../evil", Transcript: "/t/e.jsonl", Offset: 10},
	}
	if err := j.Append(recs...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CommitState(dir, "reviewed-1", Patch{KeyOffset: []byte("100")}, fixedNow); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CommitState(dir, "grown-2222222", Patch{KeyOffset: []byte("120")}, fixedNow); err != nil {
		t.Fatal(err)
	}

	list, err := FindUnreviewed(context.Background(), journal.Open(dir.Root, journal.Options{}), dir, 5, "current")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range list {
		got = append(got, u.Session)
	}
	if strings.Join(got, ",") != "never-3,grown-2222222" || list[1].Offset != 300 || list[1].Reviewed != 120 {
		t.Errorf("unreviewed: %+v; want never-3 then grown-2222222 (300 > 120)", list)
	}

	text, err := ReviewNote(context.Background(), j, dir, nil, 1, "current", i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "`baton decisions capture --session never-3`") {
		t.Errorf("context: %q; want a heading and one line with the command", text)
	}
	text, _ = ReviewNote(context.Background(), j, dir, nil, 0, "current", i18n.JA)
	if !strings.Contains(text, "決定がまだ確認されていない") || strings.Count(text, "baton decisions capture") != 2 {
		t.Errorf("ja context: %q", text)
	}
	// Nothing to say: an empty section.
	empty := testDir(t)
	if text, err := ReviewNote(context.Background(), journal.Open(empty.Root, journal.Options{}), empty, nil, 0, "current", i18n.EN); text != "" || err != nil {
		t.Errorf("empty journal: %q %v", text, err)
	}
}

// TestReviewNoteFromWorktreeSessions checks that the worktree's sessions are
// looked at whatever the journal holds: a previous session's unreviewed
// transcript is named though a busy session wrote megabytes since.
func TestReviewNoteFromWorktreeSessions(t *testing.T) {
	dir := testDir(t)
	j := journal.Open(dir.Root, journal.Options{})
	busy := []journal.Record{{TS: fixedNow.Add(-time.Hour), Event: "SessionEnd", Session: "earlier-1", Transcript: "/t/e.jsonl", Offset: 700, Branch: "main"}}
	for i := range 5000 {
		busy = append(busy, journal.Record{TS: fixedNow, Event: "Stop", Session: "busy", Transcript: "/t/b.jsonl", Offset: int64(i + 1), Message: strings.Repeat("x", 200)})
	}
	if err := j.Append(busy...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CommitState(dir, "busy", Patch{KeyOffset: []byte("5000")}, fixedNow); err != nil {
		t.Fatal(err)
	}
	sessions := &wtstate.State{Sessions: []wtstate.Session{
		{ID: "earlier-1", Last: fixedNow.Add(-time.Hour), Transcript: "/t/e.jsonl", Offset: 700, LastEvent: "SessionEnd", Branch: "main"},
		{ID: "busy", Last: fixedNow, Transcript: "/t/b.jsonl", Offset: 5000, LastEvent: "Stop"},
	}}
	text, err := ReviewNote(context.Background(), j, dir, sessions, 3, "current", i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "--session earlier-1`") || strings.Contains(text, "--session busy`") {
		t.Errorf("note = %q; want the earlier session named, not the reviewed busy one", text)
	}
	old, _ := FindUnreviewed(context.Background(), j, dir, 3, "current")
	for _, u := range old {
		if u.Session == "earlier-1" {
			t.Errorf("the journal's last %d bytes reach earlier-1; the test does not show the difference", ReviewScanBytes)
		}
	}
}

// TestReviewNoteAfterUpgrade checks that sessions from before the worktree's
// session list existed (recorded by an older baton) are still named from the
// journal, and that sessions of the list are not named twice.
func TestReviewNoteAfterUpgrade(t *testing.T) {
	dir := testDir(t)
	j := journal.Open(dir.Root, journal.Options{})
	if err := j.Append(
		journal.Record{TS: fixedNow.Add(-2 * time.Hour), Event: "SessionEnd", Session: "before-upgrade", Transcript: "/t/old.jsonl", Offset: 900, Branch: "main"},
		journal.Record{TS: fixedNow.Add(-time.Minute), Event: "Stop", Session: "listed", Transcript: "/t/new.jsonl", Offset: 300},
	); err != nil {
		t.Fatal(err)
	}
	sessions := &wtstate.State{Sessions: []wtstate.Session{
		{ID: "listed", Started: fixedNow.Add(-10 * time.Minute), Last: fixedNow.Add(-time.Minute), Transcript: "/t/new.jsonl", Offset: 300, LastEvent: "Stop"},
	}}
	text, err := ReviewNote(context.Background(), j, dir, sessions, 3, "current", i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "--session before-upgrade`") {
		t.Errorf("note = %q; want the session from before the upgrade named", text)
	}
	if n := strings.Count(text, "--session listed`"); n != 1 {
		t.Errorf("note = %q; want the listed session named once, got %d", text, n)
	}
}
