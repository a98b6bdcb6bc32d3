package hookcmd

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// TestBriefingWhenNotRecording: when this call's record could not be
// appended, the session-start text never says the session is recorded, with
// or without a briefing to give.
func TestBriefingWhenNotRecording(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		activity   bool // the journal holds earlier work of the worktree
		journalErr error
		want       []string
		wantNot    []string
	}{
		{name: "recorded, nothing to resume", want: []string{"is recorded in"}},
		{name: "not recorded, nothing to resume", journalErr: errors.New("no space left on device"),
			want: []string{"not being recorded", "no space left on device"}, wantNot: []string{"is recorded in"}},
		{name: "not recorded, a briefing", activity: true, journalErr: errors.New("no space left on device"),
			want: []string{"go test ./...", "not being recorded"}, wantNot: []string{"is recorded in"}},
		{name: "recorded, a briefing", activity: true, want: []string{"go test ./..."}, wantNot: []string{"not being recorded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wt := t.TempDir()
			dir := state.At(wt)
			j := journal.Open(dir.Root, journal.Options{})
			if tt.activity {
				rec := journal.Record{TS: now.Add(-time.Hour), Event: "PostToolUse", Tool: "Bash", Desc: "go test ./...", Worktree: wt}
				if err := j.Append(rec); err != nil {
					t.Fatal(err)
				}
			}
			s := &hook.Start{
				Payload: &hook.Payload{Event: hook.SessionStart, SessionID: "s"},
				Where:   hook.Where{Cwd: wt, Worktree: wt, Branch: "main"},
				State:   dir, Journal: j, JournalErr: tt.journalErr,
				Config: &config.Config{}, Lang: i18n.EN, Now: now,
			}
			f := &cmdenv.Factory{Getenv: func(string) string { return "" }}
			got, err := briefing(f).SessionContext(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("context = %q; want %q in it", got, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("context = %q; want no %q in it", got, w)
				}
			}
		})
	}
}

// TestBriefingOfADebateAgent: an agent whose pane names a debate is told its
// debate and side, never the worktree's task.
func TestBriefingOfADebateAgent(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	wt, home := t.TempDir(), t.TempDir()
	dir := state.At(wt)
	j := journal.Open(dir.Root, journal.Options{})
	if err := j.Append(journal.Record{TS: now.Add(-time.Hour), Event: "PostToolUse", Tool: "Bash", Desc: "go test ./...", Worktree: wt}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, mark string
		want       string
	}{
		{"pro side", "cc-debate-20260101-120000-ab12:pro", "this session is the pro side of debate cc-debate-20260101-120000-ab12"},
		{"not a mark", "cc-debate-x:judge", "go test ./..."},
		{"no mark", "", "go test ./..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &hook.Start{
				Payload: &hook.Payload{Event: hook.SessionStart, SessionID: "s"},
				Where:   hook.Where{Cwd: wt, Worktree: wt, Branch: "main"},
				State:   dir, Journal: j, Config: &config.Config{}, Lang: i18n.EN, Now: now,
			}
			env := map[string]string{"HOME": home, "BATON_DEBATE": tt.mark}
			f := &cmdenv.Factory{Getenv: func(k string) string { return env[k] }}
			got, err := briefing(f).SessionContext(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("context = %q; want %q in it", got, tt.want)
			}
			if tt.mark != "" && tt.want != "go test ./..." && strings.Contains(got, "go test") {
				t.Errorf("context = %q; want none of the worktree's work", got)
			}
		})
	}
}
