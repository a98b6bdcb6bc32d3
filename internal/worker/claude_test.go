package worker

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/modelserver"
)

// These tests run the real Claude Code CLI against the scripted model
// server: the model's Bash tool calls commit, push to the bare remote and
// open pull requests on the fake GitHub with curl, as a real session would
// with gh. Each CLI run costs a few seconds, so there is one test per path.

// claudeRun sets up a harness with one eligible issue and a worker whose
// agent is the real CLI answering with the turns script(n) returns for issue
// n.
func claudeRun(t testing.TB, script func(n int) []modelserver.Turn) (*harness, *modelserver.Server, Options, int) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real agent CLI, seconds per run; skipped with -short")
	}
	claudetest.Binary(t) // skip early when the CLI is missing
	h := newHarness(t)
	n := h.addIssue("Add a change file", "Add change.txt to the repository.")
	s := modelserver.New(t, script(n)...)
	e := claudetest.New(t, s)
	opts := h.options(t, "", "")
	opts.Config.Worker.Agent = config.WorkerAgentSetup{Command: e.Bin, Args: []string{"--allowedTools", "Bash"}}
	// Later entries win: the CLI's hermetic HOME and PATH over the
	// harness's, the harness's git identity and GitHub endpoints kept.
	opts.Environ = append(append([]string(nil), h.gitEnv...), e.Environ()...)
	return h, s, opts, n
}

// bash is a Bash tool call.
func bash(command string) modelserver.Turn {
	return modelserver.ToolUse("Bash", map[string]string{"command": command, "description": "run a command"})
}

// commitCommand commits a file on the worktree's branch.
const commitCommand = `echo change > change.txt && git add change.txt && git commit -qm "Add change.txt"`

// openPRCommand commits, pushes the branch and opens a pull request that
// closes issue n on the fake GitHub.
func openPRCommand(n int) string {
	return commitCommand + ` && git push -q origin HEAD && curl -sSf -X POST -H "Authorization: Bearer $GH_TOKEN" ` +
		`"${GITHUB_API_URL}repos/$GH_REPO/pulls" ` +
		`-d "{\"title\":\"Add change.txt\",\"head\":\"$(git branch --show-current)\",\"base\":\"main\",\"body\":\"Closes #` + strconv.Itoa(n) + `\"}"`
}

func TestClaudePullRequestFirstRun(t *testing.T) {
	t.Parallel()
	h, s, opts, n := claudeRun(t, func(n int) []modelserver.Turn {
		return []modelserver.Turn{bash(openPRCommand(n)), modelserver.Text("Opened the pull request.")}
	})
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateDone || rec.PullRequest == nil || rec.PullRequest.Fallback || len(rec.Attempts) != 1 {
		t.Fatalf("record = %s %+v, %d attempts (errors %v, stderr %q); want done by the agent's pull request on the first run",
			rec.State, rec.PullRequest, len(rec.Attempts), rec.Errors, lastAttempt(rec).Stderr)
	}
	a := rec.Attempts[0]
	if a.Result == nil || a.Result.SessionID == "" || a.Result.Result != "Opened the pull request." {
		t.Errorf("result = %+v; want the CLI's JSON result with a session id", a.Result)
	}
	prs := h.gh.PullRequests()
	if len(prs) != 1 || prs[0].Head != rec.Branch || !h.remoteHas(rec.Branch) {
		t.Errorf("pull requests = %+v; want one from %s, pushed to the remote", prs, rec.Branch)
	}
	prompt := s.Requests()[0].Prompt()
	for _, want := range []string{"Implement issue #" + strconv.Itoa(n) + " of acme/widgets", rec.Branch} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the model's prompt lacks %q", want)
		}
	}
	if !slices.Contains(fencedTexts(prompt), "Add change.txt to the repository.") {
		t.Errorf("the model's prompt lacks the issue's body as a quoted block:\n%s", prompt)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
}

func TestClaudeResumeThenPullRequest(t *testing.T) {
	t.Parallel()
	h, s, opts, n := claudeRun(t, func(n int) []modelserver.Turn {
		return []modelserver.Turn{
			modelserver.Text("The tests are running in the background; I will wait for their notification."),
			bash(openPRCommand(n)),
			modelserver.Text("Finished: the pull request is open."),
		}
	})
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateDone || !rec.Resumed || len(rec.Attempts) != 2 || rec.PullRequest == nil || rec.PullRequest.Fallback {
		t.Fatalf("record = %s resumed %v, %d attempts, pr %+v (errors %v); want done after one resume",
			rec.State, rec.Resumed, len(rec.Attempts), rec.PullRequest, rec.Errors)
	}
	first, second := rec.Attempts[0].Result, rec.Attempts[1].Result
	if first == nil || second == nil || first.SessionID == "" || first.SessionID != second.SessionID {
		t.Errorf("sessions = %+v / %+v; want the resume to continue the first session", first, second)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].Prompt(), "no pull request is linked to issue #"+strconv.Itoa(n)) {
		t.Fatalf("model requests = %d; want 3, the second answering the resume prompt", len(reqs))
	}
	if !strings.Contains(reqs[1].Text(), "The tests are running in the background") {
		t.Errorf("the resumed session does not carry the first run's conversation")
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	// The success comment shows both runs' final messages, in order.
	c := h.workerComments(n)
	if len(c) != 1 {
		t.Fatalf("worker comments = %d; want one success comment", len(c))
	}
	firstAt, sep, last := strings.Index(c[0].Body, "I will wait for their notification"), strings.Index(c[0].Body, "--- resumed session ---"), strings.Index(c[0].Body, "Finished: the pull request is open.")
	if firstAt < 0 || sep < firstAt || last < sep {
		t.Errorf("success comment:\n%s\nwant the first run's message, the resumed-session line, then the resumed run's message", c[0].Body)
	}
}

func TestClaudeResumeNoChangeRequired(t *testing.T) {
	t.Parallel()
	h, s, opts, n := claudeRun(t, func(int) []modelserver.Turn {
		return []modelserver.Turn{
			modelserver.Text("I looked at the code."),
			modelserver.Text("change.txt is not needed: the README already covers it.\n" + MarkerNoChange),
		}
	})
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != NoChangeRequired || len(rec.Attempts) != 2 {
		t.Fatalf("record = %s %s, %d attempts; want failed %s after the resume", rec.State, rec.Category, len(rec.Attempts), NoChangeRequired)
	}
	if strings.Contains(s.Requests()[0].Prompt(), MarkerNoChange) {
		t.Errorf("the first prompt offers the marker")
	}
	h.wantLabels(t, n, failedLabels, activeLabels)
	c := h.workerComments(n)
	if len(c) != 1 || !strings.Contains(c[0].Body, string(NoChangeRequired)) || !strings.Contains(c[0].Body, "--- resumed session ---") {
		t.Errorf("comments = %v; want a failure comment with both runs' output", c)
	}
}

func TestClaudeFallbackDraft(t *testing.T) {
	t.Parallel()
	h, _, opts, n := claudeRun(t, func(int) []modelserver.Turn {
		return []modelserver.Turn{bash(commitCommand), modelserver.Text("Committed. CI will report later.")}
	})
	opts.Config.Worker.Execution.MinResumeMinutes = 240
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateDone || rec.PullRequest == nil || !rec.PullRequest.Fallback {
		t.Fatalf("record = %s %+v (errors %v); want done with a fallback draft", rec.State, rec.PullRequest, rec.Errors)
	}
	prs := h.gh.PullRequests()
	if len(prs) != 1 || !prs[0].Draft || prs[0].Head != rec.Branch || !strings.Contains(prs[0].Body, "Committed. CI will report later.") ||
		!strings.Contains(prs[0].Body, "Closes #"+strconv.Itoa(n)) || !h.remoteHas(rec.Branch) {
		t.Errorf("pull requests = %+v; want a draft from the pushed %s closing #%d with the agent's answer", prs, rec.Branch, n)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
}

func TestClaudeNoResumeBelowBudget(t *testing.T) {
	t.Parallel()
	h, s, opts, n := claudeRun(t, func(int) []modelserver.Turn {
		return []modelserver.Turn{modelserver.Text("Done, I think."), modelserver.Text("resumed (must not happen)")}
	})
	opts.Config.Worker.Execution.TimeoutMinutes = 5
	opts.Config.Worker.Execution.MinResumeMinutes = 10
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != NoLinkedPR || rec.Resumed || len(rec.Attempts) != 1 || !strings.Contains(rec.ResumeNote, "min_resume_minutes") {
		t.Errorf("record = %s %s resumed %v, %d attempts, note %q; want failed %s with no resume",
			rec.State, rec.Category, rec.Resumed, len(rec.Attempts), rec.ResumeNote, NoLinkedPR)
	}
	if got := len(s.Requests()); got != 1 || s.Remaining() != 1 {
		t.Errorf("model requests = %d; want 1", got)
	}
	h.wantLabels(t, n, failedLabels, activeLabels)
	c := h.workerComments(n)
	if len(c) != 1 || !strings.Contains(c[0].Body, "**Resume:** skipped") || !strings.Contains(c[0].Body, "less than min_resume_minutes (10)") {
		t.Errorf("comments = %v; want the failure comment saying the resume was skipped for lack of budget", c)
	}
}

func TestClaudeTimeout(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "sleep.pid")
	h, _, opts, n := claudeRun(t, func(int) []modelserver.Turn {
		return []modelserver.Turn{bash("echo $$ > " + pidFile + " && exec sleep 600")}
	})
	// The deadline comes as soon as the tool is running, however long the
	// CLI takes to start on a loaded machine.
	opts.AfterFunc = func(_ time.Duration, f func()) func() bool {
		stop := make(chan struct{})
		go func() {
			for {
				if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
					f()
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		var once sync.Once
		return func() bool { once.Do(func() { close(stop) }); return true }
	}
	opts.KillDelay = 2 * time.Second
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != CLITimeout || len(rec.Attempts) != 1 || !rec.Attempts[0].TimedOut {
		t.Fatalf("record = %s %s, %d attempts; want failed %s on the first run", rec.State, rec.Category, len(rec.Attempts), CLITimeout)
	}
	if pids := groupMembers(rec.Attempts[0].PID); len(pids) > 0 {
		t.Errorf("the agent's process group still has %v", pids)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the tool never ran: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if alive(pid) {
		t.Errorf("the tool's sleep (pid %d) outlived the deadline", pid)
	}
	c := h.workerComments(n)
	if len(c) != 1 || !strings.Contains(c[0].Body, "(partial, before timeout)") || !strings.Contains(c[0].Body, string(CLITimeout)) {
		t.Errorf("comments = %v; want a timeout failure comment with partial output", c)
	}
}

func TestClaudeResultError(t *testing.T) {
	t.Parallel()
	h, _, opts, n := claudeRun(t, func(int) []modelserver.Turn {
		return []modelserver.Turn{modelserver.Overloaded()}
	})
	// Without retries the CLI gives up at once, printing a result with
	// is_error true (and exiting 1).
	opts.Config.Worker.Agent.Env = map[string]string{"CLAUDE_CODE_MAX_RETRIES": "0"}
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != CLIResultError {
		t.Fatalf("record = %s %s; want failed %s", rec.State, rec.Category, CLIResultError)
	}
	if r := rec.Attempts[0].Result; r == nil || !r.IsError {
		t.Errorf("result = %+v; want is_error", r)
	}
	c := h.workerComments(n)
	if len(c) != 1 || !strings.Contains(c[0].Body, "529") {
		t.Errorf("comments = %v; want a failure comment showing the API error", c)
	}
}

// lastAttempt returns the run's last attempt, or a zero one.
func lastAttempt(rec *Record) Attempt {
	if len(rec.Attempts) == 0 {
		return Attempt{}
	}
	return rec.Attempts[len(rec.Attempts)-1]
}
