package hookcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/cue"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/wtstate"
)

// recallBudget bounds the recall of one prompt or tool call: past it the
// journal read stops and the call answers nothing (the problem is logged).
const recallBudget = 50 * time.Millisecond

// recallRefresh is how old the recall file may grow while sessions work
// before a Stop rewrites it in the background.
const recallRefresh = 10 * time.Minute

// responder answers a prompt or a tool call about to run with the recall
// of package cue: earlier work the prompt touches, the history of the file
// or command the tool is about to use.
func responder(f *cmdenv.Factory) hook.Responder {
	return func(ctx context.Context, c *hook.Call) (string, error) { return respond(ctx, c, f.Getenv("HOME")) }
}

func respond(ctx context.Context, c *hook.Call, home string) (string, error) {
	if c.Config != nil && !c.Config.ContextRecall() {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, recallBudget)
	defer cancel()
	o := cue.Options{State: c.State, Journal: c.Journal, Worktree: c.Where.Worktree, Session: c.Payload.SessionID, Lang: c.Lang, Now: c.Now}
	switch c.Payload.Event {
	case hook.UserPromptSubmit:
		o.Pulls = recall.PullsFor(home, c.Where.Worktree)
		return cue.Prompt(ctx, o, c.Payload.Prompt)
	case hook.PreToolUse:
		return cue.Tool(ctx, o, c.Record.Tool, c.Record.File, c.Record.Cmd)
	}
	return "", nil
}

// refreshRecall starts `baton context recall` in the background at a
// Stop when the recall file is older than recallRefresh or than the
// decision log, or missing while there are decisions or summaries to
// recall (a fresh repository gets its file from the job at session end).
// It costs a few stats at every other Stop.
func refreshRecall(f *cmdenv.Factory, res hook.Result) error {
	p := res.Payload
	if p.Event != hook.Stop || res.State.Root == "" || res.Config == nil || !res.Config.ContextRecall() {
		return nil
	}
	files, err := recall.FilesFor(res.State, res.Config.ContextRoute())
	if err != nil {
		return err
	}
	decisions := modTime(files.Decisions())
	fi, err := os.Stat(cue.Path(res.State))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if decisions.IsZero() && modTime(files.L1()).IsZero() {
			return nil
		}
	case err != nil:
		return err
	case f.Now().Sub(fi.ModTime()) < recallRefresh && !decisions.After(fi.ModTime()):
		return nil
	}
	if err := startContextJob(f, p.Cwd, "recall", "--quiet"); err != nil {
		return errors.Join(errors.New("start recall file rewrite"), err)
	}
	return nil
}

// findApprovals starts `baton context candidates` in the background at a
// Stop that answered a prompt holding an approval phrase ("LGTM", "OK, go
// with that", "それでいこう"), so that the proposal before that prompt is a
// candidate for `baton context approve` at once, not only once the session
// compacts or ends. It costs a read of the worktree records' end at every
// Stop.
func findApprovals(f *cmdenv.Factory, res hook.Result) error {
	p := res.Payload
	if p.Event != hook.Stop || p.SessionID == "" || res.State.Root == "" || res.Config == nil {
		return nil
	}
	prompt, err := wtstate.At(res.State.Base(), res.State.WorktreeDir(res.Worktree)).LastPrompt(p.SessionID)
	if err != nil || !recall.IsApproval(prompt, res.Config.ContextApprovalPhrases()) {
		return err
	}
	if err := startContextJob(f, p.Cwd, "candidates", "--session", p.SessionID); err != nil {
		return errors.Join(errors.New("start approval candidates"), err)
	}
	return nil
}

// modTime is when path last changed; zero when it cannot be told.
func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
