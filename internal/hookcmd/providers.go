package hookcmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
)

// Providers are the session-start providers, highest priority first. The
// resume briefing comes first; when there is none it gives way to the status
// line, which would only repeat it. The sessions with unreviewed decisions
// follow, and the context layers take what the others leave of the limit.
func Providers(f *cmdenv.Factory) []hook.Provider {
	brief := &measured{Provider: briefing(f)}
	review := &measured{Provider: decision.PendingReviewProvider{}}
	return []hook.Provider{brief, review, contextLayers(f, brief, review)}
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
func statusLine(_ context.Context, s *hook.Start) (string, error) {
	rel, err := filepath.Rel(s.Where.Worktree, s.State.Journal())
	if err != nil {
		rel = s.State.Journal()
	}
	if s.JournalErr != nil {
		return notRecordingMsg.Format(s.Lang, rel, s.JournalErr), nil
	}
	branch := s.Where.Branch
	if branch == "" {
		branch = "-"
	}
	return recordingMsg.Format(s.Lang, rel, branch), nil
}

// briefing is the first session-start provider: the resume briefing, or,
// when there is none or it is turned off, the status line.
func briefing(f *cmdenv.Factory) hook.Provider {
	return hook.ProviderFunc(func(ctx context.Context, s *hook.Start) (string, error) {
		if !s.Config.ResumeInject() {
			return statusLine(ctx, s)
		}
		o := resume.Configured(s.Config, f.Getenv)
		o.State, o.Journal, o.Worktree, o.Main, o.Branch, o.Now = s.State, s.Journal, s.Where.Worktree, mainOf(s.State), s.Where.Branch, s.Now
		b, err := resume.Build(ctx, o)
		if err != nil {
			if s.JournalErr != nil {
				// The journal cannot be written nor read; that problem is
				// logged already, and the agent is told.
				return statusLine(ctx, s)
			}
			return "", fmt.Errorf("resume briefing: %w", err)
		}
		text := b.SessionContext(s.Lang)
		if text == "" || s.JournalErr != nil {
			// The agent must know its work is not being recorded.
			line, _ := statusLine(ctx, s)
			text = strings.TrimSpace(text + "\n\n" + line)
		}
		return text, nil
	})
}

// mainOf is the folder holding a state folder: the main worktree.
func mainOf(d state.Dir) string {
	return strings.TrimSuffix(d.Root, string(filepath.Separator)+filepath.FromSlash(state.RelDir))
}

// measured remembers how long its provider's section was, so that a later
// provider can fit in what is left of the context limit.
type measured struct {
	hook.Provider
	n int
}

func (m *measured) SessionContext(ctx context.Context, s *hook.Start) (string, error) {
	text, err := m.Provider.SessionContext(ctx, s)
	m.n = hook.Len(strings.TrimSpace(text))
	return text, err
}

// room is what is left of the limit after the sections of before, each
// followed by a blank line.
func room(before ...*measured) int {
	n := hook.MaxContext
	for _, m := range before {
		if m.n > 0 {
			n -= m.n + 2
		}
	}
	return n
}

// contextLayers is the session-start provider after the briefing: the
// route's layers within what the providers before it left of the limit. It
// only reads files; when the last active day has no daily summary yet, it
// starts the job that makes one in the background.
func contextLayers(f *cmdenv.Factory, before ...*measured) hook.Provider {
	return hook.ProviderFunc(func(ctx context.Context, s *hook.Start) (string, error) {
		if !s.Config.ContextInject() {
			return "", nil
		}
		route := s.Config.ContextRoute()
		p, err := recall.Push(ctx, recall.PushOptions{
			State: s.State, Route: route, Session: s.Payload.SessionID, Source: s.Payload.Source,
			Now: s.Now, Lang: s.Lang, Budget: room(before...),
			Journal: s.Journal,
		})
		if err != nil {
			return "", fmt.Errorf("context layers: %w", err)
		}
		if p.DailyDue != "" {
			if err := startContextJob(f, s.Where.Cwd, "daily", "--date", p.DailyDue, "--route", route); err != nil {
				return p.Text, fmt.Errorf("start daily summary: %w", err)
			}
		}
		return p.Text, nil
	})
}
