package claudetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteProjectSettings writes settings as JSON to Dir/.claude/settings.local.json,
// the project settings the CLI reads (hooks there fire without any trust
// step).
func (e *Env) WriteProjectSettings(t testing.TB, settings any) {
	t.Helper()
	raw, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatalf("marshal settings: %v", err)
	}
	dir := filepath.Join(e.Dir, ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("create %s: %v", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.local.json"), raw, 0o644); err != nil {
		t.Fatalf("write settings: %v", err)
	}
}

// HookSettings returns settings that run command for every event in events
// (for tool events, for every tool), in the shape WriteProjectSettings and
// --settings take.
func HookSettings(command string, events ...string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[ev] = []any{map[string]any{
			"matcher": "",
			"hooks":   []any{map[string]any{"type": "command", "command": command}},
		}}
	}
	return map[string]any{"hooks": hooks}
}

// ShellQuote quotes s as one word for the shell that runs hook commands.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TrustDir writes the user settings that let interactive Claude Code start
// in e.Dir without asking anything: onboarding done, the API key and the
// folder trusted.
func (e *Env) TrustDir(t testing.TB) {
	t.Helper()
	projects := map[string]any{e.Dir: map[string]any{"hasTrustDialogAccepted": true}}
	if real, err := filepath.EvalSymlinks(e.Dir); err == nil {
		projects[real] = map[string]any{"hasTrustDialogAccepted": true}
	}
	raw, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{"sk-ant-test"}},
		"projects":               projects,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".claude.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}
