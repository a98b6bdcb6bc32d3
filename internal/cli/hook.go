package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// HookOptions are the inputs of `baton hook`.
type HookOptions struct {
	Factory *Factory
	Event   string
	// Providers fill the SessionStart context; nil means the defaults.
	Providers []hook.Provider
}

// NewCmdHook builds `baton hook [event]`, the command Claude Code runs for
// every hook event.
func NewCmdHook(f *Factory, runF func(context.Context, *HookOptions) error) *cobra.Command {
	opts := &HookOptions{Factory: f}
	return &cobra.Command{
		Use:   "hook [event]",
		Short: "Record a Claude Code hook event (run by Claude Code, reads JSON on stdin)",
		Long: "Claude Code runs `baton hook` for each hook event with the event's JSON on stdin.\n" +
			"It appends a record to the journal and, at session start, prints the context to inject.\n" +
			"It never blocks the agent: problems go to baton.log and it exits 0.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Event = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return hookRun(cmd.Context(), opts)
		},
	}
}

// hookRun fails open: whatever happens, the agent goes on. Errors and panics
// are logged to baton.log and the exit status is 0.
func hookRun(ctx context.Context, opts *HookOptions) (err error) {
	f := opts.Factory
	var logger *slog.Logger
	var res hook.Result
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
		if err != nil {
			if logger == nil {
				logger, _ = openLog(f, res.State)
			}
			logger.Error("hook failed", "event", firstNonEmpty(res.Payload.Event, opts.Event), "session", res.Payload.SessionID, "err", err)
		}
		err = nil
	}()

	var warnings []error
	res, err = hook.Run(ctx, f.IO.In, f.IO.Out, hook.Options{
		Event:   opts.Event,
		Now:     f.Now,
		Getenv:  f.Getenv,
		Environ: f.Environ(),
		Getwd:   f.Getwd,
		LoadConfig: func(root string) (*config.Config, error) {
			return f.Config(root)
		},
		Providers: opts.providers(),
		Warn:      func(e error) { warnings = append(warnings, e) },
	})
	if err == nil {
		err = archiveAtSessionEnd(f, res)
	}
	// The recent summary of a session that compacts or ends is made by a
	// detached job, never on the hook's path.
	if err := startLayerJob(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if len(warnings) > 0 {
		var closer io.Closer
		logger, closer = openLog(f, res.State)
		defer closer.Close()
		for _, w := range warnings {
			logger.Warn("hook problem", "event", res.Payload.Event, "session", res.Payload.SessionID, "err", w)
		}
	}
	return err
}

func (o *HookOptions) providers() []hook.Provider {
	if o.Providers != nil {
		return o.Providers
	}
	// The resume briefing comes first; when there is none it gives way to
	// the status line, which would only repeat it. The context layers take
	// what the others leave of the limit.
	brief := &measured{Provider: startBriefing(o.Factory)}
	review := &measured{Provider: decision.PendingReviewProvider{}}
	return []hook.Provider{brief, review, contextLayers(o.Factory, brief, review)}
}

var recordingMsg = i18n.Msg{
	JA: "baton: このセッションの作業記録を %s に残しています（ブランチ: %s）。前回の続きは `baton resume` で確認できます。",
	EN: "baton: this session's activity is recorded in %s (branch: %s). `baton resume` shows where you left off.",
}

// statusLine is the default session-start context: one line saying baton is
// recording and where.
func statusLine(_ context.Context, s *hook.Start) (string, error) {
	rel, err := filepath.Rel(s.Where.Worktree, s.State.Journal())
	if err != nil {
		rel = s.State.Journal()
	}
	branch := s.Where.Branch
	if branch == "" {
		branch = "-"
	}
	return recordingMsg.Format(s.Lang, rel, branch), nil
}

// openLog opens the state folder's baton.log, falling back to the user-level log.
func openLog(f *Factory, dir state.Dir) (*slog.Logger, io.Closer) {
	var primary string
	if dir.Root != "" {
		primary = dir.Log()
	}
	return state.NewLogger(primary, state.UserLog(f.Getenv))
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// startDetached starts this baton program with args in dir as a job of its
// own: a new session, no streams of the hook's (the agent reads the hook's
// output to its end and must not wait for the job), and not waited for.
// The job's stderr goes to logPath when one is given. Jobs carry
// recall.JobEnv, so nothing they run starts jobs in turn.
func startDetached(f *Factory, dir, logPath string, args ...string) error {
	exe, err := f.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(f.Environ(), recall.JobEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Nil streams are the null device.
	if logPath != "" {
		if lf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			defer lf.Close()
			cmd.Stderr = lf
		}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
