package statusline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

func runLine(t *testing.T, payload string, env map[string]string) string {
	t.Helper()
	var out bytes.Buffer
	f := &cmdenv.Factory{
		IO:     &cmdenv.IOStreams{In: strings.NewReader(payload), Out: &out, ErrOut: &out},
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return now },
	}
	Run(f, "en")
	return out.String()
}

// TestRunReadsTheWorktreesFiles: in a real repository the line has the
// task the hook kept and the costs of the status file; in one baton never
// saw, the mark; a broken payload still gives a line and a log entry.
func TestRunReadsTheWorktreesFiles(t *testing.T) {
	repoDir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repoDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "NO_COLOR": "1"}
	payload := `{"session_id":"s1","cwd":"` + repoDir + `","model":{"display_name":"Sonnet 4.5"}}`

	if got := runLine(t, payload, env); got != "[Sonnet 4.5] · ⚠ not recorded\n" {
		t.Errorf("no state: got %q", got)
	}

	repo, err := gitrepo.Find(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	sd := state.For(repo)
	wt := wtstate.At(sd.Base(), sd.WorktreeDir(repo.Worktree))
	if err := wt.Update(func(s *wtstate.State) bool {
		s.Task = &wtstate.Task{Text: "fix the login bug"}
		s.Sessions = []wtstate.Session{{ID: "s1"}}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatus(sd, &Status{Day: "2026-09-01", TodayUSD: 7, Sessions: map[string]float64{"s1": 1.5}, Pending: 1}); err != nil {
		t.Fatal(err)
	}
	want := "[Sonnet 4.5] · session $1.50 · today $7.00 · task: fix the login bug · 1 to review\n"
	if got := runLine(t, payload, env); got != want {
		t.Errorf("with state: got %q; want %q", got, want)
	}

	if got := runLine(t, `{"session_id":`, env); got != "⚠ not recorded\n" {
		t.Errorf("broken payload: got %q", got)
	}
	// A status file with a link planted in its place is not followed.
	os.Remove(Path(sd))
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(target, []byte(`{"day":"2026-09-01","today_cost_usd":999}`), 0o600)
	if err := os.Symlink(target, Path(sd)); err != nil {
		t.Fatal(err)
	}
	if got := runLine(t, payload, env); strings.Contains(got, "999") {
		t.Errorf("followed a link: %q", got)
	}
}

// TestStale: only a status file that exists and is old asks for a refresh.
func TestStale(t *testing.T) {
	sd := state.Dir{Root: filepath.Join(t.TempDir(), ".claude", "session-state")}
	if Stale(sd, now) {
		t.Error("no file: stale; want not")
	}
	if err := WriteStatus(sd, &Status{}); err != nil {
		t.Fatal(err)
	}
	fresh := time.Now()
	if Stale(sd, fresh) {
		t.Error("new file: stale; want not")
	}
	if !Stale(sd, fresh.Add(RefreshAfter+time.Second)) {
		t.Error("old file: not stale; want stale")
	}
}
