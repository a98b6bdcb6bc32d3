package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

func TestParseLimitsIdentifiers(t *testing.T) {
	long := strings.Repeat("a", MaxID+1)
	tests := []struct {
		name, field, value string
		keep               bool
	}{
		{"uuid session", "session_id", "0b8c1f5e-3d2a-4c7b-9f1e-2a6d8e4b7c90", true},
		{"long session", "session_id", long, false},
		{"session with a path", "session_id", "../../../etc/x", false},
		{"session with a newline", "session_id", "a\nb", false},
		{"mcp tool", "tool_name", "mcp__baton__decisions", true},
		{"tool with spaces", "tool_name", "rm -rf", false},
		{"long tool", "tool_name", long, false},
		{"long cwd", "cwd", "/" + strings.Repeat("d", MaxPath), false},
		{"ordinary transcript", "transcript_path", "/home/u/.claude/projects/-x/s.jsonl", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := fmt.Sprintf(`{"hook_event_name":"PostToolUse",%q:%q}`, tt.field, tt.value)
			p, err := Parse(strings.NewReader(payload), "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"session_id": p.SessionID, "tool_name": p.ToolName, "cwd": p.Cwd, "transcript_path": p.TranscriptPath}[tt.field]
			if tt.keep && (got != tt.value || len(p.Dropped) != 0) {
				t.Errorf("%s = %q, dropped %v; want %q kept", tt.field, got, p.Dropped, tt.value)
			}
			if !tt.keep && (got != "" || len(p.Dropped) != 1) {
				t.Errorf("%s = %.40q, dropped %v; want it dropped and said so", tt.field, got, p.Dropped)
			}
		})
	}
	if _, err := Parse(strings.NewReader(`{"hook_event_name":"`+long+`"}`), ""); !errors.Is(err, ErrPayload) {
		t.Errorf("Parse of a long event name = %v; want ErrPayload", err)
	}
}

// A huge session id is not copied into the journal, and the record still
// lands.
func TestRunHugeSessionID(t *testing.T) {
	e := newRunEnv(t)
	id := strings.Repeat("x", 8<<20)
	_, res, err := e.runErr(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, id, e.repo))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(res.State.Journal())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 4096 {
		t.Errorf("journal is %d bytes after one record; want the id left out", fi.Size())
	}
	if len(e.warnings) != 1 || !strings.Contains(e.warnings[0].Error(), "session_id dropped") || len(e.warnings[0].Error()) > 200 {
		t.Errorf("warnings %.300v; want one short line about the session id", e.warnings)
	}
}

// A payload cwd that leads out of the hook's folder creates nothing there:
// the call is recorded in the repository the hook runs in.
func TestRunCwdLeavingTheHooksFolder(t *testing.T) {
	e := newRunEnv(t)
	elsewhere := t.TempDir()
	cwd := filepath.Join(e.repo, "..", "..", filepath.Base(filepath.Dir(elsewhere)), filepath.Base(elsewhere))
	if _, _, err := e.runErr(fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, cwd)); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("the hook made %s in %s; want nothing", entries[0].Name(), elsewhere)
	}
	recs, err := journal.Open(filepath.Join(e.repo, ".claude", "session-state"), journal.Options{}).Tail(context.Background(), 1, journal.TailOptions{})
	if err != nil || len(recs) != 1 || recs[0].Worktree != e.repo {
		t.Errorf("repository journal = %+v, %v; want the record there", recs, err)
	}
}

// Outside git, only a folder with a state folder already is recorded in.
func TestRunOutsideGitNeedsAStateFolder(t *testing.T) {
	e := &runEnv{repo: t.TempDir(), env: map[string]string{"HOME": t.TempDir()}}
	payload := fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, e.repo)
	if _, _, err := e.runErr(payload); !errors.Is(err, ErrNotSetUp) {
		t.Errorf("Run = %v; want ErrNotSetUp", err)
	}
	if entries, _ := os.ReadDir(e.repo); len(entries) > 0 {
		t.Errorf("the hook made %s; want nothing", entries[0].Name())
	}
	if err := os.MkdirAll(filepath.Join(e.repo, ".claude", "session-state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.runErr(payload); err != nil {
		t.Errorf("Run with a state folder = %v; want the record", err)
	}
}

// A planted link anywhere on the way to a state file: nothing recorded,
// nothing answered, the file outside unchanged, and no state folder named
// for the log.
func TestRunRefusesLinks(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, repo, target string)
	}{
		{"journal", func(t *testing.T, repo, target string) {
			mkdir(t, filepath.Join(repo, ".claude", "session-state"))
			symlink(t, target, filepath.Join(repo, ".claude", "session-state", "auto.jsonl"))
		}},
		{"baton.log", func(t *testing.T, repo, target string) {
			mkdir(t, filepath.Join(repo, ".claude", "session-state"))
			symlink(t, target, filepath.Join(repo, ".claude", "session-state", "baton.log"))
		}},
		{"state folder", func(t *testing.T, repo, target string) {
			mkdir(t, filepath.Join(repo, ".claude"))
			symlink(t, filepath.Dir(target), filepath.Join(repo, ".claude", "session-state"))
		}},
		{".claude", func(t *testing.T, repo, target string) {
			mkdir(t, filepath.Join(filepath.Dir(target), "session-state"))
			symlink(t, filepath.Dir(target), filepath.Join(repo, ".claude"))
		}},
		{"worktree records", func(t *testing.T, repo, target string) {
			d := filepath.Join(repo, ".claude", "session-state", "worktrees")
			mkdir(t, d)
			symlink(t, filepath.Dir(target), filepath.Join(d, state.WorktreeKey(repo)))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRunEnv(t)
			target := filepath.Join(t.TempDir(), ".bashrc")
			if err := os.WriteFile(target, []byte("# rc\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			c.plant(t, e.repo, target)
			for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse"} {
				out, res, err := e.runErr(fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":%q,"prompt":"hi","source":"startup"}`, e.repo, ev),
					ProviderFunc(func(context.Context, *Start) (string, error) { return "briefing", nil }))
				if !errors.Is(err, safepath.ErrLink) {
					t.Errorf("%s: Run = %v; want safepath.ErrLink", ev, err)
				}
				if out != "" || res.State.Root != "" {
					t.Errorf("%s: output %q, state %q; want neither", ev, out, res.State.Root)
				}
			}
			if b, _ := os.ReadFile(target); string(b) != "# rc\n" {
				t.Errorf("file outside = %q; want it unchanged", b)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}
