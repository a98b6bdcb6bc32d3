package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/tracker/github"
)

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
		lock, ok := w.tryLock(rec.Repo, rec.Issue)
		if !ok {
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
			if lock, ok := w.tryLock(rec.Repo, rec.Issue); ok {
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
