package security_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/state"
)

// The attack, reproduced end to end: a repository commits
// .claude/session-state/auto.jsonl as a link to ../../../.bashrc and names
// its default branch $(touch${IFS}PWNED). After `git clone`, one
// UserPromptSubmit appended a record holding the branch to the victim's
// ~/.bashrc, and the next shell ran it. The same went for the worktree's
// records.jsonl, baton.log, and a linked session-state or .claude folder.

// hostileBranch is the default branch of the planted repositories.
const hostileBranch = "$(touch${IFS}PWNED)"

// bashrc is the victim's shell start-up file before the attack.
const bashrc = "# the victim's shell start-up file\n"

// link is one planted link: at, relative to the clone, pointing at target
// (relative to the link's folder, as a repository commits it).
type link struct{ at, target string }

func TestClonedLinksWriteNothingOutside(t *testing.T) {
	git := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The clone is <home>/victim, so ../../../.bashrc from the state
	// folder is <home>/.bashrc.
	cases := []struct {
		name  string
		links func(clone string) []link
	}{
		{"journal", func(string) []link {
			return []link{{".claude/session-state/auto.jsonl", "../../../.bashrc"}}
		}},
		{"journal lock", func(string) []link {
			return []link{{".claude/session-state/auto.jsonl.lock", "../../../.bashrc"}}
		}},
		{"worktree records", func(clone string) []link {
			return []link{{".claude/session-state/worktrees/" + state.WorktreeKey(clone) + "/records.jsonl", "../../../../../.bashrc"}}
		}},
		{"worktree folder", func(clone string) []link {
			return []link{{".claude/session-state/worktrees/" + state.WorktreeKey(clone), "../../../.."}}
		}},
		{"baton.log", func(string) []link {
			return []link{{".claude/session-state/baton.log", "../../../.bashrc"}}
		}},
		{"session-state folder", func(string) []link {
			return []link{{".claude/session-state", "../.."}}
		}},
		{".claude folder", func(string) []link {
			return []link{{".claude", ".."}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			rc := filepath.Join(home, ".bashrc")
			if err := os.WriteFile(rc, []byte(bashrc), 0o644); err != nil {
				t.Fatal(err)
			}
			clone := filepath.Join(home, "victim")

			origin := t.TempDir()
			git(t, origin, "init", "-q", "-b", hostileBranch)
			for _, l := range c.links(clone) {
				at := filepath.Join(origin, filepath.FromSlash(l.at))
				if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(l.target, at); err != nil {
					t.Fatal(err)
				}
			}
			git(t, origin, "add", "-A")
			git(t, origin, "commit", "-q", "-m", "innocent")
			git(t, home, "clone", "-q", origin, clone)

			before := listing(t, home)
			for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
				out := runHook(t, clone, home, map[string]any{
					"session_id": "s-attack", "hook_event_name": ev, "cwd": clone, "source": "startup",
					"prompt": "what did we do yesterday?", "tool_name": "Bash", "tool_input": map[string]string{"command": "ls"},
				})
				if len(out) > 0 {
					t.Errorf("%s answered %q; want nothing from a refused state folder", ev, out)
				}
			}

			if b, _ := os.ReadFile(rc); string(b) != bashrc {
				t.Errorf("~/.bashrc is now\n%s\nwant it unchanged", b)
			}
			// Whatever a shell would make of the start-up file, it runs no
			// planted command.
			sh := exec.Command("sh", "-c", ". ./.bashrc")
			sh.Dir = home
			sh.Run()
			if _, err := os.Stat(filepath.Join(home, "PWNED")); err == nil {
				t.Errorf("sourcing ~/.bashrc ran the planted branch name")
			}
			// Nothing appeared outside the clone but the user-level log.
			for _, p := range newPaths(before, listing(t, home)) {
				if !strings.HasPrefix(p, "victim/") && !strings.HasPrefix(p, ".local/") && p != ".local" {
					t.Errorf("the hook made %s outside the repository", p)
				}
			}
			log, err := os.ReadFile(filepath.Join(home, ".local", "state", "baton", "baton.log"))
			if err != nil || !bytes.Contains(log, []byte("state folder refused")) {
				t.Errorf("user-level log = %q, %v; want the refusal said there", log, err)
			}
			if bytes.ContainsAny(log, "$`") {
				t.Errorf("user-level log holds $ or `, which a shell expands:\n%s", log)
			}
		})
	}
}

// A 50 MB session_id became a 52 MB journal line (and was copied into
// every later record, baton.log and the recall file); now it is dropped at
// the hook's edge with one short log line.
func TestHugeSessionIDIsNotCopied(t *testing.T) {
	home, repo := t.TempDir(), gitRepo(t)
	huge := strings.Repeat("A", 50<<20)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
		runHook(t, repo, home, map[string]any{
			"session_id": huge, "hook_event_name": ev, "cwd": repo, "source": "startup",
			"prompt": "hello", "tool_name": "Bash", "tool_input": map[string]string{"command": "ls"},
		})
	}
	for name, b := range filesUnder(t, filepath.Join(repo, ".claude"), home) {
		if len(b) > 1<<20 {
			t.Errorf("%s is %d bytes after three calls; want the id left out", name, len(b))
		}
		if bytes.Contains(b, []byte(huge[:4096])) {
			t.Errorf("%s holds the session id", name)
		}
	}
	j, err := os.ReadFile(filepath.Join(repo, ".claude", "session-state", "auto.jsonl"))
	if err != nil || bytes.Count(j, []byte("\n")) != 3 {
		t.Errorf("journal = %d bytes, %v; want the three records", len(j), err)
	}
}

// A payload cwd of <repo>/../../elsewhere made
// elsewhere/.claude/session-state/; the hook now stays in the folder it runs
// in.
func TestPayloadCwdCannotLeaveTheRepository(t *testing.T) {
	home, base := t.TempDir(), t.TempDir()
	repo := filepath.Join(base, "work", "repo")
	elsewhere := filepath.Join(base, "elsewhere")
	for _, d := range []string{repo, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cwd := repo + "/../../elsewhere"
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
		runHook(t, repo, home, map[string]any{
			"session_id": "s-cwd", "hook_event_name": ev, "cwd": cwd, "source": "startup",
			"prompt": "hello", "tool_name": "Bash", "tool_input": map[string]string{"command": "ls"},
		})
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("the hook made %s in %s; want nothing", entries[0].Name(), elsewhere)
	}
	if _, err := os.Stat(filepath.Join(repo, ".claude", "session-state", "auto.jsonl")); err != nil {
		t.Errorf("the repository's journal: %v; want the calls recorded there", err)
	}
}

// runHook runs the real baton-hook with payload in dir and returns what it
// printed; the hook must exit 0 and print nothing on stderr.
func runHook(t *testing.T, dir, home string, payload map[string]any) []byte {
	t.Helper()
	in, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(claudetest.BuildBaton(t), "baton-hook"))
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("baton-hook %s: %v\n%s", payload["hook_event_name"], err, stderr.Bytes())
	}
	return out
}

// listing is every path under dir, relative, links not followed.
func listing(t *testing.T, dir string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		seen[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}

func newPaths(before, after map[string]bool) []string {
	var out []string
	for p := range after {
		if !before[p] {
			out = append(out, p)
		}
	}
	return out
}
