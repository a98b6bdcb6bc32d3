package claudetest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
)

// The test binary doubles as a hook command: when the CLI runs it with
// hookLogEnv set, it appends the hook's stdin JSON as one line to that
// file and, for SessionStart, prints hookContextEnv as additional context.
const (
	hookLogEnv     = "CLAUDETEST_HOOK_LOG"
	hookContextEnv = "CLAUDETEST_HOOK_CONTEXT"
)

func TestMain(m *testing.M) {
	if log := os.Getenv(hookLogEnv); log != "" {
		os.Exit(runHook(log, os.Getenv(hookContextEnv)))
	}
	os.Exit(m.Run())
}

func runHook(log, context string) int {
	var payload bytes.Buffer
	if _, err := payload.ReadFrom(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "read hook input:", err)
		return 1
	}
	var line bytes.Buffer
	if err := json.Compact(&line, payload.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "hook input is not JSON:", err)
		return 1
	}
	line.WriteByte('\n')
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open hook log:", err)
		return 1
	}
	defer f.Close()
	if _, err := f.Write(line.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "write hook log:", err)
		return 1
	}
	var event struct {
		Name string `json:"hook_event_name"`
	}
	if json.Unmarshal(payload.Bytes(), &event) == nil && event.Name == "SessionStart" && context != "" {
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":     "SessionStart",
			"additionalContext": context,
		}})
		os.Stdout.Write(out)
	}
	return 0
}

// hookPayload is the part of a hook's input the tests look at.
type hookPayload struct {
	Event          string          `json:"hook_event_name"`
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	Source         string          `json:"source"`
	Trigger        string          `json:"trigger"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   struct {
		Stdout string `json:"stdout"`
	} `json:"tool_response"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// recordHooks makes every event in events run the test binary as a hook in
// e, and returns a function reading the payloads recorded so far.
func recordHooks(t *testing.T, e *claudetest.Env, context string, events ...string) func() []hookPayload {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("find test binary: %v", err)
	}
	log := filepath.Join(t.TempDir(), "hooks.jsonl")
	e.Extra = append(e.Extra, hookLogEnv+"="+log, hookContextEnv+"="+context)
	e.WriteProjectSettings(t, claudetest.HookSettings(claudetest.ShellQuote(exe), events...))
	return func() []hookPayload {
		t.Helper()
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("read hook log: %v", err)
		}
		var out []hookPayload
		for line := range strings.Lines(string(raw)) {
			var p hookPayload
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("hook log line %q: %v", line, err)
			}
			out = append(out, p)
		}
		return out
	}
}

func eventNames(ps []hookPayload) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Event)
	}
	return names
}

var bashHello = map[string]string{"command": "echo hello-from-tool", "description": "Print a greeting"}

func TestPrintModeAnswersScriptedText(t *testing.T) {
	t.Parallel()
	s := modelserver.New(t, modelserver.Text("Hello from the scripted model."))
	e := claudetest.New(t, s)

	stdout, _ := e.Run(t, "-p", "hi")

	if got, want := strings.TrimSpace(stdout), "Hello from the scripted model."; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	all := s.AllRequests()
	if len(all) != 1 || all[0].Kind != modelserver.KindMain {
		t.Fatalf("requests = %d (kinds %v); want exactly one main-loop request", len(all), kinds(all))
	}
	r := all[0]
	if r.Path != "/v1/messages" || !r.Stream {
		t.Errorf("request %s stream=%v; want a streaming /v1/messages", r.Path, r.Stream)
	}
	if got := r.Header.Get("User-Agent"); !strings.Contains(got, "claude-cli/"+claudetest.Version) {
		t.Errorf("user-agent = %q; want claude-cli/%s", got, claudetest.Version)
	}
	if got := r.Prompt(); !strings.HasSuffix(got, "hi") {
		t.Errorf("prompt = %q; want it to end with the prompt hi", got)
	}
	if !slices.Contains(r.Tools, "Bash") {
		t.Errorf("tools = %v; want Bash among them", r.Tools)
	}
}

func kinds(rs []*modelserver.Request) []modelserver.Kind {
	var out []modelserver.Kind
	for _, r := range rs {
		out = append(out, r.Kind)
	}
	return out
}

func TestBashToolRunsAndItsResultIsSent(t *testing.T) {
	t.Parallel()
	s := modelserver.New(t, modelserver.ToolUse("Bash", bashHello), modelserver.Text("The command printed a greeting."))
	e := claudetest.New(t, s)

	stdout, _ := e.Run(t, "-p", "run the greeting", "--allowedTools", "Bash")

	if got, want := strings.TrimSpace(stdout), "The command printed a greeting."; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("main-loop requests = %d; want 2 (prompt, tool result)", len(reqs))
	}
	if got := reqs[1].LastToolResult(); got != "hello-from-tool" {
		t.Errorf("tool result = %q; want hello-from-tool", got)
	}
	var toolUseID string
	for _, m := range reqs[1].Messages {
		for _, c := range m.Content {
			if c.Type == "tool_use" {
				toolUseID = c.ID
			}
		}
	}
	if c, ok := reqs[1].ToolResult(toolUseID); !ok || c.IsError {
		t.Errorf("tool_result for %q = %+v, %v; want a successful result answering the scripted call", toolUseID, c, ok)
	}
	if s.Remaining() != 0 {
		t.Errorf("%d scripted turns left; want 0", s.Remaining())
	}
}

func TestHooksFireInPrintModeAndContextReachesModel(t *testing.T) {
	t.Parallel()
	s := modelserver.New(t, modelserver.ToolUse("Bash", bashHello), modelserver.Text("all done"))
	e := claudetest.New(t, s)
	hooks := recordHooks(t, e, "MARKER-123",
		"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd")

	e.Run(t, "-p", "run the greeting", "--allowedTools", "Bash")

	got := hooks()
	want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"}
	if !slices.Equal(eventNames(got), want) {
		t.Fatalf("hooks fired = %v; want %v", eventNames(got), want)
	}
	for _, p := range got {
		if p.SessionID == "" || p.SessionID != got[0].SessionID || p.Cwd != e.Dir {
			t.Errorf("%s: session %q cwd %q; want one session id throughout and cwd %s", p.Event, p.SessionID, p.Cwd, e.Dir)
		}
	}
	if got[0].Source != "startup" {
		t.Errorf("SessionStart source = %q; want startup", got[0].Source)
	}
	if got[1].Prompt != "run the greeting" {
		t.Errorf("UserPromptSubmit prompt = %q; want run the greeting", got[1].Prompt)
	}
	post := got[3]
	var input struct{ Command string }
	if err := json.Unmarshal(post.ToolInput, &input); err != nil {
		t.Fatalf("PostToolUse tool_input: %v", err)
	}
	if post.ToolName != "Bash" || input.Command != "echo hello-from-tool" || post.ToolResponse.Stdout != "hello-from-tool" {
		t.Errorf("PostToolUse = %s %s -> %q; want Bash echo hello-from-tool -> hello-from-tool", post.ToolName, input.Command, post.ToolResponse.Stdout)
	}
	if got[4].LastAssistantMessage != "all done" {
		t.Errorf("Stop last_assistant_message = %q; want all done", got[4].LastAssistantMessage)
	}
	if _, err := os.Stat(got[0].TranscriptPath); err != nil {
		t.Errorf("transcript_path: %v", err)
	}
	for i, r := range s.Requests() {
		if !strings.Contains(r.Text(), "MARKER-123") {
			t.Errorf("request %d lacks the SessionStart context MARKER-123", i)
		}
	}
}

func TestCompactSendsSummaryRequestAndFiresPreCompact(t *testing.T) {
	t.Parallel()
	s := modelserver.New(t, modelserver.Text("first answer"))
	e := claudetest.New(t, s)
	hooks := recordHooks(t, e, "", "SessionStart", "PreCompact")

	first := e.RunJSON(t, "-p", "first prompt")
	e.Run(t, "-p", "--continue", "/compact")
	s.Add(modelserver.Text("after compaction"))
	stdout, _ := e.Run(t, "-p", "--continue", "next prompt")

	if got := strings.TrimSpace(stdout); got != "after compaction" {
		t.Errorf("stdout after compaction = %q; want the next scripted turn", got)
	}
	if got, want := kinds(s.AllRequests()), []modelserver.Kind{modelserver.KindMain, modelserver.KindCompact, modelserver.KindMain}; !slices.Equal(got, want) {
		t.Fatalf("request kinds = %v; want %v", got, want)
	}
	if last := s.Requests()[1]; !strings.Contains(last.Text(), modelserver.CompactSummary) {
		t.Errorf("request after compaction lacks the summary %q", modelserver.CompactSummary)
	}
	var sources []string
	var preCompact *hookPayload
	for _, p := range hooks() {
		if p.SessionID != first.SessionID {
			t.Errorf("%s hook in session %q; want the continued session %q", p.Event, p.SessionID, first.SessionID)
		}
		switch p.Event {
		case "SessionStart":
			sources = append(sources, p.Source)
		case "PreCompact":
			preCompact = &p
		}
	}
	if want := []string{"startup", "resume", "compact", "resume"}; !slices.Equal(sources, want) {
		t.Errorf("SessionStart sources = %v; want %v", sources, want)
	}
	if preCompact == nil || preCompact.Trigger != "manual" {
		t.Errorf("PreCompact = %+v; want one with trigger manual", preCompact)
	}
}

func TestRetriesAfterOverload(t *testing.T) {
	t.Parallel()
	s := modelserver.New(t, modelserver.Overloaded(), modelserver.Text("recovered"))
	e := claudetest.New(t, s)

	stdout, _ := e.Run(t, "-p", "hi")

	if got := strings.TrimSpace(stdout); got != "recovered" {
		t.Errorf("stdout = %q; want recovered", got)
	}
	if got := len(s.Requests()); got != 2 {
		t.Errorf("main-loop requests = %d; want 2 (overloaded, retry)", got)
	}
}

func TestEnvironIsHermetic(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "the-developers-real-key")
	t.Setenv("CLAUDE_CONFIG_DIR", "/home/dev/.claude")
	s := modelserver.New(t)
	e := &claudetest.Env{Home: "/h", Dir: "/d", Server: s, Path: []string{"/first", "/second"}, Extra: []string{"DISABLE_TELEMETRY=0"}}

	env := e.Environ()

	lookup := func(key string) (string, bool) {
		var val string
		var found bool
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == key {
				val, found = v, true // the last one wins, as in exec
			}
		}
		return val, found
	}
	tests := []struct {
		key, want string
	}{
		{"HOME", "/h"},
		{"TMPDIR", "/h/tmp"},
		{"ANTHROPIC_BASE_URL", s.URL},
		{"ANTHROPIC_API_KEY", "sk-ant-test"},
		{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
		{"DISABLE_AUTOUPDATER", "1"},
		{"DISABLE_TELEMETRY", "0"},
		{"PATH", "/first:/second:" + os.Getenv("PATH")},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got, _ := lookup(tt.key); got != tt.want {
				t.Errorf("%s = %q; want %q", tt.key, got, tt.want)
			}
		})
	}
	if v, ok := lookup("CLAUDE_CONFIG_DIR"); ok {
		t.Errorf("CLAUDE_CONFIG_DIR = %q leaked from the test's environment", v)
	}
}

// fakeTB records how Binary gives up instead of ending the test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skip(args ...any) {
	f.skipped, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) {
	f.failed, f.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func TestBinary(t *testing.T) {
	executable := func(t *testing.T, path string, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	installed := "claude-code/node_modules/.bin/claude"
	tests := []struct {
		name  string
		setup func(t *testing.T) (env map[string]string, want string)
		// want is "" when Binary gives up; then wantSkip tells skip from
		// fail and wantMsg is in the message.
		wantSkip bool
		wantMsg  string
	}{
		{
			name: "BATON_CLAUDE_BIN",
			setup: func(t *testing.T) (map[string]string, string) {
				bin := executable(t, filepath.Join(t.TempDir(), "claude"), 0o755)
				return map[string]string{"BATON_CLAUDE_BIN": bin}, bin
			},
		},
		{
			name: "BATON_CLAUDE_BIN not executable",
			setup: func(t *testing.T) (map[string]string, string) {
				bin := executable(t, filepath.Join(t.TempDir(), "claude"), 0o644)
				return map[string]string{"BATON_CLAUDE_BIN": bin}, ""
			},
			wantSkip: true,
			wantMsg:  "BATON_CLAUDE_BIN=",
		},
		{
			name: "BATON_TEST_CACHE",
			setup: func(t *testing.T) (map[string]string, string) {
				cache := t.TempDir()
				return map[string]string{"BATON_TEST_CACHE": cache}, executable(t, filepath.Join(cache, installed), 0o755)
			},
		},
		{
			name: "default cache under HOME",
			setup: func(t *testing.T) (map[string]string, string) {
				home := t.TempDir()
				return map[string]string{"HOME": home}, executable(t, filepath.Join(home, ".cache/baton-test", installed), 0o755)
			},
		},
		{
			name: "missing skips with install command",
			setup: func(t *testing.T) (map[string]string, string) {
				return map[string]string{"BATON_TEST_CACHE": "/nonexistent/cache"}, ""
			},
			wantSkip: true,
			wantMsg:  "npm install --prefix /nonexistent/cache/claude-code @anthropic-ai/claude-code@" + claudetest.Version,
		},
		{
			name: "missing on CI fails",
			setup: func(t *testing.T) (map[string]string, string) {
				return map[string]string{"BATON_TEST_CACHE": "/nonexistent/cache", "CI": "true"}, ""
			},
			wantMsg: "is not installed at /nonexistent/cache/claude-code/node_modules/.bin/claude",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BATON_CLAUDE_BIN", "")
			t.Setenv("BATON_TEST_CACHE", "")
			t.Setenv("CI", "")
			env, want := tt.setup(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			fake := &fakeTB{TB: t}
			var got string
			done := make(chan struct{})
			go func() {
				defer close(done)
				got = claudetest.Binary(fake)
			}()
			<-done

			if want != "" {
				if fake.skipped || fake.failed || got != want {
					t.Errorf("Binary = %q (skipped %v, failed %v: %s); want %q", got, fake.skipped, fake.failed, fake.msg, want)
				}
				return
			}
			if fake.skipped != tt.wantSkip || fake.failed == tt.wantSkip {
				t.Errorf("skipped %v, failed %v; want skipped %v, failed %v", fake.skipped, fake.failed, tt.wantSkip, !tt.wantSkip)
			}
			if !strings.Contains(fake.msg, tt.wantMsg) {
				t.Errorf("message = %q; want it to contain %q", fake.msg, tt.wantMsg)
			}
		})
	}
}

func TestBuildBatonIsOnTheToolsPath(t *testing.T) {
	t.Parallel()
	dir := claudetest.BuildBaton(t)
	if again := claudetest.BuildBaton(t); again != dir {
		t.Errorf("second BuildBaton = %s; want the first build %s", again, dir)
	}
	s := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": "command -v baton && baton --help", "description": "Find baton"}),
		modelserver.Text("found"),
	)
	e := claudetest.New(t, s)
	e.Path = append(e.Path, dir)

	e.Run(t, "-p", "where is baton", "--allowedTools", "Bash")

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("main-loop requests = %d; want 2", len(reqs))
	}
	first, rest, _ := strings.Cut(reqs[1].LastToolResult(), "\n")
	if want := filepath.Join(dir, "baton"); first != want {
		t.Errorf("command -v baton = %q; want %q", first, want)
	}
	if !strings.Contains(rest, "Usage:") {
		t.Errorf("baton --help printed %q; want its usage", rest)
	}
}
