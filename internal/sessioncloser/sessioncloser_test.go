package sessioncloser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
)

type harness struct {
	t       *testing.T
	srv     *githubtest.Server
	project string
	home    string
	vars    map[string]string // the environment, HOME included
	env     Env
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	srv := githubtest.New(t)
	srv.AddIssue(githubtest.Issue{Title: "closer", Labels: []string{"status:in-progress"}})
	h := &harness{t: t, srv: srv, project: t.TempDir(), home: t.TempDir()}
	h.vars = map[string]string{"HOME": h.home}
	h.env = Env{
		Getenv: func(k string) string { return h.vars[k] },
		Getwd:  func() (string, error) { return h.project, nil },
		Now:    func() time.Time { return time.Date(2026, 4, 26, 5, 30, 0, 0, time.UTC) },
		Config: func(string) (*config.Config, error) { return &config.Config{Lang: "en"}, nil },
		Tracker: func(ctx context.Context, _ string) (tracker.Tracker, func() error, error) {
			cfg, err := github.Resolve(ctx, github.Env{Getenv: srv.Getenv})
			if err != nil {
				return nil, nil, err
			}
			cfg.Sleep = func(context.Context, time.Duration) error { return nil }
			c, err := github.New(cfg)
			return c, func() error { return nil }, err
		},
	}
	return h
}

// call runs one request and decodes the response, checking that it is one
// valid JSON object.
func (h *harness) call(req string) map[string]any {
	h.t.Helper()
	var out bytes.Buffer
	if err := Run(context.Background(), strings.NewReader(req), &out, h.env); err != nil {
		h.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		h.t.Fatalf("response is not JSON: %q", out.String())
	}
	if m["schema_version"] != 1.0 {
		h.t.Fatalf("schema_version: %v", m["schema_version"])
	}
	return m
}

func (h *harness) req(sub string, extra string) string {
	s := `{"schema_version":1,"subcommand":"` + sub + `","session_id":"abc123","project_dir":` + jsonStr(h.project)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func errKind(m map[string]any) string {
	if m["ok"] != false {
		return ""
	}
	return m["error"].(map[string]any)["kind"].(string)
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	if m["ok"] != true {
		t.Fatalf("not ok: %v", m)
	}
	return m["result"].(map[string]any)
}

const candA = `{"slug":"use-bin-adapter","what":"One adapter","why":"thin","alternatives":"none","consequences":"less code","scope_hint":"issue"}`
const candB = `{"slug":"isolate-gh","what":"Isolate gh","why":"tests","alternatives":"mock","consequences":"seam","scope_hint":"cross-issue"}`

func TestBadRequests(t *testing.T) {
	h := newHarness(t)
	huge := `{"schema_version":1,"subcommand":"read-transcript","x":"` + strings.Repeat("a", MaxRequest) + `"}`
	tests := []struct {
		name, req, want string
	}{
		{"not JSON", `{`, "request is not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"array", `[1]`, "not a JSON object"},
		{"empty", ``, "not a JSON object"},
		{"no schema", `{"subcommand":"read-transcript"}`, "schema_version mismatch"},
		{"wrong schema", `{"schema_version":2,"subcommand":"read-transcript"}`, "schema_version mismatch: got 2"},
		{"schema as string", `{"schema_version":"1","subcommand":"read-transcript"}`, "schema_version mismatch"},
		{"unknown subcommand", h.req("explode", ""), `unknown subcommand "explode"`},
		{"missing subcommand", `{"schema_version":1,"project_dir":"/tmp"}`, "subcommand is missing"},
		{"wrong type", h.req("read-transcript", `"offset":"twelve"`), "want an integer"},
		{"relative project that does not exist", `{"schema_version":1,"subcommand":"commit-state","session_id":"a","project_dir":"rel"}`, "does not exist"},
		{"project that does not exist", `{"schema_version":1,"subcommand":"commit-state","session_id":"a","project_dir":"/nonexistent/baton-project","patch":{}}`, "does not exist"},
		{"bad session", `{"schema_version":1,"subcommand":"commit-state","session_id":"../../etc","project_dir":"/tmp","patch":{}}`, "invalid"},
		{"huge", huge, "larger than"},
		{"bad candidate in post", h.req("post-decisions", `"issue_number":1,"decisions":[{"candidate":{"slug":"Bad Slug"},"final_scope":"issue"}]`), "missing required field: 'what'"},
		{"missing issue", h.req("post-decisions", `"decisions":[]`), "issue_number"},
		{"patch not an object", h.req("commit-state", `"patch":["x"]`), "field patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := h.call(tt.req)
			if errKind(m) != KindInternal {
				t.Fatalf("got %v; want an internal error", m)
			}
			if msg := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tt.want) {
				t.Errorf("message %q; want it to contain %q", msg, tt.want)
			}
		})
	}
	// A reader that fails is answered too.
	var out bytes.Buffer
	Run(context.Background(), iotest.ErrReader(os.ErrClosed), &out, h.env)
	if !strings.Contains(out.String(), `"kind":"internal"`) {
		t.Errorf("failing reader: %s", out.String())
	}
}

func TestReadTranscript(t *testing.T) {
	h := newHarness(t)
	line1 := `{"type":"user","message":{"role":"user","content":"hello"}}` + "\n"
	line2 := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}]}}` + "\n"
	path := filepath.Join(h.projects(), "t.jsonl")
	os.WriteFile(path, []byte(line1+line2+`{"type":"user","mess`), 0o600)

	r := result(t, h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(path)+`,"offset":0`)))
	if r["end_offset"] != float64(len(line1+line2)) {
		t.Errorf("end_offset %v; want %d (not into the partial line)", r["end_offset"], len(line1+line2))
	}
	content := r["content"].(string)
	if !strings.Contains(content, "hello") || strings.Contains(content, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("content not as expected or not redacted: %q", content)
	}
	// The bytes from offset, as given: the skill hands back end_offset.
	r = result(t, h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(path)+`,"offset":5`)))
	if c := r["content"].(string); !strings.HasPrefix(c, line1[5:]) || r["end_offset"] != float64(len(line1+line2)) {
		t.Errorf("from inside line 1: %v", r)
	}
	m := h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(path)+`,"offset":99999`))
	if r := result(t, m); r["end_offset"] != 99999.0 || r["content"] != "" || len(m["warnings"].([]any)) != 1 {
		t.Errorf("offset past the end: %v", m)
	}
	r = result(t, h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(path)+`,"offset":0,"max_bytes":10`)))
	if r["more"] != true || r["end_offset"] != float64(len(line1)) {
		t.Errorf("chunked read: %v", r)
	}
	m = h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(filepath.Join(h.projects(), "none.jsonl"))+`,"offset":0`))
	if errKind(m) != KindTranscriptMissing {
		t.Errorf("missing: %v", m)
	}
}

// projects is a project's folder in Claude Code's projects folder of the
// harness's home, made if need be.
func (h *harness) projects() string {
	h.t.Helper()
	dir := filepath.Join(h.home, ".claude", "projects", "-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	return dir
}

// read-transcript and extract read only transcripts in Claude Code's
// projects folders or baton's archive, links resolved first, and only
// regular files, without waiting on a FIFO.
func TestTranscriptPlaces(t *testing.T) {
	h := newHarness(t)
	line := `{"type":"user","message":{"role":"user","content":"hello"}}` + "\n"
	write := func(path string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	link := func(target, path string) string {
		t.Helper()
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		return path
	}
	outside := t.TempDir()
	shadow := filepath.Join(outside, "shadow")
	if err := os.WriteFile(shadow, []byte("root:$6$salt$hash:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	projects := h.projects()
	fifo := filepath.Join(projects, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	configDir := t.TempDir()
	h.vars["CLAUDE_CONFIG_DIR"] = configDir
	archive := filepath.Join(h.project, ".claude", "session-state", "archive", "transcripts", "-p", "s.jsonl")
	read := `"end_offset":` + strconv.Itoa(len(line)) // what a read of the whole line answers

	tests := []struct {
		name     string
		path     string
		wantKind string // "" for a read that succeeds
		want     string // in the answer
	}{
		{name: "in the projects folder", path: write(filepath.Join(projects, "a.jsonl")), want: read},
		{name: "in CLAUDE_CONFIG_DIR's projects folder", path: write(filepath.Join(configDir, "projects", "-p", "b.jsonl")), want: read},
		{name: "in the archive", path: write(archive), want: read},
		{name: "relative, inside", path: "../" + filepath.Base(h.home) + "/.claude/projects/-p/a.jsonl", want: read},
		{name: "a file elsewhere", path: shadow, wantKind: KindInternal, want: "in neither Claude Code's projects folders"},
		{name: "relative, leaving", path: "../" + filepath.Base(outside) + "/shadow", wantKind: KindInternal, want: "in neither"},
		{name: "dot-dot out of the projects folder", path: filepath.Join(projects, "..", "..", "..", filepath.Base(outside), "shadow"), wantKind: KindInternal, want: "in neither"},
		{name: "a link inside to a file elsewhere", path: link(shadow, filepath.Join(projects, "evil.jsonl")), wantKind: KindInternal, want: "in neither"},
		{name: "a linked folder inside to a folder elsewhere", path: filepath.Join(link(outside, filepath.Join(projects, "evil")), "shadow"), wantKind: KindInternal, want: "in neither"},
		{name: "missing, inside", path: filepath.Join(projects, "none.jsonl"), wantKind: KindTranscriptMissing},
		{name: "missing, elsewhere", path: filepath.Join(outside, "none.jsonl"), wantKind: KindInternal, want: "in neither"},
		{name: "a FIFO inside", path: fifo, wantKind: KindInternal, want: "is a FIFO"},
		{name: "a folder inside", path: projects + "/", wantKind: KindInternal, want: "is a folder"},
	}
	for _, tt := range tests {
		for _, sub := range []string{"read-transcript", "extract"} {
			t.Run(tt.name+"/"+sub, func(t *testing.T) {
				m := h.call(h.req(sub, `"transcript_path":`+jsonStr(tt.path)+`,"offset":0`))
				got, _ := json.Marshal(m)
				if kind := errKind(m); kind != tt.wantKind || !strings.Contains(string(got), tt.want) {
					t.Errorf("answer %s; want kind %q and %q", got, tt.wantKind, tt.want)
				}
				if strings.Contains(string(got), "$6$salt") {
					t.Errorf("answer %s holds the file elsewhere", got)
				}
			})
		}
	}

	// The archive counts only where no link in the repository leads it
	// elsewhere.
	state := filepath.Join(h.project, ".claude", "session-state")
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	link(outside, state)
	write(filepath.Join(outside, "archive", "transcripts", "-p", "s.jsonl"))
	if m := h.call(h.req("read-transcript", `"transcript_path":`+jsonStr(archive)+`,"offset":0`)); errKind(m) != KindInternal {
		t.Errorf("archive through a link out of the repository: %v; want refused", m)
	}
}

// within answers once its deadline passes, whatever fn does.
func TestWithinEndsAtTheDeadline(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	_, err := within(context.Background(), time.Millisecond, func(context.Context) (int, error) {
		<-block
		return 1, nil
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("within = %v; want the deadline's error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := within(ctx, time.Hour, func(context.Context) (int, error) { <-block; return 1, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("within a cancelled context = %v; want context.Canceled", err)
	}
}

func TestContractFlow(t *testing.T) {
	h := newHarness(t)
	// resolve-issue: Tier 1 finds issue 1.
	r := result(t, h.call(h.req("resolve-issue", `"branch":"main"`)))
	if r["issue_number"] != 1.0 || r["tier"] != "tier1" {
		t.Errorf("resolve: %v", r)
	}
	// Ambiguous with two labelled issues and no branch hint.
	h.srv.AddIssue(githubtest.Issue{Title: "two", Labels: []string{"status:in-progress"}})
	r = result(t, h.call(h.req("resolve-issue", `"branch":"main"`)))
	if !reflect.DeepEqual(r["ambiguous_candidates"], []any{1.0, 2.0}) {
		t.Errorf("ambiguous: %v", r)
	}
	r = result(t, h.call(h.req("resolve-issue", `"branch":"feat/2-closer"`)))
	if r["issue_number"] != 2.0 {
		t.Errorf("branch hint: %v", r)
	}
	h.srv.SetIssueState(1, "closed")
	h.srv.SetIssueState(2, "closed")
	if m := h.call(h.req("resolve-issue", `"branch":"main"`)); errKind(m) != KindIssueResolution {
		t.Errorf("none: %v", m)
	}
	h.srv.Fail(githubtest.RouteListIssues, 1, githubtest.BadCredentials())
	m := h.call(h.req("resolve-issue", `"branch":"main"`))
	if errKind(m) != KindGHFailure || m["error"].(map[string]any)["gh_failure_kind"] != "auth" || m["error"].(map[string]any)["hint"] == "" {
		t.Errorf("auth failure: %v", m)
	}

	// filter-dedup: Tier 1 and Tier 2.
	h.srv.AddComment(githubtest.Comment{Issue: 1, Body: decision.Render(decision.Candidate{Slug: "isolate-gh", What: "a", Why: "b", Alternatives: "c", Consequences: "d", ScopeHint: "issue"})})
	r = result(t, h.call(h.req("filter-dedup", `"issue_number":1,"candidates":[`+candA+`,`+candB+`],"captured_slugs":[]`)))
	if got := r["candidates"].([]any); len(got) != 1 || got[0].(map[string]any)["slug"] != "use-bin-adapter" {
		t.Errorf("dedup: %v", r)
	}
	if _, ok := r["tier2_skipped_kind"]; ok {
		t.Errorf("tier2_skipped_kind present on success: %v", r)
	}
	h.srv.Fail(githubtest.RouteListComments, 1, githubtest.BadCredentials())
	r = result(t, h.call(h.req("filter-dedup", `"issue_number":1,"candidates":[`+candA+`,`+candB+`],"captured_slugs":["use-bin-adapter"]`)))
	if r["tier2_skipped_kind"] != "auth" || len(r["candidates"].([]any)) != 1 {
		t.Errorf("tier2 skipped: %v", r)
	}

	// post-decisions: partial failure with the last failure's kind.
	h.srv.Fail(githubtest.RouteCreateComment, 1, githubtest.BadCredentials())
	decisions := `"decisions":[{"candidate":` + candA + `,"final_scope":"issue"},{"candidate":` + strings.Replace(candB, "isolate-gh", "second-one", 1) + `,"final_scope":"cross-issue"}]`
	r = result(t, h.call(h.req("post-decisions", `"issue_number":1,`+decisions)))
	if !reflect.DeepEqual(r["posted"], []any{"second-one"}) || r["gh_failure_kind"] != "auth" || r["gh_hint"] == "" {
		t.Errorf("post: %v", r)
	}
	failed := r["failed"].([]any)[0].(map[string]any)
	if failed["slug"] != "use-bin-adapter" || failed["kind"] != "auth" || failed["error"] == "" {
		t.Errorf("failed entry: %v", failed)
	}
	// post-decisions does not touch the state.
	dir := state.At(h.project)
	if _, err := os.Stat(decision.StatePath(dir, "abc123")); !os.IsNotExist(err) {
		t.Errorf("post-decisions wrote state: %v", err)
	}

	// save-pending, commit-state.
	r = result(t, h.call(h.req("save-pending", `"issue_number":1,"decisions":[{"candidate":`+candA+`,"final_scope":"issue"}]`)))
	if r["pending_path"] != decision.PendingPath(dir, "abc123") {
		t.Errorf("pending: %v", r)
	}
	r = result(t, h.call(h.req("commit-state", `"patch":{"skill_ran_at":"2026-04-26T05:30:00Z","last_processed_offset":12345,"captured_slugs":["second-one"]}`)))
	if r["state_path"] != decision.StatePath(dir, "abc123") {
		t.Errorf("commit: %v", r)
	}
	st, _, _ := decision.LoadState(dir, "abc123")
	if st.LastProcessedOffset != 12345 || !reflect.DeepEqual(st.CapturedSlugs, []string{"second-one"}) {
		t.Errorf("state: %+v", st)
	}

	// summary: posted once, then idempotent; view failure does not post.
	r = result(t, h.call(h.req("summary", `"issue_number":1,"captured_slugs_total":["second-one","",3]`)))
	if r["posted"] != true || r["marker"] != "<!-- claude-issueops:session-closer:summary:abc123 -->\n## Session summary\n" || !strings.Contains(r["comment_url"].(string), "issuecomment") {
		t.Errorf("summary: %v", r)
	}
	comments := h.srv.Comments(1)
	if last := comments[len(comments)-1].Body; !strings.Contains(last, "### Captured decisions (1)\n- second-one\n") {
		t.Errorf("summary body: %q", last)
	}
	r = result(t, h.call(h.req("summary", `"issue_number":1,"captured_slugs_total":["second-one"]`)))
	if r["posted"] != false || r["skipped"] != "idempotent" {
		t.Errorf("summary again: %v", r)
	}
	h.srv.Fail(githubtest.RouteListComments, 1, githubtest.BadCredentials())
	r = result(t, h.call(`{"schema_version":1,"subcommand":"summary","session_id":"other","project_dir":`+jsonStr(h.project)+`,"issue_number":1}`))
	if r["skipped"] != "view-failed" || r["gh_failure_kind"] != "auth" {
		t.Errorf("summary view failed: %v", r)
	}

	// escalate.
	mem := filepath.Join(t.TempDir(), "memory")
	r = result(t, h.call(h.req("escalate", `"project_memory_dir":`+jsonStr(mem)+`,"decisions":[{"candidate":`+candB+`,"final_scope":"cross-issue"},{"candidate":`+candA+`,"final_scope":"issue"}]`)))
	if !reflect.DeepEqual(r["written"], []any{"isolate-gh"}) {
		t.Errorf("escalate: %v", r)
	}
	idx, _ := os.ReadFile(filepath.Join(mem, "MEMORY.md"))
	if string(idx) != "- [isolate-gh](reference_isolate-gh.md) — Isolate gh\n" {
		t.Errorf("MEMORY.md: %q", idx)
	}
}

func TestAlwaysJSON(t *testing.T) {
	// Whatever the bytes, the answer is one JSON object.
	h := newHarness(t)
	for _, in := range []string{"\x00\xff", `{"schema_version":1}`, `{"schema_version":1,"subcommand":"escalate","decisions":[{"candidate":{"slug":"../x"}}]}`, `{"schema_version":1.5}`} {
		m := h.call(in)
		if m["ok"] != false {
			t.Errorf("%q: %v", in, m)
		}
	}
}

func FuzzRun(f *testing.F) {
	f.Add(`{"schema_version":1,"subcommand":"commit-state","session_id":"a","patch":{"captured_slugs":["x"]}}`)
	f.Add(`{"schema_version":1,"subcommand":"read-transcript","transcript_path":"/dev/null"}`)
	f.Fuzz(func(t *testing.T, in string) {
		// Requests naming their own folders could write anywhere: those
		// are left to the table tests.
		var fields map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &fields) == nil {
			for k := range fields {
				for _, risky := range []string{"project_dir", "project_memory_dir", "transcript_path"} {
					if strings.EqualFold(k, risky) {
						t.Skip()
					}
				}
			}
		}
		project, home := t.TempDir(), t.TempDir()
		env := Env{
			Getenv: func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			},
			Getwd:  func() (string, error) { return project, nil },
			Now:    time.Now,
			Config: func(string) (*config.Config, error) { return &config.Config{}, nil },
			Tracker: func(context.Context, string) (tracker.Tracker, func() error, error) {
				return nil, nil, &tracker.Error{Kind: tracker.KindNetwork, Op: "fuzz", Err: os.ErrClosed}
			},
		}
		var out bytes.Buffer
		if err := Run(context.Background(), strings.NewReader(in), &out, env); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["schema_version"] != 1.0 {
			t.Fatalf("%q answered %q", in, out.String())
		}
	})
}
