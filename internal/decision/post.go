package decision

import (
	"context"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/tracker"
)

// Failure is a decision that could not be posted.
type Failure struct {
	Slug  string `json:"slug"`
	Error string `json:"error"`
	// Kind and Hint are set for tracker failures.
	Kind string `json:"kind,omitempty"`
	Hint string `json:"hint,omitempty"`
}

// DedupResult is what Filter kept.
type DedupResult struct {
	Candidates []Candidate
	// Skipped are the slugs dropped as already captured or posted.
	Skipped []string
	// Tier2Err is set when the issue's comments could not be read; only
	// the session's own slugs were checked then.
	Tier2Err error
}

// PostedSlugs returns the slugs of the decision comments on issue.
func PostedSlugs(ctx context.Context, t tracker.Tracker, issue int) (map[string]bool, error) {
	comments, err := t.Comments(ctx, issue)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range comments {
		for _, s := range SlugsIn(c.Body) {
			seen[s] = true
		}
	}
	return seen, nil
}

// Filter drops candidates already captured in this session (Tier 1) or
// already on the issue (Tier 2), and keeps everything else as given, a slug
// given twice included (the session-closer contract's rule; Unique drops
// repeats). When the issue cannot be read it goes on with Tier 1 and reports
// why in Tier2Err.
func Filter(ctx context.Context, t tracker.Tracker, issue int, cands []Candidate, captured []string) DedupResult {
	var res DedupResult
	var posted map[string]bool
	if t != nil && issue > 0 {
		posted, res.Tier2Err = PostedSlugs(ctx, t, issue)
	}
	for _, c := range cands {
		if slices.Contains(captured, c.Slug) || posted[c.Slug] {
			res.Skipped = append(res.Skipped, c.Slug)
			continue
		}
		res.Candidates = append(res.Candidates, c)
	}
	return res
}

// Unique keeps the first candidate of each slug and returns the slugs of the
// repeats it dropped.
func Unique(cands []Candidate) (kept []Candidate, repeats []string) {
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.Slug] {
			repeats = append(repeats, c.Slug)
			continue
		}
		seen[c.Slug] = true
		kept = append(kept, c)
	}
	return kept, repeats
}

// PostResult is what Post did.
type PostResult struct {
	Posted []string  `json:"posted"`
	Failed []Failure `json:"failed"`
	// AlreadyPosted are decisions found on the issue just before posting
	// (another capture got there first); they count as posted.
	AlreadyPosted []string `json:"-"`
	// LastKind and LastHint are the last tracker failure's.
	LastKind, LastHint string `json:"-"`
	// RecheckErr is set when the issue could not be read just before
	// posting; the decisions were posted on the strength of the earlier
	// checks.
	RecheckErr error `json:"-"`
}

// Post posts one comment per decision to issue, redacted. One failure does
// not stop the others. Just before posting it reads the issue again, so a
// decision another capture posted meanwhile is not posted twice; when that
// read fails it posts anyway (the session's own record already ruled out
// duplicates from this session).
func Post(ctx context.Context, t tracker.Tracker, issue int, decisions []UserDecision, lang i18n.Lang) PostResult {
	res := PostResult{Posted: []string{}, Failed: []Failure{}}
	posted, err := PostedSlugs(ctx, t, issue)
	if err != nil {
		res.RecheckErr = err
		posted = map[string]bool{}
	}
	for _, d := range decisions {
		slug := d.Candidate.Slug
		if err := checkPostable(d.Candidate); err != nil {
			res.Failed = append(res.Failed, Failure{Slug: slug, Error: clip(err.Error(), 200)})
			continue
		}
		if posted[slug] {
			res.Posted = append(res.Posted, slug)
			res.AlreadyPosted = append(res.AlreadyPosted, slug)
			continue
		}
		if _, err := t.AddComment(ctx, issue, redact.Redact(Render(d.Candidate))); err != nil {
			kind := tracker.KindOf(err)
			f := Failure{Slug: slug, Error: tracker.Summary(err), Kind: failureKind(kind), Hint: tracker.Hint(kind, lang)}
			res.Failed = append(res.Failed, f)
			res.LastKind, res.LastHint = f.Kind, f.Hint
			continue
		}
		posted[slug] = true
		res.Posted = append(res.Posted, slug)
	}
	return res
}

// failureKind maps a tracker kind onto the four the session-closer contract
// knows: auth, network, rate-limit, unknown.
func failureKind(k tracker.Kind) string {
	switch k {
	case tracker.KindAuth, tracker.KindNetwork, tracker.KindRateLimit:
		return string(k)
	}
	return string(tracker.KindUnknown)
}

// FailureKind is failureKind for an error.
func FailureKind(err error) string { return failureKind(tracker.KindOf(err)) }

// SummaryResult is what PostSummary did.
type SummaryResult struct {
	Posted     bool   `json:"posted"`
	Skipped    string `json:"skipped,omitempty"`
	Marker     string `json:"marker,omitempty"`
	CommentURL string `json:"comment_url,omitempty"`
	Kind       string `json:"gh_failure_kind,omitempty"`
	Hint       string `json:"gh_hint,omitempty"`
}

// Reasons a summary was not posted.
const (
	SkipIdempotent = "idempotent"
	SkipViewFailed = "view-failed"
	SkipPostFailed = "post-failed"
)

// PostSummary posts the session's summary comment unless one is there. When
// the issue cannot be read it does not post blind: it reports view-failed.
// body, when not empty, is posted as given instead of the rendered summary
// (secrets redacted). The result's Marker is SummaryAnchor, as the original
// tool reports it.
func PostSummary(ctx context.Context, t tracker.Tracker, issue int, session string, slugs []string, body string, lang i18n.Lang) SummaryResult {
	marker := SummaryMarker(session)
	anchor := SummaryAnchor(session)
	comments, err := t.Comments(ctx, issue)
	if err != nil {
		return SummaryResult{Skipped: SkipViewFailed, Kind: FailureKind(err), Hint: tracker.Hint(tracker.KindOf(err), lang)}
	}
	for _, c := range comments {
		if strings.Contains(c.Body, marker) {
			return SummaryResult{Skipped: SkipIdempotent, Marker: anchor}
		}
	}
	if body == "" {
		body = RenderSummary(session, slugs)
	}
	c, err := t.AddComment(ctx, issue, redact.Redact(body))
	if err != nil {
		return SummaryResult{Skipped: SkipPostFailed, Marker: anchor, Kind: FailureKind(err), Hint: tracker.Hint(tracker.KindOf(err), lang)}
	}
	return SummaryResult{Posted: true, Marker: anchor, CommentURL: c.URL}
}
