package decision

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// scriptUI answers a capture's questions from fields.
type scriptUI struct {
	choose    int
	reject    bool
	scopes    map[string]string
	onFailure Choice
	approved  [][]string
	failures  [][]Failure
}

func (u *scriptUI) ChooseIssue(_ context.Context, issues []int) (int, error) {
	if u.choose == 0 {
		return 0, ErrCancelled
	}
	return u.choose, nil
}

func (u *scriptUI) Approve(_ context.Context, cands []Candidate) ([]UserDecision, error) {
	var slugs []string
	var out []UserDecision
	for _, c := range cands {
		slugs = append(slugs, c.Slug)
		scope := c.ScopeHint
		if s, ok := u.scopes[c.Slug]; ok {
			scope = s
		}
		out = append(out, UserDecision{Candidate: c, FinalScope: scope})
	}
	u.approved = append(u.approved, slugs)
	if u.reject {
		return nil, nil
	}
	return out, nil
}

func (u *scriptUI) OnFailure(_ context.Context, failed []Failure) (Choice, error) {
	u.failures = append(u.failures, failed)
	return u.onFailure, nil
}

type flowEnv struct {
	srv  *githubtest.Server
	flow *Flow
	ui   *scriptUI
}

// newFlow sets up a session whose transcript states decisions a and b, an
// issue 1 labelled in progress, and a capture in close mode.
func newFlow(t *testing.T, texts ...string) *flowEnv {
	t.Helper()
	srv, gh := newGitHub(t)
	srv.AddIssue(githubtest.Issue{Title: "work", Labels: []string{DefaultInProgressLabel}})
	if len(texts) == 0 {
		texts = []string{block(cand("alpha")), "thinking…\n\n" + block(cand("beta"))}
	}
	ui := &scriptUI{onFailure: ChoiceSave}
	return &flowEnv{srv: srv, ui: ui, flow: &Flow{
		State:      testDir(t),
		Session:    "sess-1",
		Transcript: transcriptWith(t, texts...),
		Tracker:    gh,
		Lang:       i18n.EN,
		Now:        clock,
		UI:         ui,
		Close:      true,
		MemoryDir:  filepath.Join(t.TempDir(), "memory"),
	}}
}

func transcriptSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func commentSlugs(srv *githubtest.Server, issue int) []string {
	var out []string
	for _, c := range srv.Comments(issue) {
		if strings.Contains(c.Body, "session-closer:summary") {
			out = append(out, "summary")
			continue
		}
		if slugs := SlugsIn(c.Body); len(slugs) > 0 {
			out = append(out, slugs[0])
		}
	}
	return out
}

// TestStateWrites follows the State Writes table of the session-closer
// contract row by row.
func TestStateWrites(t *testing.T) {
	const earlier = 7
	tests := []struct {
		name      string
		setup     func(e *flowEnv)
		wantErr   error
		wantState map[string]any // nil: no state file
		offsetEnd bool           // last_processed_offset is the transcript's size
		pending   []string
		comments  []string
	}{
		{
			name:      "all posted",
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "captured_slugs": []any{"alpha", "beta"}},
			offsetEnd: true,
			comments:  []string{"alpha", "beta", "summary"},
		},
		{
			name: "partial failure, saved",
			setup: func(e *flowEnv) {
				e.srv.Fail(githubtest.RouteCreateComment, 1, githubtest.BadCredentials())
			},
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "captured_slugs": []any{"beta"}},
			offsetEnd: true,
			pending:   []string{"alpha"},
			comments:  []string{"beta", "summary"},
		},
		{
			name: "partial failure, discarded",
			setup: func(e *flowEnv) {
				e.ui.onFailure = ChoiceDiscard
				e.srv.Fail(githubtest.RouteCreateComment, 1, githubtest.BadCredentials())
			},
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "captured_slugs": []any{"beta"}},
			offsetEnd: true,
			comments:  []string{"beta", "summary"},
		},
		{
			name: "partial failure, aborted",
			setup: func(e *flowEnv) {
				e.ui.onFailure = ChoiceAbort
				e.srv.Fail(githubtest.RouteCreateComment, 1, githubtest.BadCredentials())
			},
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "captured_slugs": []any{"beta"}, "last_processed_offset": float64(earlier)},
			comments:  []string{"beta"}, // no summary after an abort
		},
		{
			name:      "all rejected",
			setup:     func(e *flowEnv) { e.ui.reject = true },
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "last_processed_offset": float64(earlier)},
		},
		{
			name: "no candidates",
			setup: func(e *flowEnv) {
				e.flow.Transcript = transcriptWith(t, "nothing decided here")
			},
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z"},
			offsetEnd: true,
		},
		{
			name: "no issue",
			setup: func(e *flowEnv) {
				e.srv.SetIssueState(1, "closed")
			},
			wantErr:   ErrNoIssue,
			wantState: map[string]any{"skill_ran_at": "2026-04-26T05:30:00Z", "last_processed_offset": float64(earlier)},
		},
		{
			name: "transcript missing",
			setup: func(e *flowEnv) {
				e.flow.Transcript = filepath.Join(t.TempDir(), "gone.jsonl")
				os.Remove(StatePath(e.flow.State, e.flow.Session))
			},
			wantErr: ErrTranscriptMissing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFlow(t)
			// An earlier run reviewed the first few bytes.
			if _, _, err := CommitState(e.flow.State, e.flow.Session, Patch{KeyOffset: []byte("7")}, fixedNow); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(e)
			}
			_, err := e.flow.Run(context.Background())
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run: got %v; want %v", err, tt.wantErr)
			}
			if err != nil && strings.Count(err.Error(), tt.wantErr.Error()) != 1 {
				t.Errorf("Run: error %q; want %q said once", err, tt.wantErr)
			}
			path := StatePath(e.flow.State, e.flow.Session)
			if tt.wantState == nil {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("state file written: %v", err)
				}
			} else {
				want := map[string]any{"session_id": e.flow.Session}
				for k, v := range tt.wantState {
					want[k] = v
				}
				if tt.offsetEnd {
					want["last_processed_offset"] = float64(transcriptSize(t, e.flow.Transcript))
				}
				if _, ok := want["last_processed_offset"]; !ok {
					want["last_processed_offset"] = float64(earlier)
				}
				if got := readJSON(t, path); !reflect.DeepEqual(got, want) {
					t.Errorf("state:\ngot  %v\nwant %v", got, want)
				}
			}
			pf, err := LoadPending(e.flow.State, e.flow.Session)
			if err != nil {
				t.Fatal(err)
			}
			var pending []string
			for _, en := range pf.Entries {
				for _, d := range en.Decisions {
					pending = append(pending, d.Candidate.Slug)
				}
			}
			if !reflect.DeepEqual(pending, tt.pending) {
				t.Errorf("pending: got %v; want %v", pending, tt.pending)
			}
			if got := commentSlugs(e.srv, 1); !reflect.DeepEqual(got, tt.comments) {
				t.Errorf("comments: got %v; want %v", got, tt.comments)
			}
		})
	}
}

func TestCaptureTwiceAndMoreLater(t *testing.T) {
	e := newFlow(t)
	e.ui.scopes = map[string]string{"beta": ScopeCrossIssue}
	o, err := e.flow.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Line(i18n.EN); got != "Posted 2 decisions, escalated 1 to memory, skipped 0 duplicates." {
		t.Errorf("line: %q", got)
	}
	// The memory folder has beta's file and index line, and nothing else.
	if ents, _ := os.ReadDir(e.flow.MemoryDir); len(ents) != 2 {
		t.Errorf("memory folder holds %d entries; want 2", len(ents))
	}
	idx, err := os.ReadFile(filepath.Join(e.flow.MemoryDir, MemoryIndex))
	if err != nil || string(idx) != "- [beta](reference_beta.md) — What of beta\n" {
		t.Errorf("MEMORY.md: %q %v", idx, err)
	}
	mem, _ := os.ReadFile(filepath.Join(e.flow.MemoryDir, "reference_beta.md"))
	if !strings.HasPrefix(string(mem), "---\nname: beta\ndescription: What of beta\ntype: reference\n---\n\n# beta\n\n**What:** What of beta\n") {
		t.Errorf("memory file: %q", mem)
	}

	// Nothing new: nothing posted, no second summary.
	o, err = e.flow.Run(context.Background())
	if err != nil || len(o.Posted) != 0 || o.Status != StatusNothingToRead {
		t.Errorf("second run: %+v %v", o, err)
	}
	// The same decisions restated later are duplicates (Tier 1); a new one
	// is posted, and the summary stays single.
	appendTranscript(t, e.flow.Transcript, block(cand("alpha")), block(cand("gamma")))
	o, err = e.flow.Run(context.Background())
	if err != nil || !reflect.DeepEqual(o.Posted, []string{"gamma"}) || !reflect.DeepEqual(o.Skipped, []string{"alpha"}) {
		t.Errorf("third run: posted %v skipped %v err %v", o.Posted, o.Skipped, err)
	}
	if got := commentSlugs(e.srv, 1); !reflect.DeepEqual(got, []string{"alpha", "beta", "summary", "gamma"}) {
		t.Errorf("comments: %v", got)
	}
	// The approved-decision log has each once.
	b, _ := os.ReadFile(filepath.Join(e.flow.State.Context(), "decisions.jsonl"))
	if n := strings.Count(string(b), "\n"); n != 3 || !strings.Contains(string(b), `"slug":"beta"`) || !strings.Contains(string(b), `"scope":"cross-issue"`) {
		t.Errorf("decisions.jsonl (%d lines): %s", n, b)
	}
}

func TestDedupAgainstTheIssue(t *testing.T) {
	e := newFlow(t)
	// Another tool already recorded alpha in the shared format.
	e.srv.AddComment(githubtest.Comment{Issue: 1, Body: block(cand("alpha"))})
	o, err := e.flow.Run(context.Background())
	if err != nil || !reflect.DeepEqual(o.Posted, []string{"beta"}) || !reflect.DeepEqual(o.Skipped, []string{"alpha"}) {
		t.Fatalf("posted %v skipped %v err %v", o.Posted, o.Skipped, err)
	}
}

func TestTier2SkippedWhenTheIssueCannotBeRead(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.srv.Fail(githubtest.RouteListComments, 1, githubtest.BadCredentials())
	o, err := e.flow.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Tier2Kind != "auth" || len(o.Posted) != 2 || !strings.Contains(strings.Join(o.Warnings, "\n"), "gh auth login") {
		t.Errorf("tier2 kind %q posted %v warnings %q", o.Tier2Kind, o.Posted, o.Warnings)
	}
}

func TestConcurrentCaptures(t *testing.T) {
	e := newFlow(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := *e.flow
			f.UI = &scriptUI{onFailure: ChoiceSave}
			_, errs[i] = f.Run(context.Background())
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := commentSlugs(e.srv, 1); !reflect.DeepEqual(got, []string{"alpha", "beta", "summary"}) {
		t.Errorf("comments after 4 concurrent captures: %v", got)
	}
}

func TestAmbiguousIssue(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.srv.AddIssue(githubtest.Issue{Title: "other", Labels: []string{DefaultInProgressLabel}})
	e.ui.choose = 2
	o, err := e.flow.Run(context.Background())
	if err != nil || o.Issue != 2 || len(e.srv.Comments(2)) != 2 {
		t.Errorf("issue %d, comments on 2: %d, err %v", o.Issue, len(e.srv.Comments(2)), err)
	}
	if o.Ambiguous != nil {
		t.Errorf("ambiguous_candidates after a choice = %v; want none", o.Ambiguous)
	}
}

// Nobody to choose (no terminal, --json): the candidates come back, as the
// original's resolve-issue gives them, and nothing is posted.
func TestAmbiguousIssueUnchosen(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.srv.AddIssue(githubtest.Issue{Title: "other", Labels: []string{DefaultInProgressLabel}})
	o, err := e.flow.Run(context.Background())
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v; want cancelled", err)
	}
	if !reflect.DeepEqual(o.Ambiguous, []int{1, 2}) || o.Status != StatusNoIssue {
		t.Errorf("ambiguous_candidates %v, status %q; want [1 2], %q", o.Ambiguous, o.Status, StatusNoIssue)
	}
	b, _ := json.Marshal(o)
	if !strings.Contains(string(b), `"ambiguous_candidates":[1,2]`) {
		t.Errorf("JSON %s; want ambiguous_candidates [1,2]", b)
	}
	if n := len(e.srv.Comments(1)) + len(e.srv.Comments(2)); n != 0 {
		t.Errorf("%d comments posted; want 0", n)
	}
}

func TestRetry(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.srv.Fail(githubtest.RouteCreateComment, -1, githubtest.ServerError(500))
	o, err := e.flow.Run(context.Background())
	if err != nil || len(o.Failed) != 2 || o.Failed[0].Kind != "unknown" || !reflect.DeepEqual(o.Pending, []string{"alpha", "beta"}) {
		t.Fatalf("failed %v pending %v err %v", o.Failed, o.Pending, err)
	}
	e.srv.ClearFaults()
	// beta got there meanwhile.
	e.srv.AddComment(githubtest.Comment{Issue: 1, Body: Render(cand("beta"))})
	res, err := Retry(context.Background(), e.flow.State, e.flow.Session, e.flow.Tracker, i18n.EN, fixedNow)
	if err != nil || len(res) != 1 || !reflect.DeepEqual(res[0].Posted, []string{"alpha"}) || !reflect.DeepEqual(res[0].Skipped, []string{"beta"}) {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if _, err := os.Stat(PendingPath(e.flow.State, e.flow.Session)); !os.IsNotExist(err) {
		t.Errorf("pending file left: %v", err)
	}
	st, _, _ := LoadState(e.flow.State, e.flow.Session)
	if !reflect.DeepEqual(st.CapturedSlugs, []string{"alpha"}) {
		t.Errorf("captured: %v", st.CapturedSlugs)
	}
}

func TestTrackerFailuresClassified(t *testing.T) {
	tests := []struct {
		name  string
		fault githubtest.Fault
		kind  string
	}{
		{"401", githubtest.BadCredentials(), "auth"},
		{"403 rate limited", githubtest.RateLimited(fixedNow), "rate-limit"},
		{"429", githubtest.TooManyRequests(0), "rate-limit"},
		{"500", githubtest.ServerError(500), "unknown"},
		{"reset", githubtest.ResetConnection(), "network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFlow(t)
			e.flow.Close = false
			e.srv.Fail(githubtest.RouteCreateComment, -1, tt.fault)
			o, err := e.flow.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(o.Failed) != 2 || o.Failed[0].Kind != tt.kind || o.Failed[0].Hint != tracker.Hint(tracker.Kind(tt.kind), i18n.EN) {
				t.Errorf("failed: %+v; want kind %s with its hint", o.Failed, tt.kind)
			}
			if strings.Contains(o.Failed[0].Error, e.srv.Token) || len([]rune(o.Failed[0].Error)) > 200 {
				t.Errorf("error text not redacted or too long: %q", o.Failed[0].Error)
			}
			if !reflect.DeepEqual(o.Pending, []string{"alpha", "beta"}) {
				t.Errorf("pending: %v", o.Pending)
			}
		})
	}
}

func TestSummaryViewFailed(t *testing.T) {
	srv, gh := newGitHub(t)
	srv.AddIssue(githubtest.Issue{Title: "x"})
	srv.Fail(githubtest.RouteListComments, -1, githubtest.BadCredentials())
	r := PostSummary(context.Background(), gh, 1, "s1", []string{"a"}, "", i18n.EN)
	if r.Posted || r.Skipped != SkipViewFailed || r.Kind != "auth" || srv.Calls(githubtest.RouteCreateComment) != 0 {
		t.Errorf("got %+v, %d posts; want view-failed and no post", r, srv.Calls(githubtest.RouteCreateComment))
	}
	srv.ClearFaults()
	r = PostSummary(context.Background(), gh, 1, "s1", []string{"a"}, "", i18n.EN)
	if !r.Posted || r.Marker != SummaryAnchor("s1") || !strings.Contains(r.CommentURL, "#issuecomment-") {
		t.Errorf("got %+v; want posted", r)
	}
	r = PostSummary(context.Background(), gh, 1, "s1", []string{"a"}, "", i18n.EN)
	if r.Posted || r.Skipped != SkipIdempotent {
		t.Errorf("got %+v; want idempotent", r)
	}
}

func TestEscalateReadOnly(t *testing.T) {
	// Tests run as root, who writes anywhere: a file where the folder
	// should be makes the write fail instead.
	dir := filepath.Join(t.TempDir(), "memory")
	if err := os.WriteFile(dir, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Escalate(dir, t.TempDir(), approve(ScopeCrossIssue, cand("a")))
	if len(r.Written) != 0 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "memory write failed for slug a") {
		t.Errorf("got %+v", r)
	}
	// Index failure: the file is written but the slug is not reported.
	dir2 := t.TempDir()
	os.Mkdir(filepath.Join(dir2, MemoryIndex), 0o700)
	r = Escalate(dir2, t.TempDir(), append(approve(ScopeCrossIssue, cand("b")), approve(ScopeIssue, cand("c"))...))
	if len(r.Written) != 0 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "index") {
		t.Errorf("got %+v", r)
	}
}

func TestSlowTrackerTimesOut(t *testing.T) {
	srv, gh := newGitHub(t, func(c *github.Config) { c.Retry = github.Retry{Attempts: 2, Timeout: 100 * time.Millisecond} })
	srv.AddIssue(githubtest.Issue{Title: "work", Labels: []string{DefaultInProgressLabel}})
	srv.Fail(githubtest.RouteCreateComment, -1, githubtest.Slow(time.Minute))
	dir := testDir(t)
	f := &Flow{State: dir, Session: "s", Transcript: transcriptWith(t, block(cand("alpha"))), Tracker: gh, Lang: i18n.EN, Now: clock, UI: &scriptUI{onFailure: ChoiceSave}}
	o, err := f.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Failed) != 1 || o.Failed[0].Kind != "network" || !reflect.DeepEqual(o.Pending, []string{"alpha"}) {
		t.Errorf("failed %+v pending %v; want a network failure saved as pending", o.Failed, o.Pending)
	}
}

func TestMalformedCommentsPage(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	for range 120 { // two pages of 100
		e.srv.AddComment(githubtest.Comment{Issue: 1, Body: "chatter"})
	}
	e.srv.AddComment(githubtest.Comment{Issue: 1, Body: Render(cand("alpha"))})
	e.srv.Fail(githubtest.RouteListComments, 1, githubtest.MalformedBody().After(1))
	o, err := e.flow.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Tier 2 could not read page 2, so dedup went on with Tier 1; the read
	// just before posting found alpha there, so it was not posted twice.
	if o.Tier2Kind != "unknown" || !reflect.DeepEqual(o.Posted, []string{"alpha", "beta"}) {
		t.Errorf("tier2 %q posted %v", o.Tier2Kind, o.Posted)
	}
	n := 0
	for _, s := range commentSlugs(e.srv, 1) {
		if s == "alpha" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("alpha is on the issue %d times; want 1", n)
	}
}

// TestResolveFailureNamed: when the issues in progress cannot be listed,
// capture goes on with the branch's issue but says why, hint included;
// Resolve itself returns the failure with the branch's issue as a
// candidate.
func TestResolveFailureNamed(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.flow.Resolve = ResolveOptions{Branch: "feat/1-export", Pattern: regexp.MustCompile(DefaultBranchPattern)}
	e.srv.Fail(githubtest.RouteListIssues, 1, githubtest.BadCredentials())
	o, err := e.flow.Run(context.Background())
	if err != nil || o.Issue != 1 || o.Tier != TierBranch {
		t.Fatalf("Run: issue %d tier %s err %v; want issue 1 from the branch", o.Issue, o.Tier, err)
	}
	if w := strings.Join(o.Warnings, "\n"); !strings.Contains(w, "could not list the issues in progress") || !strings.Contains(w, "gh auth status") {
		t.Errorf("warnings %q; want the failure and the auth hint", w)
	}
	e.srv.Fail(githubtest.RouteListIssues, 1, githubtest.BadCredentials())
	res, err := Resolve(context.Background(), e.flow.Tracker, e.flow.Resolve)
	if err == nil || res.Issue != 1 || res.Tier != TierBranch {
		t.Errorf("Resolve: %+v, %v; want the failure and issue 1 as the branch's candidate", res, err)
	}
}
