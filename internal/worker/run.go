package worker

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// run is one issue's run in progress.
type run struct {
	w      *Worker
	client *github.Client
	repo   config.WorkerRepo
	labels config.WorkerLabels
	issue  *tracker.Issue
	rec    *Record
	job    *jobRun

	// mu guards rec between the run and its checkpoints while the agent
	// runs.
	mu sync.Mutex
}

// save writes the run's record; a failure to write is logged, never fatal:
// the run itself matters more than its record.
func (r *run) save() {
	r.mu.Lock()
	defer r.mu.Unlock()
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
	msg := op + ": " + textcut.OneLine(lastChars(r.w.clean.clean(err.Error()), 500))
	r.rec.Errors = append(r.rec.Errors, msg)
	r.w.log.Warn("run problem", "run", r.rec.ID, "op", op, "err", msg)
}

// jobRun is what the queue tells a run about its job.
type jobRun struct {
	q       *Queue
	id      int64
	attempt int
	// maxAttempts is the job's attempt limit.
	maxAttempts int
	// checkpoint is what an earlier host saved of the run, or nil.
	checkpoint *checkpoint
	// rescuedFrom is the host that took the job before, when this run
	// continues its run.
	rescuedFrom string
	// stopping is closed once the worker was told to stop.
	stopping <-chan struct{}
}

// rescue reports whether the job was taken by a host before.
func (j *jobRun) rescue() bool {
	return j != nil && (j.checkpoint != nil || j.attempt > 1)
}

// runIssue claims and runs one issue of a job. It returns nil and the
// reason when the issue was not run.
func (w *Worker) runIssue(ctx context.Context, client *github.Client, repo config.WorkerRepo, number int, jr *jobRun) (*Record, string) {
	// The job may be minutes old: read the issue again.
	is, err := client.Issue(ctx, number)
	if err != nil {
		w.log.Warn("read issue", "repo", repo.Repo, "issue", number, "err", tracker.Summary(err))
		return nil, SkipClaimFailed
	}
	labels := repo.LabelSet()
	why := eligibility(is, labels)
	if jr.rescue() && slices.Contains(is.Labels, labels.InProgress) {
		// A rescued job's issue is still labelled in progress by the
		// host that died.
		why = eligibility(&tracker.Issue{State: is.State, Labels: []string{labels.Trigger}, AuthorAssociation: is.AuthorAssociation}, labels)
	}
	if why != "" {
		return nil, why
	}

	now := w.opts.Now()
	r := &run{w: w, client: client, repo: repo, labels: labels, issue: is, job: jr, rec: &Record{
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
	if jr != nil {
		r.rec.JobID, r.rec.Attempt = jr.id, jr.attempt
		if jr.rescue() {
			r.rec.RescuedFrom = cmp.Or(jr.rescuedFrom, "?")
			if jr.checkpoint != nil {
				r.rec.RescuedFrom = cmp.Or(jr.checkpoint.Host, r.rec.RescuedFrom)
			}
		}
	}
	w.inRun.Store(r.rec.ID, true)
	defer w.inRun.Delete(r.rec.ID)
	r.step("claim")
	if !r.claim(ctx) {
		return nil, SkipClaimLost
	}
	r.work(ctx)
	return r.rec, ""
}

// login returns the worker's GitHub identity on a repository: the app's
// bot when worker.github.app_slug names one (an installation token cannot
// ask for its user), else the token's user, asked once. Claims and the
// run's own pull request are recognised by it.
func (w *Worker) login(ctx context.Context, client *github.Client) (string, error) {
	if bot := w.opts.Config.Worker.GitHub.BotLogin(); bot != "" {
		return bot, nil
	}
	owner, name := client.Repo()
	key := strings.ToLower(owner + "/" + name)
	if v, ok := w.logins.Load(key); ok {
		return v.(string), nil
	}
	var login string
	err := w.retry(ctx, func() (err error) {
		login, err = client.Login(ctx)
		return err
	})
	if err != nil {
		if strings.Contains(err.Error(), "Resource not accessible by integration") {
			return "", errors.New(msgAppToken.Format(w.opts.Lang, tracker.Summary(err)))
		}
		return "", err
	}
	w.logins.Store(key, login)
	return login, nil
}

// ownClaim is a claim comment of the worker's own GitHub identity.
type ownClaim struct {
	id    int64
	until time.Time
}

// ownClaims returns the claim comments the worker's own identity left on
// issue n.
func (w *Worker) ownClaims(ctx context.Context, client *github.Client, n int) ([]ownClaim, error) {
	login, err := w.login(ctx, client)
	if err != nil {
		return nil, err
	}
	comments, err := client.Comments(ctx, n)
	if err != nil {
		return nil, err
	}
	var out []ownClaim
	for _, cm := range comments {
		if _, until, ok := parseClaim(cm.Body); ok && github.SameLogin(cm.Author, login) {
			out = append(out, ownClaim{id: cm.ID, until: until})
		}
	}
	return out, nil
}

// deleteOwnClaims deletes the claim comments the worker's own identity
// left on an issue.
func (w *Worker) deleteOwnClaims(ctx context.Context, client *github.Client, n int) error {
	claims, err := w.ownClaims(ctx, client, n)
	if err != nil {
		return err
	}
	for _, c := range claims {
		if err := w.retry(ctx, func() error { return client.DeleteComment(ctx, c.id) }); err != nil && tracker.KindOf(err) != tracker.KindNotFound {
			return err
		}
	}
	return nil
}

// claim takes the issue on GitHub: the in-progress label in place of the
// trigger, then a claim comment. Only claim comments written by the
// worker's own GitHub identity count (anyone can write one that looks
// alike); of the live ones the lowest id wins, and a loser deletes its own
// and reports false. A rescued run first deletes the claims of the runs it
// continues. A claim that fails part way is undone.
func (r *run) claim(ctx context.Context) bool {
	n := r.rec.Issue
	login, err := r.w.login(ctx, r.client)
	if err != nil {
		r.problem("claim: read the token's user", err)
		r.abandon(ctx, "claim-failed")
		return false
	}
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
	if r.job.rescue() {
		if err := r.w.deleteOwnClaims(ctx, r.client, n); err != nil {
			r.problem("claim: delete the earlier run's claim", err)
		}
	}
	budget := time.Duration(r.rec.TimeoutMinutes)*r.w.opts.Minute + claimMargin
	until := r.rec.StartedAt.Add(budget)
	key := newClaimKey()
	c, err := r.w.postComment(ctx, r.client, n, claimComment(r.w.opts.Lang, key, r.w.opts.Host, until), claimKeyPrefix+key+" ")
	if err != nil {
		r.problem("claim: comment", err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	r.rec.ClaimCommentID = c.ID
	r.save()

	var comments []*tracker.Comment
	err = r.w.retry(ctx, func() (err error) {
		comments, err = r.client.Comments(ctx, n)
		return err
	})
	if err != nil {
		r.problem("claim: read comments", err)
		r.abandon(ctx, "claim-failed")
		return false
	}
	winner := c.ID
	now := r.w.opts.Now()
	for _, cm := range comments {
		if !github.SameLogin(cm.Author, login) {
			continue
		}
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
	r.settle(ctx)
	r.save()
}

// current reports whether the run's attempt is the one its job runs (always
// without a queue). When the queue cannot tell, the run goes on as current:
// River's own write of its end is fenced in the database.
func (r *run) current(ctx context.Context) bool {
	if r.job == nil || r.job.q == nil {
		return true
	}
	ok, err := r.job.q.running(context.WithoutCancel(ctx), r.job.id, r.job.attempt)
	if err != nil {
		r.w.log.Warn("check the run's attempt", "run", r.rec.ID, "err", err)
		return true
	}
	return ok
}

// settle brings GitHub in line with the run's record, unless another host
// runs the job now: then the record says so and GitHub is left to that
// host.
func (r *run) settle(ctx context.Context) {
	if !r.current(ctx) {
		r.w.log.Warn("stale attempt: the job runs on another host; this run's end is ignored",
			"run", r.rec.ID, "job", r.job.id, "attempt", r.job.attempt, "state", r.rec.State)
		r.rec.Stale = true
		r.rec.Summary = "another host took the job over during the run (this one was thought dead): " + r.rec.State + " not applied"
		r.rec.State = StateInterrupted
		r.rec.LabelsPending, r.rec.CommentPending, r.rec.ClaimCommentID = false, "", 0
		return
	}
	r.w.settle(ctx, r.client, r.rec)
}

// work runs the claimed issue to its end: worktree, prompt, agent, resume,
// pull request, labels, comment, clean-up. A rescued run starts from its
// checkpoint: the worktree from the pushed branch, the agent's conversation
// from the stored transcript.
func (r *run) work(ctx context.Context) {
	rec := r.rec
	x := r.w.opts.Config.Worker.Execution
	started := r.w.opts.Now()
	owner, name := r.repo.OwnerName()
	clone := r.w.expandHome(r.repo.Path)
	base := r.repo.Branch()
	worktreeRoot := filepath.Join(r.w.opts.DataDir, "worktrees", owner, name)

	r.step("worktree")
	if err := r.w.git.fetch(ctx, clone); err != nil {
		r.finish(ctx, outcome{category: GitFetch, err: err})
		return
	}
	var cp *checkpoint
	if r.job != nil && r.job.checkpoint != nil && runBranch(r.job.checkpoint.Branch) {
		cp = r.job.checkpoint
	}
	var worktree string
	if cp != nil {
		// The run goes on where the earlier attempt left it: on its branch.
		// When that attempt had opened its pull request, that is the run's
		// work, and nothing is left to do but settle.
		rec.Branch = cp.Branch
		if pr := r.findPR(ctx, true); pr != nil {
			rec.RescueNote = "the run of " + cp.Host + " had opened its pull request"
			r.finish(ctx, outcome{pr: pr})
			return
		}
		// A worktree of the branch left on this host (a run stopped here)
		// gives way to the checkpoint.
		worktree = filepath.Join(worktreeRoot, strings.TrimPrefix(cp.Branch, "baton/"))
		if _, err := os.Stat(worktree); err == nil {
			if err := r.w.git.removeWorktree(ctx, clone, worktree); err != nil {
				r.problem("remove the stopped run's worktree", err)
			}
		}
		if r.w.git.branchExists(ctx, clone, cp.Branch) {
			if err := r.w.git.deleteBranch(ctx, clone, cp.Branch); err != nil {
				r.problem("delete the stopped run's branch", err)
			}
		}
		// A branch never pushed starts again from the base, under its
		// name; the conversation, when stored, still goes on.
		if r.w.git.remoteBranchExists(ctx, clone, cp.Branch) {
			base = cp.Branch
		}
	} else {
		// The branch and folder are named after the issue, the start time
		// and a random part, so that neither the claim comment nor its
		// time tells the branch before it is pushed; a run killed earlier
		// with the same name keeps its branch and worktree, so a later run
		// takes the next free suffix.
		name0 := strconv.Itoa(rec.Issue) + "-" + started.UTC().Format("20060102T150405Z") + "-" + branchNonce()
		stamp := name0
		for i := 2; i < 100; i++ {
			_, statErr := os.Stat(filepath.Join(worktreeRoot, stamp))
			if os.IsNotExist(statErr) && !r.w.git.branchExists(ctx, clone, "baton/"+stamp) {
				break
			}
			stamp = name0 + "-" + strconv.Itoa(i)
		}
		rec.Branch = "baton/" + stamp
		worktree = filepath.Join(worktreeRoot, stamp)
		if r.job.rescue() {
			rec.RescueNote = "no checkpoint from " + rec.RescuedFrom + ": started fresh"
		}
	}
	if err := os.MkdirAll(filepath.Dir(worktree), 0o700); err != nil {
		r.finish(ctx, outcome{category: WorktreeCreation, err: err})
		return
	}
	if err := r.w.git.addWorktree(ctx, clone, worktree, rec.Branch, base); err != nil {
		r.finish(ctx, outcome{category: WorktreeCreation, err: err})
		return
	}
	rec.Worktree = worktree
	if cp == nil {
		// A host taking the job over from here on knows the run's branch.
		r.checkpoint(ctx, "")
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
	var first Attempt
	if cp != nil && cp.SessionID != "" && len(cp.Transcript) > 0 && r.layTranscript(cp) {
		rec.RescueNote = "continued from the checkpoint of " + cp.Host + " (session " + cp.SessionID + ")"
		first = r.agent(ctx, "rescue", resumePrompt, []string{"--resume", cp.SessionID})
	} else {
		if cp != nil {
			rec.RescueNote = "continued the branch of " + cp.Host + "; no transcript: new session"
		}
		first = r.agent(ctx, "first", prompt, nil)
	}
	if first.Interrupted || (first.TimedOut && stopped(r.job.stoppingChan())) {
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
			second := r.agent(ctx, "resume", resumePrompt, []string{"--continue"})
			if second.Interrupted || (second.TimedOut && stopped(r.job.stoppingChan())) {
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
			out.resumeSkipped = &resumeSkip{Left: left, MinMinutes: x.MinResume()}
			rec.ResumeNote = out.resumeSkipped.note()
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

// runBranch reports whether name is a branch of the worker's runs, as a
// checkpoint names one.
func runBranch(name string) bool {
	rest, ok := strings.CutPrefix(name, "baton/")
	return ok && rest != "" && !strings.Contains(rest, "..") && !strings.ContainsAny(rest, "/\\ ~^:?*[")
}

// last reports whether the run is the job's last attempt.
func (j *jobRun) last() bool {
	return j != nil && j.maxAttempts > 0 && j.attempt >= j.maxAttempts
}

// jobTimedOut reports whether the job's context ended by its deadline
// rather than by the worker's shutdown: a failure of the attempt.
func jobTimedOut(ctx context.Context, stop <-chan struct{}) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && !stopped(stop)
}

// stoppingChan is closed once the worker was told to stop; nil without a
// job.
func (j *jobRun) stoppingChan() <-chan struct{} {
	if j == nil {
		return nil
	}
	return j.stopping
}

// prompt renders one of the templates for the run.
func (r *run) prompt(name string, d promptData) (string, error) {
	tmpl, err := loadTemplate(r.w.opts.PromptDir, r.w.opts.Lang, name)
	if err != nil {
		return "", err
	}
	return renderPrompt(tmpl, r.w.opts.Lang, d), nil
}

// agent runs the agent once (resume: the flags that continue a session)
// and records the attempt. While it runs, and when it ends, the run is
// checkpointed.
func (r *run) agent(ctx context.Context, kind, prompt string, resume []string) Attempt {
	cfg := r.w.opts.Config
	args := []string{"-p"}
	args = append(args, resume...)
	args = append(args, "--output-format", "json")
	args = append(args, cfg.Worker.Agent.Args...)
	env := r.agentEnv()
	idx := len(r.rec.Attempts)
	r.rec.Attempts = append(r.rec.Attempts, Attempt{Kind: kind, StartedAt: r.w.opts.Now(), ExitCode: -1})
	stopCheckpoints := r.checkpointEvery(ctx)
	a := runAgent(ctx, agentSpec{
		Command:   r.w.expandHome(cfg.WorkerAgentCommand()),
		Args:      args,
		Dir:       r.rec.Worktree,
		Env:       env,
		Prompt:    prompt,
		Deadline:  r.rec.Deadline,
		KillDelay: r.w.opts.KillDelay,
		Now:       r.w.opts.Now,
		AfterFunc: r.w.opts.AfterFunc,
		Reaper:    r.w.opts.Reaper,
		Started: func(pid int) {
			r.mu.Lock()
			r.rec.Attempts[idx].PID = pid
			r.mu.Unlock()
			r.save()
		},
	})
	stopCheckpoints()
	a.Kind = kind
	a.Stdout, a.Stderr = r.w.clean.clean(a.Stdout), r.w.clean.clean(a.Stderr)
	if a.Result != nil {
		a.Result.Result = lastChars(r.w.clean.clean(a.Result.Result), recordResult)
	}
	a.Error = r.w.clean.clean(a.Error)
	r.rec.Attempts[idx] = a
	r.save()
	sessionID := ""
	if a.Result != nil {
		sessionID = a.Result.SessionID
	}
	r.checkpoint(ctx, sessionID)
	return a
}

// agentEnv is the agent's environment: the worker's as far as the allow
// list goes (see allowedEnv), the configured variables, and the run's id.
func (r *run) agentEnv() []string {
	cfg := r.w.opts.Config
	env := allowedEnv(r.w.opts.Environ, cfg.Worker.Agent.PassEnv)
	for _, k := range sortedKeys(cfg.Worker.Agent.Env) {
		env = append(env, k+"="+cfg.Worker.Agent.Env[k])
	}
	return append(env, "BATON_WORKER_RUN="+r.rec.ID)
}

// outcome is how a run ends.
type outcome struct {
	pr       *PullRequestRef
	category Category
	detail   string
	err      error
	// resumeSkipped: the session was not resumed for lack of budget.
	resumeSkipped *resumeSkip
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
			detail = lastChars(textcut.OneLine(a.Result.Result), 300)
		}
		return outcome{category: CLIResultError, detail: detail}
	case a.ExitCode < 0 || a.Error != "":
		return outcome{category: CLIExecutionError, detail: a.Error}
	case a.ExitCode != 0:
		return outcome{category: CLINonZeroExit, detail: "exit status " + strconv.Itoa(a.ExitCode)}
	}
	return outcome{}
}

// findPR looks for the pull request of the run (see ownPR), linked to the
// issue or not.
// When there is none it waits RecheckDelay and asks once more, since GitHub
// links a new pull request to its issue with a delay.
func (r *run) findPR(ctx context.Context, ran bool) *PullRequestRef {
	if !ran {
		return nil
	}
	login, err := r.w.login(ctx, r.client)
	if err != nil {
		// Without the worker's own login no pull request can be trusted.
		r.problem("find pull requests: read the token's user", err)
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
		var linked, own []github.PullRequest
		err := r.w.retry(ctx, func() (err error) {
			linked, err = r.client.LinkedPullRequests(ctx, r.rec.Issue)
			return err
		})
		if err != nil {
			r.problem("find linked pull requests", err)
		}
		if p := r.ownPR(linked, login); p != nil {
			return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: p.Draft}
		}
		err = r.w.retry(ctx, func() (err error) {
			own, err = r.client.PullRequestsForBranch(ctx, r.rec.Branch)
			return err
		})
		if err != nil {
			r.problem("find pull requests of "+r.rec.Branch, err)
		}
		if p := r.ownPR(own, login); p != nil {
			return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: p.Draft}
		}
	}
	return nil
}

// ownPR returns the first of prs that is the run's own work: open or
// merged, from the run's branch of the configured repository (not a fork's
// branch of the same name), opened by the worker's login. The branch name
// is public once pushed, so anyone can open a pull request from a branch so
// named; a person's pull request that closes the issue, or an old or closed
// one, is not the agent's work either.
func (r *run) ownPR(prs []github.PullRequest, login string) *github.PullRequest {
	owner, name := r.client.Repo()
	for i, p := range prs {
		if (p.State == "open" || p.State == "merged") && p.Head == r.rec.Branch &&
			strings.EqualFold(p.HeadRepo, owner+"/"+name) && github.SameLogin(p.Author, login) {
			return &prs[i]
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
	if err := r.push(ctx); err != nil {
		r.problem("push "+rec.Branch, err)
		return nil
	}
	lang := r.w.opts.Lang
	body := msgFallbackBody.Format(lang, rec.Issue, blockQuote(neutralizeFences(lastChars(r.w.clean.clean(rec.lastAnswer()), 20000))))
	var p *github.PullRequest
	err = r.w.retryRateLimit(ctx, func() (err error) {
		p, err = r.client.CreatePullRequest(ctx, github.NewPullRequest{
			Title: msgFallbackTitle.Format(lang, r.issue.Title),
			Body:  body,
			Head:  rec.Branch,
			Base:  r.repo.Branch(),
			Draft: true,
		})
		return err
	})
	if err != nil {
		r.problem("open draft pull request", err)
		// It may exist after all (an answer lost on the way).
		var own []github.PullRequest
		lerr := r.w.retry(ctx, func() (err error) {
			own, err = r.client.PullRequestsForBranch(ctx, rec.Branch)
			return err
		})
		if login, lgerr := r.w.login(ctx, r.client); lerr == nil && lgerr == nil {
			if p := r.ownPR(own, login); p != nil {
				return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: p.Draft, Fallback: true}
			}
		}
		return nil
	}
	return &PullRequestRef{Number: p.Number, URL: p.URL, Draft: true, Fallback: true}
}

// draftURL is the URL of a fallback draft, or "".
func draftURL(p *PullRequestRef) string {
	if p == nil || !p.Fallback {
		return ""
	}
	return p.URL
}

// blockQuote makes text a Markdown block quote.
func blockQuote(text string) string {
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
	if jobTimedOut(ctx, r.job.stoppingChan()) && r.job.last() {
		// No attempt is left to give the issue back to.
		r.finish(ctx, outcome{category: JobTimeout})
		return
	}
	ctx = context.WithoutCancel(ctx)
	r.rec.State = StateInterrupted
	r.rec.Summary = "stopped by the worker's shutdown"
	r.rec.FinishedAt = r.w.opts.Now()
	r.rec.WorktreeKept = r.rec.Worktree != ""
	r.rec.LabelsPending = true
	r.step("finish")
	r.settle(ctx)
	r.save()
}

// finish ends the run: the record's outcome, the failure comment or the
// draft note, labels, the claim comment gone, the worktree removed (kept on
// failure when configured, or while it holds uncommitted work).
func (r *run) finish(ctx context.Context, out outcome) {
	if out.pr == nil && ctx.Err() != nil && out.category != JobTimeout {
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
	if out.pr != nil && out.pr.Fallback && out.category != NoLinkedPR {
		// The agent did not end normally: a draft of what it left is a
		// person's to look at, not a run done.
		rec.PullRequest = out.pr
		out.pr = nil
	}
	if out.pr != nil {
		rec.State = StateDone
		rec.PullRequest = out.pr
		rec.Category = ""
		done := success{
			Lead:        msgDoneHeading.In(lang),
			PullRequest: out.pr.URL,
			Duration:    rec.FinishedAt.Sub(rec.StartedAt),
			Host:        rec.Host,
			Resumed:     rec.Resumed,
			RescuedFrom: rec.RescuedFrom,
			RescueNote:  rec.RescueNote,
			Attempts:    rec.Attempts,
		}
		if out.pr.Fallback {
			// Keep the diagnosis of why the agent opened none.
			rec.Category = out.category
			rec.Summary = "draft pull request opened from the agent's commits"
			done.Lead = msgFallbackNote.Format(lang, rec.Branch, out.pr.URL)
		} else {
			rec.Summary = "pull request " + out.pr.URL
		}
		rec.CommentPending = successComment(lang, r.w.clean, done)
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
			ResumeSkipped:  out.resumeSkipped,
			Rescue:         rec.RescueNote,
			Draft:          draftURL(rec.PullRequest),
			HeldBack:       rec.HeldBack,
			SkippedFiles:   rec.SkippedFiles,
		})
	}
	rec.LabelsPending = true
	r.save()
	r.settle(ctx)
	r.save()
}

// msgAppToken explains a token that cannot ask GitHub for its user.
var msgAppToken = i18n.Msg{
	JA: "GitHub のトークンがユーザーを返しません（GitHub App のインストールトークン）: %s\nworker.github.app_slug にアプリのスラッグを設定してください。ワーカーはそのボット（<スラッグ>[bot]）として動きます。",
	EN: "the GitHub token cannot tell its user (a GitHub App installation token): %s\nSet worker.github.app_slug to the app's slug; the worker then acts as its bot (<slug>[bot]).",
}

// branchNonce is the random part of a run's branch name.
func branchNonce() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
