package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Output bounds: what is kept of an agent run's streams in memory, and what
// of it goes into the run record.
const (
	stdoutHead   = 1 << 20
	stdoutTail   = 1 << 20
	stderrHead   = 64 << 10
	stderrTail   = 64 << 10
	recordStdout = 16 << 10
	recordStderr = 16 << 10
	recordResult = 16 << 10
)

// An agentSpec is one run of the agent CLI.
type agentSpec struct {
	Command string
	Args    []string
	Dir     string
	Env     []string
	Prompt  string
	// Deadline is when the run is stopped: SIGTERM to its process group,
	// SIGKILL KillDelay later.
	Deadline  time.Time
	KillDelay time.Duration
	Now       func() time.Time
	// AfterFunc calls f once d has passed and returns a function that
	// cancels the call, as time.AfterFunc does; nil: time.AfterFunc.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Started, when set, is told the process id as soon as the agent runs.
	Started func(pid int)
	// Reaper, when set, is the program the agent runs under (see
	// ReaperMain); empty: the agent is the worker's child itself.
	Reaper string
}

// Attempt is what one run of the agent did.
type Attempt struct {
	// Kind is "first" or "resume".
	Kind      string    `json:"kind"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// PID is the process id of the agent's process group leader: its
	// reaper (see ReaperMain), or the agent itself without one.
	PID int `json:"pid,omitempty"`
	// ExitCode is the agent's exit status; -1 when it was ended by a
	// signal or never started.
	ExitCode int `json:"exit_code"`
	// TimedOut: the deadline stopped the run.
	TimedOut bool `json:"timed_out,omitempty"`
	// Interrupted: the worker was told to stop and stopped the run.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error is why the agent could not be started or waited for.
	Error string `json:"error,omitempty"`
	// Result is the agent's final JSON result, when it printed one.
	Result *Result `json:"result,omitempty"`
	// Stdout and Stderr are the ends of the agent's output streams,
	// redacted; the byte counts are of everything it wrote.
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`

	// stdout is the whole kept standard output, for parsing; not saved.
	stdout string
}

// Result is the agent CLI's JSON result (claude -p --output-format json).
type Result struct {
	Type      string `json:"type,omitempty"`
	Subtype   string `json:"subtype,omitempty"`
	IsError   bool   `json:"is_error"`
	SessionID string `json:"session_id,omitempty"`
	NumTurns  int    `json:"num_turns,omitempty"`
	Result    string `json:"result"`
}

// errDeadline is why a run past its deadline is stopped.
var errDeadline = errors.New("deadline")

// runAgent runs the agent to completion or to its deadline, in a process
// group of its own so that the deadline stops every process it started in
// that group. It never returns an error: what went wrong is in the Attempt.
func runAgent(ctx context.Context, s agentSpec) Attempt {
	a := Attempt{StartedAt: s.Now(), ExitCode: -1}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	afterFunc := s.AfterFunc
	if afterFunc == nil {
		afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	stopDeadline := afterFunc(s.Deadline.Sub(s.Now()), func() { cancel(errDeadline) })
	defer stopDeadline()

	stdout := newCapture(stdoutHead, stdoutTail)
	stderr := newCapture(stderrHead, stderrTail)
	// The agent dies with the worker: a worker killed outright leaves no
	// agent, nor a process the agent started, to go on pushing and opening
	// pull requests while another host takes the job over. The
	// parent-death signal reaches only the worker's child: the reaper, which
	// then kills the whole group; without a reaper, only the agent.
	name, args, env := s.Command, s.Args, s.Env
	var extra *os.File // the write end, the reaper's reaperStatusFD
	deathSignal := syscall.SIGKILL
	var status *os.File // the read end of the reaper's status pipe
	if s.Reaper != "" {
		// The reaper starts the agent: that it is missing is found here.
		path, err := exec.LookPath(s.Command)
		if err != nil {
			a.EndedAt = s.Now()
			a.Error = err.Error()
			return a
		}
		r, w, err := os.Pipe()
		if err != nil {
			a.EndedAt = s.Now()
			a.Error = err.Error()
			return a
		}
		defer r.Close()
		defer w.Close()
		status, extra = r, w
		name, args = s.Reaper, append([]string{path}, s.Args...)
		env = append(append([]string(nil), s.Env...), reaperEnv+"="+strconv.Itoa(os.Getpid()))
		deathSignal = reaperDeathSignal
	}
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.Dir = s.Dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(s.Prompt)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
	if extra != nil {
		cmd.ExtraFiles = []*os.File{extra}
	}

	var (
		mu        sync.Mutex
		killTimer *time.Timer
	)
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		mu.Lock()
		killTimer = time.AfterFunc(s.KillDelay, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
		mu.Unlock()
		if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
		return nil
	}
	// Past the grace period Wait kills the leader and stops waiting for
	// output pipes that background processes may still hold open.
	cmd.WaitDelay = s.KillDelay

	if err := cmd.Start(); err != nil {
		a.EndedAt = s.Now()
		a.Error = err.Error()
		return a
	}
	if extra != nil {
		extra.Close() // the reaper holds it now
	}
	a.PID = cmd.Process.Pid
	if s.Started != nil {
		s.Started(a.PID)
	}
	err := cmd.Wait()
	// Whatever is left of the group (jobs the agent put in the background)
	// goes with it.
	_ = syscall.Kill(-a.PID, syscall.SIGKILL)
	mu.Lock()
	if killTimer != nil {
		killTimer.Stop()
	}
	mu.Unlock()

	a.EndedAt = s.Now()
	switch {
	case errors.Is(context.Cause(runCtx), errDeadline) && ctx.Err() == nil:
		a.TimedOut = true
	case ctx.Err() != nil:
		a.Interrupted = true
	}
	if cmd.ProcessState != nil {
		a.ExitCode = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		a.Error = err.Error()
	}
	if cmd.ProcessState != nil && !cmd.ProcessState.Exited() && !a.TimedOut && !a.Interrupted {
		a.Error = "agent " + cmd.ProcessState.String()
	}
	if status != nil {
		// The reaper has exited, and nothing else holds the pipe's
		// write end: this read ends.
		b, _ := io.ReadAll(io.LimitReader(status, 64))
		if sig, ok := reaperSignal(string(b)); ok {
			a.ExitCode = -1
			if !a.TimedOut && !a.Interrupted {
				a.Error = "agent signal: " + sig.String()
			}
		}
	}

	out, errOut := stdout.Output(), stderr.Output()
	a.stdout = out.Text
	a.StdoutBytes, a.StderrBytes = out.Total, errOut.Total
	a.Result = parseResult(out.Text)
	a.Stdout = lastChars(out.Text, recordStdout)
	a.Stderr = lastChars(errOut.Text, recordStderr)
	return a
}

// parseResult finds the agent's result object in its standard output: the
// whole output when it is one JSON object (--output-format json), else the
// last line that is a result object (--output-format stream-json).
func parseResult(stdout string) *Result {
	text := strings.TrimSpace(stdout)
	if text == "" {
		return nil
	}
	var r Result
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &r) == nil && isResult(&r, text) {
		return &r
	}
	var last *Result
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), stdoutHead+stdoutTail)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") || !strings.Contains(line, `"result"`) {
			continue
		}
		var lr Result
		if json.Unmarshal([]byte(line), &lr) == nil && isResult(&lr, line) {
			last = &lr
		}
	}
	return last
}

// isResult tells a result object from any other JSON the output may hold.
func isResult(r *Result, raw string) bool {
	return r.Type == "result" || (r.Type == "" && (r.SessionID != "" || strings.Contains(raw, `"is_error"`)))
}

// MarkerNoChange is the line the resumed session prints, on its own, when it
// found nothing to change. Only the resume prompt offers it.
const MarkerNoChange = "BATON_NO_CHANGE_REQUIRED"

// saysNoChange reports whether the marker is a line of the attempt's final
// answer (or, when there was no JSON result, of its output).
func saysNoChange(a *Attempt) bool {
	text := a.stdout
	if a.Result != nil {
		text = a.Result.Result
	}
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == MarkerNoChange {
			return true
		}
	}
	return false
}

// lastChars returns the last n characters of s (not bytes: a character is
// never cut in two).
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s)
	for count := 0; count < n && i > 0; count++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
