package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/agentserver"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
)

// The other agents' CLIs the end-to-end tests run, as scripts/test installs
// them into the test cache (BATON_CODEX_BIN, BATON_GEMINI_BIN override).
const (
	codexVersion  = "0.169.0"
	geminiVersion = "0.61.0"
)

// agentBin finds an installed CLI: $env, else <cache>/<dir>/node_modules/.bin/<name>.
// Missing, the test is skipped (failed on CI, where the install step must
// have run).
func agentBin(t *testing.T, env, dir, name, pkg string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		cache := os.Getenv("BATON_TEST_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "baton-test")
		}
		bin = filepath.Join(cache, dir, "node_modules", ".bin", name)
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		msg := name + " is not installed at " + bin + "; install it with: npm install --prefix <cache>/" + dir + " " + pkg + " (scripts/test does), or set " + env
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// runAgentCLI runs another agent's CLI in the test repository with the
// Claude Code environment's HOME (so baton finds its files) and extra.
func runAgentCLI(t *testing.T, e *claudetest.Env, bin string, extra []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), claudetest.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = e.Dir, append(e.Environ(), extra...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// checkOtherAgent runs Claude Code in the repository, then the other agent
// (run), then checks that baton finds the other session's words, counts its
// tokens, and that the next Claude Code session's briefing names it.
func checkOtherAgent(t *testing.T, agent, name string, run func(e *claudetest.Env), wantUsage string) {
	s := modelserver.New(t, modelserver.Text("Hello."), modelserver.Text("Picking up."))
	e, baton := e2eRepo(t, s)
	runBaton(t, e, baton, "init", "--no-mcp")
	e.Run(t, "-p", "hello")

	run(e)

	out := string(runBaton(t, e, baton, "search", "nonexistent", "--agent", agent, "--json"))
	var res struct {
		Hits []struct {
			Agent, Event, Snippet string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	found := false
	for _, h := range res.Hits {
		found = found || h.Agent == agent && h.Event == "command" && strings.Contains(h.Snippet, "ls /«nonexistent»-dir")
	}
	if !found {
		t.Errorf("search found no %s command hit:\n%s", agent, out)
	}
	if out := string(runBaton(t, e, baton, "usage", "--agent", agent)); !regexp.MustCompile(wantUsage).MatchString(out) {
		t.Errorf("usage --agent %s:\n%s\nwant a row matching %s", agent, out, wantUsage)
	}

	before := len(s.Requests())
	e.Run(t, "-p", "go on")
	reqs := s.Requests()[before:]
	if len(reqs) == 0 {
		t.Fatal("no request of the next Claude Code session")
	}
	ctx := hookContext(reqs[0])
	for _, want := range []string{"Another agent worked here last", "a " + name + " session", "Its last request: list the missing folder",
		"`ls /nonexistent-dir` → exit 2 (failed)", "Its last answer: The folder /nonexistent-dir does not exist."} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the next Claude Code session's briefing lacks %q:\n%s", want, ctx)
		}
	}
}

// TestE2ECodexSessionFound: the real Codex CLI, offline against a scripted
// Responses API, runs a failing command and answers; baton finds its words,
// counts its tokens as ccusage does (1200 input of which 1000 cached, 50
// output with 20 reasoning, twice), and the next Claude Code session's
// briefing picks up after it.
func TestE2ECodexSessionFound(t *testing.T) {
	bin := agentBin(t, "BATON_CODEX_BIN", "codex", "codex", "@openai/codex@"+codexVersion)
	u := agentserver.Usage{Input: 1200, Cached: 1000, Output: 50, Reasoning: 20}
	checkOtherAgent(t, "codex", "Codex CLI", func(e *claudetest.Env) {
		srv := agentserver.NewOpenAI(t, agentserver.Shell("ls /nonexistent-dir", u), agentserver.Text("The folder /nonexistent-dir does not exist.", u))
		config := "model = \"gpt-5-codex\"\nmodel_provider = \"scripted\"\n[model_providers.scripted]\nname = \"scripted\"\n" +
			"base_url = \"" + srv.URL + "/v1\"\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"
		if err := os.MkdirAll(filepath.Join(e.Home, ".codex"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.Home, ".codex", "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		runAgentCLI(t, e, bin, []string{"OPENAI_API_KEY=sk-test"}, "exec", "--skip-git-repo-check", "-s", "danger-full-access", "list the missing folder")
		if srv.Remaining() != 0 {
			t.Fatalf("codex left %d scripted turns unused", srv.Remaining())
		}
	}, `\d{4}-\d\d-\d\d +400 +100 +0 +2,000 +2,500 .*gpt-5-codex`)
}

// TestE2EGeminiSessionFound: the same with the real Gemini CLI against a
// scripted Gemini API; its thinking tokens count as output.
func TestE2EGeminiSessionFound(t *testing.T) {
	bin := agentBin(t, "BATON_GEMINI_BIN", "gemini-cli", "gemini", "@google/gemini-cli@"+geminiVersion)
	u := agentserver.Usage{Input: 1200, Cached: 1000, Output: 50, Reasoning: 20}
	checkOtherAgent(t, "gemini", "Gemini CLI", func(e *claudetest.Env) {
		srv := agentserver.NewGemini(t, agentserver.Shell("ls /nonexistent-dir", u), agentserver.Text("The folder /nonexistent-dir does not exist.", u))
		if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		// baton's briefing reaches the Gemini session through its
		// SessionStart hook.
		runBaton(t, e, filepath.Join(e.Path[len(e.Path)-1], "baton"), "init", "--agent", "gemini")
		runAgentCLI(t, e, bin, []string{"GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL=" + srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"},
			"-p", "list the missing folder", "--approval-mode", "yolo")
		if srv.Remaining() != 0 {
			t.Fatalf("gemini left %d scripted turns unused", srv.Remaining())
		}
		hooked := false
		for _, r := range srv.Requests() {
			hooked = hooked || strings.Contains(r.Raw, "<hook_context>## baton: where this worktree stands")
		}
		if !hooked {
			t.Errorf("no Gemini request carries baton's briefing in <hook_context>")
		}
	}, `\d{4}-\d\d-\d\d +400 +140 +0 +2,000 +2,540 .*gemini-`)
}
