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
)

// recallBudget bounds the recall of one prompt or tool call: past it the
// journal read stops and the call answers nothing (the problem is logged).
const recallBudget = 50 * time.Millisecond

// recallRefresh is how old the recall file may grow while sessions work
// before a Stop rewrites it in the background.
const recallRefresh = 10 * time.Minute

// respond answers a prompt or a tool call about to run with the recall of
// package cue: earlier work the prompt touches, the history of the file or
// command the tool is about to use.
func respond(ctx context.Context, c *hook.Call) (string, error) {
	if c.Config != nil && !c.Config.ContextRecall() {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, recallBudget)
	defer cancel()
	o := cue.Options{State: c.State, Journal: c.Journal, Worktree: c.Where.Worktree, Session: c.Payload.SessionID, Lang: c.Lang, Now: c.Now}
	switch c.Payload.Event {
	case hook.UserPromptSubmit:
		return cue.Prompt(ctx, o, c.Payload.Prompt)
	case hook.PreToolUse:
		return cue.Tool(ctx, o, c.Record.Tool, c.Record.File, c.Record.Cmd)
	}
	return "", nil
}

// refreshRecall starts `baton context recall` in the background at a
// Stop when the recall file is missing or older than recallRefresh (the
// compaction and session-end jobs rewrite it too). It costs one stat at
// every other Stop.
func refreshRecall(f *cmdenv.Factory, res hook.Result) error {
	p := res.Payload
	if p.Event != hook.Stop || res.State.Root == "" || res.Config == nil || !res.Config.ContextRecall() {
		return nil
	}
	fi, err := os.Stat(cue.Path(res.State))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case f.Now().Sub(fi.ModTime()) < recallRefresh:
		return nil
	}
	if err := startContextJob(f, p.Cwd, "recall", "--quiet"); err != nil {
		return errors.Join(errors.New("start recall file rewrite"), err)
	}
	return nil
}
