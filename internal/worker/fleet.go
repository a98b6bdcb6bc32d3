package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// IssueArgs is the job of one issue: one run of the flow.
type IssueArgs struct {
	Repo  string `json:"repo"`
	Issue int    `json:"issue"`
}

// Kind names the job kind in the queue.
func (IssueArgs) Kind() string { return "baton_issue" }

// PollArgs is the job that lists the eligible issues and enqueues them.
type PollArgs struct{}

// Kind names the job kind in the queue.
func (PollArgs) Kind() string { return "baton_poll" }

// activeStates are the states of a job that is queued or running: while an
// issue has a job in one of them, no other is inserted for it.
var activeStates = []rivertype.JobState{
	rivertype.JobStateAvailable,
	rivertype.JobStatePending,
	rivertype.JobStateRetryable,
	rivertype.JobStateRunning,
	rivertype.JobStateScheduled,
}

// issueAttempts is how many hosts may take an issue's job: the first, and
// two rescues of hosts that died.
const issueAttempts = 3

// stepMargin is the job's time beyond the agent's budget, in configured
// minutes: fetch and worktree before, pull request, labels and comment
// after.
const stepMargin = 5

// jobTimeout is how long a job may run: the budget and the steps around it.
func (w *Worker) jobTimeout() time.Duration {
	return time.Duration(w.opts.Config.Worker.Execution.Timeout()+stepMargin) * w.opts.Minute
}

// rescueAfter is when River's own rescuer gives a running job to another
// host: past the job's timeout plus the rescue margin. Hosts that stop
// answering are found long before by their heartbeats (see liveness.go).
func (w *Worker) rescueAfter() time.Duration {
	return w.jobTimeout() + w.marginSetting()
}

// issueWorker works the issue jobs.
type issueWorker struct {
	river.WorkerDefaults[IssueArgs]
	w *Worker
	s *session
}

func (iw *issueWorker) Timeout(*river.Job[IssueArgs]) time.Duration { return iw.w.jobTimeout() }

func (iw *issueWorker) Work(ctx context.Context, job *river.Job[IssueArgs]) error {
	// The attempt names itself in what River writes at its end: a stale
	// attempt's end is then ignored (see Queue.fenceTrigger).
	if err := river.MetadataSet(ctx, fenceKey, job.Attempt); err != nil {
		return err
	}
	iw.s.addWorked(job.ID)
	return iw.w.workIssue(ctx, iw.s, job.JobRow, job.Args)
}

// pollWorker works the poll jobs.
type pollWorker struct {
	river.WorkerDefaults[PollArgs]
	w *Worker
	s *session
}

func (pw *pollWorker) Work(ctx context.Context, job *river.Job[PollArgs]) error {
	enqueued := pw.w.poll(ctx, pw.s)
	// Whoever asked for this poll (a one-shot host) waits for the jobs it
	// enqueued, whichever host ran it.
	return river.RecordOutput(ctx, pollOutput{Enqueued: enqueued})
}

// pollOutput is what a poll job records: the jobs it enqueued.
type pollOutput struct {
	Enqueued []int64 `json:"enqueued"`
}

// session is one River client's life in this process.
type session struct {
	q      *Queue
	client riverClient
	// stopping is closed by the first signal: runs that reach their
	// deadline after it are put back, not failed.
	stopping <-chan struct{}

	mu   sync.Mutex
	res  CycleResult
	seen map[string]bool
	// worked are the issue jobs this session has worked on.
	worked []int64
}

func (s *session) addWorked(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.worked = append(s.worked, id)
}

func (s *session) workedJobs() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.worked)
}

func (s *session) addRun(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Runs = append(s.res.Runs, rec)
}

func (s *session) addRecovered(recs []*Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Recovered = append(s.res.Recovered, recs...)
}

func (s *session) addSkipped(sk []Skip) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range sk {
		key := k.Repo + "#" + strconv.Itoa(k.Issue) + " " + k.Reason
		if s.seen[key] {
			continue
		}
		s.seen[key] = true
		s.res.Skipped = append(s.res.Skipped, k)
	}
}

func (s *session) addError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Errors = append(s.res.Errors, err.Error())
}

// take returns what happened since the last take.
func (s *session) take() *CycleResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.res
	s.res = CycleResult{}
	s.seen = map[string]bool{}
	return &res
}

// ServeOptions say how Serve runs.
type ServeOptions struct {
	// Once: poll once, work until the jobs that poll enqueued and the ones
	// this host took have ended, then return; other hosts' jobs are not
	// waited for.
	Once bool
	// Report, when set, gets what happened every interval and at the end.
	Report func(*CycleResult)
}

// Serve runs this host's River client on q: the leader polls GitHub once at
// start, then every interval_minutes, and every host works the jobs, at
// most max_parallel at once. Once stop is closed no job is taken any more
// and the runs in progress go on to their deadline; cancelling ctx stops
// them: each is checkpointed, its job returned to the queue and its issue
// to the trigger label.
func (w *Worker) Serve(ctx context.Context, stop <-chan struct{}, q *Queue, so ServeOptions) (*CycleResult, error) {
	if err := q.Check(ctx, w.opts.Lang); err != nil {
		return nil, err
	}
	s := &session{q: q, stopping: stop, seen: map[string]bool{}}
	recovered, err := w.Recover(ctx)
	if err != nil {
		s.addError(err)
	}
	s.res.Recovered = recovered
	workers := river.NewWorkers()
	river.AddWorker(workers, &issueWorker{w: w, s: s})
	river.AddWorker(workers, &pollWorker{w: w, s: s})
	interval := time.Duration(w.opts.Config.Worker.Execution.Interval()) * w.opts.Minute
	cfg := &river.Config{
		ID:                   clientID(w.opts.Host, w.opts.PID),
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: w.opts.Config.Worker.Execution.MaxParallelRuns()}},
		Workers:              workers,
		RescueStuckJobsAfter: w.rescueAfter(),
		JobTimeout:           w.jobTimeout(),
		FetchPollInterval:    w.opts.FetchPoll,
		MaxAttempts:          issueAttempts,
		Logger:               w.riverLog,
	}
	if !so.Once {
		cfg.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(interval),
			func() (river.JobArgs, *river.InsertOpts) { return PollArgs{}, pollInsertOpts() },
			&river.PeriodicJobOpts{ID: "baton_poll", RunOnStart: true})}
	}
	client, err := q.newClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("queue client: %w", err)
	}
	s.client = client
	// River's own context: the second stop (ctx cancelled) must reach the
	// jobs through StopAndCancel, not by cutting River's connections.
	riverCtx, riverCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer riverCancel()
	// The host reports that it is alive before it takes a job, until its
	// runs have ended.
	if err := q.beat(ctx, cfg.ID, w.opts.Now()); err != nil {
		return nil, q.reachError(w.opts.Lang, err)
	}
	beatCtx, stopBeat := context.WithCancel(riverCtx)
	var beating sync.WaitGroup
	beating.Go(func() { w.heartbeat(beatCtx, s, cfg.ID) })
	defer func() {
		stopBeat()
		beating.Wait()
	}()
	if err := client.Start(riverCtx); err != nil {
		return nil, q.reachError(w.opts.Lang, err)
	}
	var pollID int64
	if so.Once {
		res, err := client.Insert(ctx, PollArgs{}, pollInsertOpts())
		if err != nil {
			s.addError(fmt.Errorf("enqueue poll: %w", err))
		} else {
			pollID = res.Job.ID
		}
	}

	// The stops: the first signal (stop) lets the runs finish; a second
	// (ctx) cancels them.
	stopped := make(chan error, 1)
	var stopOnce sync.Once
	softStop := func() {
		stopOnce.Do(func() {
			go func() { stopped <- client.Stop(context.WithoutCancel(ctx)) }()
		})
	}
	drained := make(chan struct{})
	if so.Once {
		go w.watchDrain(riverCtx, client, s, pollID, drained)
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var total CycleResult
	report := func() {
		res := s.take()
		total.Runs = append(total.Runs, res.Runs...)
		total.Recovered = append(total.Recovered, res.Recovered...)
		total.Skipped = append(total.Skipped, res.Skipped...)
		total.Errors = append(total.Errors, res.Errors...)
		if so.Report != nil {
			so.Report(res)
		}
	}
	var stopErr error
loop:
	for {
		select {
		case <-drained:
			softStop()
			drained = nil
		case <-stop:
			softStop()
			stop = nil
		case <-ctx.Done():
			stopErr = client.StopAndCancel(context.WithoutCancel(ctx))
			<-client.Stopped()
			break loop
		case stopErr = <-stopped:
			break loop
		case <-tick.C:
			if recovered, err := w.Recover(ctx); err != nil {
				s.addError(err)
			} else {
				s.addRecovered(recovered)
			}
			report()
		}
	}
	report()
	if err := w.store.Prune(); err != nil {
		total.Errors = append(total.Errors, err.Error())
	}
	if stopErr != nil && !errors.Is(stopErr, context.Canceled) {
		total.Errors = append(total.Errors, stopErr.Error())
	}
	return &total, ctx.Err()
}

// clientID names this process in the queue: the host, then the process id.
func clientID(host string, pid int) string {
	return host + "/" + strconv.Itoa(pid)
}

// HostOf returns the host part of a client id.
func HostOf(clientID string) string {
	host, _, _ := strings.Cut(clientID, "/")
	return host
}

// pollInsertOpts makes the poll unique while one is queued or running.
func pollInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: activeStates}}
}

// issueInsertOpts makes an issue's job unique while one is queued or
// running.
func issueInsertOpts() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: issueAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: activeStates}}
}

// enqueueIssue inserts the job of issue n of repo, unless the queue holds
// one queued or running (then the result says it was skipped as a
// duplicate), whichever host inserts it.
func enqueueIssue(ctx context.Context, client riverClient, repo string, n int) (*rivertype.JobInsertResult, error) {
	return client.Insert(ctx, IssueArgs{Repo: repo, Issue: n}, issueInsertOpts())
}

// watchDrain closes drained once the poll job pollID (0: none) has ended
// and no job is queued or running that it enqueued, that this session
// worked on, or that an earlier process of this host last ran (a run
// killed here, which this host takes up again), checking a few times a
// second. Other hosts' jobs do not count.
func (w *Worker) watchDrain(ctx context.Context, client riverClient, s *session, pollID int64, drained chan<- struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if busy, err := ownJobsBusy(ctx, client, pollID, s.workedJobs(), w.opts.Host); err == nil && !busy {
			close(drained)
			return
		}
	}
}

// ownJobsBusy reports whether the poll job pollID, a job it enqueued, one
// of worked or one that host last ran is queued or running.
func ownJobsBusy(ctx context.Context, client riverClient, pollID int64, worked []int64, host string) (bool, error) {
	res, err := client.JobList(ctx, river.NewJobListParams().Kinds(IssueArgs{}.Kind()).
		States(activeStates...).First(1000))
	if err != nil {
		return true, err
	}
	for _, j := range res.Jobs {
		if n := len(j.AttemptedBy); n > 0 && HostOf(j.AttemptedBy[n-1]) == host {
			return true, nil
		}
	}
	ids := worked
	if pollID != 0 {
		res, err := client.JobList(ctx, river.NewJobListParams().IDs(pollID).States(rivertype.JobStateCompleted,
			rivertype.JobStateCancelled, rivertype.JobStateDiscarded).First(1))
		if err != nil {
			return true, err
		}
		if len(res.Jobs) == 0 {
			return true, nil
		}
		var out pollOutput
		if b := res.Jobs[0].Output(); len(b) > 0 {
			if err := json.Unmarshal(b, &out); err != nil {
				return true, err
			}
		}
		ids = append(ids, out.Enqueued...)
	}
	if len(ids) == 0 {
		return false, nil
	}
	res, err = client.JobList(ctx, river.NewJobListParams().IDs(ids...).States(activeStates...).First(1))
	if err != nil {
		return true, err
	}
	return len(res.Jobs) > 0, nil
}

// activeIssues returns the repo#issue keys that have a job queued or
// running.
func activeIssues(ctx context.Context, client riverClient) (map[string]bool, error) {
	out := map[string]bool{}
	params := river.NewJobListParams().Kinds(IssueArgs{}.Kind()).States(activeStates...).First(10000)
	res, err := client.JobList(ctx, params)
	if err != nil {
		return nil, err
	}
	for _, j := range res.Jobs {
		var a IssueArgs
		if json.Unmarshal(j.EncodedArgs, &a) == nil {
			out[issueKey(a.Repo, a.Issue)] = true
		}
	}
	return out, nil
}

func issueKey(repo string, n int) string { return strings.ToLower(repo) + "#" + strconv.Itoa(n) }

// poll lists every repository's issues: those labelled in progress whose
// job is neither queued nor running are put back to the trigger label; the
// eligible ones are enqueued, in priority order, as many per repository as
// max_issues_per_repo allows beside the jobs it already has. What it skips
// and the repositories it could not poll go to the session: one failing
// repository does not fail the poll.
func (w *Worker) poll(ctx context.Context, s *session) (enqueued []int64) {
	for _, repo := range w.opts.Config.Worker.Repositories {
		skipped, err := w.pollRepo(ctx, s, repo, &enqueued)
		s.addSkipped(skipped)
		if err != nil {
			s.addError(fmt.Errorf("%s: %s", repo.Repo, w.clean.clean(err.Error())))
		}
	}
	return enqueued
}

// pollRepo polls one repository (see poll), adding the ids of the jobs it
// enqueued to enqueued.
func (w *Worker) pollRepo(ctx context.Context, s *session, repo config.WorkerRepo, enqueued *[]int64) ([]Skip, error) {
	client, err := w.opts.Client(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("github client: %w", err)
	}
	labels := repo.LabelSet()
	if err := w.putBackOrphans(ctx, s, client, repo); err != nil {
		w.log.Warn("put back orphaned issues", "repo", repo.Repo, "err", tracker.Summary(err))
	}
	issues, err := client.ListIssues(ctx, tracker.ListOptions{State: tracker.StateOpen, Labels: []string{labels.Trigger}})
	if err != nil {
		return nil, err
	}
	active, err := activeIssues(ctx, s.client)
	if err != nil {
		return nil, fmt.Errorf("list queued jobs: %w", err)
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
	room := w.opts.Config.Worker.Execution.IssuesPerRepo()
	prefix := strings.ToLower(repo.Repo) + "#"
	for k := range active {
		if strings.HasPrefix(k, prefix) {
			room--
		}
	}
	for _, is := range candidates {
		if active[issueKey(repo.Repo, is.Number)] {
			continue
		}
		if room <= 0 {
			break
		}
		res, err := enqueueIssue(ctx, s.client, repo.Repo, is.Number)
		if err != nil {
			return skipped, fmt.Errorf("enqueue #%d: %w", is.Number, err)
		}
		if !res.UniqueSkippedAsDuplicate {
			room--
			*enqueued = append(*enqueued, res.Job.ID)
			w.log.Info("enqueued issue", "repo", repo.Repo, "issue", is.Number, "job", res.Job.ID)
		}
	}
	return skipped, nil
}

// putBackOrphans puts back to the trigger label the issues labelled in
// progress that have no job queued or running: the queue is the truth,
// labels are its view. The queue is asked first and the issue read again
// after, so that a job that ended in between (and moved the labels itself)
// is not mistaken for an orphan; an issue with a live claim of the
// worker's identity (a host on another queue) waits for the claim to
// lapse.
func (w *Worker) putBackOrphans(ctx context.Context, s *session, client *github.Client, repo config.WorkerRepo) error {
	labels := repo.LabelSet()
	issues, err := client.ListIssues(ctx, tracker.ListOptions{State: tracker.StateOpen, Labels: []string{labels.InProgress}})
	if err != nil || len(issues) == 0 {
		return err
	}
	active, err := activeIssues(ctx, s.client)
	if err != nil {
		return err
	}
	for _, is := range issues {
		if active[issueKey(repo.Repo, is.Number)] {
			continue
		}
		fresh, err := client.Issue(ctx, is.Number)
		if err != nil || fresh.State != tracker.StateOpen || !slices.Contains(fresh.Labels, labels.InProgress) {
			continue
		}
		if live, err := w.liveClaim(ctx, client, is.Number); err != nil || live {
			// A run of another queue (a host not sharing this one) holds
			// it until its claim lapses.
			continue
		}
		if j, err := lastJob(ctx, s.client, repo.Repo, is.Number); err == nil && j != nil && j.State == rivertype.JobStateDiscarded {
			// Its last attempt died with its host and River gave it up:
			// failed, not run again from nothing.
			w.log.Info("issue's job was discarded after its last attempt", "repo", repo.Repo, "issue", is.Number, "job", j.ID)
			host := ""
			if len(j.AttemptedBy) > 0 {
				host = HostOf(j.AttemptedBy[len(j.AttemptedBy)-1])
			}
			w.failIssue(ctx, client, repo, is.Number, HostLost, host)
			continue
		}
		w.log.Info("put back orphaned issue", "repo", repo.Repo, "issue", is.Number)
		rec := &Record{ID: "orphan", Repo: repo.Repo, Issue: is.Number, State: StateInterrupted, LabelsPending: true}
		w.settle(ctx, client, rec)
		if err := w.deleteOwnClaims(ctx, client, is.Number); err != nil {
			w.log.Warn("delete claims of orphaned issue", "issue", is.Number, "err", tracker.Summary(err))
		}
	}
	return nil
}

// lastJob returns the newest job of an issue among the queue's latest
// ones, in any state; nil when there is none.
func lastJob(ctx context.Context, client riverClient, repo string, n int) (*rivertype.JobRow, error) {
	params := river.NewJobListParams().Kinds(IssueArgs{}.Kind()).
		States(rivertype.JobStateCancelled, rivertype.JobStateCompleted, rivertype.JobStateDiscarded).
		OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(500)
	res, err := client.JobList(ctx, params)
	if err != nil {
		return nil, err
	}
	for _, j := range res.Jobs {
		var a IssueArgs
		if json.Unmarshal(j.EncodedArgs, &a) == nil && issueKey(a.Repo, a.Issue) == issueKey(repo, n) {
			return j, nil
		}
	}
	return nil, nil
}

// liveClaim reports whether the worker's own identity has a claim comment
// on the issue that has not lapsed.
func (w *Worker) liveClaim(ctx context.Context, client *github.Client, n int) (bool, error) {
	claims, err := w.ownClaims(ctx, client, n)
	if err != nil {
		return false, err
	}
	now := w.opts.Now()
	for _, c := range claims {
		if c.until.After(now) {
			return true, nil
		}
	}
	return false, nil
}

// errNotRun cancels a job whose issue is not to be run (closed, relabelled,
// claimed elsewhere): nothing is posted, and a later poll may enqueue it
// again.
var errNotRun = errors.New("issue not run")

// workIssue is one job: one run of the flow on one issue.
func (w *Worker) workIssue(ctx context.Context, s *session, job *rivertype.JobRow, args IssueArgs) error {
	repo, ok := w.configuredRepo(args.Repo)
	if !ok {
		w.log.Info("job cancelled: repository no longer configured", "repo", args.Repo, "issue", args.Issue, "job", job.ID)
		return river.JobCancel(fmt.Errorf("%w: %s is not configured", errNotRun, args.Repo))
	}
	client, err := w.opts.Client(ctx, repo)
	if err != nil {
		return fmt.Errorf("github client: %w", err)
	}
	cp, err := s.q.loadCheckpoint(ctx, job.ID)
	if err != nil {
		w.log.Warn("load checkpoint", "job", job.ID, "err", err)
	}
	if cp != nil && len(cp.Outcome) > 0 {
		return w.settleOutcome(ctx, s, client, job, cp)
	}
	jc := &jobRun{q: s.q, id: job.ID, attempt: job.Attempt, maxAttempts: job.MaxAttempts, checkpoint: cp, stopping: s.stopping}
	if len(job.AttemptedBy) > 1 {
		jc.rescuedFrom = HostOf(job.AttemptedBy[len(job.AttemptedBy)-2])
	}
	rec, why := w.runIssue(ctx, client, repo, args.Issue, jc)
	if rec == nil {
		s.addSkipped([]Skip{{Repo: repo.Repo, Issue: args.Issue, Reason: why}})
		w.log.Info("job cancelled: issue not run", "repo", repo.Repo, "issue", args.Issue, "job", job.ID, "reason", why)
		return river.JobCancel(fmt.Errorf("%w: %s", errNotRun, why))
	}
	s.addRun(rec)
	if rec.State == StateInterrupted {
		if jobTimedOut(ctx, s.stopping) {
			// A failed attempt: it counts against the limit, and the
			// last one ends the issue as failed (see run.interrupted).
			return fmt.Errorf("job timed out after %s (attempt %d of %d)", w.jobTimeout(), job.Attempt, job.MaxAttempts)
		}
		// Back to the queue, where any host takes it on from the
		// checkpoint; the attempt is given back.
		return river.JobSnooze(0)
	}
	if !rec.settled() && !rec.Stale {
		return w.keepOutcome(ctx, s, job, rec)
	}
	if rec.Stale {
		// Its end is not this host's to write; River's is ignored too.
		return nil
	}
	if err := s.q.deleteCheckpoint(context.WithoutCancel(ctx), job.ID, job.Attempt); err != nil {
		w.log.Warn("delete checkpoint", "job", job.ID, "err", err)
	}
	return nil
}

// keepOutcome stores the record of a run that ended but could not settle
// on GitHub (see settle) with its job, and fails the attempt: the job is
// retried, and the next attempt, on any host, settles the record instead
// of running the issue again. The claim stays on the issue meanwhile.
func (w *Worker) keepOutcome(ctx context.Context, s *session, job *rivertype.JobRow, rec *Record) error {
	ctx = context.WithoutCancel(ctx)
	b, err := json.Marshal(rec)
	if err == nil {
		err = s.q.saveCheckpoint(ctx, &checkpoint{JobID: job.ID, Attempt: job.Attempt, Repo: rec.Repo, Issue: rec.Issue,
			Branch: rec.Branch, Host: rec.Host, Outcome: b}, w.opts.Now())
	}
	if err != nil {
		w.log.Warn("keep the unsettled outcome", "job", job.ID, "run", rec.ID, "err", err)
	}
	return fmt.Errorf("run %s ended %s but GitHub did not take its labels or comment: %s", rec.ID, rec.State, strings.Join(rec.Errors, "; "))
}

// settleOutcome settles the stored record of an earlier attempt's run
// (see keepOutcome), without running the issue.
func (w *Worker) settleOutcome(ctx context.Context, s *session, client *github.Client, job *rivertype.JobRow, cp *checkpoint) error {
	var rec Record
	if err := json.Unmarshal(cp.Outcome, &rec); err != nil {
		return fmt.Errorf("read the stored outcome of job %d: %w", job.ID, err)
	}
	w.log.Info("settle an earlier attempt's run", "job", job.ID, "run", rec.ID, "state", rec.State)
	w.settle(ctx, client, &rec)
	if err := w.store.Save(&rec); err != nil {
		w.log.Warn("save run record", "run", rec.ID, "err", err)
	}
	s.addRecovered([]*Record{&rec})
	if !rec.settled() || rec.ClaimCommentID != 0 {
		return w.keepOutcome(ctx, s, job, &rec)
	}
	if err := s.q.deleteCheckpoint(context.WithoutCancel(ctx), job.ID, job.Attempt); err != nil {
		w.log.Warn("delete checkpoint", "job", job.ID, "err", err)
	}
	return nil
}

// configuredRepo returns the configured repository of that name.
func (w *Worker) configuredRepo(name string) (config.WorkerRepo, bool) {
	for _, r := range w.opts.Config.Worker.Repositories {
		if strings.EqualFold(r.Repo, name) {
			return r, true
		}
	}
	return config.WorkerRepo{}, false
}
