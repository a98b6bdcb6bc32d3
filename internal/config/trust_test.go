package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardedCases set each guarded key in a repository's file; get reads the
// setting back through the accessor the commands use.
var guardedCases = []struct {
	key  string
	line int // of the key's last part in repo
	repo string
	get  func(*Config) string
	want string // what the repository asks for
	def  string // the default, when it is ignored
}{
	{"agent.command", 2, "agent:\n  command: /repo/tool.sh\n", (*Config).AgentCommand, "/repo/tool.sh", "claude"},
	{"context.summarizers.l1.use", 4, "context:\n  summarizers:\n    l1:\n      use: claude\n", func(c *Config) string { return c.ContextSummarizer("l1").Use }, "claude", "extractive"},
	{"context.summarizers.l2.use", 3, "context:\n  summarizers:\n    l2: {use: openai, model: m}\n", func(c *Config) string { return c.ContextSummarizer("l2").Use }, "openai", "extractive"},
	{"context.summarizers.l3.use", 3, "context:\n  summarizers:\n    l3: {use: anthropic, model: m}\n", func(c *Config) string { return c.ContextSummarizer("l3").Use }, "anthropic", "extractive"},
	{"decisions.extractor", 2, "decisions:\n  extractor: claude\n", (*Config).DecisionsExtractor, "claude", "rules"},
	{"tracker.github.repo", 3, "tracker:\n  github:\n    repo: evil.example/o/n\n", func(c *Config) string { return c.Tracker.GitHub.Repo }, "evil.example/o/n", ""},
	{"debate.headless_args", 2, "debate:\n  headless_args: [--settings, hooks.json]\n", func(c *Config) string { return strings.Join(c.DebateHeadlessArgs(), " ") }, "--settings hooks.json", "--permission-mode acceptEdits"},
	{"debate.tmux_socket", 2, "debate:\n  tmux_socket: work\n", func(c *Config) string { return c.Debate.TmuxSocket }, "work", ""},
	{"decisions.memory_dir", 2, "decisions:\n  memory_dir: ~/.claude/projects/-other/memory\n", func(c *Config) string { return c.Decisions.MemoryDir }, "~/.claude/projects/-other/memory", ""},
	{"debate.dir", 2, "debate:\n  dir: /home/someone/.config\n", func(c *Config) string { return c.Debate.Dir }, "/home/someone/.config", ""},
	{"worker", 1, "worker:\n  queue:\n    url: postgres://evil.example/q\n  agent:\n    command: /repo/w.sh\n", func(c *Config) string { return c.Worker.Queue.URL + " " + c.WorkerAgentCommand() }, "postgres://evil.example/q /repo/w.sh", " claude"},
}

func TestRepoGuardedKeysFollowTrust(t *testing.T) {
	covered := map[string]bool{}
	for _, g := range guardedCases {
		covered[g.key] = true
	}
	for _, k := range GuardedKeys() {
		if !covered[k] {
			t.Errorf("guarded key %s has no case here", k)
		}
	}
	for _, g := range guardedCases {
		// The repository also sets a key anyone may set: it applies
		// whatever the trust.
		body := "lang: ja\n" + g.repo
		for _, tt := range []struct {
			name    string
			trusted func(root string) string // the user file's trusted list
			want    TrustState
		}{
			{"untrusted", func(string) string { return "" }, RepoUntrusted},
			{"trusted", func(root string) string { return trustedYAML(root, Sum([]byte(body))) }, RepoTrusted},
			{"changed since trusted", func(root string) string { return trustedYAML(root, Sum([]byte(body+"# older\n"))) }, RepoChanged},
			{"trusted elsewhere", func(root string) string { return trustedYAML(root+"-fork", Sum([]byte(body))) }, RepoUntrusted},
		} {
			t.Run(g.key+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				root := filepath.Join(dir, "repo")
				if err := os.Mkdir(root, 0o755); err != nil {
					t.Fatal(err)
				}
				write(t, root, RepoFile, body)
				user := write(t, dir, "config.yaml", "lang: en\n"+tt.trusted(root))
				c, err := LoadRepo(user, root)
				if err != nil {
					t.Fatal(err)
				}
				if c.Repo.Trust != tt.want {
					t.Errorf("trust = %s; want %s", c.Repo.Trust, tt.want)
				}
				want, ignored := g.def, []string{g.key}
				if tt.want == RepoTrusted {
					want, ignored = g.want, nil
				}
				if got := g.get(c); got != want {
					t.Errorf("%s = %q; want %q", g.key, got, want)
				}
				var got []string
				for _, i := range c.Repo.Ignored {
					got = append(got, i.Key)
					if i.Line != g.line+1 {
						t.Errorf("ignored %s on line %d; want %d", i.Key, i.Line, g.line+1)
					}
				}
				if strings.Join(got, ",") != strings.Join(ignored, ",") {
					t.Errorf("ignored = %v; want %v", got, ignored)
				}
				if c.Lang != "ja" {
					t.Errorf("lang = %q; want ja from the repository's file", c.Lang)
				}
			})
		}
	}
}

func trustedYAML(root, sum string) string {
	return "trusted:\n  - path: " + root + "\n    sha256: " + sum + "\n"
}

// TestRepoKeepsUserSettings: a guarded key the repository may not set
// leaves the user's own value, not the default.
func TestRepoKeepsUserSettings(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, RepoFile, "agent:\n  command: ./tool.sh\ndebate:\n  rounds: 5\n")
	c, err := LoadRepo(write(t, t.TempDir(), "config.yaml", "agent:\n  command: my-claude\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentCommand() != "my-claude" || c.DebateRounds() != 5 {
		t.Errorf("agent.command %q, debate.rounds %d; want my-claude (the user's) and 5 (the repository's)", c.AgentCommand(), c.DebateRounds())
	}
}

// TestRepoCannotTrustItself: the trusted list is read from the user's file
// only, even when the repository's file is trusted.
func TestRepoCannotTrustItself(t *testing.T) {
	for _, userTrusts := range []bool{false, true} {
		dir := t.TempDir()
		body := "agent:\n  command: ./tool.sh\n"
		body += trustedYAML(dir, Sum([]byte(body)))
		write(t, dir, RepoFile, body)
		user := ""
		if userTrusts {
			user = trustedYAML(dir, Sum([]byte(body)))
		}
		c, err := LoadRepo(write(t, t.TempDir(), "config.yaml", user), dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Trusted) != map[bool]int{false: 0, true: 1}[userTrusts] {
			t.Errorf("user trusts %v: trusted = %v; want only the user's entries", userTrusts, c.Trusted)
		}
		if want := map[bool]string{false: "claude", true: "./tool.sh"}[userTrusts]; c.AgentCommand() != want {
			t.Errorf("user trusts %v: agent.command = %q; want %q", userTrusts, c.AgentCommand(), want)
		}
		last := c.Repo.Ignored[len(c.Repo.Ignored)-1]
		if last.Key != "trusted" || !last.UserOnly || last.Line != 3 {
			t.Errorf("user trusts %v: last ignored = %+v; want the user-only key trusted on line 3", userTrusts, last)
		}
	}
}

// TestRepoRefusesIndirection: an alias or a merge key would carry a value
// to a guarded key without writing it under that key.
func TestRepoRefusesIndirection(t *testing.T) {
	for name, body := range map[string]string{
		"alias": "debate:\n  headless_args: &a [x]\nworker:\n  agent:\n    args: *a\n",
		"merge": "context:\n  summarizers:\n    l2: &s {use: claude}\n    l1:\n      <<: *s\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, RepoFile, body)
			c, err := LoadRepo("", dir)
			if err == nil {
				t.Errorf("loaded with worker.agent.args %q, l1 use %q; want an error", c.Worker.Agent.Args, c.ContextSummarizer("l1").Use)
			}
		})
	}
}

func TestTrustEditsKeepTheFile(t *testing.T) {
	const head = "# my settings\nlang: ja   # 日本語で\n\n"
	const tail = "\n# summaries\ncontext:\n  records: 20\n"
	tests := []struct {
		name, before string
		edit         func(path string) (bool, error)
		after        string
		changed      bool
	}{
		{
			name:   "added at the end",
			before: head + strings.TrimPrefix(tail, "\n"),
			edit:   func(p string) (bool, error) { return Trust(p, "/src/a/", "aa") },
			after:  head + strings.TrimPrefix(tail, "\n") + "trusted:\n  - path: /src/a\n    sha256: aa\n", changed: true,
		},
		{
			name:   "a missing final newline",
			before: "lang: ja",
			edit:   func(p string) (bool, error) { return Trust(p, "/src/a", "aa") },
			after:  "lang: ja\ntrusted:\n  - path: /src/a\n    sha256: aa\n", changed: true,
		},
		{
			name:   "replaced in place",
			before: head + "trusted:\n  # old\n  - {path: /src/a, sha256: aa}   # first\n  - path: /src/b\n    sha256: bb\n" + tail,
			edit:   func(p string) (bool, error) { return Trust(p, "/src/a", "a2") },
			after:  head + "trusted:\n  - path: /src/b\n    sha256: bb\n  - path: /src/a\n    sha256: a2\n" + tail, changed: true,
		},
		{
			name:   "revoked",
			before: head + "trusted: [{path: /src/a, sha256: aa}]\n" + tail,
			edit:   func(p string) (bool, error) { return Revoke(p, "/src/a") },
			after:  head + tail, changed: true,
		},
		{
			name:   "revoking what is not there",
			before: head + tail,
			edit:   func(p string) (bool, error) { return Revoke(p, "/src/a") },
			after:  head + tail,
		},
		{
			name:   "a path YAML would misread",
			before: "",
			edit:   func(p string) (bool, error) { return Trust(p, "/src/#x: y", "aa") },
			after:  "trusted:\n  - path: '/src/#x: y'\n    sha256: aa\n", changed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "baton", "config.yaml")
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Dir(path), "config.yaml", tt.before)
			}
			changed, err := tt.edit(path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != tt.after || changed != tt.changed {
				t.Errorf("changed %v, file:\n%s\nwant changed %v, file:\n%s", changed, b, tt.changed, tt.after)
			}
		})
	}
}

// TestTrustThroughLink: a user config that is a link (a dotfiles folder)
// stays a link; the file it points to is edited.
func TestTrustThroughLink(t *testing.T) {
	dir := t.TempDir()
	real := write(t, dir, "dotfiles.yaml", "lang: en\n")
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(link, "/src/a", "aa"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("config.yaml is no longer a link")
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "sha256: aa") {
		t.Errorf("the linked file = %q; want the trusted entry in it", b)
	}
}

// TestTrustRefusesWhatItCannotSplice: a broken file or one whose trusted
// list shares a line with other settings is left as it is.
func TestTrustRefusesWhatItCannotSplice(t *testing.T) {
	for name, body := range map[string]string{
		"broken":    "lang: [\n",
		"unknown":   "lnag: ja\n",
		"flow root": "{lang: ja, trusted: []}\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := write(t, dir, "config.yaml", body)
			if _, err := Trust(path, "/src/a", "aa"); err == nil {
				t.Errorf("Trust succeeded; want an error")
			}
			if b, _ := os.ReadFile(path); string(b) != body {
				t.Errorf("file = %q; want it unchanged", b)
			}
		})
	}
}

// TestTrustThroughLinkedRepository: trusting the repository through a link
// to its folder trusts the folder itself, and the other way round.
func TestTrustThroughLinkedRepository(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	body := "agent:\n  command: ./tool.sh\n"
	write(t, root, RepoFile, body)
	user := filepath.Join(dir, "config.yaml")
	if _, err := Trust(user, link, Sum([]byte(body))); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{root, link} {
		c, err := LoadRepo(user, r)
		if err != nil {
			t.Fatal(err)
		}
		if c.Repo.Trust != RepoTrusted || c.AgentCommand() != "./tool.sh" {
			t.Errorf("through %s: trust %s, agent.command %q; want trusted and ./tool.sh", r, c.Repo.Trust, c.AgentCommand())
		}
	}
	if changed, err := Revoke(user, root); err != nil || !changed {
		t.Errorf("Revoke through the folder itself: changed %v, err %v; want the entry made through the link removed", changed, err)
	}
}
