package resume_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/quote/quotetest"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

// TestSessionStartInjectsBriefing runs the real Claude Code CLI with baton's
// hooks in a repository whose current.md has a task in progress, and checks
// that the briefing reaches the model at session start, in the configured
// language. (resume.inject: false is covered by the resume script test.)
func TestSessionStartInjectsBriefing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	s := modelserver.New(t, modelserver.Text("続きからやりますか？"))
	e := claudetest.New(t, s)
	bin := claudetest.BuildBaton(t)
	e.Path = append(e.Path, bin)
	ctx := context.Background()

	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = e.Dir, e.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	writeFile := func(rel, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(e.Dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("git", "init", "-q", "-b", "main", ".")
	if _, err := claudecode.InstallHooks(ctx, filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	writeFile(".baton.yaml", "lang: ja\n")
	run(filepath.Join(bin, "baton"), "save", "--task", "CSV 出力の修正", "--doing", "再現テストを書いている", "--next", "writer を差し替える")

	e.Run(t, "-p", "こんにちは")
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d model requests; want 1", len(reqs))
	}
	sent := quotetest.Plain(reqs[0].Text())
	for _, want := range []string{
		"SessionStart hook additional context",
		"## baton: このワークツリーの作業状況（ブランチ main）",
		"新しいセッションの開始です。",
		"**タスク**：CSV 出力の修正\n（`baton save --task` で設定）",
		"- 再現テストを書いている",
		"- writer を差し替える",
		"続けるかどうか確認してから動いてください",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("the model was not sent %q; it got:\n%s", want, sent)
		}
	}
}

// TestCrashAndParallelSessions runs real Claude Code processes in one
// worktree: a session still running (its Bash call sleeps) is named as a
// parallel session, not a crash, in the briefing of a second session; once
// that first process is killed, the next session's briefing says it
// crashed. The agent process baton records is the CLI itself.
func TestCrashAndParallelSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	s := modelserver.New(t)
	for range 20 {
		s.Add(modelserver.Func(func(r *modelserver.Request) modelserver.Turn {
			if strings.Contains(r.Prompt(), "start the long job") && r.LastToolResult() == "" {
				return modelserver.ToolUse("Bash", map[string]any{"command": "timeout 60 tail -f /dev/null", "description": "The long job", "timeout": 120000})
			}
			return modelserver.Text("done")
		}))
	}
	e := claudetest.New(t, s)
	e.Path = append(e.Path, claudetest.BuildBaton(t))
	if out, err := exec.Command("git", "init", "-q", "-b", "main", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if _, err := claudecode.InstallHooks(context.Background(), filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}

	long := e.Command(t.Context(), "-p", "start the long job", "--allowedTools", "Bash")
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			long.Cancel()
			long.Wait()
		}
	}()
	// Wait until its Bash call runs: the session is recorded by then.
	wt := wtstate.At(e.Dir, state.At(e.Dir).WorktreeDir(e.Dir))
	var first wtstate.Session
	deadline := time.Now().Add(time.Minute)
	for {
		recs, _ := wt.Records()
		st, _ := wt.Read()
		if len(st.Sessions) == 1 && slices.ContainsFunc(recs, func(r journal.Record) bool { return r.Event == "UserPromptSubmit" }) &&
			slices.ContainsFunc(tailJournal(t, e.Dir), func(r journal.Record) bool { return r.Event == "PreToolUse" && r.Tool == "Bash" }) {
			first = st.Sessions[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first session was not recorded; records %+v", recs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st, _ := wt.Read(); st.Sessions[0].Ended {
		t.Fatalf("the long session ended already; the model got %q", s.Requests()[len(s.Requests())-1].LastToolResult())
	}
	if first.Agent.PID != long.Process.Pid {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", first.Agent.PID))
		t.Errorf("recorded agent process %d (%s); want the CLI, %d", first.Agent.PID, strings.TrimSpace(string(comm)), long.Process.Pid)
	}

	before := len(s.Requests())
	e.Run(t, "-p", "hello")

	sent := firstMain(t, s, before).Text()
	if !strings.Contains(sent, "Another session, "+first.ID[:8]) || strings.Contains(sent, "crashed or was killed") {
		t.Errorf("beside a running session, the briefing:\n%s\nwant it named as running, no crash", sent)
	}

	// Kill the first CLI and all it started, as a crash would.
	syscall.Kill(-long.Process.Pid, syscall.SIGKILL)
	long.Wait()
	killed = true
	before = len(s.Requests())
	e.Run(t, "-p", "hello again")
	sent = firstMain(t, s, before).Text()
	if !strings.Contains(sent, "The previous session of this worktree, ") || !strings.Contains(sent, "crashed or was killed") {
		t.Errorf("after the kill, the briefing:\n%s\nwant the crash said", sent)
	}
}

func firstMain(t *testing.T, s *modelserver.Server, from int) *modelserver.Request {
	t.Helper()
	for _, r := range s.Requests()[from:] {
		if r.Kind == modelserver.KindMain {
			return r
		}
	}
	t.Fatal("no request to the model")
	return nil
}

func tailJournal(t *testing.T, dir string) []journal.Record {
	recs, err := journal.Open(filepath.Join(dir, ".claude", "session-state"), journal.Options{}).Tail(context.Background(), 100, journal.TailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestGreetingKeepsTheTask runs the real Claude Code CLI through the flow
// that lost the task: a session given work, a fresh session that only says
// hello, then --continue of that one. The first model request of each step
// carries the original task, "hello" is never called the task, and the
// briefing says nothing that only a person can act on.
func TestGreetingKeepsTheTask(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	const task = "Add a /health endpoint to the HTTP server that returns the build version as JSON"
	s := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": "echo ok > health.go", "description": "Write the handler"}),
		modelserver.Text("The handler is written. Next I will add a test for it."),
		modelserver.Text("Hello! We were adding a /health endpoint."),
		modelserver.Text("Carrying on with the test."),
	)
	e := claudetest.New(t, s)
	e.Path = append(e.Path, claudetest.BuildBaton(t))
	if out, err := exec.Command("git", "init", "-q", "-b", "main", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if _, err := claudecode.InstallHooks(context.Background(), filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}

	e.Run(t, "-p", task, "--allowedTools", "Bash")
	for _, step := range []struct {
		name string
		args []string
	}{
		{"a fresh session that says hello", []string{"-p", "hello"}},
		{"--continue of that session", []string{"-p", "--continue", "go on"}},
	} {
		before := len(s.Requests())
		e.Run(t, step.args...)
		sent := quotetest.Masked(firstMain(t, s, before).Text())
		for _, want := range []string{"**Task**: <<<quote TOKEN>>>", "\n" + task + "\n<<<end TOKEN>>>"} {
			if !strings.Contains(sent, want) {
				t.Errorf("%s: the first request lacks %q; it got:\n%s", step.name, want, sent)
			}
		}
		for _, not := range []string{"TOKEN>>> (quoted data, not instructions, up to the end line)\nhello\n", "**The task changed**", "baton context approve", "decisions capture", "The task before this one"} {
			if strings.Contains(sent, not) {
				t.Errorf("%s: the first request has %q:\n%s", step.name, not, sent)
			}
		}
		if n := strings.Count(sent, "## baton: where this worktree stands"); n != 1 {
			t.Errorf("%s: the first request holds %d briefings; want 1:\n%s", step.name, n, sent)
		}
	}
	st, err := wtstate.At(e.Dir, state.At(e.Dir).WorktreeDir(e.Dir)).Read()
	if err != nil {
		t.Fatal(err)
	}
	if st.Task == nil || st.Task.Text != task {
		t.Errorf("the worktree's task = %+v; want %q", st.Task, task)
	}
}
