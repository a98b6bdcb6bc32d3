package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/teammem"
)

// person is someone with a HOME, a git identity and a clone of their own.
type person struct {
	dir string
	env map[string]string
}

func (p *person) environ() []string {
	var out []string
	for k, v := range p.env {
		out = append(out, k+"="+v)
	}
	return out
}

func (p *person) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = p.dir, p.environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// baton runs a baton command as p in p's clone and returns its output; it
// fails t when the command fails, unless fail says it should.
func (p *person) baton(t *testing.T, fail bool, args ...string) string {
	t.Helper()
	out, code := p.run(args...)
	if (code != ExitOK) != fail {
		t.Fatalf("baton %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// run runs a baton command as p and returns its output and exit status.
func (p *person) run(args ...string) (string, int) { return p.runIn("", args...) }

// runIn is run with stdin as the command's input.
func (p *person) runIn(stdin string, args ...string) (string, int) {
	var out, errOut bytes.Buffer
	f := &Factory{
		IO:         &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut},
		Getenv:     func(k string) string { return p.env[k] },
		Environ:    p.environ,
		Now:        time.Now,
		Getwd:      func() (string, error) { return p.dir, nil },
		Executable: os.Executable,
	}
	code := Main(context.Background(), args, f)
	return out.String() + errOut.String(), code
}

// memoryLine is the memory check of `baton doctor --json` as p sees it.
func (p *person) memoryLine(t *testing.T) string {
	t.Helper()
	out, _ := p.run("doctor", "--json")
	var dr struct {
		Checks []check `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &dr); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range dr.Checks {
		if c.Name == "memory" {
			return c.Status + " " + c.Detail
		}
	}
	t.Fatalf("doctor has no memory check:\n%s", out)
	return ""
}

// sharedRemote makes a bare remote with one commit on main and a clone of
// it for each name, each person with their own HOME.
func sharedRemote(t *testing.T, names ...string) []*person {
	t.Helper()
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	var out []*person
	for i, name := range append([]string{"seed"}, names...) {
		home := filepath.Join(root, "home-"+name)
		p := &person{dir: filepath.Join(root, name), env: map[string]string{
			"HOME": home, "PATH": os.Getenv("PATH"), "LANG": "en_US.UTF-8",
			"XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_DATA_HOME": filepath.Join(home, ".local", "share"),
			"XDG_STATE_HOME": filepath.Join(home, ".local", "state"), "GIT_CONFIG_NOSYSTEM": "1",
			"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": name + "@example.com",
			"GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": name + "@example.com",
		}}
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			(&person{dir: root, env: p.env}).git(t, "init", "-q", "--bare", "-b", "main", remote)
		}
		(&person{dir: root, env: p.env}).git(t, "clone", "-q", remote, p.dir)
		if i == 0 {
			p.git(t, "commit", "-q", "--allow-empty", "-m", "first")
			p.git(t, "push", "-q", "origin", "main")
			continue
		}
		out = append(out, p)
	}
	return out
}

func TestSyncCarriesADecisionAndItsRetraction(t *testing.T) {
	ps := sharedRemote(t, "alice", "bob")
	a, b := ps[0], ps[1]

	a.baton(t, false, "context", "approve", "--summary", "Keep the queue in SQLite", "--source", "issue #7")
	if got := a.memoryLine(t); !strings.Contains(got, "not synced yet: `baton sync` shares decisions on refs/baton/memory of origin") {
		t.Errorf("doctor before any sync: %q", got)
	}
	if got := a.baton(t, false, "sync"); !strings.Contains(got, "0 came, 1 went (1 decision(s))") {
		t.Errorf("A's sync said %q; want 0 came, 1 went", got)
	}
	if got := a.git(t, "status", "--porcelain"); got != "" {
		t.Errorf("git status after sync = %q; want clean", got)
	}
	if got := b.baton(t, false, "sync"); !strings.Contains(got, "1 came (1 decision(s)), 0 went") {
		t.Errorf("B's sync said %q; want 1 came", got)
	}
	if got := b.memoryLine(t); !strings.HasPrefix(got, "ok 1 entries on refs/baton/memory (commit ") || !strings.Contains(got, ": 1 came, 0 went; shares decisions") {
		t.Errorf("doctor after B's sync: %q", got)
	}
	if got := b.git(t, "status", "--porcelain"); got != "" {
		t.Errorf("git status after B's first sync = %q; want clean", got)
	}
	brief := b.baton(t, false, "context", "build", "--source", "startup")
	if !strings.Contains(brief, "What teammates shared") || !strings.Contains(brief, "- ["+time.Now().Format("2006-01-02")+"] Keep the queue in SQLite (source: issue #7; shared by alice <alice@example.com>, ") {
		t.Fatalf("B's briefing lacks alice's decision:\n%s", brief)
	}

	// The recall at a prompt about it holds it too.
	prompt := `{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"` + b.dir + `","prompt":"which queue did we decide to keep?"}`
	if got, _ := b.runIn(prompt, "hook"); !strings.Contains(got, "Keep the queue in SQLite") || !strings.Contains(got, "shared by alice") {
		t.Errorf("the prompt's recall lacks alice's decision: %s", got)
	}

	// B retracts it; after the next syncs it is gone from A's briefing,
	// A's own log included.
	var res syncResult
	if err := json.Unmarshal([]byte(b.baton(t, false, "sync", "--json", "--no-push")), &res); err != nil || res.Entries != 1 || res.Pushed {
		t.Fatalf("sync --json --no-push: %+v (%v); want 1 entry, not pushed", res, err)
	}
	show := b.baton(t, false, "context", "show", "--layer", "l3")
	m := regexp.MustCompile(`(?m)^([0-9a-f]{12}) - \[[-0-9]+\] Keep the queue in SQLite \(source: issue #7; shared by alice <alice@example.com>, `).FindStringSubmatch(show)
	if m == nil || !strings.Contains(show, "== Decisions teammates shared: 1 (synced ") {
		t.Fatalf("B's context show lacks alice's decision and its id:\n%s", show)
	}
	id := m[1]
	if got := b.baton(t, false, "sync", "--retract", id[:10]); !strings.Contains(got, "retracted: "+id) {
		t.Errorf("retract said %q", got)
	}
	if got := b.baton(t, false, "context", "build", "--source", "startup"); strings.Contains(got, "Keep the queue") {
		t.Errorf("B's briefing still holds the retracted decision:\n%s", got)
	}
	if got := a.baton(t, false, "context", "build", "--source", "startup"); !strings.Contains(got, "Keep the queue") {
		t.Fatalf("A's briefing lost its decision before syncing:\n%s", got)
	}
	if got := a.baton(t, false, "sync"); !strings.Contains(got, "1 came (1 retraction(s))") {
		t.Errorf("A's sync said %q; want the retraction", got)
	}
	if got := a.baton(t, false, "context", "build", "--source", "startup"); strings.Contains(got, "Keep the queue") {
		t.Errorf("A's briefing still holds the retracted decision:\n%s", got)
	}
	if got := a.baton(t, false, "context", "show", "--layer", "l3"); strings.Contains(got, "Keep the queue") {
		t.Errorf("A's context show still holds the retracted decision:\n%s", got)
	}
}

func TestSyncHoldsBackASecretAndHonoursShareOff(t *testing.T) {
	ps := sharedRemote(t, "alice", "bob")
	a, b := ps[0], ps[1]
	cfg := filepath.Join(a.env["XDG_CONFIG_HOME"], "baton", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("memory:\n  kinds: [decisions, summaries]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l1 := filepath.Join(a.dir, ".claude", "session-state", "context", "l1.jsonl")
	if err := os.MkdirAll(filepath.Dir(l1), 0o755); err != nil {
		t.Fatal(err)
	}
	token := "ghp_" + strings.Repeat("Zx9", 12)
	line := `{"ts":"2026-12-01T10:00:00Z","route":"default","session":"s1","summarizer":"extractive","goal":"Deploy with ` + token + `","recent_actions":[],"open_loops":["rotate the key"],"records":3}` + "\n" +
		`{"ts":"2026-12-01T11:00:00Z","route":"default","session":"s2","summarizer":"extractive","goal":"Add CSV export","recent_actions":[],"open_loops":[],"records":3}` + "\n"
	if err := os.WriteFile(l1, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	got := a.baton(t, false, "sync")
	if !strings.Contains(got, "1 went (1 summary(ies))") || !strings.Contains(got, "held back because they would carry a secret (1):") || !strings.Contains(got, "(github)") {
		t.Errorf("sync said %q; want one summary sent, one held back for a github token", got)
	}
	if strings.Contains(got, token) {
		t.Errorf("sync printed the secret: %q", got)
	}
	if got := a.memoryLine(t); !strings.HasPrefix(got, "warn ") || !strings.Contains(got, "held back 1 entries that would carry a secret: summary") || strings.Contains(got, token) {
		t.Errorf("doctor after the held-back summary: %q", got)
	}
	b.baton(t, false, "sync")
	if log := b.git(t, "log", "-p", teammem.Ref); strings.Contains(log, "ghp_") || !strings.Contains(log, "Add CSV export") {
		t.Errorf("the ref as B has it:\n%s\nwant the CSV summary and no token", log)
	}

	// A repository's own file can turn sharing off, not on.
	if err := os.WriteFile(filepath.Join(b.dir, ".baton.yaml"), []byte("memory:\n  share: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := b.baton(t, true, "sync"); !strings.Contains(got, "sharing is off") {
		t.Errorf("sync with share off said %q", got)
	}
}

// TestSyncCarriesBranchState: with memory.kinds naming branch, the task
// and open loops a person left a branch in reach a teammate's briefing on
// that branch, and only on it.
func TestSyncCarriesBranchState(t *testing.T) {
	ps := sharedRemote(t, "alice", "bob")
	a, b := ps[0], ps[1]
	cfg := filepath.Join(a.env["XDG_CONFIG_HOME"], "baton", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("memory:\n  kinds: [decisions, branch]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.git(t, "checkout", "-q", "-b", "feature/export")
	a.baton(t, false, "save", "--task", "Stream the CSV export row by row", "--next", "add the header test")
	a.git(t, "push", "-q", "origin", "feature/export")
	if got := a.baton(t, false, "sync"); !strings.Contains(got, "1 went (1 branch state(s))") {
		t.Fatalf("A's sync said %q; want its branch state sent", got)
	}
	b.baton(t, false, "sync")
	if got := b.baton(t, false, "context", "build", "--source", "startup"); strings.Contains(got, "Stream the CSV export") {
		t.Errorf("B's briefing on main holds feature/export's task:\n%s", got)
	}
	b.git(t, "fetch", "-q", "origin")
	b.git(t, "checkout", "-q", "feature/export")
	got := b.baton(t, false, "context", "build", "--source", "startup")
	if !strings.Contains(got, "**Where branch feature/export stands** (as alice <alice@example.com> left it, ") || !strings.Contains(got, "Task: Stream the CSV export row by row") || !strings.Contains(got, "- add the header test") {
		t.Errorf("B's briefing on feature/export lacks alice's state:\n%s", got)
	}
	if show := b.baton(t, false, "context", "show", "--layer", "l3"); !strings.Contains(show, "feature/export: Stream the CSV export row by row (alice <alice@example.com>)") {
		t.Errorf("B's context show lacks the branch state:\n%s", show)
	}
}
