package worker

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// Liveness. River's rescuer (v0.51.2) gives a running job to another host
// only once it has run longer than RescueStuckJobsAfter, which must cover
// the longest run: a host that died in a run's first minute would hold its
// issue for the whole budget. River's producer reports do not drive a
// rescue in this version, so each host writes a heartbeat of its own
// (baton_host), every heartbeatEvery, and every host looks for running
// jobs whose host has been silent for the rescue margin: those go back to
// the queue at once (another host continues from the checkpoint), or, on
// their last attempt, end failed with the issue labelled so. River's own
// rescuer stays, past the budget, for a host whose heartbeat goes on while
// its job does not.

// hostSchema is baton's table of the hosts' heartbeats: a River client id,
// and when it last wrote, in Unix milliseconds.
const hostSchema = `CREATE TABLE IF NOT EXISTS baton_host (
	client_id TEXT PRIMARY KEY,
	seen_at BIGINT NOT NULL
)`

// rescueMargin is how long a host may stay silent before its jobs go to
// another host: worker.queue.rescue_margin_seconds, or Options.RescueMargin;
// never less than three heartbeats.
func (w *Worker) rescueMargin() time.Duration {
	return max(w.marginSetting(), 3*w.heartbeatEvery())
}

// marginSetting is the configured rescue margin.
func (w *Worker) marginSetting() time.Duration {
	if w.opts.RescueMargin > 0 {
		return w.opts.RescueMargin
	}
	return time.Duration(w.opts.Config.Worker.Queue.RescueMargin()) * time.Second
}

// heartbeatEvery is the time between two heartbeats of a host, and between
// two looks for silent hosts: a quarter of the margin, within 100 ms–5 s.
func (w *Worker) heartbeatEvery() time.Duration {
	return min(max(w.marginSetting()/4, 100*time.Millisecond), 5*time.Second)
}

// beat writes the heartbeat of client id.
func (q *Queue) beat(ctx context.Context, id string, now time.Time) error {
	_, err := q.db.ExecContext(ctx, `INSERT INTO baton_host (client_id, seen_at) VALUES ($1, $2)
	ON CONFLICT (client_id) DO UPDATE SET seen_at = excluded.seen_at`, id, now.UnixMilli())
	return err
}

// forget removes the heartbeat of client id, and those silent for a day.
func (q *Queue) forget(ctx context.Context, id string, now time.Time) error {
	_, err := q.db.ExecContext(ctx, "DELETE FROM baton_host WHERE client_id = $1 OR seen_at < $2", id, now.Add(-24*time.Hour).UnixMilli())
	return err
}

// seen returns when client id last wrote its heartbeat; false when it has
// none.
func (q *Queue) seen(ctx context.Context, id string) (time.Time, bool, error) {
	var ms int64
	err := q.db.QueryRowContext(ctx, "SELECT seen_at FROM baton_host WHERE client_id = $1", id).Scan(&ms)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return time.UnixMilli(ms), true, nil
}

// takeBack returns a running job's attempt to the queue (available at
// once), or, when discard, ends the job as discarded. It reports false
// when the job is no longer that running attempt (it ended, or another host
// took it back first).
func (q *Queue) takeBack(ctx context.Context, id int64, attempt int, discard bool, now time.Time) (bool, error) {
	state, finalized := "available", any(nil)
	if discard {
		state = "discarded"
		finalized = now.UTC()
		if q.SQLite() {
			// River's SQLite driver's time format.
			finalized = now.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
		}
	}
	res, err := q.db.ExecContext(ctx, "UPDATE river_job SET state = $3, finalized_at = $4 WHERE id = $1 AND attempt = $2 AND state = 'running'",
		id, attempt, state, finalized)
	if err != nil {
		return false, fmt.Errorf("take back job %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// heartbeat writes this host's heartbeat every heartbeatEvery until ctx
// ends, then removes it. Between beats it looks for jobs of silent hosts
// (rescueSilent), once the queue has answered for a whole margin in a row:
// right after an outage, every host's heartbeat is old.
func (w *Worker) heartbeat(ctx context.Context, s *session, id string) {
	every, margin := w.heartbeatEvery(), w.rescueMargin()
	t := time.NewTicker(every)
	defer t.Stop()
	var answering time.Time
	for {
		now := w.opts.Now()
		if err := s.q.beat(ctx, id, now); err != nil {
			if ctx.Err() == nil {
				w.log.Warn("heartbeat", "client", id, "err", err)
			}
			answering = time.Time{}
		} else if answering.IsZero() {
			answering = now
		} else if now.Sub(answering) >= margin {
			w.rescueSilent(ctx, s, id)
		}
		select {
		case <-ctx.Done():
			if err := s.q.forget(context.WithoutCancel(ctx), id, w.opts.Now()); err != nil {
				w.log.Warn("remove heartbeat", "client", id, "err", err)
			}
			return
		case <-t.C:
		}
	}
}

// rescueSilent takes back the running issue jobs whose host has been silent
// for the margin (self is this host's client id). A job on its last
// attempt ends: its issue is labelled failed with a comment saying why, and
// it is not enqueued again until a person relabels it.
func (w *Worker) rescueSilent(ctx context.Context, s *session, self string) {
	res, err := s.client.JobList(ctx, river.NewJobListParams().Kinds(IssueArgs{}.Kind()).States(rivertype.JobStateRunning).First(1000))
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("list running jobs", "err", err)
		}
		return
	}
	now, margin := w.opts.Now(), w.rescueMargin()
	for _, j := range res.Jobs {
		if len(j.AttemptedBy) == 0 || j.AttemptedAt == nil || now.Sub(*j.AttemptedAt) < margin {
			continue
		}
		host := j.AttemptedBy[len(j.AttemptedBy)-1]
		if host == self {
			continue
		}
		seen, ok, err := s.q.seen(ctx, host)
		if err != nil || (ok && now.Sub(seen) < margin) {
			continue
		}
		last := j.Attempt >= j.MaxAttempts
		took, err := s.q.takeBack(ctx, j.ID, j.Attempt, last, now)
		if err != nil || !took {
			continue
		}
		var args IssueArgs
		_ = json.Unmarshal(j.EncodedArgs, &args)
		w.log.Warn("rescued the job of a silent host", "job", j.ID, "host", host, "attempt", j.Attempt,
			"silent for", now.Sub(seen).Round(time.Millisecond), "last attempt", last, "repo", args.Repo, "issue", args.Issue)
		if last {
			w.failLost(ctx, s, j, args, HostOf(host))
		}
	}
}

// failLost ends the issue of a job whose host died on its last attempt:
// failed label and a comment, the claims gone, the checkpoint forgotten.
func (w *Worker) failLost(ctx context.Context, s *session, j *rivertype.JobRow, args IssueArgs, host string) {
	repo, ok := w.configuredRepo(args.Repo)
	if !ok {
		return
	}
	client, err := w.opts.Client(ctx, repo)
	if err != nil {
		w.log.Warn("github client", "repo", args.Repo, "err", err)
		return
	}
	w.failIssue(ctx, client, repo, args.Issue, HostLost, host)
	if err := s.q.deleteCheckpoint(ctx, j.ID, j.Attempt); err != nil {
		w.log.Warn("delete checkpoint", "job", j.ID, "err", err)
	}
}

// failIssue labels issue n failed with a comment naming category (the host
// whose run was lost), then deletes the worker's claims on it. The record
// is kept on this host, so that what does not reach GitHub now is tried
// again by Recover.
func (w *Worker) failIssue(ctx context.Context, client *github.Client, repo config.WorkerRepo, n int, category Category, host string) {
	now := w.opts.Now()
	rec := &Record{ID: newRunID(now), Repo: repo.Repo, Issue: n, Host: w.opts.Host, PID: w.opts.PID, State: StateFailed,
		Category: category, Summary: category.summary().In(i18n.EN), StartedAt: now, FinishedAt: now, LabelsPending: true, RescuedFrom: host}
	labels := repo.LabelSet()
	rec.CommentPending = failureComment(w.opts.Lang, w.clean, failure{Category: category, Rescue: "host " + host, Trigger: labels.Trigger})
	w.settle(ctx, client, rec)
	if rec.settled() {
		if err := w.deleteOwnClaims(ctx, client, n); err != nil {
			rec.Errors = append(rec.Errors, "delete claims: "+tracker.Summary(err))
		}
	}
	if err := w.store.Save(rec); err != nil {
		w.log.Warn("save run record", "run", rec.ID, "err", err)
	}
}
