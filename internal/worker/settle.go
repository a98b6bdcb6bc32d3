package worker

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// settle brings GitHub in line with a finished record: its comment posted,
// the labels of its state, then its claim comment deleted. What fails stays
// pending in the record (the claim with it) for the next try.
func (w *Worker) settle(ctx context.Context, client *github.Client, rec *Record) {
	n := rec.Issue
	// The defaults when the repository is no longer configured.
	labels := w.repoByName(rec.Repo).LabelSet()
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
	// The claim goes last, and only once the rest is on GitHub: an issue
	// labelled in progress without a claim is put back and run again.
	if rec.ClaimCommentID != 0 && rec.settled() {
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

// retryAttempts is how many times the worker tries a GitHub call that
// failed for a transient reason, on top of the client's own retries.
const retryAttempts = 3

// DefaultRateLimitWait is how long the worker waits out GitHub's rate
// limits for one call (Options.RateLimitWait).
const DefaultRateLimitWait = 3 * time.Minute

// retry calls fn until it succeeds: up to retryAttempts times for a
// transient failure, waiting RetryDelay, then twice that; as long as
// GitHub's rate limits ask (Retry-After, X-RateLimit-Reset, else the same
// doubling delay) while the waits add up to no more than RateLimitWait.
// Failures that trying again cannot fix (credentials, a missing issue) are
// not retried. Only a call that may be repeated goes through retry; see
// retryRateLimit for one that may not.
func (w *Worker) retry(ctx context.Context, fn func() error) error {
	return w.tryFor(ctx, true, fn)
}

// retryRateLimit calls fn again only when GitHub refused it for a rate
// limit (it then did nothing), within RateLimitWait: a pull request that
// may have been created is not asked for twice.
func (w *Worker) retryRateLimit(ctx context.Context, fn func() error) error {
	return w.tryFor(ctx, false, fn)
}

func (w *Worker) tryFor(ctx context.Context, transient bool, fn func() error) error {
	delay := w.opts.RetryDelay
	var waited time.Duration
	var err error
	for tries := 1; ; {
		if err = fn(); err == nil {
			return nil
		}
		wait := delay
		switch kind := tracker.KindOf(err); {
		case kind == tracker.KindRateLimit:
			var te *tracker.Error
			if errors.As(err, &te) && te.RetryAfter > wait {
				wait = te.RetryAfter
			}
			if waited+wait > w.opts.RateLimitWait {
				return err
			}
			w.log.Info("github rate limit: waiting", "wait", wait, "err", tracker.Summary(err))
		case !transient, kind == tracker.KindAuth, kind == tracker.KindNotFound:
			return err
		default:
			if tries >= retryAttempts {
				return err
			}
			tries++
		}
		if ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		waited += wait
		delay *= 2
	}
}
