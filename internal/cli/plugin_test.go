package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
)

// TestPluginHooks keeps the plugin's hooks.json in step with what `baton
// init` installs: the same events, each running baton's hook.
func TestPluginHooks(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "plugin", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("plugin/hooks/hooks.json: %v", err)
	}
	var events []string
	for event, groups := range doc.Hooks {
		events = append(events, event)
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Command != claudecode.PluginHookCommand || groups[0].Hooks[0].Type != "command" {
			t.Errorf("%s: hooks = %+v; want one command hook running %q", event, groups, claudecode.PluginHookCommand)
		}
	}
	want := claudecode.HookEvents()
	slices.Sort(events)
	slices.Sort(want)
	if !slices.Equal(events, want) {
		t.Errorf("plugin events = %v; want %v", events, want)
	}

	for _, manifest := range []string{
		filepath.Join(root, "plugin", ".claude-plugin", "plugin.json"),
		filepath.Join(root, ".claude-plugin", "marketplace.json"),
	} {
		b, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Name    string `json:"name"`
			Plugins []struct {
				Name, Source string
			} `json:"plugins"`
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Name != "baton" {
			t.Errorf("%s: name %q, err %v; want a valid manifest named baton", manifest, m.Name, err)
		}
		for _, p := range m.Plugins {
			if fi, err := os.Stat(filepath.Join(root, p.Source, ".claude-plugin", "plugin.json")); err != nil || fi.IsDir() {
				t.Errorf("marketplace lists %s at %s, which has no plugin.json", p.Name, p.Source)
			}
		}
	}
}

// TestPluginHookCommand runs the plugin's hook command through the shell as
// Claude Code does: baton-hook when it is on PATH, else `baton hook`, each
// reading the payload from stdin.
func TestPluginHookCommand(t *testing.T) {
	both, onlyBaton := t.TempDir(), t.TempDir()
	script := func(dir, name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(both, "baton-hook", `echo "baton-hook $*: $(cat)"`)
	script(both, "baton", `echo "baton $*: $(cat)"`)
	script(onlyBaton, "baton", `echo "baton $*: $(cat)"`)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name, path, want string
	}{
		{name: "baton-hook installed", path: both, want: "baton-hook : {}\n"},
		{name: "only baton", path: onlyBaton, want: "baton hook: {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(sh, "-c", claudecode.PluginHookCommand)
			cmd.Env = []string{"PATH=" + tt.path + string(filepath.ListSeparator) + filepath.Dir(sh)}
			cmd.Stdin = strings.NewReader("{}")
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != tt.want {
				t.Errorf("got %q, %v; want %q", out, err, tt.want)
			}
		})
	}
}
