package recall

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
)

func at(min int) time.Time { return fixedNow().Add(time.Duration(min) * time.Minute) }

func TestExtractiveRecent(t *testing.T) {
	phrases := config.DefaultApprovalPhrases()
	entries := []Entry{
		{TS: at(0), Event: evPrompt, Session: "s", Prompt: "Add CSV export to the report page"},
		{TS: at(1), Event: evPostTool, Session: "s", Tool: "Read", File: "/repo/report.go", Worktree: "/repo"},
		{TS: at(2), Event: evPostTool, Session: "s", Tool: "Edit", File: "/repo/report.go", Worktree: "/repo"},
		{TS: at(3), Event: evPostTool, Session: "s", Tool: "Edit", File: "/repo/report.go", Worktree: "/repo"},
		{TS: at(4), Event: evPostTool, Session: "s", Tool: "Bash", Desc: "go test ./..."},
		{TS: at(5), Event: evStop, Session: "s", Message: "Export works. Should the header row be localized? TODO: add a test for empty reports."},
		{TS: at(6), Event: evPrompt, Session: "s", Prompt: "OK"},
		{TS: at(7), Event: evPostTool, Session: "s", Tool: "Write", File: "/repo/report_test.go", Worktree: "/repo"},
		{TS: at(8), Event: evPostTool, Session: "s", Tool: "Bash", Desc: "go vet ./..."},
		{TS: at(9), Event: evPostTool, Session: "s", Tool: "Grep", Desc: "TODO"},
	}
	out, err := Extractive{}.Summarize(context.Background(), Input{Layer: L1, Lang: i18n.EN, Loc: fixedNow().Location(), Entries: entries, Phrases: phrases, Pending: []string{"awaiting approval: use UTF-8 BOM"}})
	if err != nil {
		t.Fatal(err)
	}
	var r Recent
	r.setSections(out.Sections)
	// The goal is the newest prompt that is not only an approval.
	if r.Goal != "Add CSV export to the report page" {
		t.Errorf("goal %q; want the export request", r.Goal)
	}
	if len(r.Actions) != MaxActions {
		t.Fatalf("actions %q; want %d", r.Actions, MaxActions)
	}
	// Time-ordered, newest last, repeats folded.
	if !strings.HasSuffix(r.Actions[len(r.Actions)-1], "Grep: TODO") {
		t.Errorf("last action %q; want the Grep", r.Actions[len(r.Actions)-1])
	}
	if !slices.ContainsFunc(r.Actions, func(a string) bool { return strings.Contains(a, "Edit report.go (2×)") }) {
		t.Errorf("actions %q; want the two edits folded, path relative to the worktree", r.Actions)
	}
	// The question was answered by the OK after it; the TODO stays open.
	if want := []string{"TODO: add a test for empty reports.", "awaiting approval: use UTF-8 BOM"}; !slices.Equal(r.OpenLoops, want) {
		t.Errorf("open loops %q; want %q", r.OpenLoops, want)
	}
	text := r.Text()
	if !strings.HasPrefix(text, "Goal: Add CSV export") || !strings.Contains(text, "\nRecent Actions:\n- 10:0") || !strings.Contains(text, "\nOpen Loops:\n- ") {
		t.Errorf("text not in the layer format:\n%s", text)
	}
}

func TestExtractiveRecentWaitingAndEmpty(t *testing.T) {
	out, _ := Extractive{}.Summarize(context.Background(), Input{Layer: L1, Lang: i18n.JA, Entries: []Entry{
		{TS: at(0), Event: evPrompt, Prompt: "ビルドを直して"},
	}})
	var r Recent
	r.setSections(out.Sections)
	if len(r.OpenLoops) != 1 || r.OpenLoops[0] != "エージェントの回答待ち: ビルドを直して" {
		t.Errorf("open loops %q; want the unanswered prompt in Japanese", r.OpenLoops)
	}
	out, _ = Extractive{}.Summarize(context.Background(), Input{Layer: L1, Lang: i18n.EN, Entries: []Entry{
		{TS: at(0), Event: evPrompt, Prompt: "export the report"},
		{TS: at(1), Event: evStop, Message: "Which format, CSV or TSV? I stopped here."},
	}})
	r = Recent{}
	r.setSections(out.Sections)
	if len(r.OpenLoops) != 1 || r.OpenLoops[0] != "waiting for the person's answer: Which format, CSV or TSV?" {
		t.Errorf("open loops %q; want the unanswered question", r.OpenLoops)
	}
	out, _ = Extractive{}.Summarize(context.Background(), Input{Layer: L1, Goal: "from before"})
	r = Recent{}
	r.setSections(out.Sections)
	if r.Goal != "from before" || len(r.Actions) != 0 || r.Text() != "Goal: from before\nRecent Actions: (none)\nOpen Loops: (none)" {
		t.Errorf("empty input gave %+v / %q", r, r.Text())
	}
}

func TestExtractiveDaily(t *testing.T) {
	phrases := config.DefaultApprovalPhrases()
	entries := []Entry{
		{TS: at(0), Event: evPrompt, Session: "s1", Branch: "feat/export", Prompt: "承認"},
		{TS: at(1), Event: evPrompt, Session: "s1", Branch: "feat/export", Prompt: "Add CSV export"},
		{TS: at(2), Event: evPostTool, Session: "s1", Tool: "Edit", File: "a.go"},
		{TS: at(3), Event: evPostTool, Session: "s2", Branch: "main", Tool: "Bash", Desc: "make"},
		{TS: at(4), Event: evPrompt, Thread: "1778246185.616809", Prompt: "what about pricing?"},
		{TS: at(5), Event: evStop, Thread: "1778246185.616809", Message: "Here is the pricing."},
	}
	prev := &Daily{Date: "2026-05-12", Pending: []string{"write the release note"}}
	out, err := Extractive{}.Summarize(context.Background(), Input{
		Layer: L2, Lang: i18n.EN, Entries: entries, Phrases: phrases, Previous: prev,
		Recents:   []Recent{{Goal: "g", OpenLoops: []string{"answer about the header row"}}},
		Decisions: []Decision{{Date: "2026-05-13", Summary: "Export as UTF-8", Source: "issue", Issue: 3}},
		Pending:   []string{"use a BOM"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var d Daily
	d.setSections(out.Sections)
	if d.Goal != "Add CSV export" {
		t.Errorf("daily goal %q; want the first real prompt", d.Goal)
	}
	wantThreads := []string{"session s1 (feat/export): Add CSV export (3 actions)", "session s2 (main): - (1 actions)", "thread 1778246185.616809: what about pricing? (2 actions)"}
	if !slices.Equal(d.Threads, wantThreads) {
		t.Errorf("threads %q; want %q", d.Threads, wantThreads)
	}
	if !slices.Equal(d.Decisions, []string{"[2026-05-13] Export as UTF-8 (source: issue #3)", "awaiting approval: use a BOM"}) {
		t.Errorf("decisions %q", d.Decisions)
	}
	if !slices.Equal(d.Pending, []string{"answer about the header row", "write the release note"}) {
		t.Errorf("pending %q; want today's loop, then the carried-over task", d.Pending)
	}
}

func TestApprovalPhrase(t *testing.T) {
	phrases := config.DefaultApprovalPhrases()
	tests := []struct {
		prompt, want string
	}{
		{"OK", "OK"},
		{"ok, go", "OK"},
		{"Looks good, LGTM!", "LGTM"},
		{"それで承認します", "承認"},
		{"その方針で進めてください", "進めて"},
		{"please go ahead.", "go ahead"},
		{"approved", "approved"},
		{"read the book", ""},
		{"token", ""},
		{"unapproved changes", ""},
		{"goahead", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			if got := approvalPhrase(tt.prompt, phrases); got != tt.want {
				t.Errorf("approvalPhrase(%q) = %q; want %q", tt.prompt, got, tt.want)
			}
		})
	}
}

func TestParseSections(t *testing.T) {
	tests := []struct {
		name   string
		layer  Layer
		answer string
		want   Recent
		ok     bool
	}{
		{
			name:   "the asked format",
			layer:  L1,
			answer: "Goal: ship export\nRecent Actions:\n- edited a.go\n- ran tests\nOpen Loops:\n- header row?",
			want:   Recent{Goal: "ship export", Actions: []string{"edited a.go", "ran tests"}, OpenLoops: []string{"header row?"}},
			ok:     true,
		},
		{
			name:   "markdown headings, numbered items, chatter around",
			layer:  L1,
			answer: "Here is the summary:\n\n## Goal\nship export\n**Recent Actions:**\n1. edited a.go\n2) ran tests\n### open loops\n* none\n\nHope this helps.",
			want:   Recent{Goal: "ship export", Actions: []string{"edited a.go", "ran tests"}},
			ok:     true,
		},
		{
			name:   "full-width colon",
			layer:  L1,
			answer: "Goal：仕上げる\nRecent Actions：\n- テスト",
			want:   Recent{Goal: "仕上げる", Actions: []string{"テスト"}},
			ok:     true,
		},
		{name: "not a summary", layer: L1, answer: "I cannot help with that.", ok: false},
		{name: "L3 without its line", layer: L3, answer: "Goal: x", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, err := parseAnswer(tt.layer, tt.answer)
			if (err == nil) != tt.ok {
				t.Fatalf("parseAnswer error %v; want ok %v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			var got Recent
			got.setSections(secs)
			if got.Goal != tt.want.Goal || !slices.Equal(got.Actions, tt.want.Actions) || !slices.Equal(got.OpenLoops, tt.want.OpenLoops) {
				t.Errorf("got %+v; want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseSections checks that any answer parses without panic into items
// that are single lines within the item limit, and that a rendered entry
// reads back the same.
func FuzzParseSections(f *testing.F) {
	f.Add("Goal: x\nRecent Actions:\n- a\n- b\nOpen Loops: (none)")
	f.Add("## Goal\n\n**Recent Actions**:\n1. ä\n* b")
	f.Add("Goal:\n- \n- none\nGoal: again")
	f.Fuzz(func(t *testing.T, answer string) {
		secs, _ := parseSections(answer, schemaOf(L1))
		var r Recent
		r.setSections(secs)
		for _, it := range append(append([]string{r.Goal}, r.Actions...), r.OpenLoops...) {
			if strings.ContainsAny(it, "\n\r") || len([]rune(it)) > MaxItem {
				t.Fatalf("item %q is not one line within %d characters", it, MaxItem)
			}
		}
		if len(r.Actions) > MaxActions || len(r.OpenLoops) > MaxLoops {
			t.Fatalf("%d actions, %d loops; over the caps", len(r.Actions), len(r.OpenLoops))
		}
		back, _ := parseSections(r.Text(), schemaOf(L1))
		var r2 Recent
		r2.setSections(back)
		if r2.Text() != r.Text() {
			t.Fatalf("render/parse round trip changed the entry:\n%q\n%q", r.Text(), r2.Text())
		}
	})
}
