// Package sessioncloser is the JSON contract between the session-closer skill
// and baton: one JSON request on stdin, one JSON response on stdout, for the
// eight subcommands read-transcript, resolve-issue, filter-dedup,
// post-decisions, commit-state, summary, escalate and save-pending (plus
// extract, which runs the configured extractor). The skill asks the person;
// this package only does what it is told, with the decision package.
//
// It is a drop-in for claude-issueops' bin/session_closer.py: the same
// requests are accepted and answered with the same fields, error kinds and
// side effects (comments, state, pending and memory files), with baton's
// additions listed in the README's session-closer section.
//
// Whatever the input, Run writes one valid JSON response: bad requests,
// failures and panics become {"ok": false, "error": {...}} with one of the
// kinds transcript-missing, issue-resolution, gh-failure, extractor-parse,
// target-resolution, invalid-target-spec or internal.
package sessioncloser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
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
	// A resolve-issue request's target that names no issue, or that cannot
	// be read.
	KindTargetResolution  = "target-resolution"
	KindInvalidTargetSpec = "invalid-target-spec"
)

// MetaLabel marks the meta issues a resolve-issue target "meta" picks from.
const MetaLabel = "type:meta"

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
	// Subcommand is the one named on the command line, if any: it must be
	// the request's, and stands for it when the request names none.
	Subcommand string
	// ArgError is a command-line mistake, answered as a JSON error.
	ArgError error
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
	// BranchIssueNumber is, when resolve-issue could not list the issues
	// in progress, the issue the branch names: a candidate to offer.
	BranchIssueNumber int `json:"branch_issue_number,omitempty"`
}

// request holds the fields every subcommand may use; each reads its own.
// schema_version is checked by decode before the fields are read.
type request struct {
	Subcommand string `json:"subcommand"`
	SessionID  string `json:"session_id"`
	ProjectDir string `json:"project_dir"`

	TranscriptPath string   `json:"transcript_path"`
	Offset         looseInt `json:"offset"`
	MaxBytes       int      `json:"max_bytes"`
	// Format "text" asks read-transcript for a readable rendering of the
	// messages instead of the raw lines.
	Format string `json:"format"`

	Branch              string   `json:"branch"`
	IssueNumber         looseInt `json:"issue_number"`
	IssueNumberOverride int      `json:"issue_number_override"`
	Target              *string  `json:"target"`

	Candidates    []decision.Candidate    `json:"candidates"`
	CapturedSlugs []string                `json:"captured_slugs"`
	Decisions     []decision.UserDecision `json:"decisions"`
	Patch         decision.Patch          `json:"patch"`

	CapturedSlugsTotal []json.RawMessage `json:"captured_slugs_total"`
	Body               string            `json:"body"`
	ProjectMemoryDir   string            `json:"project_memory_dir"`

	// raw holds the request's fields as given, to tell a missing field
	// from an empty one.
	raw map[string]json.RawMessage
}

// looseInt is an integer field given as a JSON number or as a string of
// digits: the original reads such fields with Python's int(), which takes
// both. A number with a fraction is refused.
type looseInt int64

func (n *looseInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = 0
		return nil
	}
	text := string(b)
	if s := ""; json.Unmarshal(b, &s) == nil {
		text = strings.TrimSpace(s)
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(text, "+"), 10, 64)
	if err != nil {
		return fmt.Errorf("want an integer, got %s", b)
	}
	*n = looseInt(v)
	return nil
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
	b, err := encode(resp)
	if err != nil {
		b, _ = encode(Response{SchemaVersion: SchemaVersion, Error: &ErrorOut{Kind: KindInternal, Message: "encode response: " + err.Error()}})
	}
	_, err = out.Write(b)
	return err
}

// encode writes v on one line with characters as they are, as the original
// does (json.dumps with ensure_ascii=False): a marker reads "<!--", not
// "\u003c!--", to whoever reads the response.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func handle(ctx context.Context, in io.Reader, env Env) (resp Response) {
	resp.SchemaVersion = SchemaVersion
	defer func() {
		if r := recover(); r != nil {
			resp = errorResponse(fmt.Errorf("panic: %v: %s", r, firstLine(string(debug.Stack()))), i18n.EN)
		}
	}()
	if env.ArgError != nil {
		return errorResponse(fail(KindInternal, "%v", env.ArgError), i18n.EN)
	}
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
	if sub := env.Subcommand; sub != "" {
		if req.Subcommand == "" {
			req.Subcommand = sub
		} else if req.Subcommand != sub {
			return errorResponse(fail(KindInternal, "the command line names subcommand %q but the request names %q", sub, req.Subcommand), i18n.EN)
		}
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
	// A number equal to 1 (1.0 too, as the original compares it).
	var v float64
	if raw, ok := head["schema_version"]; !ok || json.Unmarshal(raw, &v) != nil || v != SchemaVersion {
		return nil, fail(KindInternal, "schema_version mismatch: got %s, want %d", strings.TrimSpace(string(head["schema_version"])), SchemaVersion)
	}
	req := &request{raw: head}
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
		// As the original: relative to the working directory.
		wd, err := s.env.Getwd()
		if err != nil {
			return fail(KindInternal, "working directory: %v", err)
		}
		project = filepath.Join(wd, project)
	}
	// Never create a project folder: a path that names none is a mistake.
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		return fail(KindInternal, "project_dir %q does not exist or is not a folder", project)
	}
	s.project = project
	if repo, err := gitrepo.Find(project); err == nil {
		s.repo = repo
		s.dir = state.For(repo)
	} else {
		s.dir = state.At(project)
	}
	if repo := s.repo; repo.Main != "" && s.writesState() {
		// Whatever creates the state folder keeps it out of git.
		if _, err := os.Stat(s.dir.Root); errors.Is(err, fs.ErrNotExist) {
			if _, err := repo.AddExclude(state.ExcludePattern); err != nil {
				s.warn("keep the state folder out of git: " + err.Error())
			}
		}
	}
	cfg, err := s.env.Config(s.worktree())
	if err != nil {
		return fail(KindInternal, "%v", err)
	}
	s.cfg = cfg
	s.lang = cfg.Language(s.env.Getenv)
	if s.needsSession() {
		if err := s.require("session_id"); err != nil {
			return err
		}
	}
	if s.req.SessionID != "" || s.needsSession() {
		if err := decision.CheckSessionID(s.req.SessionID); err != nil {
			return fail(KindInternal, "%v", err)
		}
	}
	return nil
}

// require fails, as the original does, when a field is absent.
func (s *session) require(names ...string) error {
	for _, n := range names {
		if _, ok := s.req.raw[n]; !ok {
			return fail(KindInternal, "missing required field: '%s'", n)
		}
	}
	return nil
}

// candidateFields are the keys a candidate must have.
var candidateFields = []string{"slug", "what", "why", "alternatives", "consequences", "scope_hint"}

// requireItems fails when an element of the list field holds no key of
// names, or (inner != "") no inner object with the keys of innerNames.
func (s *session) requireItems(field string, names []string, inner string, innerNames []string) error {
	raw, ok := s.req.raw[field]
	if !ok || string(raw) == "null" {
		return nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fail(KindInternal, "field %s: want a list of objects: %v", field, err)
	}
	for _, it := range items {
		for _, n := range names {
			if _, ok := it[n]; !ok {
				return fail(KindInternal, "missing required field: '%s'", n)
			}
		}
		if inner != "" {
			var in map[string]json.RawMessage
			if err := json.Unmarshal(it[inner], &in); err != nil || in == nil {
				return fail(KindInternal, "field %s.%s: want an object", field, inner)
			}
			for _, n := range innerNames {
				if _, ok := in[n]; !ok {
					return fail(KindInternal, "missing required field: '%s'", n)
				}
			}
		}
	}
	return nil
}

// requireDecisions checks the decisions field's shape: each a candidate with
// every field, and a final_scope (any value: only "cross-issue" means
// anything, as in the original).
func (s *session) requireDecisions() error {
	return s.requireItems("decisions", []string{"candidate", "final_scope"}, "candidate", candidateFields)
}

func (s *session) worktree() string {
	if s.repo.Worktree != "" {
		return s.repo.Worktree
	}
	return s.project
}

// writesState reports the subcommands that may create the state folder.
func (s *session) writesState() bool {
	switch s.req.Subcommand {
	case "commit-state", "save-pending", "post-decisions", "escalate":
		return true
	}
	return false
}

func (s *session) needsSession() bool {
	switch s.req.Subcommand {
	case "commit-state", "save-pending", "summary":
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

// readTranscript answers the raw bytes of the complete lines from offset,
// whatever they hold (what the skill hands to the model), secrets redacted;
// with "format": "text", a readable rendering of the messages instead.
func (s *session) readTranscript(ctx context.Context) (any, error) {
	path, err := s.transcriptPath()
	if err != nil {
		return nil, err
	}
	limit := s.req.MaxBytes
	if limit <= 0 {
		limit = DefaultReadBytes
	}
	offset := int64(s.req.Offset)
	type read struct {
		content string
		end     int64
		more    bool
	}
	var r read
	switch s.req.Format {
	case "", "raw":
		r, err = within(ctx, readDeadline, func(context.Context) (read, error) {
			data, end, more, err := transcript.ReadRaw(path, offset, limit)
			return read{string(data), end, more}, err
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", decision.ErrTranscriptMissing, path)
		}
		if err != nil {
			return nil, fail(KindInternal, "%v", err)
		}
		r.content = string(redact.JSONLines([]byte(r.content))) // each line stays JSON
	case "text":
		r, err = within(ctx, readDeadline, func(ctx context.Context) (read, error) {
			ex, end, more, err := decision.ReadExcerpt(ctx, path, offset, limit)
			return read{ex.Conversation, end, more}, err
		})
		if errors.Is(err, transcript.ErrOffset) {
			r, err = read{end: offset}, nil
		}
		if err != nil {
			return nil, err
		}
		r.content = redact.Redact(r.content)
	default:
		return nil, fail(KindInternal, "format %q: want raw or text", s.req.Format)
	}
	content, end, more := r.content, r.end, r.more
	if end == offset && offset > 0 {
		if fi, err := os.Stat(path); err == nil && fi.Size() < offset {
			s.warn(fmt.Sprintf("offset %d is past the end of the transcript (%d bytes): was it replaced or truncated?", offset, fi.Size()))
		}
	}
	res := map[string]any{"content": content, "end_offset": end}
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
	cands, end, usedName, err := f.Extract(ctx, int64(s.req.Offset))
	if err != nil {
		return nil, err
	}
	return map[string]any{"candidates": nonNilC(cands), "end_offset": end, "extractor": usedName}, nil
}

func (s *session) resolveIssue(ctx context.Context) (any, error) {
	if s.req.Target != nil {
		return s.resolveTarget(ctx, *s.req.Target)
	}
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
		override = int(s.req.IssueNumber)
	}
	res, err := decision.Resolve(ctx, t, decision.ResolveOptions{
		Override: override,
		Label:    s.cfg.DecisionsInProgressLabel(),
		Branch:   branch,
		Pattern:  s.cfg.DecisionsBranchPattern(),
	})
	if err != nil {
		if res.Issue > 0 {
			return nil, &branchCandidate{issue: res.Issue, err: err}
		}
		return nil, err
	}
	return res, nil
}

// branchCandidate is a failure to list the issues in progress, with the
// issue the branch names.
type branchCandidate struct {
	issue int
	err   error
}

func (b *branchCandidate) Error() string { return b.err.Error() }
func (b *branchCandidate) Unwrap() error { return b.err }

// resolveTarget answers a target as the original's --target does: "issue:N"
// is issue N; "meta" is the one open issue labelled type:meta (several: the
// candidates to choose from; none: a target-resolution error).
func (s *session) resolveTarget(ctx context.Context, target string) (any, error) {
	if n, ok := strings.CutPrefix(target, "issue:"); ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 && n[0] >= '1' && n[0] <= '9' {
			return decision.Resolution{Issue: v, Tier: "target"}, nil
		}
	}
	if target != "meta" {
		return nil, fail(KindInvalidTargetSpec, "invalid target spec: %q (expected 'meta' or 'issue:<int>')", target)
	}
	t, err := s.tracker(ctx)
	if err != nil {
		return nil, err
	}
	nums, err := decision.OpenLabelled(ctx, t, MetaLabel)
	if err != nil {
		return nil, err
	}
	switch len(nums) {
	case 0:
		return nil, &targetMissing{label: MetaLabel}
	case 1:
		return decision.Resolution{Issue: nums[0], Tier: "target"}, nil
	}
	return decision.Resolution{Ambiguous: nums}, nil
}

// targetMissing is a "meta" target with no open meta issue.
type targetMissing struct{ label string }

func (e *targetMissing) Error() string {
	return "no open Meta issues found (none is labelled " + e.label + ")"
}

var msgTargetHint = i18n.Msg{
	JA: "Meta Issue（ラベル type:meta）を起票するか、target なしで実行して通常の解決（作業中ラベル → ブランチ名）を使ってください",
	EN: "Open a Meta issue (label type:meta), or run without a target to use the usual resolution (in-progress label, then the branch name)",
}

// requireIssue fails when issue_number is absent, as the original does, or
// names no issue.
func (s *session) requireIssue() error {
	if err := s.require("issue_number"); err != nil {
		return err
	}
	if s.req.IssueNumber <= 0 {
		return fail(KindInternal, "issue_number must be a positive integer")
	}
	return nil
}

// filterDedup keeps the candidates not captured in this session (Tier 1)
// and not on the issue as a complete decision block (Tier 2), as given: a
// slug that is not kebab-case and a slug given twice pass through, as in the
// original. A candidate without one of its fields is an error.
func (s *session) filterDedup(ctx context.Context) (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	if err := s.requireItems("candidates", candidateFields, "", nil); err != nil {
		return nil, err
	}
	t, err := s.tracker(ctx)
	var dd decision.DedupResult
	if err != nil {
		// Without a tracker, Tier 1 only.
		dd = decision.Filter(ctx, nil, 0, s.req.Candidates, s.req.CapturedSlugs)
		dd.Tier2Err = err
	} else {
		dd = decision.Filter(ctx, t, int(s.req.IssueNumber), s.req.Candidates, s.req.CapturedSlugs)
	}
	res := map[string]any{"candidates": nonNilC(dd.Candidates)}
	if dd.Tier2Err != nil {
		res["tier2_skipped_kind"] = decision.FailureKind(dd.Tier2Err)
		s.warn("tier 2 dedup skipped: " + tracker.Summary(dd.Tier2Err))
	}
	return res, nil
}

// postDecisions posts one comment per decision. A decision that cannot be
// posted (a slug that is not kebab-case, an empty field) is reported in
// failed, like a tracker failure. session_id is optional, as in the
// original; with one, the posts are serialised with the session's other
// writers and logged under it.
func (s *session) postDecisions(ctx context.Context) (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	if err := s.requireDecisions(); err != nil {
		return nil, err
	}
	ds := s.req.Decisions
	t, err := s.tracker(ctx)
	if err != nil {
		return nil, err
	}
	if s.req.SessionID != "" {
		unlock, err := decision.LockSession(ctx, s.dir, s.req.SessionID)
		if err != nil {
			return nil, fail(KindInternal, "%v", err)
		}
		defer unlock()
	}
	pr := decision.Post(ctx, t, int(s.req.IssueNumber), ds, s.lang)
	// The decisions posted, each slug once.
	var posted []decision.UserDecision
	logged := map[string]bool{}
	for _, d := range ds {
		if slug := d.Candidate.Slug; slices.Contains(pr.Posted, slug) && !logged[slug] {
			logged[slug] = true
			posted = append(posted, d)
		}
	}
	if err := decision.LogApproved(s.dir, s.req.SessionID, int(s.req.IssueNumber), posted, s.env.Now()); err != nil {
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
	// No patch is an empty one, as in the original: the file gets the
	// session_id.
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
	// As the original: strings only, empty ones dropped.
	var slugs []string
	for _, raw := range s.req.CapturedSlugsTotal {
		var v string
		if json.Unmarshal(raw, &v) == nil && v != "" {
			slugs = append(slugs, v)
		}
	}
	t, err := s.tracker(ctx)
	if err != nil {
		return decision.SummaryResult{Skipped: decision.SkipViewFailed, Kind: decision.FailureKind(err), Hint: tracker.Hint(tracker.KindOf(err), s.lang)}, nil
	}
	return decision.PostSummary(ctx, t, int(s.req.IssueNumber), s.req.SessionID, slugs, s.req.Body, s.lang), nil
}

// escalate writes the cross-issue decisions to the agent memory folder:
// project_memory_dir, else the configured one, else Claude Code's for the
// project.
func (s *session) escalate() (any, error) {
	if err := s.requireDecisions(); err != nil {
		return nil, err
	}
	dir := s.req.ProjectMemoryDir
	if dir == "" {
		dir = s.cfg.Decisions.MemoryDir
	}
	if dir == "" {
		dir = claudecode.MemoryDir(s.env.Getenv("HOME"), s.project)
	}
	return decision.Escalate(dir, s.dir.Locks(), s.req.Decisions), nil
}

// savePending keeps decisions that could not be posted. issue_number is
// required: decisions stored without one could never be posted.
func (s *session) savePending() (any, error) {
	if err := s.requireIssue(); err != nil {
		return nil, err
	}
	if err := s.requireDecisions(); err != nil {
		return nil, err
	}
	ds := s.req.Decisions
	path, w, err := decision.SavePending(s.dir, s.req.SessionID, int(s.req.IssueNumber), ds, s.env.Now())
	s.warn(w)
	if err != nil {
		return nil, fail(KindInternal, "%v", err)
	}
	if err := decision.LogApproved(s.dir, s.req.SessionID, int(s.req.IssueNumber), ds, s.env.Now()); err != nil {
		s.warn(err.Error())
	}
	return map[string]any{"pending_path": path}, nil
}

// errorResponse classifies err once, here.
func errorResponse(err error, lang i18n.Lang) Response {
	out := &ErrorOut{Kind: KindInternal, Message: tracker.Summary(err)}
	var f *failure
	var te *tracker.Error
	var tm *targetMissing
	var bc *branchCandidate
	if errors.As(err, &bc) {
		out.BranchIssueNumber = bc.issue
	}
	switch {
	case errors.As(err, &f):
		out.Kind = f.kind
		// Not clipped: such a message names a file or a field whole.
		out.Message = textcut.OneLine(redact.Redact(err.Error()))
	case errors.As(err, &tm):
		out.Kind = KindTargetResolution
		out.Hint = msgTargetHint.In(lang)
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
