package hook_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/modelserver"
)

// These tests run the real Claude Code CLI against the scripted model server,
// with baton's hooks installed the two ways users install them.

// bashTurn makes the model run one Bash command through Claude Code.
func bashTurn() modelserver.Turn {
	return modelserver.ToolUse("Bash", map[string]string{"command": "echo baton-e2e", "description": "Say hello from the tool"})
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// journalRecords reads every record the hooks wrote in dir's repository.
func journalRecords(t *testing.T, dir string) []journal.Record {
	t.Helper()
	recs, err := journal.Open(filepath.Join(dir, ".claude", "session-state"), journal.Options{}).Tail(context.Background(), 1000, journal.TailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func checkSessionRecords(t *testing.T, recs []journal.Record, dir string) {
	t.Helper()
	events := map[string]int{}
	var post *journal.Record
	for i, r := range recs {
		events[r.Event]++
		if r.Event == "PostToolUse" && r.Tool == "Bash" {
			post = &recs[i]
		}
		if r.Worktree != dir || r.Branch != "main" || r.Session == "" {
			t.Errorf("record %s: worktree %q branch %q session %q; want %q, main and a session id", r.Event, r.Worktree, r.Branch, r.Session, dir)
		}
	}
	if post == nil {
		t.Fatalf("no PostToolUse record for Bash; events: %v", events)
	}
	if post.Desc != "Say hello from the tool" {
		t.Errorf("PostToolUse desc = %q; want the Bash description", post.Desc)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"} {
		if events[ev] == 0 {
			t.Errorf("no %s record; events: %v", ev, events)
		}
	}
}

func TestE2EInitThenSession(t *testing.T) {
	server := modelserver.New(t, bashTurn(), modelserver.Text("done"))
	env := claudetest.New(t, server)
	env.Path = append(env.Path, claudetest.BuildBaton(t))
	gitInit(t, env.Dir)

	// baton init, run the way a user runs it, in the repository.
	cmd := exec.Command(filepath.Join(claudetest.BuildBaton(t), "baton"), "init")
	cmd.Dir = env.Dir
	cmd.Env = env.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("baton init: %v\n%s", err, out)
	}
	// baton-hook is on PATH beside baton, so init installed it.
	settings, err := os.ReadFile(filepath.Join(env.Dir, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(settings), `"command": "baton-hook"`) {
		t.Fatalf("settings.local.json = %s, %v; want hooks running baton-hook", settings, err)
	}

	env.Run(t, "-p", "say hello", "--allowedTools", "Bash")

	checkSessionRecords(t, journalRecords(t, env.Dir), env.Dir)
	if got := server.Requests()[1].LastToolResult(); !strings.Contains(got, "baton-e2e") {
		t.Errorf("tool result sent to the model = %q; want the command's output", got)
	}
	// The briefing baton injected at SessionStart reached the model.
	if first := server.Requests()[0].Text(); !strings.Contains(first, ".claude/session-state/auto.jsonl") {
		t.Errorf("first request to the model lacks baton's session-start context:\n%.2000s", first)
	}
}

func TestE2EPlugin(t *testing.T) {
	server := modelserver.New(t, bashTurn(), modelserver.Text("done"))
	env := claudetest.New(t, server)
	env.Path = append(env.Path, claudetest.BuildBaton(t))
	gitInit(t, env.Dir)
	plugin, err := filepath.Abs(filepath.Join("..", "..", "plugin"))
	if err != nil {
		t.Fatal(err)
	}

	env.Run(t, "-p", "say hello", "--allowedTools", "Bash", "--plugin-dir", plugin)

	checkSessionRecords(t, journalRecords(t, env.Dir), env.Dir)
	if _, err := os.Stat(filepath.Join(env.Dir, ".claude", "settings.local.json")); err == nil {
		t.Errorf("the plugin run wrote settings.local.json; the plugin should need no init")
	}
}

// TestE2EFailedCommandRecorded checks the record of a Bash command that
// fails with the real CLI: it fires PostToolUseFailure (not PostToolUse),
// whose error carries the exit status and the output; a command that
// succeeds is recorded with exit status 0.
func TestE2EFailedCommandRecorded(t *testing.T) {
	failing := "echo out; echo 'boom: bad thing' >&2; exit 3"
	server := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": failing, "description": "Fail on purpose"}),
		modelserver.ToolUse("Bash", map[string]string{"command": "echo fine", "description": "Succeed"}),
		modelserver.Text("done"))
	env := claudetest.New(t, server)
	gitInit(t, env.Dir)
	hook := claudetest.ShellQuote(filepath.Join(claudetest.BuildBaton(t), "baton-hook"))
	env.WriteProjectSettings(t, claudetest.HookSettings(hook, "PreToolUse", "PostToolUse", "PostToolUseFailure"))

	env.Run(t, "-p", "run the commands", "--allowedTools", "Bash")

	var failed, ok *journal.Record
	recs := journalRecords(t, env.Dir)
	for i, r := range recs {
		switch {
		case r.Event == "PostToolUseFailure":
			failed = &recs[i]
		case r.Event == "PostToolUse" && r.Cmd == "echo fine":
			ok = &recs[i]
		}
	}
	if failed == nil || ok == nil {
		t.Fatalf("records %+v; want a PostToolUseFailure and a PostToolUse for echo fine", recs)
	}
	if failed.Tool != "Bash" || failed.Cmd != failing || failed.Desc != "Fail on purpose" || failed.Exit == nil || *failed.Exit != 3 {
		t.Errorf("failure record %+v; want Bash, the command, its description and exit 3", *failed)
	}
	if !strings.Contains(failed.Error, "boom: bad thing") || strings.HasPrefix(failed.Error, "Exit code") {
		t.Errorf("failure error = %q; want the output without the exit line", failed.Error)
	}
	if ok.Exit == nil || *ok.Exit != 0 || ok.Error != "" {
		t.Errorf("success record exit %v error %q; want 0 and no error", ok.Exit, ok.Error)
	}
}

// TestE2EWorkEventsRecorded runs the real CLI through the events that carry
// work beside the tool calls and checks the record each leaves, as the
// pinned CLI shapes its payload. WorktreeCreate is not among them: a
// WorktreeCreate hook takes over creating the worktree (the CLI fails the
// EnterWorktree call when the hook prints no path), so baton must not be
// installed for it. PermissionDenied fires in auto mode, whose check the
// scripted server cannot run, so it denies the call.
func TestE2EWorkEventsRecorded(t *testing.T) {
	events := []string{"TaskCreated", "TaskCompleted", "CwdChanged", "SubagentStart", "PostToolUse", "PreCompact", "PostCompact", "StopFailure", "PermissionDenied"}
	hookCmd := func(env *claudetest.Env) {
		gitInit(t, env.Dir)
		env.WriteProjectSettings(t, claudetest.HookSettings(claudetest.ShellQuote(filepath.Join(claudetest.BuildBaton(t), "baton-hook")), events...))
	}

	server := modelserver.New(t,
		modelserver.ToolUse("TaskCreate", map[string]any{"subject": "write tokenizer", "description": "split input into tokens", "activeForm": "Writing the tokenizer"}),
		modelserver.ToolUse("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		modelserver.ToolUse("Bash", map[string]any{"command": "cd /tmp && pwd"}),
		modelserver.ToolUse("Agent", map[string]any{"description": "look around", "prompt": "list files", "subagent_type": "general-purpose"}),
		modelserver.Text("sub done"),
		modelserver.Text("done"))
	env := claudetest.New(t, server)
	hookCmd(env)
	env.Run(t, "-p", "do things", "--allowedTools", "Bash,TaskCreate,TaskUpdate,Agent")
	env.Run(t, "-p", "/compact", "--continue")

	// Every answer an error, however often the CLI retries. The CLI may
	// exit before its StopFailure hook has run (it does not wait for that
	// hook, and on a loaded machine the hook can lose the race with the
	// exit), so the failing run is given up to three tries, each polled.
	var failing *claudetest.Env
	for try := 1; try <= 3; try++ {
		errs := make([]modelserver.Turn, 20)
		for i := range errs {
			errs[i] = modelserver.ServerError()
		}
		failing = claudetest.New(t, modelserver.New(t, errs...))
		failing.Extra = append(failing.Extra, "CLAUDE_CODE_MAX_RETRIES=0")
		hookCmd(failing)
		cmd := failing.Command(t.Context(), "-p", "hi")
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Logf("the failing run exited 0: %s", out)
		}
		if waitForRecord(t, failing.Dir, "StopFailure", 10*time.Second) {
			break
		}
		t.Logf("try %d: the CLI exited before its StopFailure hook recorded", try)
	}

	denied := claudetest.New(t, modelserver.New(t, modelserver.ToolUse("Write", map[string]any{"file_path": "/etc/baton-e2e.txt", "content": "x"}), modelserver.Text("done")))
	hookCmd(denied)
	if out, err := denied.Command(t.Context(), "-p", "write it", "--permission-mode", "auto").CombinedOutput(); err == nil {
		t.Logf("the auto-mode run exited 0: %s", out)
	}

	got := map[string]journal.Record{}
	all := append(journalRecords(t, env.Dir), journalRecords(t, failing.Dir)...)
	for _, r := range append(all, journalRecords(t, denied.Dir)...) {
		if _, seen := got[r.Event]; !seen || r.Event != "PostToolUse" {
			got[r.Event] = r
		}
	}
	checks := []struct {
		event string
		ok    func(r journal.Record) bool
	}{
		{"TaskCreated", func(r journal.Record) bool {
			return r.TaskID == "1" && r.Desc == "write tokenizer" && r.Message == "split input into tokens"
		}},
		{"TaskCompleted", func(r journal.Record) bool { return r.TaskID == "1" && r.Desc == "write tokenizer" }},
		{"CwdChanged", func(r journal.Record) bool { return r.Desc == "/tmp" }},
		{"SubagentStart", func(r journal.Record) bool { return r.Desc == "general-purpose" }},
		{"PreCompact", func(r journal.Record) bool { return r.Trigger == "manual" }},
		{"PostCompact", func(r journal.Record) bool { return r.Trigger == "manual" }},
		{"PermissionDenied", func(r journal.Record) bool {
			return r.Tool == "Write" && r.File == "/etc/baton-e2e.txt" && r.Reason != ""
		}},
		{"StopFailure", func(r journal.Record) bool {
			return r.Error == "server_error" && strings.Contains(r.Message, "500")
		}},
	}
	for _, c := range checks {
		r, ok := got[c.event]
		if !ok {
			t.Errorf("no %s record; events: %v", c.event, keys(got))
			continue
		}
		if !c.ok(r) {
			t.Errorf("%s record %+v lacks the payload's fields", c.event, r)
		}
	}
	var create, update *journal.Record
	for _, r := range journalRecords(t, env.Dir) {
		switch {
		case r.Event == "PostToolUse" && r.Tool == "TaskUpdate":
			update = &r
		case r.Event == "PostToolUse" && r.Tool == "TaskCreate":
			create = &r
		}
	}
	if create == nil || create.TaskID != "1" || create.Desc != "write tokenizer" {
		t.Errorf("TaskCreate record %+v; want task 1, its subject", create)
	}
	if update == nil || update.TaskID != "1" || update.TaskStatus != "completed" {
		t.Errorf("TaskUpdate record %+v; want task 1 completed", update)
	}
}

func keys(m map[string]journal.Record) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// waitForRecord polls dir's journal for a record of event until wait has
// passed, and says whether one came.
func waitForRecord(t *testing.T, dir, event string, wait time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(wait); ; time.Sleep(50 * time.Millisecond) {
		if slices.ContainsFunc(journalRecords(t, dir), func(r journal.Record) bool { return r.Event == event }) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
