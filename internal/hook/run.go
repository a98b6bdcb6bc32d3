package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Options is what one hook call needs from the process around it.
type Options struct {
	// Event is the optional event name given on the command line.
	Event string
	Now   func() time.Time
	// Getenv reads the process environment; Environ is passed to tmux.
	Getenv  func(string) string
	Environ []string
	// Getwd stands in for a payload without cwd.
	Getwd func() (string, error)
	// LoadConfig loads the configuration for a worktree root.
	LoadConfig func(root string) (*config.Config, error)
	// Providers fill the SessionStart context, highest priority first.
	Providers []Provider
	// Respond, when set, answers prompts and tool calls about to run
	// (UserPromptSubmit, PreToolUse); a failure in it is reported to Warn.
	Respond Responder
	// Warn receives problems that did not stop the call (a provider that
	// failed, a pane registry that could not be updated).
	Warn func(error)
}

// Result says where a call's state went, so its caller can log there.
type Result struct {
	Payload Payload
	State   state.Dir
	// Worktree is the top folder of the worktree the call came from.
	Worktree string
	// Config is the configuration the call used (the defaults when it
	// could not be loaded); nil when the payload was refused first.
	Config *config.Config
}

// ErrNotSetUp means a call outside git, in a folder whose state folder
// nobody made (`baton init` does in a repository): nothing is recorded.
var ErrNotSetUp = errors.New("not in a git repository nor a folder with a state folder: nothing recorded")

// Run handles one hook call: parse the payload from in, append the journal
// record, update the pane registry, and for SessionStart write the hook output
// to out. It writes nothing else to out.
//
// A state folder reached through a link, or holding one where baton's files
// go, is the mark of a repository trying to make baton write elsewhere: the
// call records nothing, writes nothing to out and returns an error wrapping
// safepath.ErrLink with a zero Result.State, so it is logged in the
// user-level log only.
func Run(ctx context.Context, in io.Reader, out io.Writer, o Options) (Result, error) {
	var res Result
	p, perr := Parse(in, o.Event)
	res.Payload = p
	from, err := existingDir(p.Cwd, o.Getwd)
	if err != nil {
		return res, errors.Join(perr, err)
	}
	if p.Cwd == "" {
		p.Cwd = from
	}
	// Locate the state folder even for a bad payload, so the error is logged
	// where `baton doctor` looks for it.
	where, dir, repo := locate(p.Cwd, from, o.Getenv("CLAUDE_PROJECT_DIR"))
	if err := safepath.Check(dir.Base(), dir.Log()); errors.Is(err, safepath.ErrLink) {
		return res, refused(err)
	}
	if repo == nil {
		if _, err := os.Lstat(dir.Root); err != nil {
			// Nothing is recorded here, but the pane registry is the
			// user's own, outside the folder: a debate's agents and a
			// person's panes run in any folder.
			if pane := o.Getenv("TMUX_PANE"); pane != "" && perr == nil {
				if err := updatePanes(ctx, &p, pane, where, o); err != nil {
					o.Warn(fmt.Errorf("update pane registry: %w", err))
				}
			}
			return res, ErrNotSetUp
		}
	}
	res.State, res.Worktree = dir, where.Worktree
	if perr != nil {
		return res, perr
	}
	for _, d := range p.Dropped {
		o.Warn(errors.New(d))
	}
	if o.Event != "" && o.Event != p.Event {
		o.Warn(fmt.Errorf("event %q given on the command line, payload says %q: recorded as %q", o.Event, p.Event, p.Event))
	}
	now := o.Now()

	cfg, err := o.LoadConfig(where.Worktree)
	if err != nil {
		// A broken config file must not stop the journal: record with the
		// defaults and report the problem.
		o.Warn(err)
		cfg = &config.Config{}
	}
	res.Config = cfg

	// The first write makes the state folder and keeps it out of git, for
	// hooks installed without `baton init` (a plugin).
	if _, err := dir.Create(repo); errors.Is(err, safepath.ErrLink) {
		return Result{Payload: p}, refused(err)
	} else if err != nil {
		o.Warn(err)
	}
	j := journal.Open(dir.Root, journal.Options{MaxSize: cfg.JournalMaxSize(), Now: o.Now, CacheTail: p.Event == SessionStart})
	rec := p.Record(where, now)
	rec.Debate = panes.DebateMark(o.Getenv(panes.DebateEnv))
	appendErr := j.Append(rec)
	if errors.Is(appendErr, safepath.ErrLink) {
		return Result{Payload: p}, refused(appendErr)
	}
	if appendErr != nil {
		o.Warn(fmt.Errorf("append journal: %w", appendErr))
	}
	// The worktree's own files, so that a start reads this worktree's
	// records whatever the rest of the journal holds.
	wt := wtstate.At(dir.Base(), dir.WorktreeDir(where.Worktree))
	ev := wtstate.Event{Record: rec, Prompt: p.Prompt, Message: p.LastAssistantMessage}
	if p.Event == SessionStart {
		ev.Agent = wtstate.Agent()
	}
	if err := wt.Observe(ev); errors.Is(err, safepath.ErrLink) {
		return Result{Payload: p}, refused(err)
	} else if err != nil {
		o.Warn(fmt.Errorf("worktree state: %w", err))
	}

	if pane := o.Getenv("TMUX_PANE"); pane != "" {
		if err := updatePanes(ctx, &p, pane, where, o); err != nil {
			o.Warn(fmt.Errorf("update pane registry: %w", err))
		}
	}

	if responds(p.Event) && o.Respond != nil {
		c := &Call{Payload: &p, Record: rec, Where: where, State: dir, Journal: j, Config: cfg, Lang: cfg.Language(o.Getenv), Now: now}
		if err := respond(ctx, o.Respond, c, out); err != nil {
			o.Warn(fmt.Errorf("recall for %s: %w", p.Event, err))
		}
	}
	if p.Event != SessionStart {
		return res, nil
	}
	s := &Start{Payload: &p, Where: where, State: dir, Journal: j, JournalErr: appendErr, Config: cfg, Lang: cfg.Language(o.Getenv), Now: now}
	var sections []string
	for _, pr := range o.Providers {
		text, err := sessionContext(ctx, pr, s)
		if err != nil {
			o.Warn(fmt.Errorf("session context: %w", err))
			continue
		}
		sections = append(sections, text)
	}
	text := Assemble(sections, MaxContext, s.Lang)
	if text == "" {
		return res, nil
	}
	return res, WriteOutput(out, SessionStart, text)
}

// sessionContext asks one provider, turning its panic into an error: a bug
// in one section must not cost the others.
func sessionContext(ctx context.Context, pr Provider, s *Start) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return pr.SessionContext(ctx, s)
}

// refused is the error of a call whose state folder was refused.
func refused(err error) error {
	return fmt.Errorf("state folder refused, nothing recorded: %w", err)
}

// existingDir is the folder a call's repository is found from: the payload's
// cwd when it is an existing folder inside the hook's working directory (the
// folder Claude Code runs it in), else that working directory. A payload's
// path may be gone (a removed worktree), belong to another machine or lead
// out of the working directory (<repo>/../../elsewhere), and baton never
// creates folders from it nor follows it out: without a working directory,
// the call is dropped.
func existingDir(cwd string, getwd func() (string, error)) (string, error) {
	wd, err := getwd()
	if err == nil && !isDir(wd) {
		err = fs.ErrNotExist
	}
	if err != nil {
		if cwd == "" {
			return "", fmt.Errorf("no cwd in payload and no working directory: %w", err)
		}
		return "", fmt.Errorf("payload cwd %q and no working directory: %w: record dropped", cwd, err)
	}
	if cwd != "" && within(wd, cwd) && isDir(cwd) {
		return cwd, nil
	}
	return wd, nil
}

// within reports whether path is dir or lies under it, by their names.
func within(dir, path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// locate finds the worktree holding the existing folder from and the state
// folder; cwd is the payload's, recorded as given. Outside git the project
// folder (CLAUDE_PROJECT_DIR when it exists, else from) stands in for the
// repository, and repo is nil.
func locate(cwd, from, projectDir string) (Where, state.Dir, *gitrepo.Repo) {
	if repo, err := gitrepo.Find(from); err == nil {
		return Where{Cwd: cwd, Worktree: repo.Worktree, Branch: repo.Branch}, state.For(repo), &repo
	}
	root := from
	if projectDir != "" && isDir(projectDir) {
		root = projectDir
	}
	return Where{Cwd: cwd, Worktree: root}, state.At(root), nil
}

// paneStatus is the registry status an event sets; ok is false for events
// that leave the registry alone. SessionEnd removes the pane.
func paneStatus(event string) (status string, ok bool) {
	switch event {
	case SessionStart:
		return panes.Idle, true
	case UserPromptSubmit, PreToolUse:
		return panes.Working, true
	case Stop:
		return panes.Waiting, true
	case SessionEnd:
		return "", true
	}
	return "", false
}

func updatePanes(ctx context.Context, p *Payload, pane string, w Where, o Options) error {
	status, ok := paneStatus(p.Event)
	if !ok {
		return nil
	}
	home := o.Getenv("HOME")
	if home == "" {
		return errors.New("HOME is not set")
	}
	var live map[string]bool
	if p.Event == SessionStart {
		// Pruning needs tmux's view; without it, keep every entry rather than
		// guess. The call is bounded: a hung tmux must not stall the agent.
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var err error
		if live, err = panes.LivePanes(tctx, "tmux", o.Environ); err != nil {
			o.Warn(err)
		}
	}
	return panes.Update(panes.Path(home), func(reg panes.Registry) bool {
		before := len(reg)
		if live != nil {
			reg.Prune(live)
		}
		if p.Event == SessionEnd {
			// Only its own entry: a session that ends late (its pane
			// killed) must not drop the entry of a newer session in a
			// pane of the same id.
			if old, had := reg[pane]; had && (old.SessionID == "" || old.SessionID == p.SessionID) {
				delete(reg, pane)
			}
			return len(reg) != before
		}
		old, had := reg[pane]
		e := old
		e.Status, e.Dir, e.SessionID = status, w.Cwd, p.SessionID
		switch p.Event {
		case SessionStart:
			e.Prompt = ""
		case UserPromptSubmit:
			e.Prompt = excerpt(p.Prompt)
		}
		reg[pane] = e
		return !had || e != old || len(reg) != before
	})
}
