// Package worker turns labelled issues into pull requests. Its engine is a
// River job queue (see Queue): Postgres when several hosts share it, a SQLite
// file on one machine. The leader host polls GitHub and enqueues one job per
// eligible issue (open, trigger label, trusted author), unique while it is
// queued or running; every host works jobs, at most max_parallel at once.
// A job is one run: labels and a claim comment on GitHub (where only the
// worker's own identity's comments count), a git worktree from the default
// branch, the agent CLI run there with a prompt made from a template under a
// wall-clock budget, checkpoints (the worktree pushed to the run's branch,
// the agent's transcript stored in the queue) at the end of every agent run
// and every few minutes during it. When the agent ends without a pull
// request from the run's branch, its session is resumed once with the time
// left; when there is still none but the branch has commits, baton pushes
// them and opens a draft pull request itself. The issue ends labelled done
// or failed with a comment saying how. A host that dies loses its lease;
// River gives the job to another host, which continues from the checkpoint.
//
// The package owns the worker's data folder
// (${XDG_DATA_HOME:-~/.local/share}/baton/worker: runs/, worktrees/,
// queue.db, and locks/ that let runs sharing a clone change it one at a
// time). It does not know the process: environment, clock, paths and the
// GitHub client come in through Options.
package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
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
	// Environ is the worker's environment; git and the agent get what
	// the allow list keeps of it (see allowedEnv).
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
	// Reaper is the program the agent runs under, so that everything the
	// agent started dies with the worker: a program whose main calls
	// ReaperMain first (baton itself). Empty: the agent runs directly and
	// only it dies with the worker.
	Reaper string
	// KillDelay is the time between SIGTERM and SIGKILL at the deadline
	// (default 5s).
	KillDelay time.Duration
	// RecheckDelay is the wait before asking GitHub a second time for
	// the linked pull request (default 5s).
	RecheckDelay time.Duration
	// RetryDelay is the first wait before retrying a GitHub write that
	// failed after the client's own retries (default 2s, doubling).
	RetryDelay time.Duration
	// RateLimitWait bounds the waits for GitHub's rate limits of one call
	// (default DefaultRateLimitWait).
	RateLimitWait time.Duration

	// Queue is the job queue; nil: the SQLite queue in DataDir.
	Queue *Queue
	// RescueMargin replaces worker.queue.rescue_margin_seconds when set
	// (tests shorten it below a second).
	RescueMargin time.Duration
	// FetchPoll is how often an idle host asks the queue for a job
	// (default: River's, 1s).
	FetchPoll time.Duration
	// CheckpointEvery is the time between checkpoints while the agent runs
	// (default 3 configured minutes).
	CheckpointEvery time.Duration
	// QueueLogger gets River's own log lines; nil: warnings and errors
	// to Logger.
	QueueLogger *slog.Logger
}

// Worker runs issues to pull requests. Its methods are safe for concurrent
// use.
type Worker struct {
	opts     Options
	store    Store
	git      gitRunner
	clean    cleaner
	log      *slog.Logger
	riverLog *slog.Logger

	// logins caches the GitHub login of each repository's client.
	logins sync.Map
	// inRun holds the ids of the runs this process is in, to their
	// settling: Recover leaves them to their run.
	inRun sync.Map
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
	if opts.RateLimitWait <= 0 {
		opts.RateLimitWait = DefaultRateLimitWait
	}
	if opts.CheckpointEvery <= 0 {
		opts.CheckpointEvery = 3 * opts.Minute
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	riverLog := opts.QueueLogger
	if riverLog == nil {
		riverLog = slog.New(levelHandler{min: slog.LevelWarn, Handler: log.Handler()})
	}
	return &Worker{
		opts:     opts,
		store:    Store{Dir: opts.DataDir},
		git:      gitRunner{env: allowedEnv(opts.Environ, opts.Config.Worker.Agent.PassEnv), lockDir: filepath.Join(opts.DataDir, "locks")},
		clean:    cleaner{home: opts.Home},
		log:      log,
		riverLog: riverLog,
	}, nil
}

// Store returns the worker's run records.
func (w *Worker) Store() Store { return w.store }

// CycleResult is what the worker did: in one cycle (`baton worker once`),
// or in one interval of `baton worker run`.
type CycleResult struct {
	// Runs are the issues run by this process.
	Runs []*Record `json:"runs"`
	// Recovered are earlier runs whose labels or comment reached GitHub
	// only now.
	Recovered []*Record `json:"recovered,omitempty"`
	// Skipped are issues with the trigger label that were not enqueued.
	Skipped []Skip `json:"skipped,omitempty"`
	// Errors are repositories that could not be worked on.
	Errors []string `json:"errors,omitempty"`
}

// Cycle polls once and works the queue until it holds no job (see Serve).
// Without Options.Queue it uses the local SQLite queue, migrated first.
func (w *Worker) Cycle(ctx context.Context, stop <-chan struct{}) (*CycleResult, error) {
	q, done, err := w.queue(ctx)
	if err != nil {
		return &CycleResult{Errors: []string{err.Error()}}, err
	}
	defer done()
	res, err := w.Serve(ctx, stop, q, ServeOptions{Once: true})
	if res == nil {
		res = &CycleResult{}
	}
	// A queue that fails before any issue is looked at is an error of the
	// cycle, told with the others.
	if err != nil && !slices.Contains(res.Errors, err.Error()) {
		res.Errors = append(res.Errors, err.Error())
	}
	return res, err
}

// Run serves the queue until stop is closed and the runs in progress have
// ended; report gets what happened every interval. Cancelling ctx stops
// the runs at once.
func (w *Worker) Run(ctx context.Context, stop <-chan struct{}, report func(*CycleResult)) error {
	q, done, err := w.queue(ctx)
	if err != nil {
		return err
	}
	defer done()
	_, err = w.Serve(ctx, stop, q, ServeOptions{Report: report})
	return err
}

// queue returns Options.Queue, or opens and migrates the local one.
func (w *Worker) queue(ctx context.Context) (*Queue, func(), error) {
	if w.opts.Queue != nil {
		return w.opts.Queue, func() {}, nil
	}
	q, err := OpenQueueReady(ctx, "", w.opts.DataDir, w.opts.Lang)
	if err != nil {
		return nil, nil, err
	}
	return q, q.Close, nil
}

// stopped reports whether stop is closed; a nil stop never is (its
// receive never proceeds, so the default case is taken).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// levelHandler passes on only records at min or above.
type levelHandler struct {
	min slog.Level
	slog.Handler
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return levelHandler{min: h.min, Handler: h.Handler.WithAttrs(as)}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{min: h.min, Handler: h.Handler.WithGroup(name)}
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
