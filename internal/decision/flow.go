package decision

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/transcript"
)

// Failure choices after some decisions could not be posted.
type Choice string

const (
	// ChoiceSave keeps the unposted decisions for `baton decisions retry`.
	ChoiceSave Choice = "save"
	// ChoiceDiscard drops them.
	ChoiceDiscard Choice = "discard"
	// ChoiceAbort drops them and stops before the summary and escalation;
	// the transcript is not marked as reviewed.
	ChoiceAbort Choice = "abort"
)

// ErrCancelled is returned by a UI when the person cancels.
var ErrCancelled = errors.New("cancelled")

// ErrTranscriptMissing reports a transcript file that does not exist.
var ErrTranscriptMissing = errors.New("transcript not found")

// UI asks the person running a capture. The CLI implements it with prompts
// or flags; tests with fixed answers.
type UI interface {
	// ChooseIssue picks one of several issues.
	ChooseIssue(ctx context.Context, issues []int) (int, error)
	// Approve returns the candidates approved, with their final scope.
	Approve(ctx context.Context, cands []Candidate) ([]UserDecision, error)
	// OnFailure decides what happens to the decisions that failed.
	OnFailure(ctx context.Context, failed []Failure) (Choice, error)
}

// Flow captures one session's decisions: the ten steps of the session-closer
// contract, for a person at a terminal or a script with flags.
type Flow struct {
	State      state.Dir
	Session    string
	Transcript string
	Tracker    tracker.Tracker
	// Extractor finds candidates; nil means Rules. When Budget says the
	// day's tokens are spent, Rules is used instead and a warning says so.
	Extractor Extractor
	Budget    *Budget
	Resolve   ResolveOptions
	// Close adds the summary comment and the escalation of cross-issue
	// decisions to MemoryDir.
	Close     bool
	MemoryDir string
	Lang      i18n.Lang
	Now       func() time.Time
	UI        UI
	// ChunkBytes bounds the conversation text one extraction reads; a longer
	// new part is read in several chunks. 0 means DefaultChunk.
	ChunkBytes int
	// Warn receives warnings as they happen.
	Warn func(string)
}

// DefaultChunk is the conversation text given to one extraction.
const DefaultChunk = 400 << 10

// Statuses of an Outcome.
const (
	StatusDone          = "done"
	StatusNoCandidates  = "no-candidates"
	StatusRejected      = "rejected"
	StatusAborted       = "aborted"
	StatusNoIssue       = "issue-resolution"
	StatusNothingToRead = "nothing-new"
)

// Outcome is what a capture did.
type Outcome struct {
	Status string `json:"status"`
	Issue  int    `json:"issue_number,omitempty"`
	Tier   string `json:"tier,omitempty"`
	// Ambiguous are the issues in progress to choose from when several
	// were and nobody chose one.
	Ambiguous []int          `json:"ambiguous_candidates,omitempty"`
	Extractor string         `json:"extractor"`
	Found     []Candidate    `json:"found"`
	Approved  []UserDecision `json:"approved"`
	Posted    []string       `json:"posted"`
	Failed    []Failure      `json:"failed"`
	Skipped   []string       `json:"skipped_duplicates"`
	Pending   []string       `json:"pending"`
	Escalated []string       `json:"escalated"`
	Summary   *SummaryResult `json:"summary,omitempty"`
	Offset    int64          `json:"end_offset"`
	StatePath string         `json:"state_path,omitempty"`
	Warnings  []string       `json:"warnings"`
	Choice    Choice         `json:"on_failure,omitempty"`
	Tier2Kind string         `json:"tier2_skipped_kind,omitempty"`
	Usage     Usage          `json:"-"`
	Resolved  *Resolution    `json:"-"`
	Decisions []UserDecision `json:"-"`
}

func (f *Flow) warn(o *Outcome, msg string) {
	o.Warnings = append(o.Warnings, msg)
	if f.Warn != nil {
		f.Warn(msg)
	}
}

// LockSession takes the session's capture lock, waiting for another capture
// of the same session to finish. Posting, deduplication and the state commit
// happen under it, so two captures never post the same decision.
func LockSession(ctx context.Context, dir state.Dir, session string) (unlock func(), err error) {
	if err := CheckSessionID(session); err != nil {
		return nil, err
	}
	path := filepath.Join(dir.Sessions(), session+".capture.lock")
	if err := mkdirAll(dir.Sessions()); err != nil {
		return nil, err
	}
	l := flock.New(path)
	ok, err := l.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("lock session %s: %w", session, errors.Join(err, ctx.Err()))
	}
	return func() { l.Unlock() }, nil
}

// Run captures the session's new decisions. Its errors wrap
// ErrTranscriptMissing, ErrNoIssue, ErrExtractorParse, ErrCancelled or a
// tracker error; the state file changes as the session-closer contract's
// State Writes table says.
func (f *Flow) Run(ctx context.Context) (*Outcome, error) {
	o := &Outcome{Found: []Candidate{}, Approved: []UserDecision{}, Posted: []string{}, Failed: []Failure{}, Skipped: []string{}, Pending: []string{}, Escalated: []string{}, Warnings: []string{}}
	if err := CheckSessionID(f.Session); err != nil {
		return o, err
	}
	unlock, err := LockSession(ctx, f.State, f.Session)
	if err != nil {
		return o, err
	}
	defer unlock()
	now := f.Now()

	st, w, err := LoadState(f.State, f.Session)
	if err != nil {
		return o, err
	}
	if w != "" {
		f.warn(o, w)
	}

	// Step 2: the new part of the transcript, and its candidates.
	cands, end, err := f.extract(ctx, o, st.LastProcessedOffset)
	if err != nil {
		return o, err
	}
	o.Offset = end
	o.Found = cands
	if len(cands) == 0 {
		// Nothing to post: no need to find the issue.
		o.Status = StatusNoCandidates
		if end == st.LastProcessedOffset {
			o.Status = StatusNothingToRead
		}
		return o, f.commit(o, NewPatch(now, &end, nil))
	}

	// Step 3: the issue.
	res, err := Resolve(ctx, f.Tracker, f.Resolve)
	if err != nil && res.Issue > 0 {
		// The labelled issues could not be listed: go on with the
		// branch's issue, saying why.
		f.warn(o, msgBranchFallback.Format(f.Lang, res.Issue, tracker.Summary(err), tracker.Hint(tracker.KindOf(err), f.Lang)))
		err = nil
	}
	if err == nil && len(res.Ambiguous) > 0 {
		var n int
		n, err = f.UI.ChooseIssue(ctx, res.Ambiguous)
		if err != nil {
			// Nobody chose: the candidates go back to the caller, as the
			// original's resolve-issue answers them, to ask and run again.
			o.Ambiguous = res.Ambiguous
		}
		res = Resolution{Issue: n, Tier: TierOverride}
	}
	if err != nil {
		o.Status = StatusNoIssue
		if perr := f.commit(o, NewPatch(now, nil, nil)); perr != nil {
			f.warn(o, perr.Error())
		}
		if errors.Is(err, ErrCancelled) {
			return o, err
		}
		if !errors.Is(err, ErrNoIssue) {
			err = fmt.Errorf("%w: %w", ErrNoIssue, err)
		}
		return o, err
	}
	o.Issue, o.Tier, o.Resolved = res.Issue, res.Tier, &res

	// Step 4: dedup.
	cands, repeats := Unique(cands)
	o.Skipped = append(o.Skipped, repeats...)
	dd := Filter(ctx, f.Tracker, o.Issue, cands, st.CapturedSlugs)
	o.Skipped = append(o.Skipped, dd.Skipped...)
	if dd.Tier2Err != nil {
		o.Tier2Kind = FailureKind(dd.Tier2Err)
		f.warn(o, msgTier2Skipped.Format(f.Lang, o.Issue, tracker.Summary(dd.Tier2Err), tracker.Hint(tracker.KindOf(dd.Tier2Err), f.Lang)))
	}
	if len(dd.Candidates) == 0 {
		o.Status = StatusNoCandidates
		return o, f.commit(o, NewPatch(now, &end, nil))
	}

	// Step 5: approval.
	approved, err := f.UI.Approve(ctx, dd.Candidates)
	if err != nil && !errors.Is(err, ErrCancelled) {
		return o, err
	}
	if len(approved) == 0 {
		o.Status = StatusRejected
		if cerr := f.commit(o, NewPatch(now, nil, nil)); cerr != nil {
			return o, cerr
		}
		return o, err
	}
	o.Approved = approved

	// Steps 6 and 7: post, then decide about failures.
	pr := Post(ctx, f.Tracker, o.Issue, approved, f.Lang)
	o.Posted, o.Failed = pr.Posted, pr.Failed
	if pr.RecheckErr != nil {
		f.warn(o, msgRecheckFailed.Format(f.Lang, o.Issue, tracker.Summary(pr.RecheckErr)))
	}
	for _, s := range pr.AlreadyPosted {
		f.warn(o, msgAlreadyPosted.Format(f.Lang, s, o.Issue))
	}
	logged := posted(approved, pr.Posted)
	offset := &end
	if len(pr.Failed) > 0 {
		choice, err := f.UI.OnFailure(ctx, pr.Failed)
		if err != nil {
			choice = ChoiceAbort
			f.warn(o, err.Error())
		}
		o.Choice = choice
		failed := unposted(approved, pr.Posted)
		switch choice {
		case ChoiceSave:
			if _, w, err := SavePending(f.State, f.Session, o.Issue, failed, now); err != nil {
				// Not saved: keep the transcript unreviewed so the next
				// capture finds them again.
				f.warn(o, err.Error())
				offset = nil
			} else {
				if w != "" {
					f.warn(o, w)
				}
				for _, d := range failed {
					o.Pending = append(o.Pending, d.Candidate.Slug)
				}
				logged = append(logged, failed...)
			}
		case ChoiceAbort:
			offset = nil
		}
	}

	// Step 8: state.
	if err := f.commit(o, NewPatch(now, offset, pr.Posted)); err != nil {
		return o, err
	}
	if err := LogApproved(f.State, f.Session, o.Issue, logged, now); err != nil {
		f.warn(o, err.Error())
	}
	o.Decisions = approved
	if o.Choice == ChoiceAbort {
		o.Status = StatusAborted
		return o, nil
	}
	o.Status = StatusDone

	// Step 9: close mode.
	if f.Close {
		f.closeSession(ctx, o, approved)
	}
	return o, nil
}

// closeSession posts the summary and escalates the cross-issue decisions that
// were posted.
func (f *Flow) closeSession(ctx context.Context, o *Outcome, approved []UserDecision) {
	st, _, err := LoadState(f.State, f.Session)
	if err != nil {
		f.warn(o, err.Error())
	}
	if len(st.CapturedSlugs) > 0 {
		sr := PostSummary(ctx, f.Tracker, o.Issue, f.Session, st.CapturedSlugs, "", f.Lang)
		o.Summary = &sr
		switch sr.Skipped {
		case SkipViewFailed:
			f.warn(o, msgSummaryView.Format(f.Lang, o.Issue, sr.Hint))
		case SkipPostFailed:
			f.warn(o, msgSummaryPost.Format(f.Lang, o.Issue, sr.Hint))
		}
	}
	var cross []UserDecision
	for _, d := range posted(approved, o.Posted) {
		if d.FinalScope == ScopeCrossIssue {
			cross = append(cross, d)
		}
	}
	if len(cross) == 0 {
		return
	}
	if f.MemoryDir == "" {
		f.warn(o, msgNoMemoryDir.In(f.Lang))
		return
	}
	er := Escalate(f.MemoryDir, f.State.Locks(), cross)
	o.Escalated = er.Written
	for _, w := range er.Warnings {
		f.warn(o, w)
	}
}

// Extract reads the transcript from offset and returns the candidates, the
// offset read to and the name of the extractor that found them. Warnings go
// to f.Warn.
func (f *Flow) Extract(ctx context.Context, offset int64) ([]Candidate, int64, string, error) {
	o := &Outcome{}
	cands, end, err := f.extract(ctx, o, offset)
	return cands, end, o.Extractor, err
}

// extract reads the transcript from offset in chunks and runs the extractor
// on each, returning the candidates and the offset read to.
func (f *Flow) extract(ctx context.Context, o *Outcome, offset int64) ([]Candidate, int64, error) {
	ex := f.Extractor
	if ex == nil {
		ex = Rules{}
	}
	chunk := f.ChunkBytes
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	var all []Candidate
	seen := map[string]bool{}
	for {
		excerpt, end, more, err := ReadExcerpt(ctx, f.Transcript, offset, chunk)
		if errors.Is(err, transcript.ErrOffset) {
			f.warn(o, msgOffsetReset.Format(f.Lang, offset))
			offset = 0
			continue
		}
		if err != nil {
			return nil, offset, err
		}
		if excerpt.Conversation != "" {
			use := f.pickExtractor(o, ex)
			o.Extractor = use.Name()
			cands, usage, err := use.Extract(ctx, excerpt)
			if f.Budget != nil && usage.Total() > 0 {
				if berr := f.Budget.Add(usage.Total()); berr != nil {
					f.warn(o, berr.Error())
				}
			}
			o.Usage.InputTokens += usage.InputTokens
			o.Usage.OutputTokens += usage.OutputTokens
			if err != nil {
				if errors.Is(err, ErrExtractorParse) || ctx.Err() != nil {
					return nil, offset, err
				}
				f.warn(o, msgExtractorFailed.Format(f.Lang, use.Name(), clip(err.Error(), 200)))
				cands, _, _ = Rules{}.Extract(ctx, excerpt)
				o.Extractor = Rules{}.Name()
			}
			for _, c := range cands {
				if !seen[c.Slug] {
					seen[c.Slug] = true
					all = append(all, c)
				}
			}
		}
		offset = end
		if !more {
			break
		}
	}
	if o.Extractor == "" {
		o.Extractor = ex.Name()
	}
	return all, offset, nil
}

// pickExtractor returns ex, or Rules when ex uses a model and today's budget
// is spent.
func (f *Flow) pickExtractor(o *Outcome, ex Extractor) Extractor {
	if _, isRules := ex.(Rules); isRules || f.Budget == nil {
		return ex
	}
	spent, err := f.Budget.Spent()
	if err != nil {
		f.warn(o, err.Error())
	}
	if spent {
		f.warn(o, msgBudgetSpent.Format(f.Lang, f.Budget.Limit, ex.Name()))
		return Rules{}
	}
	return ex
}

// ReadExcerpt reads the transcript from offset until about limit bytes of
// conversation text, returning the excerpt, the offset read to and whether
// more is left. A missing file wraps ErrTranscriptMissing.
func ReadExcerpt(ctx context.Context, path string, offset int64, limit int) (Excerpt, int64, bool, error) {
	var conv, asst, prompts strings.Builder
	more := false
	end, err := transcript.Read(ctx, path, offset, func(m *transcript.Message) error {
		m.Render(&conv)
		switch t := m.Text(); {
		case t == "":
		case m.Role == transcript.Assistant:
			asst.WriteString(t)
			asst.WriteString("\n\n")
		case !m.Sidechain && isPrompt(t):
			prompts.WriteString(t)
			prompts.WriteString("\n\n")
		}
		if conv.Len() >= limit {
			more = true
			return transcript.ErrStop
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return Excerpt{}, offset, false, fmt.Errorf("%w: %s", ErrTranscriptMissing, path)
	}
	if err != nil {
		return Excerpt{}, offset, false, err
	}
	return Excerpt{Assistant: asst.String(), Prompts: prompts.String(), Conversation: conv.String()}, end, more, nil
}

// isPrompt reports whether a user message's text is the person's: not a
// tag the agent CLI writes (<command-name>, <local-command-stdout>, …) nor
// the summary it carries over a compaction.
func isPrompt(text string) bool {
	t := strings.TrimSpace(text)
	return !strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "This session is being continued from a previous conversation")
}

func (f *Flow) commit(o *Outcome, p Patch) error {
	path, w, err := CommitState(f.State, f.Session, p, f.Now())
	if w != "" {
		f.warn(o, w)
	}
	o.StatePath = path
	return err
}

// posted returns the decisions whose slug is in slugs.
func posted(ds []UserDecision, slugs []string) []UserDecision {
	var out []UserDecision
	for _, d := range ds {
		if containsString(slugs, d.Candidate.Slug) {
			out = append(out, d)
		}
	}
	return out
}

// unposted returns the decisions whose slug is not in slugs.
func unposted(ds []UserDecision, slugs []string) []UserDecision {
	var out []UserDecision
	for _, d := range ds {
		if !containsString(slugs, d.Candidate.Slug) {
			out = append(out, d)
		}
	}
	return out
}

// Line is the one-line result of a capture.
func (o *Outcome) Line(lang i18n.Lang) string {
	return msgResultLine.Format(lang, len(o.Posted), len(o.Escalated), len(o.Skipped))
}
