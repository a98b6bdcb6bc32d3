package wtstate

import (
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/textnorm"
)

// TestDebateIsNotTheTask: a debate agent's session (its records marked with
// the debate) never sets the task nor leaves a record or a session entry in
// the worktree's files, and a person's request for a debate is no task.
func TestDebateIsNotTheTask(t *testing.T) {
	const mark = "cc-debate-20260101-120000-abcd:pro"
	type marked struct {
		step
		debate string
	}
	tests := []struct {
		name  string
		steps []marked
		want  string // the task; "" for none
	}{
		{"a side's instruction in a fresh worktree", []marked{
			{step{"SessionStart", "p1", "startup", ""}, mark},
			{step{"UserPromptSubmit", "p1", "", "Debate cc-debate-20260101-120000-abcd has started. Read the main file /d/x.md, then, as the pro side, append your round 1 argument to /d/x-pro.md"}, mark},
			{step{"Stop", "p1", "", ""}, mark},
		}, ""},
		{"a side's explicit new task", []marked{
			{step{"SessionStart", "p1", "startup", ""}, mark},
			{step{"UserPromptSubmit", "p1", "", "new task: write round 2"}, mark},
		}, ""},
		{"the worktree's task stays through a debate", []marked{
			{step{"SessionStart", "s1", "startup", ""}, ""},
			{step{"UserPromptSubmit", "s1", "", "write the tokenizer"}, ""},
			{step{"SessionStart", "p1", "startup", ""}, mark},
			{step{"UserPromptSubmit", "p1", "", "Add your round 1 argument to the pro file"}, mark},
			{step{"SessionStart", "s2", "startup", ""}, ""},
			{step{"UserPromptSubmit", "s2", "", "go on"}, ""},
		}, "write the tokenizer"},
		{"the moderator's request for a debate", []marked{
			{step{"SessionStart", "m1", "startup", ""}, ""},
			{step{"UserPromptSubmit", "m1", "", "Start a debate on: should we migrate the index to Postgres?"}, ""},
		}, ""},
		{"real work after the request", []marked{
			{step{"SessionStart", "m1", "startup", ""}, ""},
			{step{"UserPromptSubmit", "m1", "", "Please set up a debate about tabs versus spaces"}, ""},
			{step{"UserPromptSubmit", "m1", "", "fix the debate hand-off when a pane is gone"}, ""},
		}, "fix the debate hand-off when a pane is gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := At("", t.TempDir())
			for i, s := range tt.steps {
				r := journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: s.event, Session: s.session, Source: s.source, Prompt: s.prompt, Debate: s.debate}
				if err := d.Observe(Event{Record: r, Prompt: s.prompt}); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			st, err := d.Read()
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if st.Task != nil {
				got = st.Task.Text
			}
			if got != tt.want {
				t.Errorf("task = %q; want %q", got, tt.want)
			}
			if ss := st.Session("p1"); ss != nil {
				t.Errorf("session entry of the debate side = %+v; want none", ss)
			}
			recs, err := d.Records()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if r.Debate != "" {
					t.Errorf("record %+v of the debate side kept; want it in the journal only", r)
				}
			}
		})
	}
}

func TestAsksForDebate(t *testing.T) {
	tests := []struct {
		prompt string
		want   bool
	}{
		{"start a debate on: should we use Go?", true},
		{"Start a debate on whether the index should move to Postgres", true},
		{"Debate whether we should vendor the SDK", true},
		{"please set up a debate about tabs versus spaces", true},
		{"run baton debate start --topic 'monorepo or not'", true},
		{"hold another debate on the cache design", true},
		{"キャッシュ設計についてディベートをして", true},
		{"賛成派と反対派で討論させて", true},
		{"fix the debate hand-off when a pane is gone", false},
		{"add a test for debates that end early", false},
		{"write the tokenizer", false},
		{"ディベートの引き継ぎのバグを直して", false},
	}
	for _, tt := range tests {
		if got := asksForDebate(textnorm.Fold(tt.prompt)); got != tt.want {
			t.Errorf("asksForDebate(%q) = %v; want %v", tt.prompt, got, tt.want)
		}
	}
}
