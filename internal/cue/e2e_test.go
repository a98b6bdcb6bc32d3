package cue_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
)

// TestE2ERecall runs the real Claude Code CLI against the scripted model:
// a Bash command fails and another line of it works; a decision is
// approved; then a prompt about the decision gets the recall block, and
// the failed command, run again, gets the note before it runs. The note
// reaches the model with the tool's result. With hooks only (no MCP
// server), the block names baton's commands for pulling more.
func TestE2ERecall(t *testing.T) {
	server := modelserver.New(t)
	env := claudetest.New(t, server)
	bin := claudetest.BuildBaton(t)
	env.Path = append(env.Path, bin)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = env.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The hooks start detached jobs (the recent summary at session end,
	// the recall file at a stop); let them finish before the folders go.
	t.Cleanup(func() { waitJobs(t, env.Home) })
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "start")
	env.WriteProjectSettings(t, claudetest.HookSettings(filepath.Join(bin, "baton-hook"),
		"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"))
	baton := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "baton"), args...)
		cmd.Dir, cmd.Env = env.Dir, env.Environ()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("baton %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	// Session 1: a line of `git log` fails, another works. The second
	// runs minutes (here: moments) after the failure, before any recall
	// file knows of it, and gets no note: nothing had worked yet.
	failing := "git log --oneline nosuchref"
	working := "git log --oneline -1"
	server.Add(
		modelserver.ToolUse("Bash", map[string]string{"command": failing, "description": "Show the log"}),
		modelserver.ToolUse("Bash", map[string]string{"command": working, "description": "Show the last commit"}),
		modelserver.Text("done"),
	)
	env.Run(t, "-p", "show me the log", "--allowedTools", "Bash")
	reqs := server.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests in session 1; want 3", len(reqs))
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "nosuchref") {
		t.Fatalf("the failing command's result = %q; want git's error", got)
	}
	// The working line ran after one failure: a note would only repeat the
	// error the model read a moment before.
	if got := reqs[2].Text(); strings.Contains(got, "`git log` failed earlier in this repository") {
		t.Errorf("a note after one failure and no line that worked:\n%.2000s", got)
	}

	// A person approves a decision; the recall file is rewritten with it.
	baton("context", "approve", "--summary", "Use River for the job queue; Postgres when several hosts share it", "--source", "issue #12")
	if out := baton("context", "recall"); !strings.Contains(out, "1 decisions") || !strings.Contains(out, "1 failed commands") {
		t.Fatalf("baton context recall: %s", out)
	}

	// Session 2: the prompt touches the decision; the model runs another
	// line of the command that failed, and its note names the line that
	// worked after the failure.
	server.Add(
		modelserver.ToolUse("Bash", map[string]string{"command": "git log --oneline nosuchref -- README.md", "description": "Show the log again"}),
		modelserver.Text("done"),
	)
	env.Run(t, "-p", "What did we decide about the job queue?", "--allowedTools", "Bash")
	reqs = server.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests after session 2; want 5", len(reqs))
	}
	first := reqs[3].Text()
	for _, want := range []string{"baton recall: this prompt touches earlier work.", "Use River for the job queue", "issue #12", "`baton context show --layer l3`"} {
		if !strings.Contains(first, want) {
			t.Errorf("the prompt's request lacks %q:\n%.3000s", want, first)
		}
	}
	checkNote(t, reqs[4], "`git log` failed earlier in this repository", working)
}

// checkNote asserts that the request after a tool call carries the
// PreToolUse note with want in it, and says where the CLI put it.
func checkNote(t *testing.T, r *modelserver.Request, head, want string) {
	t.Helper()
	for i, m := range r.Messages {
		for j, c := range m.Content {
			if strings.Contains(c.Text, head) {
				if !strings.Contains(c.Text, want) {
					t.Errorf("note %q lacks %q", c.Text, want)
				}
				prev := "-"
				if i > 0 {
					prev = fmt.Sprintf("%s with a tool result: %v", r.Messages[i-1].Role, toolResultIndex(r.Messages[i-1].Content) >= 0)
				}
				t.Logf("PreToolUse note: message %d of %d (%s, after %s), block %d of %d (%s): %.160q",
					i+1, len(r.Messages), m.Role, prev, j+1, len(m.Content), c.Type, c.Text)
				return
			}
		}
	}
	t.Errorf("no PreToolUse note %q in the request after the tool ran:\n%.4000s", head, r.Text())
}

// waitJobs waits until no process runs with HOME set to home: the CLI and
// the jobs its hooks started are gone.
func waitJobs(t *testing.T, home string) {
	mark := []byte("HOME=" + home + "\x00")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		busy := false
		for _, p := range procs {
			if env, err := os.ReadFile(p); err == nil && bytes.Contains(env, mark) {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("jobs with HOME=%s still running after 30 s", home)
}

func toolResultIndex(cs []modelserver.Content) int {
	for i, c := range cs {
		if c.Type == "tool_result" {
			return i
		}
	}
	return -1
}

// TestE2EFailedCommandRecall runs the real Claude Code CLI against the
// scripted model: ./deploy.sh staging fails (exit 3) and the same with
// DB_URL set works. A later session whose prompt asks to deploy to staging
// again gets, with the prompt, how it went and the line that worked
// (redacted); when ./deploy.sh staging fails again, the request after it
// names the line that worked. A Japanese prompt gets the same in Japanese.
func TestE2EFailedCommandRecall(t *testing.T) {
	server := modelserver.New(t)
	env := claudetest.New(t, server)
	bin := claudetest.BuildBaton(t)
	env.Path = append(env.Path, bin)
	t.Cleanup(func() { waitJobs(t, env.Home) })
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = env.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	script := "#!/bin/sh\nif [ -z \"$DB_URL\" ]; then echo 'deploy: DB_URL is not set' >&2; exit 3; fi\necho \"deployed $1\"\n"
	if err := os.WriteFile(filepath.Join(env.Dir, "deploy.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env.WriteProjectSettings(t, claudetest.HookSettings(filepath.Join(bin, "baton-hook"),
		"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"))

	// Session 1: the script fails, then works with DB_URL set.
	const secret = "s3cretPassw0rd"
	failing := "./deploy.sh staging"
	working := "DB_URL=postgres://app:" + secret + "@db.internal:5432/app ./deploy.sh staging"
	server.Add(
		modelserver.ToolUse("Bash", map[string]string{"command": failing, "description": "Deploy to staging"}),
		modelserver.ToolUse("Bash", map[string]string{"command": working, "description": "Deploy with the database URL"}),
		modelserver.Text("deployed"),
	)
	env.Run(t, "-p", "deploy the app to staging", "--allowedTools", "Bash")
	reqs := server.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests in session 1; want 3", len(reqs))
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "DB_URL is not set") {
		t.Fatalf("the failing call's result = %q; want the script's error", got)
	}
	if got := reqs[2].LastToolResult(); !strings.Contains(got, "deployed staging") {
		t.Fatalf("the working call's result = %q", got)
	}
	// The recall file is rewritten, as a stop does once it is ten minutes
	// old.
	cmd := exec.Command(filepath.Join(bin, "baton"), "context", "recall")
	cmd.Dir, cmd.Env = env.Dir, env.Environ()
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "1 failed commands") {
		t.Fatalf("baton context recall: %v\n%s", err, out)
	}

	// Session 2: the prompt asks to deploy to staging again; the model runs
	// the failing line once more.
	server.Add(
		modelserver.ToolUse("Bash", map[string]string{"command": failing, "description": "Deploy to staging"}),
		modelserver.Text("it failed again"),
	)
	env.Run(t, "-p", "Deploy to staging again", "--allowedTools", "Bash")
	reqs = server.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests after session 2; want 5", len(reqs))
	}
	first := reqs[3].Text()
	for _, want := range []string{"baton recall: this prompt touches earlier work.", "`./deploy.sh staging` failed", "exit 3", "deploy: DB_URL is not set", "What worked after: `DB_URL=", "./deploy.sh staging`", ", in session "} {
		if !strings.Contains(first, want) {
			t.Errorf("the prompt's request lacks %q:\n%.3000s", want, first)
		}
	}
	for i, r := range reqs {
		if strings.Contains(r.Text(), secret) && i != 2 {
			// The working call's own result holds no secret either; only
			// the call itself (request 3, the model's tool use) may.
			t.Errorf("request %d holds the database password:\n%.2000s", i+1, r.Text())
		}
	}
	if got := reqs[4].LastToolResult(); !strings.Contains(got, "DB_URL is not set") {
		t.Errorf("the second failure's result = %q", got)
	}
	checkNote(t, reqs[4], "`deploy.sh staging` failed earlier in this repository", "What worked after: `DB_URL=")

	// Session 3, in Japanese.
	env.Extra = append(env.Extra, "LANG=ja_JP.UTF-8", "LC_ALL=ja_JP.UTF-8")
	server.Add(modelserver.Text("了解です"))
	env.Run(t, "-p", "ステージングにもう一度デプロイして", "--allowedTools", "Bash")
	reqs = server.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests after session 3; want 6", len(reqs))
	}
	ja := reqs[5].Text()
	for _, want := range []string{"baton の想起", "`./deploy.sh staging` が失敗", "終了コード 3", "その後に成功した実行: `DB_URL=", "、セッション "} {
		if !strings.Contains(ja, want) {
			t.Errorf("the Japanese prompt's request lacks %q:\n%.3000s", want, ja[max(0, strings.LastIndex(ja, "baton")-2000):])
		}
	}
}
