package decision

import (
	"context"
	"encoding/json"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
)

// RetryResult is what retrying one issue's pending decisions did.
type RetryResult struct {
	Session string    `json:"session_id"`
	Issue   int       `json:"issue_number"`
	Posted  []string  `json:"posted"`
	Failed  []Failure `json:"failed"`
	// Skipped were already captured or on the issue; they leave the
	// pending file too.
	Skipped  []string `json:"skipped_duplicates"`
	Warnings []string `json:"warnings,omitempty"`
}

// Retry posts a session's pending decisions, issue by issue, with the usual
// deduplication (the original tool's pending file of the session is moved
// into baton's first), removes what was posted (or found already posted) from the
// pending file and records the posted slugs in the session's state.
func Retry(ctx context.Context, dir state.Dir, session string, t tracker.Tracker, lang i18n.Lang, now time.Time) ([]RetryResult, error) {
	unlock, err := LockSession(ctx, dir, session)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := importLegacyPending(dir, session); err != nil {
		return nil, err
	}
	pf, err := LoadPending(dir, session)
	if err != nil {
		return nil, err
	}
	st, w, err := LoadState(dir, session)
	if err != nil {
		return nil, err
	}
	// Group by issue, keeping the first copy of each slug.
	var issues []int
	byIssue := map[int][]UserDecision{}
	for _, e := range pf.Entries {
		if _, ok := byIssue[e.Issue]; !ok {
			issues = append(issues, e.Issue)
		}
		for _, d := range e.Decisions {
			if !containsSlug(byIssue[e.Issue], d.Candidate.Slug) {
				byIssue[e.Issue] = append(byIssue[e.Issue], d)
			}
		}
	}
	var out []RetryResult
	for _, issue := range issues {
		r := RetryResult{Session: session, Issue: issue, Posted: []string{}, Failed: []Failure{}, Skipped: []string{}}
		if w != "" {
			r.Warnings = append(r.Warnings, w)
		}
		ds := byIssue[issue]
		var cands []Candidate
		for _, d := range ds {
			cands = append(cands, d.Candidate)
		}
		dd := Filter(ctx, t, issue, cands, st.CapturedSlugs)
		r.Skipped = append(r.Skipped, dd.Skipped...)
		if dd.Tier2Err != nil {
			r.Warnings = append(r.Warnings, msgTier2Skipped.Format(lang, issue, tracker.Summary(dd.Tier2Err), tracker.Hint(tracker.KindOf(dd.Tier2Err), lang)))
		}
		var todo []UserDecision
		for _, d := range ds {
			for _, c := range dd.Candidates {
				if c.Slug == d.Candidate.Slug {
					todo = append(todo, d)
				}
			}
		}
		if len(todo) > 0 {
			pr := Post(ctx, t, issue, todo, lang)
			r.Posted, r.Failed = pr.Posted, pr.Failed
		}
		if len(r.Posted) > 0 {
			slugs, _ := json.Marshal(r.Posted)
			if _, w, err := CommitState(dir, session, Patch{KeyCaptured: slugs}, now); err != nil {
				return append(out, r), err
			} else if w != "" {
				r.Warnings = append(r.Warnings, w)
			}
			st.CapturedSlugs = appendNew(st.CapturedSlugs, r.Posted...)
		}
		if err := RemovePending(dir, session, issue, append(append([]string{}, r.Posted...), r.Skipped...)); err != nil {
			return append(out, r), err
		}
		out = append(out, r)
	}
	return out, nil
}

func containsSlug(ds []UserDecision, slug string) bool {
	for _, d := range ds {
		if d.Candidate.Slug == slug {
			return true
		}
	}
	return false
}
