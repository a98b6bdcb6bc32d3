package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/tracker/github"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Recover puts in order the records of earlier runs on this machine. A
// finished run whose labels or comment did not reach GitHub gets them now.
// A run still marked running whose process is gone is marked interrupted
// here only: its job went back to the queue (River rescues it), which runs
// it again from its checkpoint, so the issue is left as it is.
func (w *Worker) Recover(ctx context.Context) ([]*Record, error) {
	recs, err := w.store.List()
	if err != nil {
		return nil, err
	}
	var out []*Record
	var errs []error
	clients := map[string]*github.Client{}
	for _, rec := range recs {
		if _, ok := w.inRun.Load(rec.ID); ok {
			continue // its run settles it
		}
		if rec.State == StateRunning {
			if w.live(rec) {
				continue
			}
			rec.State = StateInterrupted
			rec.Summary = "the worker stopped during the run; the queue gives its job to a host that continues it"
			rec.FinishedAt = w.opts.Now()
			rec.WorktreeKept = rec.Worktree != ""
			// The claim comment is the rescuing run's to delete.
			rec.ClaimCommentID = 0
			if err := w.store.Save(rec); err != nil {
				errs = append(errs, err)
			}
			out = append(out, rec)
			continue
		}
		if !rec.LabelsPending && rec.CommentPending == "" && rec.ClaimCommentID == 0 {
			continue
		}
		client, ok := clients[rec.Repo]
		if !ok {
			client, err = w.opts.Client(ctx, w.repoByName(rec.Repo))
			if err != nil {
				errs = append(errs, fmt.Errorf("recover %s#%d: %w", rec.Repo, rec.Issue, err))
				continue
			}
			clients[rec.Repo] = client
		}
		w.settle(ctx, client, rec)
		if err := w.store.Save(rec); err != nil {
			errs = append(errs, err)
		}
		w.log.Info("recovered run", "run", rec.ID, "repo", rec.Repo, "issue", rec.Issue, "state", rec.State)
		out = append(out, rec)
	}
	return out, errors.Join(errs...)
}

// live reports whether the process of a running record is alive: this one,
// or another on this host.
func (w *Worker) live(rec *Record) bool {
	if rec.Host != w.opts.Host {
		return false
	}
	if rec.PID == w.opts.PID {
		return true
	}
	alive, _ := wtstate.Process{PID: rec.PID}.Alive()
	return alive
}

// repoByName returns the configured repository, or one with only its name
// when it is no longer configured.
func (w *Worker) repoByName(repo string) config.WorkerRepo {
	if r, ok := w.configuredRepo(repo); ok {
		return r
	}
	return config.WorkerRepo{Repo: repo}
}

// Status is what `baton worker status` shows of this machine's records.
type Status struct {
	// Running are the runs in progress on this machine.
	Running []*Record `json:"running"`
	// Recent are the latest finished runs, newest first.
	Recent []*Record `json:"recent"`
}

// Status returns the runs in progress and the last n finished ones. A run
// marked running whose process is gone is reported as interrupted.
func (w *Worker) Status(n int) (*Status, error) {
	recs, err := w.store.List()
	if err != nil {
		return nil, err
	}
	st := &Status{Running: []*Record{}, Recent: []*Record{}}
	for _, rec := range recs {
		if _, ok := w.inRun.Load(rec.ID); ok {
			continue // its run settles it
		}
		if rec.State == StateRunning {
			if w.live(rec) {
				st.Running = append(st.Running, rec)
				continue
			}
			rec.State = StateInterrupted
			rec.Summary = "the worker is gone; the queue gives its job to another host"
		}
		if len(st.Recent) < n {
			st.Recent = append(st.Recent, rec)
		}
	}
	slices.Reverse(st.Running)
	return st, nil
}
