package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// These tests run the real Claude Code CLI against the scripted model
// server, with the baton binary built from this module.

// e2eRepo is a git repository with baton's hooks, for the CLI to run in.
func e2eRepo(t *testing.T, s *modelserver.Server) (*claudetest.Env, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	e := claudetest.New(t, s)
	bin := claudetest.BuildBaton(t)
	e.Path = append(e.Path, bin)
	if out, err := exec.Command("git", "init", "-q", "-b", "main", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return e, filepath.Join(bin, "baton")
}

// waitFor polls until ok or the deadline, for what a detached job writes.
// On failure it shows the journal and baton.log of dir.
func waitFor(t *testing.T, dir state.Dir, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			j, _ := os.ReadFile(dir.Journal())
			l, _ := os.ReadFile(dir.Log())
			t.Fatalf("%s: not there after 30 s\njournal:\n%s\nbaton.log:\n%s", what, j, l)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hookContext returns the newest SessionStart context a request carries.
// The CLI sends each start's context, oldest first, flattened here into
// one text with its other system text.
func hookContext(r *modelserver.Request) string {
	const prefix = "SessionStart hook additional context: "
	text := r.Text()
	i := strings.LastIndex(text, prefix)
	if i < 0 {
		return ""
	}
	return text[i+len(prefix):]
}

// TestE2ECompactThenContinue: a session with a tool call, then /compact:
// PreCompact starts the recent summary in the background, which writes L1.
// With the layers made far larger than the limit, the next --continue run
// reaches the model with one full briefing (the /compact run's, which the
// compaction kept) and what changed since: the new approved decisions and
// that summary, within 10,000 characters.
func TestE2ECompactThenContinue(t *testing.T) {
	s := modelserver.New(t,
		modelserver.ToolUse("Bash", map[string]string{"command": "echo exported > report.csv", "description": "Write the CSV report"}),
		modelserver.Text("The CSV report is written. Should the header row be localized?"),
		modelserver.Text("continuing"),
	)
	e, _ := e2eRepo(t, s)
	ctx := context.Background()
	if _, err := claudecode.InstallHooks(ctx, filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	dir := state.At(e.Dir)
	files, err := recall.FilesFor(dir, "")
	if err != nil {
		t.Fatal(err)
	}

	e.Run(t, "-p", "Export the report as CSV", "--allowedTools", "Bash")
	e.Run(t, "-p", "--continue", "/compact")

	var l1 recall.Recent
	waitFor(t, dir, "L1 entry from PreCompact", func() bool {
		l, err := recall.ReadLayers(files, false)
		if err != nil {
			return false
		}
		for _, r := range l.Recent {
			if r.Trigger == hook.PreCompact {
				l1 = r
				return true
			}
		}
		return false
	})
	if l1.Goal != "Export the report as CSV" || !strings.Contains(strings.Join(l1.Actions, "\n"), "Bash: Write the CSV report") {
		t.Fatalf("L1 from PreCompact = %+v; want the session's goal and its Bash call", l1)
	}
	// Layers far larger than the limit: 300 decisions and 200 older daily
	// summaries.
	var ds []recall.Decision
	for i := range 300 {
		ds = append(ds, recall.Decision{Date: time.Now().AddDate(0, 0, -60).Format(recall.DateLayout), Summary: fmt.Sprintf("decision %03d: %s", i, strings.Repeat("keep the format stable ", 6)), Source: "issue", Issue: i + 1})
	}
	ds = append(ds, recall.Decision{Date: time.Now().Format(recall.DateLayout), Summary: "Export CSV as UTF-8 with a header row", Source: "session", Session: "s"})
	if _, err := recall.AppendDecisions(files, ds...); err != nil {
		t.Fatal(err)
	}
	l1Before, _ := os.ReadFile(files.L1())
	before, _ := recall.ReadLayers(files, false)

	e.Run(t, "-p", "--continue", "go on")
	// The run's SessionEnd summarizes its new records; its job's last
	// write is that entry, so once it is there nothing writes in the
	// folder the test is about to remove.
	waitFor(t, dir, "L1 entry of the last run", func() bool {
		l, err := recall.ReadLayers(files, false)
		return err == nil && len(l.Recent) > len(before.Recent)
	})

	reqs := s.Requests()
	last := reqs[len(reqs)-1]
	ctxText := hookContext(last)
	if ctxText == "" {
		t.Fatalf("the --continue request carries no SessionStart context:\n%.3000s", last.Text())
	}
	// The injected text ends with how to pull more; what follows it is the
	// CLI's own.
	const tail = "`baton resume` and `baton search`."
	end := strings.Index(ctxText, tail)
	if end < 0 {
		t.Fatalf("the newest context has no line on how to pull more (was it replaced by a preview?):\n%s", ctxText)
	}
	ctxText = ctxText[:end+len(tail)]
	if n := hook.Len(ctxText); n > hook.MaxContext {
		t.Fatalf("injected %d characters; want at most %d", n, hook.MaxContext)
	}
	// The conversation holds the briefing the /compact run's start gave
	// (kept through the compaction); the resume adds what changed since.
	if n := strings.Count(last.Text(), "## baton: where this worktree stands"); n != 1 {
		t.Errorf("the --continue request carries %d full briefings; want 1:\n%s", n, last.Text())
	}
	for _, want := range []string{
		"## baton: what changed since the briefing earlier in this conversation",
		"The session was resumed (--continue or --resume).",
		"### Newly approved decisions (L3)",
		"Export CSV as UTF-8 with a header row (source: session s)",
		"left out to stay within",
		"`baton context show --layer l3`",
	} {
		if !strings.Contains(ctxText, want) {
			t.Errorf("injected context lacks %q:\n%s", want, ctxText)
		}
	}
	// The summary PreCompact made reached the conversation with the
	// compaction's start (or this one's, when its job was slower).
	for _, want := range []string{"### Recent summary (L1)", "Goal: Export the report as CSV", "Bash: Write the CSV report"} {
		if !strings.Contains(last.Text(), want) {
			t.Errorf("the --continue request lacks %q:\n%s", want, last.Text())
		}
	}
	if strings.Contains(ctxText, "mcp__baton__") {
		t.Errorf("hooks without baton mcp, yet the context names its tools:\n%s", ctxText)
	}
	if strings.Contains(ctxText, "decision 000:") {
		t.Errorf("the oldest decision was kept while others were left out")
	}
	if l1After, _ := os.ReadFile(files.L1()); len(l1After) < len(l1Before) {
		t.Errorf("the L1 file shrank")
	}
}

// TestE2EMCPSessionLog: the CLI starts `baton mcp` from --mcp-config; the
// scripted model calls mcp__baton__session_log and the next request
// carries the journal's records as the tool result.
func TestE2EMCPSessionLog(t *testing.T) {
	s := modelserver.New(t,
		modelserver.ToolUse("mcp__baton__session_log", map[string]any{"depth": 5}),
		modelserver.Text("I see the migration ran."),
	)
	e, baton := e2eRepo(t, s)
	// MCP tools are offered to the model directly, not through tool search.
	e.Extra = append(e.Extra, "ENABLE_TOOL_SEARCH=false")
	dir := state.At(e.Dir)
	j := journal.Open(dir.Root, journal.Options{})
	now := time.Now().UTC()
	if err := j.Append(
		journal.Record{TS: now.Add(-2 * time.Minute), Event: "UserPromptSubmit", Session: "earlier", Prompt: "migrate the database"},
		journal.Record{TS: now.Add(-time.Minute), Event: "PostToolUse", Session: "earlier", Tool: "Bash", Desc: "Run the migration 0042"},
	); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"mcpServers": map[string]any{"baton": map[string]any{"command": baton, "args": []string{"mcp"}}}}
	b, _ := json.Marshal(cfg)
	mcpConfig := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(mcpConfig, b, 0o600); err != nil {
		t.Fatal(err)
	}

	e.Run(t, "-p", "what did the last session do?", "--mcp-config", mcpConfig, "--strict-mcp-config", "--allowedTools", "mcp__baton__session_log")

	reqs := s.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests; want the tool call and its result", len(reqs))
	}
	if !strings.Contains(strings.Join(reqs[0].Tools, " "), "mcp__baton__session_log") {
		t.Fatalf("the model was not offered mcp__baton__session_log: %v", reqs[0].Tools)
	}
	result := reqs[1].LastToolResult()
	for _, want := range []string{`"desc":"Run the migration 0042"`, `"prompt":"migrate the database"`, `"event":"PostToolUse"`} {
		if !strings.Contains(result, want) {
			t.Errorf("tool result lacks %s:\n%s", want, result)
		}
	}
}
