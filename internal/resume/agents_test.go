package resume

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
)

// codexSession writes a Codex rollout of a session in cwd, minutes before
// now: a request, a command that passes, one that fails, an answer.
func codexSession(t *testing.T, home, cwd string, ago int) string {
	t.Helper()
	ts := func(m int) string { return at(m).Format("2006-01-02T15:04:05.000Z") }
	line := func(m int, typ, payload string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":%q,"payload":%s}`, ts(m), typ, payload) + "\n"
	}
	data := line(ago+5, "session_meta", fmt.Sprintf(`{"id":"0199aaaa-codex","timestamp":%q,"cwd":%q}`, ts(ago+5), cwd)) +
		line(ago+4, "event_msg", `{"type":"user_message","message":"make the parser accept trailing commas"}`) +
		line(ago+3, "event_msg", `{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","command":["/bin/bash","-lc","go vet ./parser/"],"status":"completed","aggregated_output":"","exit_code":0}}`) +
		line(ago+2, "event_msg", `{"type":"item_completed","item":{"type":"CommandExecution","id":"c2","command":["/bin/bash","-lc","go test ./parser/"],"status":"failed","aggregated_output":"--- FAIL: TestTrailing (0.00s)\n    parser_test.go:9: unexpected ','\nFAIL\n","exit_code":1}}`) +
		line(ago, "event_msg", `{"type":"agent_message","message":"Trailing commas parse now, but TestTrailing still fails on nested lists."}`)
	dir := filepath.Join(home, "sessions", "2026", "05", "10")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "rollout-2026-05-10T11-00-00-0199aaaa.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at(ago), at(ago)); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBriefAnotherAgentWorkedLast(t *testing.T) {
	tests := []struct {
		name     string
		codexAgo int    // minutes before now the Codex session last wrote
		cwd      string // where it ran
		want     bool
	}{
		{"a Codex session after the last Claude Code work is briefed", 10, "/repo", true},
		{"one in a folder below the worktree too", 10, "/repo/parser", true},
		{"one before the last Claude Code work is not", 80, "/repo", false},
		{"one in another repository is not", 10, "/elsewhere", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := state.Dir{Root: t.TempDir()}
			observe(t, st, work("s1", 70), nil) // Claude Code's last work: 60 minutes ago
			home := t.TempDir()
			codexSession(t, home, tt.cwd, tt.codexAgo)
			o := baseOptions(st.Root)
			br, err := BuildBrief(context.Background(), BriefOptions{Options: o, Source: "startup", Lang: i18n.EN, Budget: hook.MaxContext, Own: true,
				Agents: agentlog.Dirs{Codex: home}})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(br.Text, "Another agent worked here last")
			if got != tt.want {
				t.Fatalf("briefing names the other agent: %v; want %v\n%s", got, tt.want, br.Text)
			}
			if !tt.want {
				return
			}
			for _, want := range []string{
				"a Codex CLI session, 0199aaaa",
				"Its last request: make the parser accept trailing commas",
				"Its last answer: Trailing commas parse now, but TestTrailing still fails on nested lists.",
				"- `go test ./parser/` → exit 1 (failed): --- FAIL: TestTrailing (0.00s) / parser_test.go:9: unexpected ','\n- `go vet ./parser/` → exit 0",
			} {
				if !strings.Contains(br.Text, want) {
					t.Errorf("briefing lacks %q:\n%s", want, br.Text)
				}
			}
			// What the other agent wrote is inside the quoted block, after
			// its opening line.
			open := strings.Index(br.Text, "<<<quote")
			if i := strings.Index(br.Text, "make the parser accept"); open < 0 || i < open {
				t.Errorf("the other agent's words are not fenced as quoted data:\n%s", br.Text)
			}
			if br.AgentWork == nil || br.AgentWork.Agent != agentlog.Codex || len(br.AgentWork.Commands) != 2 || !br.AgentWork.Commands[0].Failed {
				t.Errorf("AgentWork = %+v; want the Codex session, its failing command first", br.AgentWork)
			}
		})
	}
}

func TestLastAgentWorkGemini(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "repo", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "projects.json"), []byte(`{"projects":{"/repo":"repo"}}`), 0o644)
	data := `{"sessionId":"g-1","projectHash":"h","startTime":"2026-05-10T11:40:00Z","lastUpdated":"2026-05-10T11:50:00Z"}` + "\n" +
		`{"id":"1","timestamp":"2026-05-10T11:41:00Z","type":"user","content":[{"text":"why does make fail"}]}` + "\n" +
		`{"id":"2","timestamp":"2026-05-10T11:42:00Z","type":"gemini","content":"","toolCalls":[{"name":"run_shell_command","args":{"command":"make"},"status":"success","result":[{"functionResponse":{"response":{"output":"Output: no rule to make target\nExit Code: 2"}}}]}]}` + "\n" +
		`{"id":"3","timestamp":"2026-05-10T11:50:00Z","type":"gemini","content":"The Makefile lacks a default target."}` + "\n"
	p := filepath.Join(chats, "session-2026-05-10T11-40-g1.jsonl")
	os.WriteFile(p, []byte(data), 0o644)
	w, err := LastAgentWork(context.Background(), agentlog.Dirs{Gemini: dir}, "/repo", at(60), "")
	if err != nil || w == nil {
		t.Fatalf("LastAgentWork = %v, %v; want the Gemini session", w, err)
	}
	text := w.Item(i18n.JA, now, false)
	for _, want := range []string{"**Gemini CLI のセッション** g-1", "その最後の依頼：why does make fail", "その最後の返答：The Makefile lacks a default target.", "- `make` → exit 2（失敗）: no rule to make target"} {
		if !strings.Contains(text, want) {
			t.Errorf("layer lacks %q:\n%s", want, text)
		}
	}
	if w, err := LastAgentWork(context.Background(), agentlog.Dirs{Gemini: dir}, "/repo", time.Now().Add(time.Hour), ""); err != nil || w != nil {
		t.Errorf("a session older than since: %+v, %v; want none", w, err)
	}
}
