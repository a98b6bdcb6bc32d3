package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
)

// TestE2EHandoffToAnotherMachine: a real Claude Code session in clone A is
// handed off with `baton handoff`; in clone B, with another HOME (another
// machine), `baton pickup <id>` starts `claude --resume` on it, and the
// resumed session's first request to the model carries A's conversation,
// in a worktree whose branch has A's commits.
func TestE2EHandoffToAnotherMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	const word = "the export format is TSV with a byte-order mark"
	s := modelserver.New(t,
		modelserver.Text("Noted: "+word+". I will write the exporter next."),
		modelserver.Text("Carrying on with the exporter."),
	)
	bin := claudetest.BuildBaton(t)
	baton := filepath.Join(bin, "baton")
	remote := filepath.Join(t.TempDir(), "remote.git")
	var envs []*claudetest.Env
	for i, name := range []string{"alice", "bob"} {
		e := claudetest.New(t, s)
		e.Path = append(e.Path, bin)
		e.Extra = append(e.Extra, "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+name+"@example.com",
			"GIT_COMMITTER_NAME="+name, "GIT_COMMITTER_EMAIL="+name+"@example.com", "GIT_CONFIG_NOSYSTEM=1")
		p := personOf(e)
		if i == 0 {
			p.git(t, "init", "-q", "--bare", "-b", "main", remote)
		}
		p.git(t, "clone", "-q", remote, ".")
		if i == 0 {
			p.git(t, "commit", "-q", "--allow-empty", "-m", "first")
			p.git(t, "push", "-q", "origin", "main")
			p.git(t, "checkout", "-q", "-b", "exporter")
		}
		envs = append(envs, e)
	}
	a, b := envs[0], envs[1]
	pa := personOf(a)

	a.Run(t, "-p", "Remember this: "+word+".")
	if err := os.WriteFile(filepath.Join(a.Dir, "export.go"), []byte("package export\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pa.git(t, "add", "export.go")
	pa.git(t, "commit", "-q", "-m", "export: the package")
	head := pa.git(t, "rev-parse", "HEAD")
	var h struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(runBaton(t, a, baton, "handoff", "--json"), &h); err != nil || h.ID == "" {
		t.Fatalf("handoff: %+v, %v", h, err)
	}

	// On B's machine the agent is this Claude Code.
	cfg := filepath.Join(b.Home, ".config", "baton", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("agent:\n  command: "+b.Bin+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "exporter")
	before := len(s.Requests())
	runBaton(t, b, baton, "pickup", h.ID, "--dir", wt, "--", "-p", "go on")
	reqs := s.Requests()[before:]
	if len(reqs) == 0 {
		t.Fatal("the resumed session sent no request to the model")
	}
	first := reqs[0]
	if text := first.Text(); !strings.Contains(text, "Remember this: "+word) || !strings.Contains(text, "Noted: "+word) {
		t.Errorf("the resumed session's first request lacks A's conversation:\n%s", text)
	}
	if got := first.Prompt(); got != "go on" {
		t.Errorf("its prompt = %q; want go on", got)
	}
	cmd := exec.Command("git", "log", "-1", "--format=%H")
	cmd.Dir, cmd.Env = wt, b.Environ()
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != head {
		t.Errorf("B's worktree is at %q (%v); want A's commit %s", out, err, head)
	}
}

// personOf is the person running in e: its folder and environment.
func personOf(e *claudetest.Env) *person {
	p := &person{dir: e.Dir, env: map[string]string{}}
	for _, kv := range e.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		p.env[k] = v
	}
	return p
}
