// Package worker turns labelled issues into pull requests. For each
// configured repository it takes the open issues that carry the trigger
// label and were written by a trusted author, claims one (a lock file on this
// machine, then labels and a claim comment on GitHub, where the lowest claim
// wins), makes a fresh git worktree from the default branch, and runs the
// agent CLI there with a prompt made from a template, under a wall-clock
// budget fixed before the first run. When the agent ends without a pull
// request linked to the issue, the session is resumed once with the time
// left; when there is still none but the branch has commits, baton pushes
// them and opens a draft pull request itself. The issue ends labelled done or
// failed, a failure is explained in a comment, and every run leaves a record
// for `baton worker status`.
//
// The package owns the worker's data folder
// (${XDG_DATA_HOME:-~/.local/share}/baton/worker: runs/, locks/,
// worktrees/). It does not know the process: environment, clock, paths and the
// GitHub client come in through Options.
package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// Options is everything a Worker needs from outside.
type Options struct {
	// Config holds the worker section and the agent command.
	Config *config.Config
	// Lang is the language of prompts and comments.
	Lang i18n.Lang
	// DataDir is the worker's data folder
	// (${XDG_DATA_HOME:-~/.local/share}/baton/worker).
	DataDir string
	// PromptDir holds the user's prompt templates
	// (${XDG_CONFIG_HOME:-~/.config}/baton/prompts).
	PromptDir string
	// Home is the user's home folder: ~/ in paths, and removed from what
	// is posted.
	Home string
	// Environ is the environment of git and the agent.
	Environ []string
	// Host names this machine in claim comments and records.
	Host string
	// PID is the worker's process id, for records.
	PID int
	// Client returns the GitHub client of a repository.
	Client func(ctx context.Context, repo config.WorkerRepo) (*github.Client, error)
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger gets one line per step; nil: discard.
	Logger *slog.Logger

	// Minute is the length of a configured minute (default time.Minute);
	// tests shorten it to exercise deadlines.
	Minute time.Duration
	// KillDelay is the time between SIGTERM and SIGKILL at the deadline
	// (default 5s).
	KillDelay time.Duration
	// RecheckDelay is the wait before asking GitHub a second time for
	// the linked pull request (default 5s).
	RecheckDelay time.Duration
	// RetryDelay is the first wait before retrying a GitHub write that
	// failed after the client's own retries (default 2s, doubling).
	RetryDelay time.Duration
}

// Worker runs issues to pull requests. Its methods are safe for concurrent
// use.
type Worker struct {
	opts  Options
	store Store
	git   gitRunner
	clean cleaner
	log   *slog.Logger
}

// New returns a Worker.
func New(opts Options) (*Worker, error) {
	if opts.Config == nil {
		return nil, errors.New("worker: no configuration")
	}
	if opts.DataDir == "" {
		return nil, errors.New("worker: no data folder")
	}
	if opts.Client == nil {
		return nil, errors.New("worker: no GitHub client")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Minute <= 0 {
		opts.Minute = time.Minute
	}
	if opts.KillDelay <= 0 {
		opts.KillDelay = 5 * time.Second
	}
	if opts.RecheckDelay <= 0 {
		opts.RecheckDelay = 5 * time.Second
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 2 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{
		opts:  opts,
		store: Store{Dir: opts.DataDir},
		git:   gitRunner{env: opts.Environ},
		clean: cleaner{home: opts.Home},
		log:   log,
	}, nil
}

// Store returns the worker's run records.
func (w *Worker) Store() Store { return w.store }

// CycleResult is what one cycle did.
type CycleResult struct {
	// Runs are the issues run in this cycle.
	Runs []*Record `json:"runs"`
	// Recovered are earlier runs whose issues were put back in order.
	Recovered []*Record `json:"recovered,omitempty"`
	// Skipped are issues with the trigger label that were not run.
	Skipped []Skip `json:"skipped,omitempty"`
	// Errors are repositories that could not be worked on.
	Errors []string `json:"errors,omitempty"`
}

// Cycle first puts back the issues of runs that died, then takes the
// eligible issues of every repository: repositories in parallel up to
// max_parallel, the issues of one repository one after another, at most
// max_issues_per_repo each. Once stop is closed no issue is claimed any
// more; cancelling ctx stops the runs in progress and puts their issues back
// to the trigger label.
func (w *Worker) Cycle(ctx context.Context, stop <-chan struct{}) (*CycleResult, error) {
	res := &CycleResult{}
	recovered, err := w.Recover(ctx)
	res.Recovered = recovered
	if err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, w.opts.Config.Worker.Execution.MaxParallelRuns())
	)
	for _, repo := range w.opts.Config.Worker.Repositories {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			case <-stop:
				return
			}
			defer func() { <-sem }()
			runs, skipped, err := w.cycleRepo(ctx, stop, repo)
			mu.Lock()
			defer mu.Unlock()
			res.Runs = append(res.Runs, runs...)
			res.Skipped = append(res.Skipped, skipped...)
			if err != nil {
				res.Errors = append(res.Errors, repo.Repo+": "+w.clean.clean(err.Error()))
			}
		})
	}
	wg.Wait()
	if err := w.store.Prune(); err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	return res, ctx.Err()
}

// Run runs a cycle every interval_minutes until stop is closed, then
// returns once the runs in progress have ended. Cancelling ctx stops them
// at once.
func (w *Worker) Run(ctx context.Context, stop <-chan struct{}, report func(*CycleResult)) error {
	interval := time.Duration(w.opts.Config.Worker.Execution.Interval()) * w.opts.Minute
	for {
		res, err := w.Cycle(ctx, stop)
		if report != nil {
			report(res)
		}
		if err != nil {
			return err
		}
		t := time.NewTimer(interval)
		select {
		case <-stop:
			t.Stop()
			return nil
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// cycleRepo runs the eligible issues of one repository.
func (w *Worker) cycleRepo(ctx context.Context, stop <-chan struct{}, repo config.WorkerRepo) ([]*Record, []Skip, error) {
	client, err := w.opts.Client(ctx, repo)
	if err != nil {
		return nil, nil, fmt.Errorf("github client: %w", err)
	}
	labels := repo.LabelSet()
	issues, err := client.ListIssues(ctx, tracker.ListOptions{State: tracker.StateOpen, Labels: []string{labels.Trigger}})
	if err != nil {
		return nil, nil, err
	}
	var (
		candidates []*tracker.Issue
		skipped    []Skip
	)
	for _, is := range issues {
		if why := eligibility(is, labels); why != "" {
			skipped = append(skipped, Skip{Repo: repo.Repo, Issue: is.Number, Reason: why})
			w.log.Info("skip issue", "repo", repo.Repo, "issue", is.Number, "reason", why)
			continue
		}
		candidates = append(candidates, is)
	}
	order(candidates, repo.PriorityLabels)

	var runs []*Record
	limit := w.opts.Config.Worker.Execution.IssuesPerRepo()
	for _, is := range candidates {
		if len(runs) >= limit || stopped(stop) || ctx.Err() != nil {
			break
		}
		rec, why := w.runIssue(ctx, client, repo, is.Number)
		if rec == nil {
			skipped = append(skipped, Skip{Repo: repo.Repo, Issue: is.Number, Reason: why})
			continue
		}
		runs = append(runs, rec)
	}
	return runs, skipped, nil
}

// run is one issue's run in progress.
type run struct {
	w      *Worker
	client *github.Client
	repo   config.WorkerRepo
	labels config.WorkerLabels
	issue  *tracker.Issue
	rec    *Record
}

// save writes the run's record; a failure to write is logged, never fatal:
// the run itself matters more than its record.
func (r *run) save() {
	if err := r.w.store.Save(r.rec); err != nil {
		r.w.log.Error("save run record", "run", r.rec.ID, "err", err)
	}
}

// step records that the run reached step.
func (r *run) step(step string) {
	r.rec.Step = step
	r.save()
	r.w.log.Info("run step", "run", r.rec.ID, "repo", r.repo.Repo, "issue", r.rec.Issue, "step", step)
}

// problem records a failure met on the way.
func (r *run) problem(op string, err error) {
	msg := op + ": " + oneLine(lastChars(r.w.clean.clean(err.Error()), 500))
	r.rec.Errors = append(r.rec.Errors, msg)
	r.w.log.Warn("run problem", "run", r.rec.ID, "op", op, "err", msg)
}

// runIssue claims and runs one issue. It returns nil and the reason when the
// issue was not run.
func (w *Worker) runIssue(ctx context.Context, client *github.Client, repo config.WorkerRepo, number int) (*Record, string) {
	lock := flock.New(w.lockPath(repo.Repo, number))
	if err := os.MkdirAll(filepath.Dir(lock.Path()), 0o700); err != nil {
		w.log.Error("lock folder", "err", err)
		return nil, SkipLocked
	}
	ok, err := lock.TryLock()
	if err != nil || !ok {
		return nil, SkipLocked
	}
	defer lock.Unlock()

	// The list may be minutes old: read the issue again under the lock.
	is, err := client.Issue(ctx, number)
	if err != nil {
		w.log.Warn("read issue", "repo", repo.Repo, "issue", number, "err", tracker.Summary(err))
		return nil, SkipClaimFailed
	}
	labels := repo.LabelSet()
	if why := eligibility(is, labels); why != "" {
		return nil, why
	}

	now := w.opts.Now()
	r := &run{w: w, client: client, repo: repo, labels: labels, issue: is, rec: &Record{
		ID:             newRunID(now),
		Repo:           repo.Repo,
		Issue:          number,
		Title:          w.clean.clean(is.Title),
		URL:            is.URL,
		Host:           w.opts.Host,
		PID:            w.opts.PID,
		State:          StateRunning,
		StartedAt:      now,
		TimeoutMinutes: w.opts.Config.Worker.Execution.Timeout(),
	}}
	r.step("claim")
	if !r.claim(ctx) {
		return nil, SkipClaimLost
	}
	r.work(ctx)
	return r.rec, ""
}

// lockPath is the lock file of one issue of one repository on this machine.
func (w *Worker) lockPath(repo string, issue int) string {
	owner, name, _ := strings.Cut(repo, "/")
	return filepath.Join(w.opts.DataDir, "locks", strings.ToLower(owner), strings.ToLower(name), strconv.Itoa(issue)+".lock")
}

// newRunID returns a run id that sorts by time: UTC timestamp and random.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// claim takes the issue on GitHub: the in-progress label in place of the
// trigger, then a claim comment. Of all live claim comments the lowest id
// wins; a loser deletes its own and reports false. A claim that fails part
// way is undone.
func (r *run) claim(ctx context.Context) bool {
	n := r.rec.Issue
	if err := r.w.retry(ctx, func() error { return r.client.AddLabels(ctx, n, r.labels.InProgress) }); err != nil {
		r.problem("claim: add label "+r.labels.InProgress, err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	if err := r.w.retry(ctx, func() error { return r.client.RemoveLabel(ctx, n, r.labels.Trigger) }); err != nil {
		r.problem("claim: remove label "+r.labels.Trigger, err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	budget := time.Duration(r.rec.TimeoutMinutes)*r.w.opts.Minute + claimMargin
	until := r.rec.StartedAt.Add(budget)
	c, err := r.w.postComment(ctx, r.client, n, claimComment(r.w.opts.Lang, r.rec.ID, r.w.opts.Host, until), claimPrefix+r.rec.ID+" ")
	if err != nil {
		r.problem("claim: comment", err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	r.rec.ClaimCommentID = c.ID
	r.save()

	comments, err := r.client.Comments(ctx, n)
	if err != nil {
		r.problem("claim: read comments", err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	winner := c.ID
	now := r.w.opts.Now()
	for _, cm := range comments {
		if _, until, ok := parseClaim(cm.Body); ok && cm.ID < winner && (until.IsZero() || until.After(now)) {
			winner = cm.ID
		}
	}
	if winner != c.ID {
		r.w.log.Info("claim lost", "run", r.rec.ID, "issue", n, "winner comment", winner)
		if err := r.w.retry(ctx, func() error { return r.client.DeleteComment(ctx, c.ID) }); err != nil {
			r.w.log.Warn("delete lost claim", "run", r.rec.ID, "err", tracker.Summary(err))
		}
		// The winner holds the labels; this run never happened.
		if err := os.Remove(r.w.store.path(r.rec.ID)); err != nil {
			r.w.log.Warn("remove record of lost claim", "run", r.rec.ID, "err", err)
		}
		return false
	}
	return true
}

// claimMargin is added to a claim's lifetime past the run's budget: the
// steps before and after the agent (fetch, pull request, labels).
const claimMargin = 30 * time.Minute

// abandon puts the issue back to the trigger label after a claim that did
// not go through, and ends the record as interrupted.
func (r *run) abandon(ctx context.Context, why string) {
	r.rec.State = StateInterrupted
	r.rec.Summary = why
	r.rec.FinishedAt = r.w.opts.Now()
	r.rec.LabelsPending = true
	r.w.settle(ctx, r.client, r.rec)
	r.save()
}

// work runs the claimed issue to its end: worktree, prompt, agent, resume,
// pull request, labels, comment, clean-up.
func (r *run) work(ctx context.Context) {
	rec := r.rec
	x := r.w.opts.Config.Worker.Execution
	started := r.w.opts.Now()
	rec.Branch = "baton/" + strconv.Itoa(rec.Issue) + "-" + started.UTC().Format("20060102T150405Z")
	owner, name := r.repo.OwnerName()
	rec.Worktree = filepath.Join(r.w.opts.DataDir, "worktrees", owner, name, strconv.Itoa(rec.Issue)+"-"+started.UTC().Format("20060102T150405Z"))
	clone := r.w.expandHome(r.repo.Path)
	base := r.repo.Branch()

	r.step("worktree")
	if err := r.w.git.fetch(ctx, clone); err != nil {
		r.finish(ctx, outcome{category: GitFetch, err: err})
		return
	}
	if err := os.MkdirAll(filepath.Dir(rec.Worktree), 0o700); err != nil {
		r.finish(ctx, outcome{category: WorktreeCreation, err: err})
		return
	}
	if err := r.w.git.addWorktree(ctx, clone, rec.Worktree, rec.Branch, base); err != nil {
		rec.Worktree = ""
		r.finish(ctx, outcome{category: WorktreeCreation, err: err})
		return
	}

	r.step("prompt")
	data := promptData{Repo: rec.Repo, Issue: rec.Issue, Branch: rec.Branch, Title: r.issue.Title, Body: r.issue.Body}
	prompt, err := r.prompt(promptImpl, data)
	if err != nil {
		r.finish(ctx, outcome{category: PromptGeneration, err: err})
		return
	}
	resumePrompt, err := r.prompt(promptResume, data)
	if err != nil {
		r.finish(ctx, outcome{category: PromptGeneration, err: err})
		return
	}

	// The budget is fixed here, once, for the first run and the resume.
	rec.Deadline = r.w.opts.Now().Add(time.Duration(x.Timeout()) * r.w.opts.Minute)
	r.step("agent")
	first := r.agent(ctx, "first", prompt, false)
	if first.Interrupted {
		r.interrupted(ctx)
		return
	}
	if pr := r.findPR(ctx, first.PID != 0); pr != nil {
		r.finish(ctx, outcome{pr: pr})
		return
	}
	out := classify(&first)
	if out.category == "" {
		left := rec.Deadline.Sub(r.w.opts.Now())
		minimum := time.Duration(x.MinResume()) * r.w.opts.Minute
		if left >= minimum {
			r.step("resume")
			rec.Resumed = true
			second := r.agent(ctx, "resume", resumePrompt, true)
			if second.Interrupted {
				r.interrupted(ctx)
				return
			}
			if pr := r.findPR(ctx, second.PID != 0); pr != nil {
				r.finish(ctx, outcome{pr: pr})
				return
			}
			out = classify(&second)
			if out.category == "" && saysNoChange(&second) {
				out.category = NoChangeRequired
			}
		} else {
			rec.ResumeNote = fmt.Sprintf("not resumed: %s left, less than min_resume_minutes (%d)", left.Round(time.Second), x.MinResume())
		}
	}
	if out.category == "" {
		out.category = NoLinkedPR
	}
	if x.Fallback() {
		if pr := r.fallback(ctx); pr != nil {
			out.pr = pr
		}
	}
	r.finish(ctx, out)
}

// prompt renders one of the templates for the run.
func (r *run) prompt(name string, d promptData) (string, error) {
	tmpl, err := loadTemplate(r.w.opts.PromptDir, r.w.opts.Lang, name)
	if err != nil {
		return "", err
	}
	return renderPrompt(tmpl, d)
}

// agent runs the agent once and records the attempt.
func (r *run) agent(ctx context.Context, kind, prompt string, resume bool) Attempt {
	cfg := r.w.opts.Config
	args := []string{"-p"}
	if resume {
		args = append(args, "--continue")
	}
	args = append(args, "--output-format", "json")
	args = append(args, cfg.Worker.Agent.Args...)
	env := append([]string(nil), r.w.opts.Environ...)
	for _, k := range sortedKeys(cfg.Worker.Agent.Env) {
		env = append(env, k+"="+cfg.Worker.Agent.Env[k])
	}
	env = append(env, "BATON_WORKER_RUN="+r.rec.ID)
	idx := len(r.rec.Attempts)
	r.rec.Attempts = append(r.rec.Attempts, Attempt{Kind: kind, StartedAt: r.w.opts.Now(), ExitCode: -1})
	a := runAgent(ctx, agentSpec{
		Command:   r.w.expandHome(cfg.WorkerAgentCommand()),
		Args:      args,
		Dir:       r.rec.Worktree,
		Env:       env,
		Prompt:    prompt,
		Deadline:  r.rec.Deadline,
		KillDelay: r.w.opts.KillDelay,
		Now:       r.w.opts.Now,
		Started: func(pid int) {
			r.rec.Attempts[idx].PID = pid
			r.save()
		},
	})
	a.Kind = kind
	a.Stdout, a.Stderr = r.w.clean.clean(a.Stdout), r.w.clean.clean(a.Stderr)
	if a.Result != nil {
		a.Result.Result = lastChars(r.w.clean.clean(a.Result.Result), recordResult)
	}
	a.Error = r.w.clean.clean(a.Error)
	r.rec.Attempts[idx] = a
	r.save()
	return a
}

// outcome is how a run ends.
type outcome struct {
	pr       *PullRequestRef
	category Category
	detail   string
	err      error
}

// classify names what went wrong in an attempt, or "" when it ended
// normally. A JSON result saying is_error is an error whatever the exit
// status.
func classify(a *Attempt) outcome {
	switch {
	case a.TimedOut:
		return outcome{category: CLITimeout}
	case a.PID == 0:
		return outcome{category: CLIExecutionError, detail: a.Error}
	case a.Result != nil && a.Result.IsError:
		detail := a.Result.Subtype
		if a.Result.Result != "" {
			detail = lastChars(oneLine(a.Result.Result), 300)
		}
		return outcome{category: CLIResultError, detail: detail}
	case a.ExitCode < 0 || a.Error != "":
		return outcome{category: CLIExecutionError, detail: a.Error}
	case a.ExitCode != 0:
		return outcome{category: CLINonZeroExit, detail: "exit status " + strconv.Itoa(a.ExitCode)}
	}
	return outcome{}
}

// findPR looks for the pull request of the run: open or merged pull
// requests linked to the issue, or open pull requests from the run's branch.
// When there is none it waits RecheckDelay and asks once more, since GitHub
// links a new pull request to its issue with a delay.
func (r *run) findPR(ctx context.Context, ran bool) *PullRequestRef {
	if !ran {
		return nil
	}
	for try := range 2 {
		if try > 0 {
			t := time.NewTimer(r.w.opts.RecheckDelay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		linked, err := r.client.LinkedPullRequests(ctx, r.rec.Issue)
		if err != nil {
			r.problem("find linked pull requests", err)
		}
		for _, p := range linked {
			if p.State == "open" || p.State == "merged" {
				return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: p.Draft}
			}
		}
		own, err := r.client.PullRequestsForBranch(ctx, r.rec.Branch)
		if err != nil {
			r.problem("find pull requests of "+r.rec.Branch, err)
		}
		if len(own) > 0 {
			return &PullRequestRef{Number: own[0].Number, URL: own[0].URL, Draft: own[0].Draft}
		}
	}
	return nil
}

// fallback pushes the run's commits and opens a draft pull request from
// them, when the branch has any. The body is the agent's last answer,
// redacted.
func (r *run) fallback(ctx context.Context) *PullRequestRef {
	rec := r.rec
	if rec.Worktree == "" {
		return nil
	}
	ahead, err := r.w.git.commitsAhead(ctx, rec.Worktree, r.repo.Branch())
	if err != nil {
		r.problem("count commits", err)
		return nil
	}
	rec.CommitsAhead = ahead
	if ahead == 0 {
		return nil
	}
	r.step("pull-request")
	if err := r.w.git.push(ctx, rec.Worktree, rec.Branch); err != nil {
		r.problem("push "+rec.Branch, err)
		return nil
	}
	last := ""
	for _, a := range rec.Attempts {
		if a.Result != nil && a.Result.Result != "" {
			last = a.Result.Result
		}
	}
	lang := r.w.opts.Lang
	body := msgFallbackBody.Format(lang, rec.Issue, quote(neutralizeFences(lastChars(r.w.clean.clean(last), 20000))))
	p, err := r.client.CreatePullRequest(ctx, github.NewPullRequest{
		Title: msgFallbackTitle.Format(lang, r.issue.Title),
		Body:  body,
		Head:  rec.Branch,
		Base:  r.repo.Branch(),
		Draft: true,
	})
	if err != nil {
		r.problem("open draft pull request", err)
		// It may exist after all (an answer lost on the way).
		if own, lerr := r.client.PullRequestsForBranch(ctx, rec.Branch); lerr == nil && len(own) > 0 {
			return &PullRequestRef{Number: own[0].Number, URL: own[0].URL, Draft: own[0].Draft, Fallback: true}
		}
		return nil
	}
	return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: true, Fallback: true}
}

// quote makes text a Markdown block quote.
func quote(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return "> (none)"
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// interrupted ends a run the worker was told to stop: the issue goes back to
// the trigger label and the worktree stays, with whatever it holds.
func (r *run) interrupted(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	r.rec.State = StateInterrupted
	r.rec.Summary = "stopped by the worker's shutdown"
	r.rec.FinishedAt = r.w.opts.Now()
	r.rec.WorktreeKept = r.rec.Worktree != ""
	r.rec.LabelsPending = true
	r.step("finish")
	r.w.settle(ctx, r.client, r.rec)
	r.save()
}

// finish ends the run: the record's outcome, the failure comment or the
// draft note, labels, the claim comment gone, the worktree removed (kept on
// failure when configured, or while it holds uncommitted work).
func (r *run) finish(ctx context.Context, out outcome) {
	if out.pr == nil && ctx.Err() != nil {
		// The failure is the shutdown's doing, not the issue's.
		r.interrupted(ctx)
		return
	}
	ctx = context.WithoutCancel(ctx)
	rec := r.rec
	x := r.w.opts.Config.Worker.Execution
	lang := r.w.opts.Lang
	rec.FinishedAt = r.w.opts.Now()
	if out.err != nil {
		r.problem(strings.ToLower(string(out.category)), out.err)
	}
	if out.pr != nil {
		rec.State = StateDone
		rec.PullRequest = out.pr
		rec.Category = ""
		if out.pr.Fallback {
			// Keep the diagnosis of why the agent opened none.
			rec.Category = out.category
			rec.Summary = "draft pull request opened from the agent's commits"
			rec.CommentPending = capComment(msgFallbackNote.Format(lang, rec.Branch, out.pr.URL))
		} else {
			rec.Summary = "pull request " + out.pr.URL
		}
	} else {
		rec.State = StateFailed
		rec.Category = out.category
		rec.Summary = out.category.summary().In(i18n.EN)
	}
	r.step("finish")

	if rec.Worktree != "" {
		dirty, err := r.w.git.dirty(ctx, rec.Worktree)
		if err != nil {
			r.problem("check worktree", err)
			dirty = true
		}
		if rec.CommitsAhead == 0 {
			if n, err := r.w.git.commitsAhead(ctx, rec.Worktree, r.repo.Branch()); err == nil {
				rec.CommitsAhead = n
			}
		}
		keep := dirty || (rec.State == StateFailed && x.KeepFailedWorktrees)
		rec.WorktreeKept = keep
		if !keep {
			clone := r.w.expandHome(r.repo.Path)
			if err := r.w.git.removeWorktree(ctx, clone, rec.Worktree); err != nil {
				r.problem("remove worktree", err)
				rec.WorktreeKept = true
			} else if rec.CommitsAhead == 0 {
				if err := r.w.git.deleteBranch(ctx, clone, rec.Branch); err != nil {
					r.problem("delete branch", err)
				}
			}
		}
	}

	if rec.State == StateFailed {
		errText := ""
		if out.err != nil {
			errText = out.err.Error()
		} else if n := len(rec.Attempts); n > 0 {
			errText = rec.Attempts[n-1].Error
		}
		rec.CommentPending = failureComment(lang, r.w.clean, failure{
			Category:       out.category,
			Detail:         out.detail,
			TimeoutMinutes: x.Timeout(),
			Error:          errText,
			Attempts:       rec.Attempts,
			Branch:         rec.Branch,
			WorktreeKept:   rec.WorktreeKept && rec.Worktree != "",
			Trigger:        r.labels.Trigger,
		})
	}
	rec.LabelsPending = true
	r.save()
	r.w.settle(ctx, r.client, rec)
	r.save()
}

// settle brings GitHub in line with a finished record: its comment posted,
// the labels of its state, its claim comment deleted. What fails stays
// pending in the record for the next recovery.
func (w *Worker) settle(ctx context.Context, client *github.Client, rec *Record) {
	n := rec.Issue
	labels := w.repoLabels(rec.Repo)
	fail := func(op string, err error) {
		rec.Errors = append(rec.Errors, op+": "+tracker.Summary(err))
		w.log.Warn("settle", "run", rec.ID, "op", op, "err", tracker.Summary(err))
	}
	if rec.CommentPending != "" {
		c, err := w.postComment(ctx, client, n, commentKey(rec.ID)+"\n"+rec.CommentPending, commentKey(rec.ID))
		if err != nil {
			fail("comment", err)
		} else {
			rec.CommentPending = ""
			rec.CommentURL = c.URL
		}
	}
	if rec.LabelsPending {
		var add string
		var remove []string
		switch rec.State {
		case StateDone:
			add, remove = labels.Done, []string{labels.InProgress, labels.Trigger, labels.Failed}
		case StateFailed:
			add, remove = labels.Failed, []string{labels.InProgress, labels.Trigger}
		default:
			add, remove = labels.Trigger, []string{labels.InProgress}
		}
		// The old labels go only once the new one is on: an issue is never
		// left with neither.
		ok := true
		if err := w.retry(ctx, func() error { return client.AddLabels(ctx, n, add) }); err != nil {
			fail("add label "+add, err)
			ok, remove = false, nil
		}
		for _, l := range remove {
			if err := w.retry(ctx, func() error { return client.RemoveLabel(ctx, n, l) }); err != nil {
				fail("remove label "+l, err)
				ok = false
			}
		}
		rec.LabelsPending = !ok
	}
	if rec.ClaimCommentID != 0 {
		id := rec.ClaimCommentID
		err := w.retry(ctx, func() error { return client.DeleteComment(ctx, id) })
		if err == nil || tracker.KindOf(err) == tracker.KindNotFound {
			rec.ClaimCommentID = 0
		} else {
			fail("delete claim comment", err)
		}
	}
}

// commentKey is the hidden first line of the worker's comments on an issue
// for one run: a retried post finds it and does not post twice.
func commentKey(runID string) string {
	return "<!-- baton:worker-run " + runID + " -->"
}

// repoLabels returns the labels of a configured repository (the defaults
// when it is no longer configured).
func (w *Worker) repoLabels(repo string) config.WorkerLabels {
	for _, r := range w.opts.Config.Worker.Repositories {
		if strings.EqualFold(r.Repo, repo) {
			return r.LabelSet()
		}
	}
	return config.WorkerRepo{}.LabelSet()
}

// postComment posts body on issue n. A failed post is retried, but only
// after checking that the comment (found by key) did not arrive after all:
// a comment is never posted twice.
func (w *Worker) postComment(ctx context.Context, client *github.Client, n int, body, key string) (*tracker.Comment, error) {
	var posted *tracker.Comment
	err := w.retry(ctx, func() error {
		if posted != nil {
			return nil
		}
		c, err := client.AddComment(ctx, n, body)
		if err == nil {
			posted = c
			return nil
		}
		if comments, lerr := client.Comments(ctx, n); lerr == nil {
			for _, cm := range comments {
				if strings.Contains(cm.Body, key) {
					posted = cm
					return nil
				}
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return posted, nil
}

// retryAttempts is how many times the worker tries a GitHub write, on top
// of the client's own retries of transient answers.
const retryAttempts = 3

// retry calls fn until it succeeds, up to retryAttempts times, waiting
// RetryDelay, then twice that, between tries. Failures that trying again
// cannot fix (credentials, a missing issue) are not retried.
func (w *Worker) retry(ctx context.Context, fn func() error) error {
	delay := w.opts.RetryDelay
	var err error
	for attempt := 1; ; attempt++ {
		if err = fn(); err == nil {
			return nil
		}
		switch tracker.KindOf(err) {
		case tracker.KindAuth, tracker.KindNotFound:
			return err
		}
		if attempt >= retryAttempts || ctx.Err() != nil {
			return err
		}
		wait := delay
		var te *tracker.Error
		if errors.As(err, &te) && te.RetryAfter > wait {
			wait = min(te.RetryAfter, time.Minute)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay *= 2
	}
}

// expandHome turns a leading ~/ into the home folder.
func (w *Worker) expandHome(p string) string {
	if p == "~" {
		return w.opts.Home
	}
	if strings.HasPrefix(p, "~/") && w.opts.Home != "" {
		return filepath.Join(w.opts.Home, p[2:])
	}
	return p
}

// Recover puts in order the issues of earlier runs on this machine: a run
// still marked running whose lock nobody holds belonged to a worker that
// died, so its issue goes back to the trigger label; a finished run whose
// labels or comment did not reach GitHub gets them now.
func (w *Worker) Recover(ctx context.Context) ([]*Record, error) {
	recs, err := w.store.List()
	if err != nil {
		return nil, err
	}
	var out []*Record
	var errs []error
	clients := map[string]*github.Client{}
	for _, rec := range recs {
		pending := rec.LabelsPending || rec.CommentPending != "" || (rec.ClaimCommentID != 0 && rec.State != StateRunning)
		if rec.State != StateRunning && !pending {
			continue
		}
		lock := flock.New(w.lockPath(rec.Repo, rec.Issue))
		ok, err := lock.TryLock()
		if err != nil || !ok {
			continue // a live worker on this machine has it
		}
		if rec.State == StateRunning {
			rec.State = StateInterrupted
			rec.Summary = "the worker stopped during the run; the issue was put back"
			rec.FinishedAt = w.opts.Now()
			rec.LabelsPending = true
			rec.WorktreeKept = rec.Worktree != ""
			if err := w.store.Save(rec); err != nil {
				errs = append(errs, err)
			}
		}
		client, ok := clients[rec.Repo]
		if !ok {
			client, err = w.opts.Client(ctx, w.repoByName(rec.Repo))
			if err != nil {
				lock.Unlock()
				errs = append(errs, fmt.Errorf("recover %s#%d: %w", rec.Repo, rec.Issue, err))
				continue
			}
			clients[rec.Repo] = client
		}
		w.settle(ctx, client, rec)
		if err := w.store.Save(rec); err != nil {
			errs = append(errs, err)
		}
		lock.Unlock()
		w.log.Info("recovered run", "run", rec.ID, "repo", rec.Repo, "issue", rec.Issue, "state", rec.State)
		out = append(out, rec)
	}
	return out, errors.Join(errs...)
}

// repoByName returns the configured repository, or one with only its name
// when it is no longer configured.
func (w *Worker) repoByName(repo string) config.WorkerRepo {
	for _, r := range w.opts.Config.Worker.Repositories {
		if strings.EqualFold(r.Repo, repo) {
			return r
		}
	}
	return config.WorkerRepo{Repo: repo}
}

// Status is what `baton worker status` shows.
type Status struct {
	// Running are the runs in progress on this machine.
	Running []*Record `json:"running"`
	// Recent are the latest finished runs, newest first.
	Recent []*Record `json:"recent"`
}

// Status returns the runs in progress and the last n finished ones. A run
// marked running whose worker is gone is reported as interrupted.
func (w *Worker) Status(n int) (*Status, error) {
	recs, err := w.store.List()
	if err != nil {
		return nil, err
	}
	st := &Status{Running: []*Record{}, Recent: []*Record{}}
	for _, rec := range recs {
		if rec.State == StateRunning {
			lock := flock.New(w.lockPath(rec.Repo, rec.Issue))
			if ok, err := lock.TryLock(); err == nil && ok {
				lock.Unlock()
				rec.State = StateInterrupted
				rec.Summary = "the worker is gone; the next cycle puts the issue back"
			} else {
				st.Running = append(st.Running, rec)
				continue
			}
		}
		if len(st.Recent) < n {
			st.Recent = append(st.Recent, rec)
		}
	}
	slices.Reverse(st.Running)
	return st, nil
}
