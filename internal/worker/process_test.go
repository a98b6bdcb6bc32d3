package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/config"
)

// These tests run the real baton binary (`baton worker once`) as separate
// processes, with the test binary as the agent.

// batonProcess returns a command running `baton worker once --json` on the
// harness, its agent the fake one with the given actions.
func (h *harness) batonProcess(t testing.TB, bin, first, resume string) *exec.Cmd {
	return h.batonCommand(t, bin, first, resume, "once", "--json")
}

// batonCommand returns a command running `baton worker <args>` on the
// harness.
func (h *harness) batonCommand(t testing.TB, bin, first, resume string, args ...string) *exec.Cmd {
	t.Helper()
	opts := h.options(t, first, resume)
	cfgDir := filepath.Join(h.home, ".config", "baton")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"worker": map[string]any{
		"repositories": []map[string]any{{"repo": "acme/widgets", "path": h.clone}},
		"agent":        map[string]any{"command": opts.Config.Worker.Agent.Command, "env": opts.Config.Worker.Agent.Env},
		"execution":    map[string]any{"min_resume_minutes": 240, "timeout_minutes": 20},
		"queue":        map[string]any{"rescue_margin_seconds": 0},
	}}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "baton"), append([]string{"worker"}, args...)...)
	cmd.Env = append(append([]string(nil), h.gitEnv...),
		"XDG_CONFIG_HOME="+filepath.Join(h.home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(h.home, ".local", "share"),
		// A configured minute lasts a second: a killed host's job is
		// rescued within a minute.
		"BATON_WORKER_MINUTE=1s",
		"BATON_WORKER_HOST=test-host",
		"LANG=C.UTF-8")
	return cmd
}

// runOnce runs a `baton worker once --json` process to its end.
func runOnce(t testing.TB, cmd *exec.Cmd) CycleResult {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("baton worker once: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	var res CycleResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	return res
}

func TestProcessesTwoWorkersOneIssue(t *testing.T) {
	t.Parallel()
	bin := buildBaton(t)
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results []CycleResult
	)
	for range 2 {
		cmd := h.batonProcess(t, bin, "log,pr", "log")
		wg.Go(func() {
			res := runOnce(t, cmd)
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
		})
	}
	wg.Wait()
	runs := 0
	for _, r := range results {
		runs += len(r.Runs)
	}
	if runs != 1 {
		t.Errorf("the two processes ran the issue %d times; want exactly once (results %+v)", runs, results)
	}
	if inv := readInvocations(t, h.agentLog()); len(inv) != 1 {
		t.Errorf("agent started %d times; want once", len(inv))
	}
	if prs := h.gh.PullRequests(); len(prs) != 1 {
		t.Errorf("pull requests = %d; want 1", len(prs))
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
}

func TestProcessKilledWorkerIsRecovered(t *testing.T) {
	t.Parallel()
	bin := buildBaton(t)
	h := newHarness(t)
	n := h.addIssue("Add export", "body")

	// A worker dies with SIGKILL in the middle of a run: no clean-up at all.
	cmd := h.batonProcess(t, bin, "log,sleep", "log")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPIDs(t, filepath.Join(h.home, "pids"), 2)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The agent has its own process group, which a dead worker cannot stop.
	syscall.Kill(-pids[0], syscall.SIGKILL)
	h.wantLabels(t, n, []string{config.DefaultWorkerInProgress}, []string{config.DefaultWorkerTrigger})

	// The next worker on this machine marks its record interrupted, and
	// once the queue rescues the job (budget + steps + margin), runs it.
	res := runOnce(t, h.batonProcess(t, bin, "log,pr", "log"))
	if len(res.Recovered) != 1 || res.Recovered[0].State != StateInterrupted || res.Recovered[0].Issue != n {
		t.Fatalf("recovered = %+v; want the killed run, interrupted", res.Recovered)
	}
	if len(res.Runs) != 1 || res.Runs[0].State != StateDone {
		t.Fatalf("runs = %s (skipped %v, errors %v); want the issue run again to done", describeRuns(res.Runs), res.Skipped, res.Errors)
	}
	if r := res.Runs[0]; r.Attempt != 2 || r.RescuedFrom == "" {
		t.Errorf("run attempt %d rescued from %q; want the job's second attempt, rescued", r.Attempt, r.RescuedFrom)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	for _, c := range h.workerComments(n) {
		if strings.Contains(c.Body, claimPrefix) {
			t.Errorf("a claim comment is left: %q", c.Body)
		}
	}
}

func TestProcessRunStops(t *testing.T) {
	t.Parallel()
	bin := buildBaton(t)
	t.Run("first signal lets the run finish", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		n := h.addIssue("Add export", "body")
		release := filepath.Join(h.home, "release")
		cmd := h.batonCommand(t, bin, "log,pid,wait="+release+",pr", "log", "run")
		stderr := startWithOutput(t, cmd)
		waitPIDs(t, filepath.Join(h.home, "pids"), 1)
		cmd.Process.Signal(syscall.SIGTERM)
		waitFor(t, "the stop notice", func() bool { return strings.Contains(stderr.String(), "Stopping") })
		// The run goes on after the first signal: let the agent finish.
		if err := os.WriteFile(release, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("baton worker run: %v\n%s", err, stderr)
		}
		h.wantLabels(t, n, doneLabels, activeLabels)
		if inv := readInvocations(t, h.agentLog()); len(inv) != 1 {
			t.Errorf("agent ran %d times; want once (no new cycle after the signal)", len(inv))
		}
	})
	t.Run("second signal stops the run and puts the issue back", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		n := h.addIssue("Add export", "body")
		cmd := h.batonCommand(t, bin, "log,sleep", "log", "run")
		stderr := startWithOutput(t, cmd)
		pids := waitPIDs(t, filepath.Join(h.home, "pids"), 2)
		cmd.Process.Signal(syscall.SIGTERM)
		waitFor(t, "the stop notice", func() bool { return strings.Contains(stderr.String(), "Stopping") })
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("baton worker run: %v\n%s", err, stderr)
		}
		h.wantLabels(t, n, []string{config.DefaultWorkerTrigger}, []string{config.DefaultWorkerInProgress, config.DefaultWorkerFailed})
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("agent process %d survived", pid)
			}
		}
		// The job is back in the queue for any host.
		out, err := h.batonCommand(t, bin, "log", "log", "status", "--json").Output()
		if err != nil {
			t.Fatalf("baton worker status: %v", err)
		}
		var st struct {
			Queue QueueStatus `json:"queue"`
		}
		if err := json.Unmarshal(out, &st); err != nil {
			t.Fatal(err)
		}
		if got := st.Queue.Counts["available"]; len(got) == 0 {
			t.Errorf("queue counts = %v; want the job available again", st.Queue.Counts)
		}
	})
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWithOutput starts cmd and returns its standard error as it comes.
func startWithOutput(t testing.TB, cmd *exec.Cmd) *syncBuffer {
	t.Helper()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &out
}

// waitFor polls cond until it holds, failing t after 30 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// buildBaton builds the baton binary, once per test process; the tests
// that run it are skipped with -short.
func buildBaton(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the baton binary; skipped with -short")
	}
	return claudetest.BuildBaton(t)
}

// describeRuns shows what a failed expectation needs to see of each run.
func describeRuns(runs []*Record) string {
	var b strings.Builder
	for _, r := range runs {
		fmt.Fprintf(&b, "[issue %d state %s step %s category %s: %s] ", r.Issue, r.State, r.Step, r.Category, r.Summary)
	}
	return b.String()
}

func TestProcessSetupAndStatus(t *testing.T) {
	t.Parallel()
	bin := buildBaton(t)
	h := newHarness(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := h.batonCommand(t, bin, "log,pr", "log", args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("baton worker %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	doctor := func(env ...string) string {
		t.Helper()
		cmd := h.batonCommand(t, bin, "log,pr", "log")
		cmd.Args = []string{cmd.Args[0], "doctor"}
		cmd.Env = append(cmd.Env, env...)
		out, _ := cmd.CombinedOutput() // doctor exits non-zero on a failed check
		return string(out)
	}
	if out := doctor(); !strings.Contains(out, "labels missing: acme/widgets "+config.DefaultWorkerTrigger) || !strings.Contains(out, "answers and is migrated") {
		t.Errorf("doctor before setup:\n%s\nwant the missing labels named and the queue answering", out)
	}
	if out := doctor("BATON_QUEUE_URL=postgres://baton:hunter2@127.0.0.1:1/queue"); !strings.Contains(out, "127.0.0.1:1") || strings.Contains(out, "hunter2") || strings.Contains(out, "answers and is migrated") {
		t.Errorf("doctor with an unreachable queue:\n%s\nwant its URL named, the password left out", out)
	}

	out := run("setup")
	if got := strings.Count(out, "created label"); got != 4 {
		t.Errorf("setup output:\n%s\nwant 4 labels created", out)
	}
	want := map[string]string{config.DefaultWorkerTrigger: "1d76db", config.DefaultWorkerInProgress: "fbca04", config.DefaultWorkerDone: "0e8a16", config.DefaultWorkerFailed: "d93f0b"}
	for _, l := range h.gh.Labels() {
		if c, ok := want[l.Name]; ok {
			if l.Color != c || l.Description == "" {
				t.Errorf("label %s = colour %q, description %q; want %s and a description", l.Name, l.Color, l.Description, c)
			}
			delete(want, l.Name)
		}
	}
	if len(want) != 0 {
		t.Errorf("labels not created: %v", want)
	}
	if out := run("setup"); strings.Count(out, "exists") != 4 {
		t.Errorf("second setup output:\n%s\nwant the 4 labels found", out)
	}
	if out := doctor(); !strings.Contains(out, "the worker's labels exist in 1 repositories") {
		t.Errorf("doctor after setup:\n%s\nwant the labels found", out)
	}

	n := h.addIssue("Add export", "body")
	runOnce(t, h.batonProcess(t, bin, "log,pr", "log"))
	h.wantLabels(t, n, doneLabels, activeLabels)
	out = run("status")
	if !strings.Contains(out, "Queue (") || !regexp.MustCompile(`completed\s+1\s+\(test-host 1\)`).MatchString(out) {
		t.Errorf("status output:\n%s\nwant the queue's completed job by host", out)
	}
}

// TestProcessKilledWorkerTakesAgentTree kills a worker outright (SIGKILL)
// while its agent runs with a child of its own: the agent and its child are
// gone within seconds, nothing left to push or open a pull request.
func TestProcessKilledWorkerTakesAgentTree(t *testing.T) {
	t.Parallel()
	bin := buildBaton(t)
	h := newHarness(t)
	h.addIssue("Add export", "body")
	cmd := h.batonProcess(t, bin, "log,sleep", "log")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPIDs(t, filepath.Join(h.home, "pids"), 2)
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []int
		for _, pid := range pids {
			if processAlive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %d and its child %d: %v still alive 5 s after the worker was killed; want the whole tree gone", pids[0], pids[1], alive)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processAlive reports whether pid runs: it exists and is not a zombie
// waiting for its parent.
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
