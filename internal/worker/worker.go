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
	// AfterFunc schedules the deadline of an agent run, as time.AfterFunc
	// does (the default); tests fire it when they choose.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
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

// lockPath is the lock file of one issue of one repository on this machine.
func (w *Worker) lockPath(repo string, issue int) string {
	owner, name, _ := strings.Cut(repo, "/")
	return filepath.Join(w.opts.DataDir, "locks", strings.ToLower(owner), strings.ToLower(name), strconv.Itoa(issue)+".lock")
}

// tryLock takes the lock of one issue on this machine without waiting. It
// reports false when another worker holds it, or when the lock cannot be
// taken at all (then nothing may be done to the issue either).
func (w *Worker) tryLock(repo string, issue int) (*flock.Flock, bool) {
	lock := flock.New(w.lockPath(repo, issue))
	if err := os.MkdirAll(filepath.Dir(lock.Path()), 0o700); err != nil {
		w.log.Error("lock folder", "err", err)
		return nil, false
	}
	ok, err := lock.TryLock()
	if err != nil {
		w.log.Error("lock issue", "repo", repo, "issue", issue, "err", err)
	}
	return lock, err == nil && ok
}

// newRunID returns a run id that sorts by time: UTC timestamp and random.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
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
