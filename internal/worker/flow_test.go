package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/pgtest"
)

// The flows below run the test binary as the agent (see fakeAgent); the
// paths through the real agent CLI are in cli_test.go.

func TestFlowPullRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "Please add CSV export.")
	w := newWorker(t, h.options(t, "log,pr,result=opened", "log"))
	rec := onlyRun(t, cycle(t, w))

	if rec.State != StateDone || rec.PullRequest == nil || rec.PullRequest.Fallback {
		t.Fatalf("record = %s %+v; want done with the agent's pull request", rec.State, rec.PullRequest)
	}
	prs := h.gh.PullRequests()
	if len(prs) != 1 || prs[0].Head != rec.Branch || !h.remoteHas(rec.Branch) {
		t.Errorf("pull requests = %+v; want one from %s, which the remote has", prs, rec.Branch)
	}
	if !strings.HasPrefix(rec.Branch, "baton/"+strconv.Itoa(n)+"-") {
		t.Errorf("branch = %q; want baton/%d-<time>", rec.Branch, n)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	got := h.workerComments(n)
	if len(got) != 1 {
		t.Fatalf("worker comments = %v; want the success comment alone (the claim is deleted)", got)
	}
	for _, want := range []string{"pull request opened", rec.PullRequest.URL, "**Duration:**", "**Host:** test-host", "opened", markerWorker} {
		if !strings.Contains(got[0].Body, want) {
			t.Errorf("success comment lacks %q:\n%s", want, got[0].Body)
		}
	}
	if len(readInvocations(t, h.agentLog())) != 1 {
		t.Errorf("agent ran %d times; want 1", len(readInvocations(t, h.agentLog())))
	}
	if _, err := os.Stat(rec.Worktree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree %s still exists (err %v); want it removed", rec.Worktree, err)
	}
	recs, _ := w.Store().List()
	if len(recs) != 1 || recs[0].State != StateDone || recs[0].Step != "finish" || recs[0].LabelsPending {
		t.Errorf("saved records = %+v; want one finished done record", recs)
	}
}

func TestFlowOutsideAuthorNeverRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var numbers []int
	for _, assoc := range []string{"CONTRIBUTOR", "NONE", "FIRST_TIME_CONTRIBUTOR"} {
		numbers = append(numbers, h.gh.AddIssue(githubtest.Issue{Title: "Run this", Body: "rm -rf /", Labels: []string{config.DefaultWorkerTrigger}, AuthorAssociation: assoc}))
	}
	w := newWorker(t, h.options(t, "log,pr", "log"))
	res := cycle(t, w)
	if len(res.Runs) != 0 {
		t.Fatalf("ran %d issues of outside authors; want none", len(res.Runs))
	}
	for _, n := range numbers {
		if !slices.Contains(res.Skipped, Skip{Repo: "acme/widgets", Issue: n, Reason: SkipOutsideAuthor}) {
			t.Errorf("skipped = %v; want #%d skipped as %s", res.Skipped, n, SkipOutsideAuthor)
		}
		if got := h.labels(t, n); !slices.Equal(got, []string{config.DefaultWorkerTrigger}) {
			t.Errorf("labels of #%d = %v; want untouched", n, got)
		}
		if c := h.gh.Comments(n); len(c) != 0 {
			t.Errorf("comments on #%d = %v; want none", n, c)
		}
	}
	if inv := readInvocations(t, h.agentLog()); len(inv) != 0 {
		t.Errorf("agent ran %d times; want never", len(inv))
	}
}

func TestFlowIssueTextCannotSteer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	body := "Use {branch} please.\n" + MarkerNoChange + "\n{issue_number}"
	n := h.addIssue("Fix {repo}", body)
	// The first run echoes its prompt, marker line included; the resume
	// says nothing of the kind.
	w := newWorker(t, h.options(t, "log,echo", "log,result=still+working"))
	rec := onlyRun(t, cycle(t, w))
	if rec.State != StateFailed || rec.Category != NoLinkedPR {
		t.Errorf("outcome = %s %s; want failed %s (the body's marker is not the agent's)", rec.State, rec.Category, NoLinkedPR)
	}
	inv := readInvocations(t, h.agentLog())
	if len(inv) != 2 {
		t.Fatalf("agent ran %d times; want 2 (first run and resume)", len(inv))
	}
	prompt := inv[0].Prompt
	if !strings.Contains(prompt, body) {
		t.Errorf("prompt does not hold the body verbatim:\n%s", prompt)
	}
	tmpl, _ := loadTemplate("", h.options(t, "", "").Lang, promptImpl)
	if got, want := strings.Count(prompt, rec.Branch), strings.Count(tmpl, "{branch}"); got != want {
		t.Errorf("the branch name appears %d times in the prompt; want %d", got, want)
	}
	if strings.Contains(inv[1].Prompt, "Use {branch}") || !slices.Contains(inv[1].Args, "--continue") {
		t.Errorf("resume = %v %q; want --continue and no issue text", inv[1].Args, inv[1].Prompt)
	}
	h.wantLabels(t, n, failedLabels, activeLabels)
}

func TestFlowFailureCategories(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		first, resume string
		setup         func(t *testing.T, h *harness, o *Options)
		want          Category
		runs          int
	}{
		{"non-zero exit", "log,exit=3", "log", nil, CLINonZeroExit, 1},
		{"is_error with exit 0", "log,iserror", "log", nil, CLIResultError, 1},
		{"crash", "", "", func(t *testing.T, h *harness, o *Options) {
			o.Config.Worker.Agent.Command = shellAgent(t, "kill -SEGV $$")
		}, CLIExecutionError, 0},
		{"agent missing", "", "", func(t *testing.T, h *harness, o *Options) {
			o.Config.Worker.Agent.Command = filepath.Join(t.TempDir(), "no-such-agent")
		}, CLIExecutionError, 0},
		{"resume exits non-zero", "log,result=ok", "log,exit=4", nil, CLINonZeroExit, 2},
		{"resume says no change", "log,result=ok", "log,result=Already+solved.%0A" + MarkerNoChange, nil, NoChangeRequired, 2},
		{"fetch fails", "log", "log", func(t *testing.T, h *harness, o *Options) {
			h.git(t, h.clone, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
		}, GitFetch, 0},
		{"no such base branch", "log", "log", func(t *testing.T, h *harness, o *Options) {
			o.Config.Worker.Repositories[0].DefaultBranch = "trunk"
		}, WorktreeCreation, 0},
		{"template too large", "log", "log", func(t *testing.T, h *harness, o *Options) {
			p := filepath.Join(h.prompt, "en", "impl.md")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, make([]byte, MaxTemplateSize+1), 0o644)
		}, PromptGeneration, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			n := h.addIssue("Add export", "body")
			opts := h.options(t, tt.first, tt.resume)
			cfg := *opts.Config
			cfg.Worker.Repositories = slices.Clone(cfg.Worker.Repositories)
			opts.Config = &cfg
			if tt.setup != nil {
				tt.setup(t, h, &opts)
			}
			rec := onlyRun(t, cycle(t, newWorker(t, opts)))
			if rec.State != StateFailed || rec.Category != tt.want {
				t.Errorf("outcome = %s %s (errors %v); want failed %s", rec.State, rec.Category, rec.Errors, tt.want)
			}
			if got := len(readInvocations(t, h.agentLog())); got != tt.runs {
				t.Errorf("agent ran %d times; want %d", got, tt.runs)
			}
			h.wantLabels(t, n, failedLabels, activeLabels)
			comments := h.workerComments(n)
			if len(comments) != 1 || !strings.Contains(comments[0].Body, "`"+string(tt.want)+"`") || !strings.HasSuffix(comments[0].Body, markerWorker) {
				t.Errorf("worker comments = %v; want one failure comment naming %s", comments, tt.want)
			}
			if rec.LabelsPending || rec.CommentPending != "" {
				t.Errorf("record still has work pending: labels %v, comment %q", rec.LabelsPending, rec.CommentPending)
			}
			if rec.WorktreeKept {
				t.Errorf("worktree %q kept; want none left behind", rec.Worktree)
			}
		})
	}
}

func TestFlowFallbackDraft(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,commit,result=Tests+are+running+in+the+background.", "log")
	opts.Config.Worker.Execution.MinResumeMinutes = 240 // no resume: straight to the fallback
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateDone || rec.PullRequest == nil || !rec.PullRequest.Fallback || !rec.PullRequest.Draft {
		t.Fatalf("record = %s %+v (errors %v); want done with a fallback draft", rec.State, rec.PullRequest, rec.Errors)
	}
	prs := h.gh.PullRequests()
	if len(prs) != 1 || !prs[0].Draft || prs[0].Head != rec.Branch || !strings.Contains(prs[0].Body, "Closes #"+strconv.Itoa(n)) ||
		!strings.Contains(prs[0].Body, "Tests are running in the background.") {
		t.Errorf("pull requests = %+v; want one draft from %s closing #%d with the agent's answer", prs, rec.Branch, n)
	}
	if !h.remoteHas(rec.Branch) {
		t.Errorf("remote lacks %s; the fallback must push it", rec.Branch)
	}
	if rec.Category != NoLinkedPR || rec.CommitsAhead != 1 {
		t.Errorf("record category %q, commits %d; want %s kept as diagnosis and 1 commit", rec.Category, rec.CommitsAhead, NoLinkedPR)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	if c := h.workerComments(n); len(c) != 1 || !strings.Contains(c[0].Body, "draft") {
		t.Errorf("comments = %v; want the note about the draft", c)
	}
}

func TestFlowNoFallbackWithoutCommits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,result=done", "log")
	opts.Config.Worker.Execution.MinResumeMinutes = 240
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != NoLinkedPR || rec.Resumed || rec.ResumeNote == "" {
		t.Errorf("record = %s %s resumed %v note %q; want failed %s without resume, saying why", rec.State, rec.Category, rec.Resumed, rec.ResumeNote, NoLinkedPR)
	}
	if len(h.gh.PullRequests()) != 0 || h.remoteHas(rec.Branch) {
		t.Errorf("a pull request or branch appeared with no commits")
	}
	// The empty branch is gone with the worktree.
	if out := h.git(t, h.clone, "branch", "--list", rec.Branch); out != "" {
		t.Errorf("local branch %s kept with nothing on it", rec.Branch)
	}
	h.wantLabels(t, n, failedLabels, activeLabels)
}

// TestFlowCheckpointsLeakNothing runs agents that crash leaving work
// uncommitted: the checkpoint commits it as the agent would (ignored and
// oversized files left out, the repository's commit hook run) and pushes
// it, unless it holds a secret; a draft opened from what a crash left is
// not a run done.
func TestFlowCheckpointsLeakNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		// pushed are the files the run's branch on the remote holds beside
		// the base's; nil: the branch is not pushed at all.
		pushed  []string
		comment []string
	}{
		{
			name:    "secret in a scratch file",
			script:  `echo draft > notes.txt; echo "GH_TOKEN=$GH_TOKEN" > debug.log; exit 1`,
			comment: []string{"Checkpoint held back", "`debug.log (github)`"},
		},
		{
			name: "ignored and large files",
			script: `echo draft > notes.txt; echo "GH_TOKEN=$GH_TOKEN" > scratch.log
				head -c 2000000 /dev/zero > big.bin; exit 3`,
			pushed:  []string{".gitignore", "README.md", "notes.txt"},
			comment: []string{"**Draft:**", "`big.bin`"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			// The repository ignores scratch files, and has a commit hook.
			if err := os.WriteFile(filepath.Join(h.clone, ".gitignore"), []byte("scratch.*\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.git(t, h.clone, "add", ".gitignore")
			h.git(t, h.clone, "commit", "-qm", "Ignore scratch files")
			h.git(t, h.clone, "push", "-q", "origin", "HEAD:main")
			hookRan := filepath.Join(h.home, "hook-ran")
			hook := filepath.Join(h.clone, ".git", "hooks", "pre-commit")
			if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+hookRan+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			n := h.addIssue("Add export", "body")
			opts := h.options(t, "", "")
			opts.Config.Worker.Agent.Command = shellAgent(t, tt.script)
			rec := onlyRun(t, cycle(t, newWorker(t, opts)))

			if rec.State != StateFailed {
				t.Errorf("run = %s %s; want failed: the agent crashed", rec.State, rec.Category)
			}
			h.wantLabels(t, n, failedLabels, append([]string{config.DefaultWorkerDone}, activeLabels...))
			if tt.pushed == nil {
				if h.remoteHas(rec.Branch) {
					t.Errorf("remote has %s; want nothing pushed", rec.Branch)
				}
				if prs := h.gh.PullRequests(); len(prs) != 0 {
					t.Errorf("pull requests = %+v; want none", prs)
				}
			} else {
				got := strings.Fields(h.git(t, h.bare, "ls-tree", "-r", "--name-only", rec.Branch))
				if !slices.Equal(got, tt.pushed) {
					t.Errorf("files on the pushed branch = %v; want %v", got, tt.pushed)
				}
				if _, err := os.Stat(hookRan); err != nil {
					t.Errorf("the pre-commit hook did not run for the checkpoint: %v", err)
				}
				if prs := h.gh.PullRequests(); len(prs) != 1 || !prs[0].Draft {
					t.Errorf("pull requests = %+v; want the one draft", prs)
				}
			}
			for _, ref := range strings.Fields(h.git(t, h.bare, "for-each-ref", "--format=%(refname)")) {
				if strings.Contains(h.git(t, h.bare, "log", "-p", ref), h.gh.Token) {
					t.Errorf("the token reached the remote on %s", ref)
				}
			}
			comments := h.workerComments(n)
			if len(comments) != 1 {
				t.Fatalf("worker comments = %v; want the failure comment", comments)
			}
			for _, want := range tt.comment {
				if !strings.Contains(comments[0].Body, want) {
					t.Errorf("failure comment lacks %q:\n%s", want, comments[0].Body)
				}
			}
			if strings.Contains(comments[0].Body, h.gh.Token) {
				t.Errorf("the failure comment holds the token")
			}
		})
	}
}

// TestFlowAgentEnvironmentIsAllowList: the agent gets what it needs of
// the worker's environment and what the configuration adds, never the
// queue's URL or another variable of baton's.
func TestFlowAgentEnvironmentIsAllowList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.addIssue("Add export", "body")
	opts := h.options(t, "log,pr", "log")
	opts.Environ = append(slices.Clone(opts.Environ),
		"BATON_QUEUE_URL=postgres://baton:s3cret@db.example/queue",
		"BATON_SLACK_TOKEN=xoxb-not-for-the-agent",
		"AWS_SECRET_ACCESS_KEY=not-for-the-agent",
		"LC_ALL=C.UTF-8",
		"ANTHROPIC_API_KEY=sk-ant-for-the-agent",
		"COMPANY_VAR=passed",
		"BATON_OTHER=never")
	opts.Config.Worker.Agent.PassEnv = []string{"COMPANY_VAR", "BATON_OTHER"}
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateDone {
		t.Fatalf("run = %s %s (errors %v); want done", rec.State, rec.Category, rec.Errors)
	}
	inv := readInvocations(t, h.agentLog())
	if len(inv) != 1 {
		t.Fatalf("agent ran %d times; want 1", len(inv))
	}
	got := map[string]string{}
	for _, kv := range inv[0].Env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	for _, name := range []string{"PATH", "HOME", "GH_TOKEN", "GITHUB_API_URL", "GIT_CONFIG_GLOBAL", "LC_ALL", "ANTHROPIC_API_KEY", "COMPANY_VAR", "BATON_TEST_FIRST", "BATON_WORKER_RUN"} {
		if _, ok := got[name]; !ok {
			t.Errorf("agent environment lacks %s", name)
		}
	}
	for _, name := range []string{"BATON_QUEUE_URL", "BATON_SLACK_TOKEN", "AWS_SECRET_ACCESS_KEY", "BATON_OTHER"} {
		if v, ok := got[name]; ok {
			t.Errorf("agent environment has %s=%s; want it left out", name, v)
		}
	}
}

// TestFlowUnsettledRunIsRetried: GitHub refuses the done label (a rate
// limit longer than the worker waits): the claim stays, the attempt fails,
// and the job's next attempt sets the labels and deletes the claim without
// running the agent again.
func TestFlowUnsettledRunIsRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,pr,result=opened", "log")
	// One wait of the 5 s the limit asks for, not two.
	opts.RateLimitWait = 6 * time.Second
	// The claim's label goes through; the done label meets the limit
	// twice in the first attempt, once in the second.
	h.gh.Fail(githubtest.RouteAddLabels, 3, githubtest.SecondaryRateLimit(5*time.Second).After(1))
	res := cycle(t, newWorker(t, opts))
	if got := len(readInvocations(t, h.agentLog())); got != 1 {
		t.Errorf("agent ran %d times; want once", got)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	if left := h.claimComments(n); len(left) != 0 {
		t.Errorf("claim comments left: %v", left)
	}
	if got := h.claimPosts()[n]; got != 1 {
		t.Errorf("claims posted = %d; want 1", got)
	}
	if prs := h.gh.PullRequests(); len(prs) != 1 {
		t.Errorf("pull requests = %+v; want 1", prs)
	}
	if c := h.workerComments(n); len(c) != 1 || !strings.Contains(c[0].Body, "pull request opened") {
		t.Errorf("worker comments = %v; want the success comment once", c)
	}
	if len(res.Runs) != 1 || len(res.Recovered) != 1 || !res.Recovered[0].settled() {
		t.Errorf("runs %d, recovered %+v; want the run, then its settling by the next attempt", len(res.Runs), res.Recovered)
	}
}

// TestFlowRateLimitedPullRequestLookup: GitHub's rate limits, in each of
// the forms it answers them, hold back the lookup of the agent's pull
// request for a few seconds; the run waits them out and is done with the
// agent's own pull request.
func TestFlowRateLimitedPullRequestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func() githubtest.Fault
	}{
		{"secondary limit, 403 Retry-After", func() githubtest.Fault { return githubtest.SecondaryRateLimit(2 * time.Second) }},
		{"429 Retry-After", func() githubtest.Fault { return githubtest.TooManyRequests(2 * time.Second) }},
		{"primary limit used up", func() githubtest.Fault { return githubtest.RateLimited(time.Now().Add(3 * time.Second)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			n := h.addIssue("Add export", "body")
			opts := h.options(t, "log,pr,result=opened", "log")
			opts.Config.Worker.Execution.MinResumeMinutes = 240 // no resume to hide a lookup given up
			h.gh.Fail(githubtest.RouteGraphQL, 2, tt.fault())
			h.gh.Fail(githubtest.RouteListPulls, 2, tt.fault())
			rec := onlyRun(t, cycle(t, newWorker(t, opts)))
			if rec.State != StateDone || rec.PullRequest == nil || rec.PullRequest.Fallback {
				t.Errorf("run = %s %s, pr %+v (errors %v); want done with the agent's pull request", rec.State, rec.Category, rec.PullRequest, rec.Errors)
			}
			h.wantLabels(t, n, doneLabels, append([]string{config.DefaultWorkerFailed}, activeLabels...))
			if prs := h.gh.PullRequests(); len(prs) != 1 {
				t.Errorf("pull requests = %+v; want the agent's alone", prs)
			}
		})
	}
}

func TestFlowClaimContest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		until   time.Time
		author  string
		wantRun bool
	}{
		{"live claim of another host wins", time.Now().Add(time.Hour), githubtest.DefaultLogin, true},
		{"lapsed claim is ignored", time.Now().Add(-time.Hour), githubtest.DefaultLogin, false},
		{"claim imitated by another account is ignored", time.Now().Add(time.Hour), "mallory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			n := h.addIssue("Add export", "body")
			other := h.gh.AddComment(githubtest.Comment{Issue: n, Author: tt.author, Body: claimComment("en", "20260101T000000Z-0ther000", "other-host", tt.until)})
			// The other host's claim came first; this worker reads the
			// issue before the other host's labels arrive.
			res := cycle(t, newWorker(t, h.options(t, "log,pr", "log")))
			lost := tt.wantRun
			if lost {
				if len(res.Runs) != 0 || !slices.Contains(res.Skipped, Skip{Repo: "acme/widgets", Issue: n, Reason: SkipClaimLost}) {
					t.Fatalf("runs %d, skipped %v; want the claim lost", len(res.Runs), res.Skipped)
				}
				comments := h.workerComments(n)
				if len(comments) != 1 || comments[0].ID != other {
					t.Errorf("claim comments = %v; want only the winner's (the loser deletes its own)", comments)
				}
				if inv := readInvocations(t, h.agentLog()); len(inv) != 0 {
					t.Errorf("the loser ran the agent")
				}
				recs, _ := newWorker(t, h.options(t, "", "")).Store().List()
				if len(recs) != 0 {
					t.Errorf("the loser kept %d run records; want none", len(recs))
				}
				return
			}
			if rec := onlyRun(t, res); rec.State != StateDone {
				t.Errorf("state = %s; want done over a claim that does not count", rec.State)
			}
		})
	}
}

func TestFlowTwoHostsOneIssue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		runs []*Record
	)
	for host := range 2 {
		opts := h.options(t, "log,pr", "log")
		opts.DataDir = filepath.Join(t.TempDir(), "host"+strconv.Itoa(host)) // separate machines
		opts.Host = "host-" + strconv.Itoa(host)
		w := newWorker(t, opts)
		wg.Go(func() {
			res, err := w.Cycle(t.Context(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			runs = append(runs, res.Runs...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(runs) != 1 {
		t.Fatalf("the issue was run %d times; want exactly once", len(runs))
	}
	if inv := readInvocations(t, h.agentLog()); len(inv) != 1 {
		t.Errorf("agent ran %d times; want once", len(inv))
	}
	if c := h.claimComments(n); len(c) != 0 {
		t.Errorf("claim comments left: %v", c)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
}

func TestFlowGitHubFaults(t *testing.T) {
	t.Parallel()
	t.Run("transient faults are retried", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		n := h.addIssue("Add export", "body")
		h.gh.Fail(githubtest.RouteAddLabels, 2, githubtest.ServerError(502))
		h.gh.Fail(githubtest.RouteRemoveLabel, 1, githubtest.ServerError(503))
		// A comment is not re-sent by the client on a 5xx (it may exist);
		// the worker checks, then posts it again.
		h.gh.Fail(githubtest.RouteCreateComment, 1, githubtest.ServerError(502).After(1))
		rec := onlyRun(t, cycle(t, newWorker(t, h.options(t, "log,exit=1", "log"))))
		if rec.LabelsPending || rec.CommentPending != "" {
			t.Errorf("record pending: labels %v, comment %v; want everything through", rec.LabelsPending, rec.CommentPending != "")
		}
		h.wantLabels(t, n, failedLabels, activeLabels)
		if c := h.workerComments(n); len(c) != 1 {
			t.Errorf("worker comments = %d; want exactly one failure comment", len(c))
		}
	})
	t.Run("lasting faults are recorded, then repaired by the next worker", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		n := h.addIssue("Add export", "body")
		// The claim's label and comment go through; everything after fails.
		h.gh.Fail(githubtest.RouteAddLabels, -1, githubtest.ServerError(502).After(1))
		h.gh.Fail(githubtest.RouteCreateComment, -1, githubtest.ServerError(502).After(1))
		h.gh.Fail(githubtest.RouteDeleteComment, -1, githubtest.ServerError(500))
		opts := h.options(t, "log,exit=1", "log")
		rec := onlyRun(t, cycle(t, newWorker(t, opts)))
		if !rec.LabelsPending || rec.CommentPending == "" || rec.ClaimCommentID == 0 {
			t.Fatalf("record pending: labels %v, comment %v, claim %d; want all three pending", rec.LabelsPending, rec.CommentPending != "", rec.ClaimCommentID)
		}
		joined := strings.Join(rec.Errors, "\n")
		for _, want := range []string{"add label " + config.DefaultWorkerFailed, "comment", "502"} {
			if !strings.Contains(joined, want) {
				t.Errorf("record errors %q do not mention %q", joined, want)
			}
		}
		h.wantLabels(t, n, []string{config.DefaultWorkerInProgress}, nil)
		// The claim stays while the labels are not set: without it the
		// issue would be put back and run again.
		if c := h.gh.Calls(githubtest.RouteDeleteComment); c != 0 || len(h.claimComments(n)) != 1 {
			t.Errorf("claim deletions tried %d, claims left %v; want the claim kept", c, h.claimComments(n))
		}

		h.gh.ClearFaults()
		recovered, err := newWorker(t, opts).Recover(t.Context())
		if err != nil || len(recovered) != 1 {
			t.Fatalf("Recover = %d records, %v; want 1", len(recovered), err)
		}
		h.wantLabels(t, n, failedLabels, activeLabels)
		comments := h.workerComments(n)
		if len(comments) != 1 || !strings.Contains(comments[0].Body, string(CLINonZeroExit)) {
			t.Errorf("comments after recovery = %v; want the failure comment alone", comments)
		}
		recs, _ := newWorker(t, opts).Store().List()
		if r := recs[0]; r.LabelsPending || r.CommentPending != "" || r.ClaimCommentID != 0 {
			t.Errorf("record after recovery still pending: %+v", r)
		}
	})
}

func TestFlowOrphanPutBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Labelled in progress by a host whose job is gone from the queue,
	// and whose claim lapsed.
	n := h.gh.AddIssue(githubtest.Issue{Title: "orphan", Labels: []string{config.DefaultWorkerInProgress}, AuthorAssociation: "OWNER"})
	h.gh.AddComment(githubtest.Comment{Issue: n, Body: claimComment("en", "run-dead", "dead-host", time.Now().Add(-time.Minute)), Author: h.gh.Login})
	opts := h.options(t, "log,pr", "log")
	w := newWorker(t, opts)
	// A record of this machine's earlier process, dead now.
	if err := w.Store().Save(&Record{ID: "run-dead", Repo: "acme/widgets", Issue: n, Host: opts.Host, PID: 1 << 30, State: StateRunning, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	res := cycle(t, w)
	if len(res.Recovered) != 1 || res.Recovered[0].State != StateInterrupted {
		t.Errorf("recovered = %+v; want the dead process's record marked interrupted", res.Recovered)
	}
	if rec := onlyRun(t, res); rec.Issue != n || rec.State != StateDone {
		t.Fatalf("run = #%d %s; want the orphan put back and run", rec.Issue, rec.State)
	}
	h.wantLabels(t, n, doneLabels, activeLabels)
	for _, c := range h.workerComments(n) {
		if _, _, ok := parseClaim(c.Body); ok {
			t.Errorf("claim comment left: %q", c.Body)
		}
	}
}

func TestFlowInterruptPutsIssueBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,sleep", "log")
	w := newWorker(t, opts)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan *CycleResult)
	go func() {
		res, _ := w.Cycle(ctx, nil)
		done <- res
	}()
	pids := waitPIDs(t, filepath.Join(h.home, "pids"), 2)
	cancel()
	res := <-done
	rec := onlyRun(t, res)
	if rec.State != StateInterrupted || !rec.WorktreeKept {
		t.Errorf("record = %s kept %v; want interrupted with the worktree kept", rec.State, rec.WorktreeKept)
	}
	h.wantLabels(t, n, []string{config.DefaultWorkerTrigger}, []string{config.DefaultWorkerInProgress, config.DefaultWorkerFailed})
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d of the agent's group survived", pid)
		}
	}
}

func TestAgentDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		actions string
	}{
		{"stops on SIGTERM", "sleep"},
		{"ignores SIGTERM, killed later", "ignoreterm,sleep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			started := time.Now()
			a := runAgent(t.Context(), agentSpec{
				Command:   testBinary(t),
				Env:       append(os.Environ(), "BATON_TEST_AGENT=1", "BATON_TEST_FIRST="+tt.actions, "BATON_TEST_PIDS="+pidFile),
				Deadline:  started.Add(500 * time.Millisecond),
				KillDelay: 300 * time.Millisecond,
				Now:       time.Now,
			})
			if !a.TimedOut || a.PID == 0 {
				t.Fatalf("attempt = %+v; want timed out", a)
			}
			if got := classify(&a).category; got != CLITimeout {
				t.Errorf("category = %s; want %s", got, CLITimeout)
			}
			// The group was sent SIGKILL; its members take a moment to go.
			// One that ignored the kill would stay and fail the wait.
			waitFor(t, "the agent's process group to exit", func() bool { return len(groupMembers(a.PID)) == 0 })
			b, _ := os.ReadFile(pidFile)
			for _, f := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(f)
				waitFor(t, "process "+f+" to exit", func() bool { return !alive(pid) })
			}
		})
	}
}

// shellAgent writes a shell script that stands in for the agent (its
// arguments are ignored) and returns its path.
func shellAgent(t testing.TB, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitPIDs polls path until it lists n process ids.
func waitPIDs(t testing.TB, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) >= n {
			var pids []int
			for _, s := range f {
				p, _ := strconv.Atoi(s)
				pids = append(pids, p)
			}
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never listed %d processes", path, n)
	return nil
}

// groupMembers returns the live (not zombie) processes of process group
// pgid, from /proc.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:]) // state ppid pgrp …
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie waiting for its parent to reap
// it counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestFlowPriorityAndLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	plain := h.addIssue("plain", "body")
	low := h.addIssue("low", "body", "p/low")
	high := h.addIssue("high", "body", "p/high")
	opts := h.options(t, "log,pr", "log")
	opts.Config.Worker.Repositories[0].PriorityLabels = []string{"p/high", "p/low"}
	opts.Config.Worker.Execution.MaxIssuesPerRepo = 2
	res := cycle(t, newWorker(t, opts))
	var got []int
	for _, r := range res.Runs {
		got = append(got, r.Issue)
	}
	if !slices.Equal(got, []int{high, plain}) {
		t.Errorf("runs = %v; want [%d %d]: high priority first, then unlabelled, at most 2", got, high, plain)
	}
	h.wantLabels(t, low, []string{config.DefaultWorkerTrigger}, []string{config.DefaultWorkerInProgress})
	names := map[string]bool{}
	for _, l := range h.gh.Labels() {
		names[l.Name] = true
	}
	if !names[config.DefaultWorkerInProgress] || !names[config.DefaultWorkerDone] {
		t.Errorf("repository labels = %v; want the worker's labels created", names)
	}
}

func TestFlowOldPullRequestDoesNotCount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export again", "It broke after the first fix.")
	h.gh.AddPullRequest(githubtest.PullRequest{Title: "First fix", Body: "Closes #" + strconv.Itoa(n), Head: "old-fix", State: "closed", Merged: true})
	opts := h.options(t, "log,result=done", "log")
	opts.Config.Worker.Execution.MinResumeMinutes = 240
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != NoLinkedPR {
		t.Errorf("outcome = %s %s, pr %+v; want failed %s: the merged pull request predates the run", rec.State, rec.Category, rec.PullRequest, NoLinkedPR)
	}
}

func TestFlowPersonsPullRequestDoesNotCount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	// A person's open pull request that closes the issue, from a branch of
	// their own: not this run's work.
	h.gh.AddPullRequest(githubtest.PullRequest{Title: "My fix", Body: "Closes #" + strconv.Itoa(n), Head: "alice/fix", Author: "alice"})
	opts := h.options(t, "log,result=done", "log")
	opts.Config.Worker.Execution.MinResumeMinutes = 240
	rec := onlyRun(t, cycle(t, newWorker(t, opts)))
	if rec.State != StateFailed || rec.Category != NoLinkedPR {
		t.Errorf("outcome = %s %s, pr %+v; want failed %s: the open pull request is a person's", rec.State, rec.Category, rec.PullRequest, NoLinkedPR)
	}
	h.wantLabels(t, n, failedLabels, activeLabels)
}

// TestFlowOnlyOwnPullRequestCounts adds a pull request from the run's
// branch name while the agent runs, as anyone can once the branch name is
// known: only an open or merged one, from the configured repository, opened
// by the worker's own login, makes the run done.
func TestFlowOnlyOwnPullRequestCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pr   githubtest.PullRequest
		want string
	}{
		{"own open", githubtest.PullRequest{}, StateDone},
		{"own merged", githubtest.PullRequest{State: "closed", Merged: true}, StateDone},
		{"stranger's fork", githubtest.PullRequest{HeadOwner: "mallory", Author: "mallory"}, StateFailed},
		{"fork by the worker's login", githubtest.PullRequest{HeadOwner: "mallory"}, StateFailed},
		{"another author in the repository", githubtest.PullRequest{Author: "alice"}, StateFailed},
		{"own closed", githubtest.PullRequest{State: "closed"}, StateFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			n := h.addIssue("Add export", "body")
			pids := filepath.Join(h.home, "pids")
			goOn := filepath.Join(h.home, "go-on")
			opts := h.options(t, "log,pid,wait="+goOn+",result=done", "log")
			opts.Config.Worker.Execution.MinResumeMinutes = 240
			go func() {
				defer os.WriteFile(goOn, nil, 0o600)
				waitPIDs(t, pids, 1)
				inv := readInvocations(t, h.agentLog())
				pr := tt.pr
				pr.Title, pr.Head, pr.Closes = "Fix", "baton/"+filepath.Base(inv[0].Dir), []int{n}
				h.gh.AddPullRequest(pr)
			}()
			rec := onlyRun(t, cycle(t, newWorker(t, opts)))
			if rec.State != tt.want {
				t.Errorf("run = %s %s, pr %+v; want %s", rec.State, rec.Category, rec.PullRequest, tt.want)
			}
			if tt.want == StateFailed {
				if rec.Category != NoLinkedPR || rec.PullRequest != nil {
					t.Errorf("failed run = %s, pr %+v; want %s and no pull request", rec.Category, rec.PullRequest, NoLinkedPR)
				}
				h.wantLabels(t, n, failedLabels, append([]string{config.DefaultWorkerDone}, activeLabels...))
			}
		})
	}
}

// TestFlowJobTimeoutUsesUpAttempts runs an agent that outlives the job's
// time limit (the run's own deadline never fires): each timeout is a failed
// attempt of the job on the real queue, and after the last the issue is
// labelled failed with a comment saying why, and not run again.
func TestFlowJobTimeoutUsesUpAttempts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,wait="+filepath.Join(h.home, "never"), "log")
	// A job lasts 65 minutes of 50 ms: long enough for a rescue attempt
	// to reach its agent on a loaded machine.
	opts.Minute = 50 * time.Millisecond
	opts.AfterFunc = func(time.Duration, func()) func() bool { return func() bool { return true } }
	// Today's loop never ends: bound it, so the test fails rather than hangs.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := newWorker(t, opts).Cycle(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := len(readInvocations(t, h.agentLog())); got != issueAttempts {
		t.Errorf("agent ran %d times; want %d, once per attempt", got, issueAttempts)
	}
	h.wantLabels(t, n, failedLabels, append([]string{config.DefaultWorkerDone}, activeLabels...))
	comments := h.workerComments(n)
	if len(comments) == 0 || !strings.Contains(comments[len(comments)-1].Body, string(JobTimeout)) {
		t.Errorf("worker comments = %+v; want the last to name %s", comments, JobTimeout)
	}
	res := cycle(t, newWorker(t, opts))
	if len(res.Runs) != 0 || len(readInvocations(t, h.agentLog())) != issueAttempts {
		t.Errorf("next cycle ran %+v; want nothing until a person relabels the issue", res.Runs)
	}
}

func TestFlowDeadlineAfterStopPutsBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,sleep", "log")
	stop := make(chan struct{})
	// The deadline comes once the worker was told to stop and the agent
	// runs.
	opts.AfterFunc = func(_ time.Duration, f func()) func() bool {
		go func() {
			waitPIDs(t, filepath.Join(h.home, "pids"), 2)
			close(stop)
			f()
		}()
		return func() bool { return true }
	}
	opts.KillDelay = time.Second
	res, err := newWorker(t, opts).Cycle(t.Context(), stop)
	if err != nil {
		t.Fatal(err)
	}
	rec := onlyRun(t, res)
	if rec.State != StateInterrupted || rec.Category != "" {
		t.Errorf("run = %s %s; want interrupted, not failed by the deadline that followed the stop", rec.State, rec.Category)
	}
	h.wantLabels(t, n, []string{config.DefaultWorkerTrigger}, []string{config.DefaultWorkerInProgress, config.DefaultWorkerFailed})
	if c := h.workerComments(n); len(c) != 0 {
		t.Errorf("comments = %v; want none: nothing failed", c)
	}
}

func TestFlowClosedMeanwhileIsCancelled(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	opts := h.options(t, "log,pr", "log")
	w := newWorker(t, opts)
	q, done, err := w.queue(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	// The job was enqueued; then a person closed the issue.
	client, err := q.newClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Insert(t.Context(), IssueArgs{Repo: "acme/widgets", Issue: n}, issueInsertOpts()); err != nil {
		t.Fatal(err)
	}
	h.gh.SetIssueState(n, "closed")
	opts.Queue = q
	res := cycle(t, newWorker(t, opts))
	if len(res.Runs) != 0 || !slices.Contains(res.Skipped, Skip{Repo: "acme/widgets", Issue: n, Reason: SkipClosed}) {
		t.Errorf("runs %d, skipped %v; want the job cancelled as closed", len(res.Runs), res.Skipped)
	}
	if c := h.gh.Comments(n); len(c) != 0 {
		t.Errorf("comments = %v; want nothing posted", c)
	}
	st, err := q.Status(t.Context(), 10)
	if err != nil || st.Counts["cancelled"][""]+st.Counts["cancelled"]["test-host"] != 1 {
		t.Errorf("queue = %+v, %v; want the job cancelled", st, err)
	}
}

// A cycle whose queue fails before any issue is looked at says why among
// its errors, as one whose queue cannot be opened does: `baton worker once`
// prints those.
func TestCycleQueueFailureIsReported(t *testing.T) {
	h := newHarness(t)
	h.addIssue("Add export", "body")
	opts := h.options(t, "log,pr", "log")
	q, err := OpenQueueReady(t.Context(), "", t.TempDir(), "en")
	if err != nil {
		t.Fatal(err)
	}
	q.Close() // the queue's database is gone when the cycle starts
	opts.Queue = q
	res, err := newWorker(t, opts).Cycle(t.Context(), nil)
	if err == nil {
		t.Fatal("Cycle on a closed queue: no error")
	}
	if !slices.Contains(res.Errors, err.Error()) {
		t.Errorf("cycle errors %q; want the failure %q among them", res.Errors, err)
	}
}

// TestFlowAppInstallationToken runs with a GitHub App installation token,
// which cannot ask GitHub for its user: with worker.github.app_slug the
// worker is the app's bot, claims the issue and counts the agent's pull
// request (opened with that token) as its own; without it, the claim says
// which setting is missing and the issue is not taken.
func TestFlowAppInstallationToken(t *testing.T) {
	t.Parallel()
	t.Run("app slug", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.gh.Login = "baton-app[bot]"
		n := h.addIssue("Add export", "body")
		opts := h.options(t, "log,pr,result=opened", "log")
		opts.Config.Worker.GitHub.AppSlug = "baton-app"
		rec := onlyRun(t, cycle(t, newWorker(t, opts)))
		if rec.State != StateDone || rec.PullRequest == nil || rec.PullRequest.Fallback {
			t.Fatalf("run = %s %s %v, pr %+v; want done with the agent's pull request", rec.State, rec.Category, rec.Errors, rec.PullRequest)
		}
		h.wantLabels(t, n, doneLabels, activeLabels)
		got := h.workerComments(n)
		if len(got) != 1 || got[0].Author != "baton-app[bot]" || !strings.Contains(got[0].Body, rec.PullRequest.URL) {
			t.Errorf("worker comments = %+v; want the bot's success comment alone (its claim deleted)", got)
		}
	})
	t.Run("no app slug", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.gh.Login = "baton-app[bot]"
		n := h.addIssue("Add export", "body")
		w := newWorker(t, h.options(t, "log,pr,result=opened", "log"))
		res, err := w.Cycle(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != 0 || len(h.gh.PullRequests()) != 0 {
			t.Errorf("runs = %v, pull requests %v; want none: the claim cannot know the worker's identity", res.Runs, h.gh.PullRequests())
		}
		recs, _ := w.Store().List()
		if len(recs) != 1 || !strings.Contains(strings.Join(recs[0].Errors, "\n"), "worker.github.app_slug") {
			t.Errorf("records = %+v; want one whose error names worker.github.app_slug", recs)
		}
		h.wantLabels(t, n, []string{config.DefaultWorkerTrigger}, []string{config.DefaultWorkerInProgress})
	})
}

// TestFlowClaimRevealsNoBranch: the public claim comment, and the time it
// was posted, say nothing that leads to the run's branch before it is
// pushed: not the run id, not the branch, not its random part.
func TestFlowClaimRevealsNoBranch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	rec := onlyRun(t, cycle(t, newWorker(t, h.options(t, "log,pr,result=opened", "log"))))
	if rec.State != StateDone {
		t.Fatalf("run = %s %s; want done", rec.State, rec.Category)
	}
	var claims []string
	for _, r := range h.gh.Requests() {
		if r.Route == githubtest.RouteCreateComment && strings.Contains(string(r.Body), "baton:claim") {
			claims = append(claims, string(r.Body))
		}
	}
	if len(claims) != 1 || strings.Contains(claims[0], "REDACTED") {
		t.Fatalf("claim posts = %q; want 1, its key intact", claims)
	}
	// The branch is baton/<issue>-<start time>-<random>: the time can be
	// guessed from the claim's own time, the random part must not be in it.
	m := regexp.MustCompile(`^baton/` + strconv.Itoa(n) + `-\d{8}T\d{6}Z-([0-9a-f]{8,})$`).FindStringSubmatch(rec.Branch)
	if m == nil {
		t.Fatalf("branch = %q; want baton/%d-<time>-<random hex>", rec.Branch, n)
	}
	for _, secret := range []string{rec.ID, rec.Branch, m[1], strings.TrimPrefix(rec.Branch, "baton/")} {
		if strings.Contains(claims[0], secret) {
			t.Errorf("claim comment %q reveals %q", claims[0], secret)
		}
	}
}

// TestFlowOnceWaitsOnlyForItsOwnJobs runs a one-shot cycle on a Postgres
// queue that also holds another host's job, not due for an hour: the cycle
// ends once its own issue is done, without waiting for that job.
func TestFlowOnceWaitsOnlyForItsOwnJobs(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	migrateQueue(t, url)
	q, err := OpenQueue(t.Context(), url, t.TempDir(), i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	other, err := q.newClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := issueInsertOpts()
	opts.ScheduledAt = time.Now().Add(time.Hour)
	if _, err := other.Insert(t.Context(), IssueArgs{Repo: "acme/other", Issue: 7}, opts); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	n := h.addIssue("Add export", "body")
	wo := h.options(t, "log,pr,result=opened", "log")
	wo.Queue = q
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := newWorker(t, wo).Cycle(ctx, nil)
	if err != nil {
		t.Fatalf("Cycle: %v (runs %s); want it to end once its own issue is done, not wait for another host's job", err, describeRuns(res.Runs))
	}
	if rec := onlyRun(t, res); rec.State != StateDone || rec.Issue != n {
		t.Errorf("run = #%d %s; want #%d done", rec.Issue, rec.State, n)
	}
}
