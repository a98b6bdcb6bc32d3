package hookcmd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Providers are the session-start providers: one briefing, assembled once
// within the context limit (task, approved decisions, where the worktree
// left off, the summaries, how to pull more); when there is nothing to
// brief, the status line saying where the session is recorded.
func Providers(f *cmdenv.Factory) []hook.Provider {
	return []hook.Provider{briefing(f)}
}

var recordingMsg = i18n.Msg{
	JA: "baton: このセッションの作業記録を %s に残しています（ブランチ: %s）。前回の続きは `baton resume` で確認できます。",
	EN: "baton: this session's activity is recorded in %s (branch: %s). `baton resume` shows where you left off.",
}

var notRecordingMsg = i18n.Msg{
	JA: "baton: このセッションの作業記録を %s に書けませんでした（%v）。作業は記録されていません。`baton doctor` で原因を確認できます。",
	EN: "baton: could not write this session's activity to %s (%v), so it is not being recorded. `baton doctor` shows why.",
}

// statusLine is the session-start context when there is nothing to resume:
// one line saying baton is recording and where, or that it could not.
func statusLine(s *hook.Start) string {
	rel, err := filepath.Rel(s.Where.Worktree, s.State.Journal())
	if err != nil {
		rel = s.State.Journal()
	}
	if s.JournalErr != nil {
		return notRecordingMsg.Format(s.Lang, rel, s.JournalErr)
	}
	branch := s.Where.Branch
	if branch == "" {
		branch = "-"
	}
	return recordingMsg.Format(s.Lang, rel, branch)
}

// briefing is the session-start provider: the briefing of resume.BuildBrief,
// or, when it is empty, the status line. The agent is always told when its
// work is not being recorded. When the last active day has no daily summary
// yet, it starts the job that makes one in the background.
func briefing(f *cmdenv.Factory) hook.Provider {
	return hook.ProviderFunc(func(ctx context.Context, s *hook.Start) (string, error) {
		if id, role, ok := debate.ParseMark(panes.DebateMark(f.Getenv(panes.DebateEnv))); ok {
			// A debate's agent is told its debate, side and round, not
			// the worktree's task.
			return debate.Dir{Root: s.Config.DebateDir(f.Getenv), Old: s.Config.DebateOldDir(f.Getenv), Lang: s.Lang}.Brief(id, role), nil
		}
		br, err := resume.BuildBrief(ctx, briefOptions(s, f.Getenv))
		if err != nil {
			if s.JournalErr != nil {
				// The journal cannot be written nor read; that problem is
				// logged already, and the agent is told.
				return statusLine(s), nil
			}
			return "", fmt.Errorf("briefing: %w", err)
		}
		text := br.Text
		if text == "" && !br.Held || s.JournalErr != nil {
			text = strings.TrimSpace(text + "\n\n" + statusLine(s))
		}
		if err := tell(s, br); err != nil {
			return text, err
		}
		if br.DailyDue != "" {
			if err := startContextJob(f, s.Where.Cwd, "daily", "--date", br.DailyDue, "--route", s.Config.ContextRoute()); err != nil {
				return text, fmt.Errorf("start daily summary: %w", err)
			}
		}
		return text, nil
	})
}

// tell records in the worktree's state what the briefing in the starting
// session's conversation holds now, so that a later start of the same
// conversation adds only what changed (see resume.Brief.Held).
func tell(s *hook.Start, br *resume.Brief) error {
	if br.Told == nil || s.Payload == nil || s.Payload.SessionID == "" {
		return nil
	}
	if ss := br.Sessions; br.Held && ss != nil {
		if cur := ss.Session(s.Payload.SessionID); cur != nil && slices.Equal(cur.Told.Facts, br.Told.Facts) {
			return nil
		}
	}
	if err := wtstate.At(s.State.Base(), s.State.WorktreeDir(s.Where.Worktree)).SetTold(s.Payload.SessionID, br.Told); err != nil {
		return fmt.Errorf("record the briefing given: %w", err)
	}
	return nil
}

// briefOptions are the options of the briefing a session start gets; the
// status line's room is kept free when the journal could not be written.
func briefOptions(s *hook.Start, getenv func(string) string) resume.BriefOptions {
	o := resume.BriefConfigured(s.Config, getenv, s.Lang)
	o.State, o.Journal, o.Worktree, o.Main, o.Branch, o.Now = s.State, s.Journal, s.Where.Worktree, s.State.Base(), s.Where.Branch, s.Now
	o.Pulls = recall.PullsFor(getenv("HOME"), s.Where.Worktree)
	if s.Payload != nil {
		o.Session, o.Source, o.Conversation = s.Payload.SessionID, s.Payload.Source, true
	}
	if s.JournalErr != nil {
		// Room for the line saying so.
		o.Budget -= 600
		o.Unrecorded = true
	}
	return o
}
