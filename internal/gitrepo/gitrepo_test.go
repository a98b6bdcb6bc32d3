package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// newRepo makes a real repository with one commit on branch main and a linked
// worktree on branch feat/7-x, and returns their top folders.
func newRepo(t *testing.T) (main, linked string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main = filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(main, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, main, "init", "-q", "-b", "main")
	git(t, main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first")
	linked = filepath.Join(root, "wt")
	git(t, main, "worktree", "add", "-q", "-b", "feat/7-x", linked)
	return main, linked
}

func TestFind(t *testing.T) {
	main, linked := newRepo(t)
	tests := []struct {
		name               string
		dir                string
		wantWorktree, want string
		wantBranch         string
	}{
		{"main top", main, main, main, "main"},
		{"main subfolder", filepath.Join(main, "sub", "deeper"), main, main, "main"},
		{"linked worktree", linked, linked, main, "feat/7-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Find(tt.dir)
			if err != nil {
				t.Fatalf("Find(%s): %v", tt.dir, err)
			}
			if r.Worktree != tt.wantWorktree || r.Main != tt.want || r.Branch != tt.wantBranch {
				t.Errorf("Find(%s) = worktree %q main %q branch %q; want %q %q %q",
					tt.dir, r.Worktree, r.Main, r.Branch, tt.wantWorktree, tt.want, tt.wantBranch)
			}
			if r.Linked() != (tt.wantWorktree != tt.want) {
				t.Errorf("Linked() = %v; want %v", r.Linked(), tt.wantWorktree != tt.want)
			}
			if filepath.Base(r.CommonDir) != ".git" || filepath.Dir(r.CommonDir) != main {
				t.Errorf("CommonDir = %q; want %q", r.CommonDir, filepath.Join(main, ".git"))
			}
		})
	}
}

func TestFindDetached(t *testing.T) {
	main, _ := newRepo(t)
	git(t, main, "checkout", "-q", "--detach")
	r, err := Find(main)
	if err != nil {
		t.Fatal(err)
	}
	if r.Branch != "" || len(r.Head) != 40 {
		t.Errorf("detached: branch %q head %q; want no branch and a 40-hex head", r.Branch, r.Head)
	}
}

func TestFindNotRepo(t *testing.T) {
	_, err := Find(t.TempDir())
	// /tmp is normally outside any repository; if a test machine has one
	// above it, this case says nothing.
	if err == nil {
		t.Skip("temp dir is inside a git repository on this machine")
	}
	if !errors.Is(err, ErrNotRepo) {
		t.Errorf("Find(temp) error = %v; want ErrNotRepo", err)
	}
}

func TestFindBadGitFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(dir); err == nil || errors.Is(err, ErrNotRepo) {
		t.Errorf("Find with a malformed .git file: err = %v; want a parse error", err)
	}
}

func TestExclude(t *testing.T) {
	main, linked := newRepo(t)
	r, err := Find(linked)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExcludePath() != filepath.Join(main, ".git", "info", "exclude") {
		t.Fatalf("ExcludePath = %s; want the common dir's", r.ExcludePath())
	}
	before, _ := os.ReadFile(r.ExcludePath())
	for i, want := range []bool{true, false} {
		added, err := r.AddExclude(".claude/session-state/")
		if err != nil || added != want {
			t.Errorf("AddExclude #%d = %v, %v; want %v", i+1, added, err, want)
		}
	}
	// git itself must now ignore the folder.
	if err := os.MkdirAll(filepath.Join(main, ".claude", "session-state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(main, ".claude", "session-state", "auto.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = main
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Errorf("git status after AddExclude = %q; want the state folder ignored", out)
	}
	removed, err := r.RemoveExclude(".claude/session-state/")
	if err != nil || !removed {
		t.Errorf("RemoveExclude = %v, %v; want true", removed, err)
	}
	after, _ := os.ReadFile(r.ExcludePath())
	if string(after) != string(before) {
		t.Errorf("exclude after remove = %q; want the original %q", after, before)
	}
}
