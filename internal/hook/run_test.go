package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/state"
)

type runEnv struct {
	repo     string
	env      map[string]string
	environ  []string
	warnings []error
}

func newRunEnv(t *testing.T) *runEnv {
	t.Helper()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "-b", "main", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return &runEnv{repo: repo, env: map[string]string{"HOME": t.TempDir()}}
}

func (e *runEnv) run(t *testing.T, payload string, providers ...Provider) (string, Result) {
	t.Helper()
	out, res, err := e.runErr(payload, providers...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out, res
}

// runErr is run returning Run's error instead of failing on it.
func (e *runEnv) runErr(payload string, providers ...Provider) (string, Result, error) {
	var out strings.Builder
	res, err := Run(context.Background(), strings.NewReader(payload), &out, Options{
		Now:        func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) },
		Getenv:     func(k string) string { return e.env[k] },
		Environ:    e.environ,
		Getwd:      func() (string, error) { return e.repo, nil },
		LoadConfig: func(root string) (*config.Config, error) { return config.Load(filepath.Join(root, config.RepoFile)) },
		Providers:  providers,
		Warn:       func(err error) { e.warnings = append(e.warnings, err) },
	})
	return out.String(), res, err
}

func TestRunAppendsRecord(t *testing.T) {
	e := newRunEnv(t)
	sub := filepath.Join(e.repo, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out, res := e.run(t, fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/x/a.go"}}`, sub))
	if out != "" {
		t.Errorf("PostToolUse wrote %q to stdout; want nothing", out)
	}
	if res.State.Root != filepath.Join(e.repo, ".claude", "session-state") {
		t.Errorf("state folder = %s; want the repository's", res.State.Root)
	}
	recs, err := journal.Open(res.State.Root, journal.Options{}).Tail(context.Background(), 10, journal.TailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("journal has %d records; want 1", len(recs))
	}
	r := recs[0]
	if r.Tool != "Edit" || r.File != "/x/a.go" || r.Cwd != sub || r.Worktree != e.repo || r.Branch != "main" || r.Session != "s1" {
		t.Errorf("record = %+v", r)
	}
	if len(e.warnings) != 0 {
		t.Errorf("warnings: %v", e.warnings)
	}
}

func TestRunBrokenConfigStillRecords(t *testing.T) {
	e := newRunEnv(t)
	if err := os.WriteFile(filepath.Join(e.repo, config.RepoFile), []byte("nonsense_key: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, res := e.run(t, `{"session_id":"s1","hook_event_name":"Stop"}`)
	recs, _ := journal.Open(res.State.Root, journal.Options{}).Tail(context.Background(), 10, journal.TailOptions{})
	if len(recs) != 1 {
		t.Errorf("journal has %d records; want 1 despite the broken config", len(recs))
	}
	if len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), "nonsense_key") {
		t.Errorf("warnings = %v; want one naming the unknown key", e.warnings)
	}
}

func TestRunSessionStartContext(t *testing.T) {
	e := newRunEnv(t)
	huge := ProviderFunc(func(context.Context, *Start) (string, error) { return strings.Repeat("x", 20000), nil })
	failing := ProviderFunc(func(context.Context, *Start) (string, error) { return "", errors.New("provider broke") })
	short := ProviderFunc(func(_ context.Context, s *Start) (string, error) {
		return "branch is " + s.Where.Branch + ", source " + s.Payload.Source, nil
	})
	out, _ := e.run(t, `{"session_id":"s1","hook_event_name":"SessionStart","source":"compact"}`, huge, failing, short)
	var got output
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not hook output JSON: %v\n%s", err, out)
	}
	ctx := got.HookSpecificOutput.AdditionalContext
	if got.HookSpecificOutput.HookEventName != SessionStart {
		t.Errorf("hookEventName = %q", got.HookSpecificOutput.HookEventName)
	}
	if Len(ctx) > MaxContext {
		t.Errorf("context has %d characters; limit %d", Len(ctx), MaxContext)
	}
	if !strings.HasPrefix(ctx, "branch is main, source compact") || strings.Contains(ctx, "xxxx") {
		t.Errorf("context = %.200q; want the short section, not the oversized one", ctx)
	}
	if len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), "provider broke") {
		t.Errorf("warnings = %v; want the failing provider reported", e.warnings)
	}
}

func TestRunNoContextNoOutput(t *testing.T) {
	e := newRunEnv(t)
	out, _ := e.run(t, `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`)
	if out != "" {
		t.Errorf("stdout = %q; want nothing when no provider has anything", out)
	}
}

// TestRunPaneRegistry drives the registry through a session's life against a
// real tmux server on a private socket.
func TestRunPaneRegistry(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	e := newRunEnv(t)
	sock := fmt.Sprintf("baton-hook-test-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).Output()
		if err != nil {
			t.Fatalf("tmux %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("-f", "/dev/null", "new-session", "-d", "-s", "t", "sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	pane := tmux("list-panes", "-F", "#{pane_id}")
	socketPath := tmux("display-message", "-p", "#{socket_path}")
	e.environ = []string{"TMUX=" + socketPath + ",1,0", "PATH=" + os.Getenv("PATH")}
	e.env["TMUX_PANE"] = pane

	regPath := panes.Path(e.env["HOME"])
	if err := panes.Update(regPath, func(r panes.Registry) bool {
		r["%99999"] = panes.Entry{Status: panes.Working, Dir: "/gone"}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		payload    string
		wantStatus string // "" = removed
		wantPrompt string
	}{
		{`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`, panes.Idle, ""},
		{`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"fix the bug"}`, panes.Working, "fix the bug"},
		{`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, panes.Working, "fix the bug"},
		{`{"session_id":"s1","hook_event_name":"Stop"}`, panes.Waiting, "fix the bug"},
		// An older session of a pane with the same id ends late: the
		// newer session's entry stays.
		{`{"session_id":"s0","hook_event_name":"SessionEnd","reason":"exit"}`, panes.Waiting, "fix the bug"},
		{`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"exit"}`, "", ""},
	}
	for _, st := range steps {
		e.run(t, st.payload)
		reg, err := panes.Read(regPath)
		if err != nil {
			t.Fatal(err)
		}
		if _, stale := reg["%99999"]; stale {
			t.Errorf("after %s: the dead pane is still registered", st.payload)
		}
		got, ok := reg[pane]
		if st.wantStatus == "" {
			if ok {
				t.Errorf("after SessionEnd the pane is still registered: %+v", got)
			}
			continue
		}
		if !ok || got.Status != st.wantStatus || got.Prompt != st.wantPrompt || got.SessionID != "s1" || got.Dir != e.repo {
			t.Errorf("after %s: entry = %+v (present %v); want status %s prompt %q", st.payload, got, ok, st.wantStatus, st.wantPrompt)
		}
	}
	if len(e.warnings) != 0 {
		t.Errorf("warnings: %v", e.warnings)
	}
}

// TestRunNeverCreatesFromPayloadPath: a payload's cwd that does not exist is
// never created; with no existing folder to find the repository from, the
// call is dropped with an error for the log.
func TestRunNeverCreatesFromPayloadPath(t *testing.T) {
	tmp := t.TempDir()
	gone := func(name string) string { return filepath.Join(tmp, name) }
	payload := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, filepath.Join(gone("cwd"), "sub"))
	env := map[string]string{"HOME": t.TempDir(), "CLAUDE_PROJECT_DIR": gone("project")}
	var out strings.Builder
	_, err := Run(context.Background(), strings.NewReader(payload), &out, Options{
		Now:        time.Now,
		Getenv:     func(k string) string { return env[k] },
		Getwd:      func() (string, error) { return gone("wd"), nil },
		LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil },
		Warn:       func(error) {},
	})
	if err == nil || !strings.Contains(err.Error(), "record dropped") {
		t.Errorf("Run error = %v; want the record dropped", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("Run created %v in %s; want nothing", entries[0].Name(), tmp)
	}
	if out.Len() > 0 {
		t.Errorf("stdout = %q; want nothing", out.String())
	}
}

// TestRunWorktreeFilesBroken: the worktree's own files cannot be written
// (a folder where records.jsonl belongs) or read (state.json is garbage):
// the journal still gets the record, the call goes on, and the problem is
// a warning for baton.log.
func TestRunWorktreeFilesBroken(t *testing.T) {
	e := newRunEnv(t)
	dir := filepath.Join(e.repo, ".claude", "session-state", "worktrees", state.WorktreeKey(e.repo))
	if err := os.MkdirAll(filepath.Join(dir, "records.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("\x00garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := e.run(t, fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/x/a.go"}}`, e.repo))
	if out != "" {
		t.Errorf("output %q; want none", out)
	}
	recs, err := journal.Open(filepath.Join(e.repo, ".claude", "session-state"), journal.Options{}).Tail(context.Background(), 10, journal.TailOptions{})
	if err != nil || len(recs) != 1 || recs[0].File != "/x/a.go" {
		t.Errorf("journal = %+v, %v; want the record", recs, err)
	}
	if len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), "worktree state") {
		t.Errorf("warnings %v; want one about the worktree state", e.warnings)
	}
	// A session start still gets its context from the providers.
	e.warnings = nil
	out, _ = e.run(t, fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, e.repo),
		ProviderFunc(func(context.Context, *Start) (string, error) { return "hello", nil }))
	if !strings.Contains(out, "hello") {
		t.Errorf("SessionStart output %q; want the context", out)
	}
}

// TestRunMarksDebateRecords: a session whose environment names a debate
// (BATON_DEBATE) has every record marked with it; a value of another shape
// is not recorded.
func TestRunMarksDebateRecords(t *testing.T) {
	tests := []struct{ env, want string }{
		{"cc-debate-20260101-120000-ab12:pro", "cc-debate-20260101-120000-ab12:pro"},
		{"", ""},
		{"x; rm -rf /:pro", ""},
		{strings.Repeat("a", 70) + ":pro", ""},
	}
	for _, tt := range tests {
		e := newRunEnv(t)
		e.env["BATON_DEBATE"] = tt.env
		_, res := e.run(t, fmt.Sprintf(`{"session_id":"s1","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"write round 1"}`, e.repo))
		recs, err := journal.Open(res.State.Root, journal.Options{}).Tail(context.Background(), 10, journal.TailOptions{})
		if err != nil || len(recs) != 1 {
			t.Fatalf("journal: %v, %v", recs, err)
		}
		if got := recs[0].Debate; got != tt.want {
			t.Errorf("BATON_DEBATE=%q: record's debate = %q; want %q", tt.env, got, tt.want)
		}
	}
}
