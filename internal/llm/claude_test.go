package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/modelserver"
)

// The test binary stands in for the agent CLI when fakeEnv names a way to
// behave (the helper-process pattern): it records what it was given in the
// file recordEnv names and prints what the CLI would.
const (
	fakeEnv   = "BATON_FAKE_CLAUDE"
	recordEnv = "BATON_FAKE_CLAUDE_RECORD"
)

// secret looks like a GitHub token: errors must never show it.
const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeClaude(mode))
	}
	os.Exit(m.Run())
}

// record is what the fake CLI was given.
type record struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin"`
	Dir   string   `json:"dir"`
	Extra string   `json:"extra"`
	// Child is the pid of the process the "hang" mode started.
	Child int `json:"child"`
}

func fakeClaude(mode string) int {
	if mode == "sleep" {
		time.Sleep(time.Hour) // killed by the test long before
		return 0
	}
	in, _ := os.ReadFile("/dev/stdin")
	dir, _ := os.Getwd()
	rec := record{Args: os.Args[1:], Stdin: string(in), Dir: dir, Extra: os.Getenv("BATON_EXTRA")}
	if mode == "hang" {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), fakeEnv+"=sleep")
		child.Stdout = os.Stdout // holds the pipe open, as a tool run by the CLI would
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		rec.Child = child.Process.Pid
	}
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(os.Getenv(recordEnv), b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	const usage = `"usage":{"input_tokens":100,"cache_creation_input_tokens":5,"cache_read_input_tokens":1000,"output_tokens":20}`
	switch mode {
	case "ok":
		fmt.Println(`{"type":"result","subtype":"success","is_error":false,"result":"the answer",` + usage + `}`)
	case "is-error":
		fmt.Println(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 401 bad key ` + secret + `",` + usage + `}`)
	case "max-turns":
		fmt.Println(`{"type":"result","subtype":"error_max_turns","is_error":false,` + usage + `}`)
	case "failed-run":
		fmt.Println(`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded",` + usage + `}`)
		return 1
	case "prose":
		fmt.Println("Hello! I am not JSON.")
	case "other-json":
		fmt.Println(`{"type":"system","message":"starting"}`)
	case "fail":
		fmt.Fprintln(os.Stderr, "Invalid API key "+secret+strings.Repeat(" and more", 100))
		return 3
	case "hang":
		time.Sleep(time.Hour) // killed by the test long before
	}
	return 0
}

// fake returns a ClaudeCLI running the test binary as the CLI in mode,
// and the file it records what it was given in (see readRecord).
func fake(t *testing.T, mode string) (llm.ClaudeCLI, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "record.json")
	c := llm.ClaudeCLI{
		Command: os.Args[0],
		Env:     append(os.Environ(), fakeEnv+"="+mode, recordEnv+"="+path, "BATON_EXTRA=from-env"),
	}
	return c, path
}

func readRecord(path string) (record, error) {
	var r record
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(b, &r)
}

// poll fails t unless cond holds within ten seconds.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gone reports whether process pid has ended (exited, or a zombie no one
// has reaped yet).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist) || errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

func TestClaudeCLIRunsPrintMode(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		args     []string
		dir      bool
		wantArgs []string
	}{
		{name: "defaults", wantArgs: []string{"-p", "--output-format", "json"}},
		{
			name: "model, flags and folder", model: "sonnet", args: []string{"--tools", "", "--no-session-persistence"}, dir: true,
			wantArgs: []string{"-p", "--output-format", "json", "--model", "sonnet", "--tools", "", "--no-session-persistence"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, path := fake(t, "ok")
			c.Model, c.Args = tt.model, tt.args
			if tt.dir {
				c.Dir = t.TempDir()
			}
			r, err := c.Complete(context.Background(), "Summarize this.\n")
			if err != nil {
				t.Fatal(err)
			}
			want := llm.Reply{Text: "the answer", InputTokens: 1105, OutputTokens: 20}
			if r != want {
				t.Errorf("reply %+v; want %+v", r, want)
			}
			rec, err := readRecord(path)
			if err != nil {
				t.Fatalf("the fake CLI recorded nothing: %v", err)
			}
			if !reflect.DeepEqual(rec.Args, tt.wantArgs) {
				t.Errorf("args %q; want %q", rec.Args, tt.wantArgs)
			}
			if rec.Stdin != "Summarize this.\n" || rec.Extra != "from-env" {
				t.Errorf("stdin %q, env BATON_EXTRA %q; want the prompt and the given environment", rec.Stdin, rec.Extra)
			}
			switch {
			case tt.dir && rec.Dir != c.Dir:
				t.Errorf("ran in %s; want %s", rec.Dir, c.Dir)
			case !tt.dir:
				if !strings.HasPrefix(filepath.Base(rec.Dir), "baton-llm-") {
					t.Errorf("ran in %s; want a fresh temporary folder", rec.Dir)
				}
				if _, err := os.Stat(rec.Dir); !os.IsNotExist(err) {
					t.Errorf("temporary folder %s left behind: %v", rec.Dir, err)
				}
			}
		})
	}
}

func TestClaudeCLIErrors(t *testing.T) {
	tests := []struct {
		name       string
		mode       string
		wantOutput bool   // errors.Is(err, llm.ErrOutput)
		wantText   string // in the error
		wantTokens int64
	}{
		{name: "result is an error", mode: "is-error", wantText: "API Error: 401 bad key", wantTokens: 1125},
		{name: "run ended early", mode: "max-turns", wantText: "error_max_turns", wantTokens: 1125},
		{name: "failed run with a result", mode: "failed-run", wantText: "exit status 1: error: API Error: 529 Overloaded", wantTokens: 1125},
		{name: "output is not JSON", mode: "prose", wantOutput: true, wantText: "Hello! I am not JSON."},
		{name: "output is not the result", mode: "other-json", wantOutput: true, wantText: `"type":"system"`},
		{name: "exit status", mode: "fail", wantText: "exit status 3: Invalid API key [REDACTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := fake(t, tt.mode)
			r, err := c.Complete(context.Background(), "hi")
			if err == nil {
				t.Fatalf("no error; want one")
			}
			if got := errors.Is(err, llm.ErrOutput); got != tt.wantOutput {
				t.Errorf("errors.Is(%v, ErrOutput) = %v; want %v", err, got, tt.wantOutput)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantText) || strings.Contains(msg, secret) {
				t.Errorf("error %q; want it to hold %q and no secret", msg, tt.wantText)
			}
			if n := len([]rune(msg)); n > 500 {
				t.Errorf("error of %d characters; want it cut", n)
			}
			if r.Tokens() != tt.wantTokens || r.Text != "" {
				t.Errorf("reply %+v; want no text and %d tokens", r, tt.wantTokens)
			}
		})
	}
}

// TestClaudeCLICancelKillsGroup: cancelling the context kills the CLI and
// what it started, so nothing holding its output keeps Complete waiting.
func TestClaudeCLICancelKillsGroup(t *testing.T) {
	c, path := fake(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, "hi")
		done <- err
	}()
	var rec record
	poll(t, "the fake CLI to start its child", func() bool {
		var err error
		rec, err = readRecord(path)
		return err == nil && rec.Child != 0
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
	poll(t, "the CLI's child to die", func() bool { return gone(rec.Child) })
}

// TestClaudeCLIAgainstTheRealCLI runs the real agent CLI against the
// scripted model server, as the context summaries call it: no tools, no
// saved session.
func TestClaudeCLIAgainstTheRealCLI(t *testing.T) {
	srv := modelserver.New(t)
	srv.OnSide(func(r *modelserver.Request) modelserver.Turn {
		if strings.Contains(r.Text(), "fail now") {
			return modelserver.Fail(modelserver.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt refused"})
		}
		return modelserver.Text("Goal: ship it").WithUsage(modelserver.Usage{InputTokens: 300, CacheReadInputTokens: 40, OutputTokens: 12})
	})
	env := claudetest.New(t, srv)
	c := llm.ClaudeCLI{Command: env.Bin, Model: "sonnet", Args: []string{"--tools", "", "--no-session-persistence"}, Env: env.Environ()}
	r, err := c.Complete(context.Background(), "Summarize: we ship it.")
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "Goal: ship it" || r.InputTokens < 340 || r.OutputTokens < 12 {
		t.Errorf("reply %+v; want the model's text and at least its usage", r)
	}
	var sent *modelserver.Request
	for _, req := range srv.AllRequests() {
		if strings.Contains(req.Text(), "Summarize: we ship it.") {
			sent = req
		}
	}
	switch {
	case sent == nil:
		t.Fatalf("the prompt never reached the model")
	case len(sent.Tools) != 0:
		t.Errorf("offered tools %v; want none", sent.Tools)
	case !strings.Contains(sent.Model, "sonnet"):
		t.Errorf("model %q; want a sonnet model", sent.Model)
	}

	// The CLI exits 1 on an API error, its result naming the error.
	if _, err := c.Complete(context.Background(), "fail now"); err == nil || !strings.Contains(err.Error(), "API Error: 400 prompt refused") {
		t.Errorf("got %v; want the API's error", err)
	}
}
