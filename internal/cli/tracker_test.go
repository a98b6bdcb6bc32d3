package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
)

// TestChooseTracker: tracker.kind auto, the default, is GitHub when the
// repository is named on GitHub and a token is found, else local, and says
// why either way.
func TestChooseTracker(t *testing.T) {
	noGHLogin(t)

	tests := []struct {
		name     string
		origin   string
		config   string // the repository's .baton.yaml
		user     string // the user's config
		env      map[string]string
		wantKind string
		wantWhy  string
	}{
		{name: "nothing named", wantKind: "local", wantWhy: "auto: nothing names a GitHub repository (no GH_REPO, no origin remote)"},
		{name: "GH_REPO and GH_TOKEN", env: map[string]string{"GH_REPO": "acme/widgets", "GH_TOKEN": "t"},
			wantKind: "github", wantWhy: "auto: GH_REPO names the GitHub repository acme/widgets and a token is in GH_TOKEN"},
		{name: "origin on GitHub, GITHUB_TOKEN", origin: "git@github.com:acme/widgets.git", env: map[string]string{"GITHUB_TOKEN": "t"},
			wantKind: "github", wantWhy: "auto: origin names the GitHub repository acme/widgets and a token is in GITHUB_TOKEN"},
		{name: "origin on GitHub, no token", origin: "https://github.com/acme/widgets.git",
			wantKind: "local", wantWhy: "auto: acme/widgets is on GitHub but no token was found"},
		{name: "origin elsewhere", origin: "git@gitlab.com:acme/widgets.git", env: map[string]string{"GH_TOKEN": "t"},
			wantKind: "local", wantWhy: "auto: the origin remote is on gitlab.com, not GitHub"},
		{name: "repository in the config", user: "tracker:\n  github:\n    repo: acme/gadgets\n", env: map[string]string{"GH_TOKEN": "t"},
			wantKind: "github", wantWhy: "auto: tracker.github.repo names the GitHub repository acme/gadgets"},
		{name: "repository in an untrusted .baton.yaml", config: "tracker:\n  github:\n    repo: acme/gadgets\n", env: map[string]string{"GH_TOKEN": "t"},
			wantKind: "local", wantWhy: "auto: nothing names a GitHub repository (no GH_REPO, no origin remote)"},
		{name: "local asked for", config: "tracker:\n  kind: local\n", env: map[string]string{"GH_REPO": "acme/widgets", "GH_TOKEN": "t"},
			wantKind: "local", wantWhy: "tracker.kind is local"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			git := func(args ...string) {
				t.Helper()
				if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
			}
			git("init", "-q")
			if tt.origin != "" {
				git("remote", "add", "origin", tt.origin)
			}
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(dir, ".baton.yaml"), []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			if tt.user != "" {
				user := config.UserPath(func(k string) string { return env[k] })
				if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(user, []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tt.env {
				env[k] = v
			}
			f := &Factory{Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
			cfg, err := f.Config(dir)
			if err != nil {
				t.Fatal(err)
			}
			c, err := chooseTracker(context.Background(), f, dir, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if why := c.reason(i18n.EN); c.kind != tt.wantKind || !strings.Contains(why, tt.wantWhy) {
				t.Errorf("got %s (%s); want %s (%s)", c.kind, why, tt.wantKind, tt.wantWhy)
			}
			if ja := c.reason(i18n.JA); ja == "" || ja == c.reason(i18n.EN) {
				t.Errorf("Japanese reason %q; want its own text", ja)
			}
		})
	}
}

// TestIssueAutoUsesGitHub: with GH_REPO and GH_TOKEN set and no tracker
// configured, issues come from GitHub, not the local tracker.
func TestIssueAutoUsesGitHub(t *testing.T) {
	e := newIssueEnv(t)
	if err := os.Remove(filepath.Join(e.dir, ".baton.yaml")); err != nil {
		t.Fatal(err)
	}
	e.srv.AddIssue(githubtest.Issue{Title: "Add export", Body: "CSV please"})
	code, out, errOut := e.run("issue", "list")
	if code != ExitOK || !strings.Contains(out, "Add export") {
		t.Errorf("issue list: exit %d, stdout %q, stderr %q; want the GitHub issue", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".claude", "session-state", "tracker.db")); err == nil {
		t.Error("auto made a local tracker.db although GitHub was named with a token")
	}
}

// noGHLogin makes `gh auth token` fail whatever the machine has: a user's
// gh login must not decide a test.
func noGHLogin(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\necho 'not logged in' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestIssueURLFollowsTheTracker: the dashboard links issues to GitHub when
// the tracker in use is GitHub, auto included, and not otherwise.
func TestIssueURLFollowsTheTracker(t *testing.T) {
	noGHLogin(t)
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{env: map[string]string{"GH_REPO": "acme/widgets", "GH_TOKEN": "t"}, want: "https://github.com/acme/widgets/issues/7"},
		{env: map[string]string{"GH_REPO": "ghe.example.com/acme/widgets", "GH_TOKEN": "t"}, want: "https://ghe.example.com/acme/widgets/issues/7"},
		{env: map[string]string{"GH_REPO": "acme/widgets"}, want: ""},
	} {
		env := tt.env
		f := &Factory{Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
		cfg, err := f.Config(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if link := issueURL(context.Background(), f, dir, cfg); link != nil {
			got = link(7)
		}
		if got != tt.want {
			t.Errorf("env %v: link %q; want %q", env, got, tt.want)
		}
	}
}
