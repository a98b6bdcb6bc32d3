// Package hookcmd is `baton hook`, the command Claude Code runs for every hook
// event: it records the event through package hook, gives the session-start
// context from its providers, and starts the background jobs an event calls
// for. It never blocks the agent.
//
// It is built into baton and into the small baton-hook program. Every package
// a program links runs its initialisation at each start, and a hook starts
// for every tool call, so hookcmd imports only packages that are cheap to
// start: no SQLite, no HTTP clients, no model SDKs.
package hookcmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/statusline"
	"github.com/baton-cli/baton/internal/teammem"
)

// Options are the inputs of one hook call.
type Options struct {
	// Event is the optional event name given on the command line; it
	// stands in for the payload's only when the payload has none.
	Event string
	// Ignored are the command-line arguments that were not understood:
	// logged, never a reason to fail.
	Ignored []string
	// Providers fill the SessionStart context; nil means Providers(f).
	Providers []hook.Provider
}

// Run handles one hook call with the payload on f's standard input. It fails
// open: whatever happens, the agent goes on. Errors and panics go to
// baton.log (the user-level log when the state folder cannot be written) and
// nothing but valid hook output is written to f's standard output.
func Run(ctx context.Context, f *cmdenv.Factory, o Options) {
	var res hook.Result
	var err error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
		// A folder nobody set up is not a problem to log: a hook
		// installed for every project (baton init --user) runs in
		// every folder, and would log a line for each call.
		if err != nil && !errors.Is(err, hook.ErrNotSetUp) {
			logger, closer := res.State.Logger(f.Getenv)
			defer closer.Close()
			logger.Error("hook failed", "event", cmp.Or(res.Payload.Event, o.Event), "session", res.Payload.SessionID, "err", err)
		}
	}()

	providers := o.Providers
	if providers == nil {
		providers = Providers(f)
	}
	var warnings []error
	if len(o.Ignored) > 0 {
		warnings = append(warnings, fmt.Errorf("ignored arguments %q: the hook takes one optional event name", o.Ignored))
	}
	res, err = hook.Run(ctx, f.IO.In, f.IO.Out, hook.Options{
		Event:      o.Event,
		Now:        f.Now,
		Getenv:     f.Getenv,
		Environ:    f.Environ(),
		Getwd:      f.Getwd,
		LoadConfig: f.Config,
		Providers:  providers,
		Respond:    responder(f),
		Warn:       func(e error) { warnings = append(warnings, e) },
	})
	// The archive and the recent summary of a session that compacts or
	// ends are made by detached jobs, never on the hook's path.
	if err == nil {
		if err := archiveAtSessionEnd(f, res); err != nil {
			warnings = append(warnings, err)
		}
	}
	if err := startLayerJob(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if err := syncAtSessionEnd(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if err := refreshRecall(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if err := findApprovals(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if err := refreshStatusLine(f, res); err != nil {
		warnings = append(warnings, err)
	}
	if len(warnings) > 0 {
		logger, closer := res.State.Logger(f.Getenv)
		defer closer.Close()
		for _, w := range warnings {
			logger.Warn("hook problem", "event", res.Payload.Event, "session", res.Payload.SessionID, "err", w)
		}
	}
}

// Main is the baton-hook program, `baton-hook [event]`: the same call as
// `baton hook`, in a program that starts in a fraction of baton's time. It
// returns the exit status, 0: arguments it does not understand are logged
// and ignored, never a reason to fail (Claude Code takes exit status 2 as an
// order to block the agent).
func Main(ctx context.Context, args []string, f *cmdenv.Factory) int {
	if len(args) > 0 && args[0] == "statusline" {
		// The status line runs every few seconds: from this program it
		// starts as fast as a hook.
		lang := ""
		if len(args) == 3 && args[1] == "--lang" {
			lang = args[2]
		}
		statusline.Run(f, lang)
		return 0
	}
	o, help := ParseArgs(args)
	if help {
		fmt.Fprint(f.IO.Out, usage)
		return 0
	}
	Run(ctx, f, o)
	return 0
}

// ParseArgs reads a hook's command line: an optional event name. Everything
// else (a flag, a second argument, a word that is not an event name) goes to
// Options.Ignored. A hook's command line is written once into a settings file
// and a mistake in it must not stop the journal: the event is the payload's.
// help is true for a lone -h or --help.
func ParseArgs(args []string) (o Options, help bool) {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return o, true
	}
	for _, a := range args {
		if o.Event == "" && len(o.Ignored) == 0 && isEventName(a) {
			o.Event = a
			continue
		}
		o.Ignored = append(o.Ignored, a)
	}
	return o, false
}

// isEventName reports whether s has the shape of a hook event name:
// PostToolUse, SessionStart, …
func isEventName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

const usage = `Usage: baton-hook [event]
       baton-hook statusline [--lang ja|en]

Claude Code runs baton-hook for each hook event with the event's JSON on
stdin. It appends a record to the journal and, at session start, prints the
context to inject. It is the same as "baton hook" and starts faster; it
never blocks the agent: problems (and arguments it does not understand) go
to baton.log and it exits 0.

"baton-hook statusline" is "baton statusline": the line Claude Code's
statusLine setting shows, from the session's JSON on stdin.
`

// System returns the Factory of the baton-hook program: the process's, with
// the baton program as Executable, since the jobs a hook starts are baton
// commands.
func System() *cmdenv.Factory {
	f := cmdenv.System()
	f.Executable = batonBeside(os.Executable, exec.LookPath)
	return f
}

// batonBeside returns a function finding the baton program in the same
// folder as executable's, else the one lookPath finds.
func batonBeside(executable func() (string, error), lookPath func(string) (string, error)) func() (string, error) {
	return func() (string, error) {
		exe, err := executable()
		if err == nil {
			beside := filepath.Join(filepath.Dir(exe), "baton")
			if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return beside, nil
			}
		}
		return lookPath("baton")
	}
}

// archiveAtSessionEnd starts `baton archive --quiet` in the background when
// a session ends and the configuration of its worktree asks for it. What
// the job cannot copy it says on stderr, which goes to baton.log, where
// `baton doctor` looks.
func archiveAtSessionEnd(f *cmdenv.Factory, res hook.Result) error {
	if res.Payload.Event != hook.SessionEnd || res.State.Root == "" || !res.Config.ArchiveTranscripts() {
		return nil
	}
	if err := startDetached(f, res.State.Base(), res.State, "archive", "--quiet"); err != nil {
		return fmt.Errorf("archive at session end: %w", err)
	}
	return nil
}

// syncAtSessionEnd starts `baton sync --background` when a session ends in
// a repository whose memory is shared, that a person synced before (its
// status file is there) and not within memory.sync_minutes. The hook reads
// one small file; git runs in the job.
func syncAtSessionEnd(f *cmdenv.Factory, res hook.Result) error {
	if res.Payload.Event != hook.SessionEnd || res.State.Root == "" || res.Config == nil || !res.Config.MemoryShare() || f.Getenv(recall.JobEnv) != "" {
		return nil
	}
	st, err := teammem.DirOf(res.State).ReadStatus()
	if err != nil || st.At.IsZero() || f.Now().Sub(st.At) < time.Duration(res.Config.MemorySyncMinutes())*time.Minute {
		return err
	}
	if err := startDetached(f, res.Payload.Cwd, res.State, "sync", "--background"); err != nil {
		return fmt.Errorf("sync at session end: %w", err)
	}
	return nil
}

// refreshStatusLine starts `baton statusline --refresh` in the background
// after an answer or at a session's start when the status line's file is
// there and older than statusline.RefreshAfter: one stat on the hook's path,
// the transcripts are read in the job.
func refreshStatusLine(f *cmdenv.Factory, res hook.Result) error {
	p := res.Payload
	if (p.Event != hook.Stop && p.Event != hook.SessionStart) || res.State.Root == "" || f.Getenv(recall.JobEnv) != "" ||
		!statusline.Stale(res.State, f.Now()) {
		return nil
	}
	if err := startDetached(f, p.Cwd, res.State, "statusline", "--refresh"); err != nil {
		return fmt.Errorf("refresh status line: %w", err)
	}
	return nil
}

// startLayerJob starts the recent (L1) summary of a session that compacts or
// ends, in the background: the hook returns without waiting for it.
func startLayerJob(f *cmdenv.Factory, res hook.Result) error {
	p := res.Payload
	if (p.Event != hook.PreCompact && p.Event != hook.SessionEnd) || p.SessionID == "" || res.State.Root == "" {
		return nil
	}
	if err := startContextJob(f, p.Cwd, "l1", "--session", p.SessionID, "--trigger", p.Event); err != nil {
		return fmt.Errorf("start recent summary: %w", err)
	}
	return nil
}

// startContextJob runs `baton context <args>` detached. Inside a summary's
// own agent run (recall.JobEnv set) it starts nothing, so a summary never
// causes another.
func startContextJob(f *cmdenv.Factory, dir string, args ...string) error {
	if f.Getenv(recall.JobEnv) != "" {
		return nil
	}
	return startDetached(f, dir, state.Dir{}, append([]string{"context"}, args...)...)
}

// startDetached starts the baton program with args in dir as a job of its
// own: a new session, no streams of the hook's (the agent reads the hook's
// output to its end and must not wait for the job), and not waited for.
// The job's stderr goes to the baton.log of logTo when it is not the zero
// Dir. Jobs carry recall.JobEnv, so nothing they run starts jobs in turn.
func startDetached(f *cmdenv.Factory, dir string, logTo state.Dir, args ...string) error {
	exe, err := f.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(f.Environ(), recall.JobEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Nil streams are the null device.
	if logTo.Root != "" {
		if lf, err := safepath.OpenFile(logTo.Base(), logTo.Log(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			defer lf.Close()
			cmd.Stderr = lf
		}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
