// Package sessioncloser is the JSON contract between the session-closer skill
// and baton: one JSON request on stdin, one JSON response on stdout, for the
// eight subcommands read-transcript, resolve-issue, filter-dedup,
// post-decisions, commit-state, summary, escalate and save-pending (plus
// extract, which runs the configured extractor). The skill asks the person;
// this package only does what it is told, with the decision package.
//
// Whatever the input, Run writes one valid JSON response: bad requests,
// failures and panics become {"ok": false, "error": {...}} with one of the
// kinds transcript-missing, issue-resolution, gh-failure, extractor-parse or
// internal.
package sessioncloser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/transcript"
)

// SchemaVersion is the contract's version; a request with another is refused.
const SchemaVersion = 1

// MaxRequest is the largest request read.
const MaxRequest = 16 << 20

// DefaultReadBytes bounds the content read-transcript returns at once.
const DefaultReadBytes = 1 << 20

// Error kinds.
const (
	KindTranscriptMissing = "transcript-missing"
	KindIssueResolution   = "issue-resolution"
	KindGHFailure         = "gh-failure"
	KindExtractorParse    = "extractor-parse"
	KindInternal          = "internal"
)

// Env is what Run needs from the process.
type Env struct {
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
	// Config loads the settings of a project folder.
	Config func(projectDir string) (*config.Config, error)
	// Tracker opens the issue tracker of a project folder.
	Tracker func(ctx context.Context, projectDir string) (tracker.Tracker, func() error, error)
	// Extractor builds the configured extractor (extract only).
	Extractor func(cfg *config.Config, dir state.Dir) (decision.Extractor, *decision.Budget)
}

// Response is the contract's output.
type Response struct {
	SchemaVersion int       `json:"schema_version"`
	OK            bool      `json:"ok"`
	Result        any       `json:"result,omitempty"`
	Warnings      []string  `json:"warnings,omitempty"`
	Error         *ErrorOut `json:"error,omitempty"`
}

// ErrorOut is a failure's description.
type ErrorOut struct {
	Kind          string `json:"kind"`
	Message       string `json:"message"`
	GHFailureKind string `json:"gh_failure_kind,omitempty"`
	Hint          string `json:"hint,omitempty"`
}

// request holds the fields every subcommand may use; each reads its own.
type request struct {
	SchemaVersion *int   `json:"schema_version"`
	Subcommand    string `json:"subcommand"`
	SessionID     string `json:"session_id"`
	ProjectDir    string `json:"project_dir"`

	TranscriptPath string `json:"transcript_path"`
	Offset         int64  `json:"offset"`
	MaxBytes       int    `json:"max_bytes"`

	Branch              string `json:"branch"`
	IssueNumber         int    `json:"issue_number"`
	IssueNumberOverride int    `json:"issue_number_override"`

	Candidates    []decision.Candidate    `json:"candidates"`
	CapturedSlugs []string                `json:"captured_slugs"`
	Decisions     []decision.UserDecision `json:"decisions"`
	Patch         decision.Patch          `json:"patch"`

	CapturedSlugsTotal []json.RawMessage `json:"captured_slugs_total"`
	Body               string            `json:"body"`
	ProjectMemoryDir   string            `json:"project_memory_dir"`
}

// failure is an error with its contract kind.
type failure struct {
	kind string
	err  error
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

func fail(kind string, format string, args ...any) error {
	return &failure{kind: kind, err: fmt.Errorf(format, args...)}
}

// Run answers one request read from in on out. It always writes a response
// and returns only the error of writing it.
func Run(ctx context.Context, in io.Reader, out io.Writer, env Env) error {
	resp := handle(ctx, in, env)
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(Response{SchemaVersion: SchemaVersion, Error: &ErrorOut{Kind: KindInternal, Message: "encode response: " + err.Error()}})
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

func handle(ctx context.Context, in io.Reader, env Env) (resp Response) {
	resp.SchemaVersion = SchemaVersion
	defer func() {
		if r := recover(); r != nil {
			resp = errorResponse(fmt.Errorf("panic: %v: %s", r, firstLine(string(debug.Stack()))), i18n.EN)
		}
	}()
	data, err := io.ReadAll(io.LimitReader(in, MaxRequest+1))
	if err != nil {
		return errorResponse(fail(KindInternal, "read request: %v", err), i18n.EN)
	}
	if len(data) > MaxRequest {
		return errorResponse(fail(KindInternal, "request larger than %d bytes", MaxRequest), i18n.EN)
	}
	req, err := decode(data)
	if err != nil {
		return errorResponse(err, i18n.EN)
	}
	s := &session{env: env, req: req}
	if err := s.setup(); err != nil {
		return errorResponse(err, i18n.EN)
	}
	defer s.close()
	result, err := s.dispatch(ctx)
	if err != nil {
		return errorResponse(err, s.lang)
	}
	return Response{SchemaVersion: SchemaVersion, OK: true, Result: result, Warnings: nonNil(s.warnings)}
}

// decode checks the schema version first, then the fields' types.
func decode(data []byte) (*request, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(data, &head); err != nil || head == nil {
		return nil, fail(KindInternal, "request is not a JSON object: %v", errOr(err, "null"))
	}
	var v int
	if raw, ok := head["schema_version"]; !ok || json.Unmarshal(raw, &v) != nil || v != SchemaVersion {
		return nil, fail(KindInternal, "schema_version mismatch: got %s, want %d", strings.TrimSpace(string(head["schema_version"])), SchemaVersion)
	}
	req := &request{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fail(KindInternal, "field %s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return nil, fail(KindInternal, "decode request: %v", err)
	}
	return req, nil
}

// session is one request being answered.
type session struct {
	env      Env
	req      *request
	dir      state.Dir
	project  string
	repo     gitrepo.Repo
	cfg      *config.Config
	lang     i18n.Lang
	warnings []string
	trk      tracker.Tracker
	closeTrk func() error
}

func (s *session) setup() error {
	project := s.req.ProjectDir
	if project == "" {
		project = s.env.Getenv("CLAUDE_PROJECT_DIR")
	}
	if project == "" {
		wd, err := s.env.Getwd()
		if err != nil {
			return fail(KindInternal, "working directory: %v", err)
		}
		project = wd
	}
	if !filepath.IsAbs(project) {
		return fail(KindInternal, "project_dir %q is not an absolute path", project)
	}
	s.project = project
	if repo, err := gitrepo.Find(project); err == nil {
		s.repo = repo
		s.dir = state.For(repo)
	} else {
		s.dir = state.At(project)
	}
	cfg, err := s.env.Config(s.worktree())
	if err != nil {
		return fail(KindInternal, "%v", err)
	}
	s.cfg = cfg
	s.lang = cfg.Language(s.env.Getenv)
	if s.req.SessionID != "" || s.needsSession() {
		if err := decision.CheckSessionID(s.req.SessionID); err != nil {
			return fail(KindInternal, "%v", err)
		}
	}
	return nil
}

func (s *session) worktree() string {
	if s.repo.Worktree != "" {
		return s.repo.Worktree
	}
	return s.project
}

func (s *session) needsSession() bool {
	switch s.req.Subcommand {
	case "commit-state", "save-pending", "summary", "post-decisions":
		return true
	}
	return false
}

func (s *session) close() {
	if s.closeTrk != nil {
		s.closeTrk()
	}
}

func (s *session) tracker(ctx context.Context) (tracker.Tracker, error) {
	if s.trk != nil {
		return s.trk, nil
	}
	t, closeFn, err := s.env.Tracker(ctx, s.worktree())
	if err != nil {
		return nil, err
	}
	s.trk, s.closeTrk = t, closeFn
	return t, nil
}

func (s *session) warn(w string) {
	if w != "" {
		s.warnings = append(s.warnings, w)
	}
}

func (s *session) dispatch(ctx context.Context) (any, error) {
	switch s.req.Subcommand {
	case "read-transcript":
		return s.readTranscript(ctx)
	case "extract":
		return s.extract(ctx)
	case "resolve-issue":
		return s.resolveIssue(ctx)
	case "filter-dedup":
		return s.filterDedup(ctx)
	case "post-decisions":
		return s.postDecisions(ctx)
	case "commit-state":
		return s.commitState()
	case "summary":
		return s.summary(ctx)
	case "escalate":
		return s.escalate()
	case "save-pending":
		return s.savePending()
	case "":
		return nil, fail(KindInternal, "subcommand is missing")
	}
	return nil, fail(KindInternal, "unknown subcommand %q", s.req.Subcommand)
}

// transcriptPath is the request's path, else the session's transcript in
// Claude Code's folder for the project.
func (s *session) transcriptPath() (string, error) {
	if s.req.TranscriptPath != "" {
		return s.req.TranscriptPath, nil
	}
	if err := decision.CheckSessionID(s.req.SessionID); err != nil {
		return "", fail(KindInternal, "transcript_path is missing and %v", err)
	}
	return filepath.Join(claudecode.TranscriptDir(s.env.Getenv("HOME"), s.project), s.req.SessionID+".jsonl"), nil
}

func (s *session) readTranscript(ctx context.Context) (any, error) {
	path, err := s.transcriptPath()
	if err != nil {
		return nil, err
	}
	limit := s.req.MaxBytes
	if limit <= 0 {
		limit = DefaultReadBytes
	}
	offset := s.req.Offset
	ex, end, more, err := decision.ReadExcerpt(ctx, path, offset, limit)
	if errors.Is(err, transcript.ErrOffset) {
		s.warn(fmt.Sprintf("offset %d is outside the transcript (replaced or truncated?); read from the start", offset))
		ex, end, more, err = decision.ReadExcerpt(ctx, path, 0, limit)
	}
	if err != nil {
		return nil, err
	}
	res := map[string]any{"content": redact.Redact(ex.Conversation), "end_offset": end}
	if more {
		res["more"] = true
	}
	return res, nil
}

func (s *session) extract(ctx context.Context) (any, error) {
	path, err := s.transcriptPath()
	if err != nil {
		return nil, err
	}
	f := &decision.Flow{Transcript: path, Lang: s.lang, Warn: s.warn}
	if s.env.Extractor != nil {
		f.Extractor, f.Budget = s.env.Extractor(s.cfg, s.dir)
	}
	cands, end, usedName, err := f.Extract(ctx, s.req.Offset)
	if err != nil {
		return nil, err
	}
	return map[string]any{"candidates": nonNilC(cands), "end_offset": end, "extractor": usedName}, nil
}

func (s *session) resolveIssue(ctx context.Context) (any, error) {
	t, err := s.tracker(ctx)
	if err != nil {
		return nil, err
	}
	branch := s.req.Branch
	if branch == "" {
		branch = s.repo.Branch
	}
	override := s.req.IssueNumberOverride
	if override == 0 {
		override = s.req.IssueNumber
	}
	res, err := decision.Resolve(ctx, t, decision.ResolveOptions{
		Override: override,
		Label:    s.cfg.DecisionsInProgressLabel(),
		Branch:   branch,
		Pattern:  s.cfg.DecisionsBranchPattern(),
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *session) requireIssue() error {
	if s.req.IssueNumber <= 0 {
		return fail(KindInternal, "issue_number must be a positive integer")
	}
	return nil
}

// validCandidates drops invalid candidates with a warning each.
func (s *session) validCandidates(cs []decision.Candidate) []decision.Candidate {
	var out []decision.Candidate
	for _, c := range cs {
		if err := c.Validate(); err != nil {
			s.warn("dropped candidate: " + err.Error())
			continue
		}
		out = append(out, c)
	}
	return out
}

func (s *session) filterDedup(ctx context.Context) (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	cands := s.validCandidates(s.req.Candidates)
	t, err := s.tracker(ctx)
	var dd decision.DedupResult
	if err != nil {
		// Without a tracker, Tier 1 only.
		dd = decision.Filter(ctx, nil, 0, cands, s.req.CapturedSlugs)
		dd.Tier2Err = err
	} else {
		dd = decision.Filter(ctx, t, s.req.IssueNumber, cands, s.req.CapturedSlugs)
	}
	res := map[string]any{"candidates": nonNilC(dd.Candidates)}
	if dd.Tier2Err != nil {
		res["tier2_skipped_kind"] = decision.FailureKind(dd.Tier2Err)
		s.warn("tier 2 dedup skipped: " + tracker.Summary(dd.Tier2Err))
	}
	return res, nil
}

func (s *session) validDecisions() ([]decision.UserDecision, error) {
	for _, d := range s.req.Decisions {
		if err := d.Validate(); err != nil {
			return nil, fail(KindInternal, "%v", err)
		}
	}
	return s.req.Decisions, nil
}

func (s *session) postDecisions(ctx context.Context) (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	ds, err := s.validDecisions()
	if err != nil {
		return nil, err
	}
	t, err := s.tracker(ctx)
	if err != nil {
		return nil, err
	}
	unlock, err := decision.LockSession(ctx, s.dir, s.req.SessionID)
	if err != nil {
		return nil, fail(KindInternal, "%v", err)
	}
	defer unlock()
	pr := decision.Post(ctx, t, s.req.IssueNumber, ds, s.lang)
	var posted []decision.UserDecision
	for _, d := range ds {
		for _, p := range pr.Posted {
			if d.Candidate.Slug == p {
				posted = append(posted, d)
			}
		}
	}
	if err := decision.LogApproved(s.dir, s.req.SessionID, s.req.IssueNumber, posted, s.env.Now()); err != nil {
		s.warn(err.Error())
	}
	res := map[string]any{"posted": pr.Posted, "failed": pr.Failed}
	if pr.LastKind != "" {
		res["gh_failure_kind"] = pr.LastKind
		res["gh_hint"] = pr.LastHint
	}
	return res, nil
}

func (s *session) commitState() (any, error) {
	if s.req.Patch == nil {
		return nil, fail(KindInternal, "patch is missing")
	}
	path, w, err := decision.CommitState(s.dir, s.req.SessionID, s.req.Patch, s.env.Now())
	s.warn(w)
	if err != nil {
		return nil, fail(KindInternal, "%v", err)
	}
	return map[string]any{"state_path": path}, nil
}

func (s *session) summary(ctx context.Context) (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	var slugs []string
	for _, raw := range s.req.CapturedSlugsTotal {
		var v string
		if json.Unmarshal(raw, &v) == nil && strings.TrimSpace(v) != "" {
			slugs = append(slugs, v)
		}
	}
	t, err := s.tracker(ctx)
	if err != nil {
		return decision.SummaryResult{Skipped: decision.SkipViewFailed, Kind: decision.FailureKind(err), Hint: tracker.Hint(tracker.KindOf(err), s.lang)}, nil
	}
	return decision.PostSummary(ctx, t, s.req.IssueNumber, s.req.SessionID, slugs, s.req.Body, s.lang), nil
}

func (s *session) escalate() (any, error) {
	dir := s.req.ProjectMemoryDir
	if dir == "" {
		dir = s.cfg.Decisions.MemoryDir
	}
	if dir == "" {
		dir = claudecode.MemoryDir(s.env.Getenv("HOME"), s.project)
	}
	for _, d := range s.req.Decisions {
		if !decision.ValidSlug(d.Candidate.Slug) {
			return nil, fail(KindInternal, "decision slug %q is not kebab-case", d.Candidate.Slug)
		}
	}
	return decision.Escalate(dir, s.req.Decisions), nil
}

func (s *session) savePending() (any, error) {
	ds, err := s.validDecisions()
	if err != nil {
		return nil, err
	}
	path, w, err := decision.SavePending(s.dir, s.req.SessionID, s.req.IssueNumber, ds, s.env.Now())
	s.warn(w)
	if err != nil {
		return nil, fail(KindInternal, "%v", err)
	}
	if err := decision.LogApproved(s.dir, s.req.SessionID, s.req.IssueNumber, ds, s.env.Now()); err != nil {
		s.warn(err.Error())
	}
	return map[string]any{"pending_path": path}, nil
}

// errorResponse classifies err once, here.
func errorResponse(err error, lang i18n.Lang) Response {
	out := &ErrorOut{Kind: KindInternal, Message: tracker.Summary(err)}
	var f *failure
	var te *tracker.Error
	switch {
	case errors.As(err, &f):
		out.Kind = f.kind
	case errors.Is(err, decision.ErrTranscriptMissing):
		out.Kind = KindTranscriptMissing
	case errors.Is(err, decision.ErrNoIssue):
		out.Kind = KindIssueResolution
	case errors.Is(err, decision.ErrExtractorParse):
		out.Kind = KindExtractorParse
	case errors.As(err, &te) || tracker.KindOf(err) != tracker.KindUnknown:
		out.Kind = KindGHFailure
		out.GHFailureKind = decision.FailureKind(err)
		out.Hint = tracker.Hint(tracker.KindOf(err), lang)
	}
	return Response{SchemaVersion: SchemaVersion, Error: out}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilC(c []decision.Candidate) []decision.Candidate {
	if c == nil {
		return []decision.Candidate{}
	}
	return c
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
