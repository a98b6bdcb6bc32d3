package resume

import (
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/statefile"
)

func TestAgo(t *testing.T) {
	tests := []struct {
		name   string
		d      time.Duration
		ja, en string
	}{
		{"future", -5 * time.Minute, "たった今", "just now"},
		{"seconds", 59 * time.Second, "たった今", "just now"},
		{"one minute", time.Minute, "1 分前", "1 minute ago"},
		{"minutes", 59*time.Minute + 59*time.Second, "59 分前", "59 minutes ago"},
		{"one hour", time.Hour, "1 時間前", "1 hour ago"},
		{"hours round down", 3*time.Hour + 59*time.Minute, "3 時間前", "3 hours ago"},
		{"just under a day", 23*time.Hour + 59*time.Minute, "23 時間前", "23 hours ago"},
		{"one day", 24 * time.Hour, "1 日前", "1 day ago"},
		{"days", 9*24*time.Hour + 23*time.Hour, "9 日前", "9 days ago"},
		{"a year", 365 * 24 * time.Hour, "365 日前", "365 days ago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ago(tt.d, i18n.JA); got != tt.ja {
				t.Errorf("Ago(%v, ja) = %q; want %q", tt.d, got, tt.ja)
			}
			if got := Ago(tt.d, i18n.EN); got != tt.en {
				t.Errorf("Ago(%v, en) = %q; want %q", tt.d, got, tt.en)
			}
		})
	}
}

func TestSessionContext(t *testing.T) {
	tests := []struct {
		name string
		b    *Briefing
		want string // a line the context must hold; "" for no context
		from string // the file it names as its source
	}{
		{"nothing", &Briefing{Source: FromNothing, At: now}, "", ""},
		{"journal", &Briefing{Source: FromJournal, At: now, LastActivity: now.Add(-2 * time.Hour)}, "2 hours ago", "the activity log .claude/session-state/auto.jsonl"},
		{"state", &Briefing{Source: FromState, At: now, Task: "ship it"}, "**Task**: ship it", "the state file .claude/session-state/current.md"},
		{"broken", &Briefing{Source: FromNothing, At: now, StateError: &statefile.FormatError{Problem: statefile.NoStatus}}, "looks broken", "the state file .claude/session-state/current.md"},
		{
			"elsewhere", &Briefing{Source: FromNothing, At: now, Elsewhere: &Activity{Worktree: "/repo-wt2", At: now.Add(-time.Hour)}},
			"/repo-wt2", "the activity log .claude/session-state/auto.jsonl",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.b.Worktree = "/repo"
			tt.b.StateFile = "/repo/.claude/session-state/current.md"
			tt.b.Journal = "/repo/.claude/session-state/auto.jsonl"
			got := tt.b.SessionContext(i18n.EN)
			if tt.want == "" {
				if got != "" {
					t.Errorf("SessionContext = %q; want none", got)
				}
				return
			}
			if head := msgContext.Format(i18n.EN, tt.from) + "\n\n"; !strings.HasPrefix(got, head) {
				t.Errorf("SessionContext = %q; want it to start by telling the agent what it is", got)
			}
			if !strings.Contains(got, tt.want) || !strings.HasSuffix(got, tt.b.Text(i18n.EN)) {
				t.Errorf("SessionContext = %q; want the briefing with %q", got, tt.want)
			}
		})
	}
}
