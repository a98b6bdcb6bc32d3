package claudetest

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestWaitForLeftoversKillsWhatOutlivesTheTest(t *testing.T) {
	env := "BATON_LEFTOVER_TEST=" + t.Name()
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Start returns once the exec has begun, when the child's environment
	// may not be readable yet: wait for it to show, with a deadline.
	pids := waitForPid(env, cmd.Process.Pid, 10*time.Second)
	if !slices.Contains(pids, cmd.Process.Pid) {
		t.Fatalf("processesWithEnv(%q) = %v; want it to hold %d", env, pids, cmd.Process.Pid)
	}
	if pids := processesWithEnv(env + "x"); slices.Contains(pids, cmd.Process.Pid) {
		t.Fatalf("processesWithEnv matched a longer value: %v", pids)
	}

	waitForLeftovers(t, env, 100*time.Millisecond)
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("sleep ended with %v; want killed by SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the leftover process is still running")
	}
}

// waitForPid polls processesWithEnv(env) until it holds pid or wait
// passes, and returns its last answer.
func waitForPid(env string, pid int, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		pids := processesWithEnv(env)
		if slices.Contains(pids, pid) || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWaitForLeftoversReturnsWhenNoneIsLeft(t *testing.T) {
	env := "BATON_LEFTOVER_TEST=" + t.Name()
	cmd := exec.Command("sleep", "0.3")
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	waitForLeftovers(t, env, time.Minute)
	if pids := processesWithEnv(env); len(pids) != 0 {
		t.Fatalf("returned while %v still run", pids)
	}
}
