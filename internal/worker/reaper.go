package worker

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// The agent runs under a reaper: a small process of baton's own that leads
// the agent's process group. The parent-death signal reaches only a direct
// child, so the reaper is that child: when the worker dies, however it
// dies, the reaper gets reaperDeathSignal and kills the whole group, the
// agent and whatever it started in it.

// reaperEnv, in a process's environment, makes it a reaper; its value is
// the worker's process id.
const reaperEnv = "BATON_AGENT_REAPER"

// reaperDeathSignal is the reaper's parent-death signal.
const reaperDeathSignal = syscall.SIGUSR1

// reaperStatusFD is the reaper's descriptor of a pipe to the worker, on
// which it writes reaperSignalled and the signal's number when a signal
// ended the agent.
const (
	reaperStatusFD  = 3
	reaperSignalled = "signal "
)

// reaperSignal returns the signal a reaper's status says ended the agent.
func reaperSignal(status string) (syscall.Signal, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(status, reaperSignalled)))
	if !strings.HasPrefix(status, reaperSignalled) || err != nil || n <= 0 {
		return 0, false
	}
	return syscall.Signal(n), true
}

// ReaperMain runs this process as an agent's reaper, then exits, when the
// worker started it as one (see Options.Reaper); otherwise it returns at
// once. A program that runs the worker calls it before anything else.
func ReaperMain() {
	worker, ok := os.LookupEnv(reaperEnv)
	if !ok {
		return
	}
	os.Exit(reap(worker, os.Args[1:]))
}

// reap runs argv (the agent's path and arguments) with the reaper's
// standard streams and directory, and returns its exit status; an agent
// ended by a signal ends the reaper with the same signal. Signals sent to
// the group (the worker's SIGTERM at the deadline) reach the agent itself
// and are left to it.
func reap(worker string, argv []string) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, reaperDeathSignal, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	killGroup := func() { _ = syscall.Kill(-syscall.Getpgrp(), syscall.SIGKILL) }
	if strconv.Itoa(os.Getppid()) != worker {
		// The worker died before the parent-death signal was set up.
		killGroup()
		return 1
	}
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "baton: the agent's reaper has no command")
		return 127
	}
	// The worker reads how the agent ended from reaperStatusFD; the agent
	// and what it starts do not inherit it, so it closes when the reaper
	// exits.
	syscall.CloseOnExec(reaperStatusFD)
	status := os.NewFile(reaperStatusFD, "status")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "baton: start the agent: %v\n", err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	for {
		select {
		case s := <-sigs:
			if s == reaperDeathSignal {
				killGroup()
			}
		case <-done:
			st := cmd.ProcessState
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				// Go's runtime turns some signals raised on itself into an
				// exit with a stack trace, so the signal is told, not
				// raised again.
				fmt.Fprintf(status, "%s%d\n", reaperSignalled, int(ws.Signal()))
				return 128 + int(ws.Signal())
			}
			return st.ExitCode()
		}
	}
}
