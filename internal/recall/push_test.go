package recall

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
)

func rec(ts time.Time, event, session string) journal.Record {
	return journal.Record{TS: ts, Event: event, Session: session}
}

// TestDetectRestart tells the restart cases apart from the journal; a
// previous run that never reached SessionEnd is a crash.
func TestDetectRestart(t *testing.T) {
	t0 := fixedNow().Add(-time.Hour)
	tool := journal.Record{TS: t0.Add(2 * time.Minute), Event: "PostToolUse", Session: "s1", Tool: "Bash", Desc: "go test"}
	tests := []struct {
		name     string
		recs     []journal.Record
		session  string
		source   string
		want     Case
		wantPrev string
	}{
		{name: "first session ever", recs: []journal.Record{rec(fixedNow(), "SessionStart", "s1")}, session: "s1", source: "startup", want: CaseStartup},
		{
			name:    "new session after a clean end",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), tool, rec(t0.Add(3*time.Minute), "SessionEnd", "s1"), rec(fixedNow(), "SessionStart", "s2")},
			session: "s2", source: "startup", want: CaseStartup, wantPrev: "s1",
		},
		{
			name:    "crash: the previous session has no SessionEnd",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), tool, rec(fixedNow(), "SessionStart", "s2")},
			session: "s2", source: "startup", want: CaseCrash, wantPrev: "s1",
		},
		{
			name:    "crash of the same session, resumed",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), tool, rec(fixedNow(), "SessionStart", "s1")},
			session: "s1", source: "resume", want: CaseCrash, wantPrev: "s1",
		},
		{
			name:    "clean resume",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), tool, rec(t0.Add(3*time.Minute), "SessionEnd", "s1"), rec(fixedNow(), "SessionStart", "s1")},
			session: "s1", source: "resume", want: CaseResume, wantPrev: "s1",
		},
		{
			name:    "compact is a rotation, never a crash",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), tool, rec(t0.Add(3*time.Minute), "PreCompact", "s1"), rec(fixedNow(), "SessionStart", "s1")},
			session: "s1", source: "compact", want: CaseCompact,
		},
		{
			name:    "a host's new session id without a source: account switch",
			recs:    []journal.Record{rec(t0, "SessionStart", "s1"), rec(t0.Add(3*time.Minute), "SessionEnd", "s1")},
			session: "s9", source: "", want: CaseSwitch, wantPrev: "s1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := writeJournal(t, stateDir(t), tt.recs...)
			r, err := DetectRestart(context.Background(), j, tt.session, tt.source, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.Case != tt.want || r.Previous != tt.wantPrev {
				t.Errorf("case %q previous %q; want %q and %q", r.Case, r.Previous, tt.want, tt.wantPrev)
			}
		})
	}
}

// seedLayers writes n decisions, l1 L1 entries and l2 L2 entries, each
// entry large, so that all of them are far more than the budget.
func seedLayers(t *testing.T, f Files, n, l1, l2 int) {
	t.Helper()
	var ds []Decision
	for i := range n {
		ds = append(ds, Decision{Date: fixedNow().AddDate(0, 0, -n+i).Format(DateLayout), Summary: "decision number " + itoa(i) + " " + strings.Repeat("d", 150), Source: "issue", Issue: i + 1})
	}
	if _, err := AppendDecisions(f, ds...); err != nil {
		t.Fatal(err)
	}
	for i := range l1 {
		r := Recent{TS: fixedNow().Add(-time.Duration(l1-i) * time.Minute), Route: "default", Session: "sess-" + itoa(i), Trigger: "PreCompact", Summarizer: "extractive",
			Goal: "goal of entry " + itoa(i), Actions: []string{strings.Repeat("a", 200), strings.Repeat("b", 200)}, OpenLoops: []string{"loop " + itoa(i)}}
		if err := appendLine(f.L1(), r); err != nil {
			t.Fatal(err)
		}
	}
	for i := range l2 {
		d := Daily{TS: fixedNow(), Route: "default", Date: fixedNow().AddDate(0, 0, -l2+i).Format(DateLayout), Summarizer: "extractive",
			Goal: "day goal " + itoa(i), Threads: []string{strings.Repeat("t", 200)}, Pending: []string{"pending " + itoa(i)}}
		if err := appendLine(f.L2(), d); err != nil {
			t.Fatal(err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestPush(t *testing.T) {
	tests := []struct {
		name           string
		decisions, l1s int
		l2s            int
		budget         int
		source         string
		journal        []journal.Record
		want, wantNot  []string
		wantLeftL3     bool
		wantEmpty      bool
		wantDailyDue   string
	}{
		{
			name: "small layers all pushed", decisions: 2, l1s: 1, l2s: 1, budget: hook.MaxContext, source: "compact",
			want:    []string{"context recovery (route default)", "The conversation was compacted; its details are gone.", "decision number 0", "decision number 1", "goal of entry 0", "day goal 0", "### Daily summary (L2)"},
			wantNot: []string{"left out"},
		},
		{
			name: "layers far larger than the budget: L3 newest first and L1 kept, the rest said", decisions: 80, l1s: 300, l2s: 60, budget: hook.MaxContext, source: "resume",
			want:       []string{"decision number 79", "goal of entry 299", "left out to stay within 10000 characters", "older decision(s)", "daily summary"},
			wantNot:    []string{"goal of entry 298", "day goal 58"},
			wantLeftL3: true,
		},
		{
			name: "what is left of the budget after the briefing", decisions: 10, l1s: 1, l2s: 1, budget: 1500, source: "startup",
			want:       []string{"decision number 9", "left out to stay within 1500 characters"},
			wantLeftL3: true,
		},
		{name: "no layers, clean start: nothing", budget: hook.MaxContext, source: "startup", wantEmpty: true},
		{
			name: "no layers but a crash: said", budget: hook.MaxContext, source: "startup",
			journal: []journal.Record{rec(fixedNow().Add(-26*time.Hour), "PostToolUse", "crashed-session-id"), rec(fixedNow(), "SessionStart", "s2")},
			want:    []string{"did not end normally", "session crashed", "ended without SessionEnd", "session_log"},
			// The last activity was yesterday and has no L2 entry yet.
			wantDailyDue: "2026-05-12",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := stateDir(t)
			f := files(t, d)
			seedLayers(t, f, tt.decisions, tt.l1s, tt.l2s)
			j := writeJournal(t, d, tt.journal...)
			p, err := Push(context.Background(), PushOptions{State: d, Session: "s2", Source: tt.source, Now: fixedNow(), Lang: i18n.EN, Budget: tt.budget, Journal: j})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantEmpty {
				if p.Text != "" {
					t.Fatalf("text %q; want none", p.Text)
				}
				return
			}
			if n := hook.Len(p.Text); n > tt.budget {
				t.Fatalf("%d characters; want at most %d", n, tt.budget)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, p.Text)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(p.Text, w) {
					t.Errorf("text has %q:\n%s", w, p.Text)
				}
			}
			if p.Kept[L3]+p.Left[L3] != tt.decisions {
				t.Errorf("decisions kept %d + left %d != %d", p.Kept[L3], p.Left[L3], tt.decisions)
			}
			if p.Left[L3] > 0 && !strings.Contains(p.Text, itoa(p.Left[L3])+" older decision(s)") {
				t.Errorf("note does not count the %d decisions left out:\n%s", p.Left[L3], p.Text)
			}
			if got := p.Left[L3] > 0; got != tt.wantLeftL3 {
				t.Errorf("left L3 %d; want some: %v", p.Left[L3], tt.wantLeftL3)
			}
			if p.DailyDue != tt.wantDailyDue {
				t.Errorf("DailyDue %q; want %q", p.DailyDue, tt.wantDailyDue)
			}
		})
	}
}

func TestPushJapanese(t *testing.T) {
	d := stateDir(t)
	seedLayers(t, files(t, d), 1, 1, 0)
	p, err := Push(context.Background(), PushOptions{State: d, Session: "s", Source: "compact", Now: fixedNow(), Lang: i18n.JA, Budget: hook.MaxContext})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"文脈の復元", "圧縮", "承認済みの決定 (L3)", "直近の要約 (L1)"} {
		if !strings.Contains(p.Text, w) {
			t.Errorf("text lacks %q:\n%s", w, p.Text)
		}
	}
}

// TestPushLeavesOutEmptyOpenLoops: a recent summary whose open loops were
// only candidates awaiting the person (theirs, not the model's) shows no
// "Open Loops: (none)", which would read as nothing being open beside the
// briefing's own open items; one with loops left shows them.
func TestPushLeavesOutEmptyOpenLoops(t *testing.T) {
	for _, tt := range []struct {
		loops     []string
		want, not string
	}{
		{[]string{"awaiting approval: The script reads no DB_URL. [baton context approve b9be53d8]"}, "Recent Actions:", "Open Loops"},
		{nil, "Recent Actions:", "Open Loops"},
		{[]string{"quoted strings still split", "awaiting approval: Keep the IDs. [baton context approve 77aa01bc]"}, "Open Loops:\n- quoted strings still split", "awaiting approval"},
	} {
		d := stateDir(t)
		f, err := FilesFor(d, "")
		if err != nil {
			t.Fatal(err)
		}
		r := Recent{TS: fixedNow().Add(-time.Minute), Route: "default", Session: "s1", Summarizer: "extractive", Goal: "Fix the staging deploy",
			Actions: []string{"Bash: ./deploy.sh staging"}, OpenLoops: tt.loops}
		if err := appendLine(f.L1(), r); err != nil {
			t.Fatal(err)
		}
		l, err := LoadLayers(PushOptions{State: d, Now: fixedNow(), Lang: i18n.EN, Budget: hook.MaxContext}, fixedNow())
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, it := range l.Items {
			if it.Layer == L1 {
				text = it.Text
			}
		}
		if !strings.Contains(text, tt.want) || strings.Contains(text, tt.not) {
			t.Errorf("loops %q: L1 text\n%s\nwant %q, not %q", tt.loops, text, tt.want, tt.not)
		}
	}
}
