package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadOverlay(t *testing.T) {
	dir := t.TempDir()
	user := write(t, dir, "user.yaml", "lang: ja\njournal:\n  max_size: 8MiB\nagent:\n  command: my-claude\n")
	repo := write(t, dir, "repo.yaml", "journal:\n  max_size: 1024\n")
	c, err := Load(user, repo, filepath.Join(dir, "missing.yaml"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.JournalMaxSize(); got != 1024 {
		t.Errorf("JournalMaxSize = %d; want 1024 (repo file overrides user file)", got)
	}
	if got := c.AgentCommand(); got != "my-claude" {
		t.Errorf("AgentCommand = %q; want my-claude (kept from user file)", got)
	}
	if got := c.Language(func(string) string { return "" }); got != i18n.JA {
		t.Errorf("Language = %q; want ja", got)
	}
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.JournalMaxSize() != DefaultJournalMaxSize || c.AgentCommand() != "claude" {
		t.Errorf("defaults = %d %q; want %d claude", c.JournalMaxSize(), c.AgentCommand(), DefaultJournalMaxSize)
	}
	if got := c.Language(func(k string) string { return map[string]string{"LANG": "ja_JP.UTF-8"}[k] }); got != i18n.JA {
		t.Errorf("Language from LANG = %q; want ja", got)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown top key", "lnag: ja\n", []string{`unknown key "lnag"`, "line 1"}},
		{"unknown nested key", "journal:\n  max_sise: 3\n", []string{`unknown key "journal.max_sise"`, "line 2"}},
		{"bad size", "journal:\n  max_size: lots\n", []string{`invalid size "lots"`}},
		{"bad lang", "agent:\n  command: claude\nlang: fr\n", []string{"line 3: lang: unknown language \"fr\""}},
		{"bad nested value", "resume:\n  records: 5000\n", []string{"line 2: resume.records must be between"}},
		{"bad list item", "worker:\n  repositories:\n    - repo: acme/a\n      path: /x\n    - repo: bad\n      path: /y\n", []string{"line 5: worker.repositories[1].repo is \"bad\""}},
		{"bad route value", "context:\n  routes:\n    ops:\n      daily_tokens: -1\n", []string{"line 4: context.routes.ops.daily_tokens must be positive"}},
		{"bad rescue margin", "worker:\n  queue:\n    rescue_margin_seconds: -5\n", []string{"worker.queue.rescue_margin_seconds is -5"}},
		{"queue url not postgres", "worker:\n  queue:\n    url: mysql://db/q\n", []string{"worker.queue.url must be a postgres:// URL"}},
		{"not yaml", "lang: [\n", []string{"yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "config.yaml", tt.body)
			_, err := Load(p)
			if err == nil {
				t.Fatalf("Load succeeded; want an error")
			}
			for _, w := range append(tt.want, "") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file %s", err, p)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
		ok   bool
	}{
		{"1024", 1024, true}, {"32MiB", 32 << 20, true}, {"10 MB", 10e6, true},
		{"1GiB", 1 << 30, true}, {"-1", 0, false}, {"MiB", 0, false}, {"1.5MiB", 0, false},
		{"99999999999999GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestUserPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	if got := UserPath(get); got != "/home/u/.config/baton/config.yaml" {
		t.Errorf("UserPath = %q", got)
	}
	env["XDG_CONFIG_HOME"] = "/x"
	if got := UserPath(get); got != "/x/baton/config.yaml" {
		t.Errorf("UserPath with XDG_CONFIG_HOME = %q", got)
	}
}

// TestLoadErrorNamesTheFileThatCounts: a value checked on the merged
// settings is blamed on the last file that sets it.
func TestLoadErrorNamesTheFileThatCounts(t *testing.T) {
	dir := t.TempDir()
	user := write(t, dir, "config.yaml", "lang: fr\n")
	repo := write(t, dir, RepoFile, "# the repository's\n\nlang: de\n")
	_, err := Load(user, repo)
	if err == nil || !strings.Contains(err.Error(), repo+": line 3: lang: unknown language \"de\"") {
		t.Errorf("error = %v; want the repository file's line 3", err)
	}
}

func TestArchiveTranscriptsDefaultsOn(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, yaml string
		want       bool
	}{
		{name: "unset", yaml: "lang: en\n", want: true},
		{name: "on", yaml: "archive:\n  transcripts: true\n", want: true},
		{name: "off", yaml: "archive:\n  transcripts: false\n", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.ArchiveTranscripts(); got != tt.want {
				t.Errorf("ArchiveTranscripts() = %v; want %v", got, tt.want)
			}
		})
	}
}
