package decision

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
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

	s := &hook.Start{Payload: &hook.Payload{SessionID: "current"}, State: dir, Lang: i18n.EN}
	text, err := PendingReviewProvider{Max: 1}.SessionContext(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "`baton decisions capture --session never-3`") {
		t.Errorf("context: %q; want a heading and one line with the command", text)
	}
	s.Lang = i18n.JA
	text, _ = PendingReviewProvider{}.SessionContext(context.Background(), s)
	if !strings.Contains(text, "決定がまだ確認されていない") || strings.Count(text, "baton decisions capture") != 2 {
		t.Errorf("ja context: %q", text)
	}
	// Nothing to say: an empty section.
	empty := testDir(t)
	s.State = empty
	if text, err := (PendingReviewProvider{}).SessionContext(context.Background(), s); text != "" || err != nil {
		t.Errorf("empty journal: %q %v", text, err)
	}
}
