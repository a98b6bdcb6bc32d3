package resume_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
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
	sent := reqs[0].Text()
	for _, want := range []string{
		"SessionStart hook additional context",
		"## baton: このワークツリーの作業状況（ブランチ main）",
		"新しいセッションの開始です。",
		"**タスク**（`baton save --task` で設定）：CSV 出力の修正",
		"- 再現テストを書いている",
		"- writer を差し替える",
		"続けるかどうか確認してから動いてください",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("the model was not sent %q; it got:\n%s", want, sent)
		}
	}
}
