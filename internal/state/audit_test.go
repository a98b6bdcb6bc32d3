package state

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baton-cli/baton/internal/gitrepo"
)

func TestAudit(t *testing.T) {
	git := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=a", "-c", "user.email=a@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	outside := t.TempDir()
	tests := []struct {
		name        string
		setup       func(t *testing.T, repo string)
		wantTracked bool
		wantLinks   []string // relative to the repository
	}{
		{"no state folder", func(*testing.T, string) {}, false, nil},
		{"clean", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Join(repo, RelDir, "context"), 0o700)
			os.WriteFile(filepath.Join(repo, RelDir, "auto.jsonl"), []byte("{}\n"), 0o600)
		}, false, nil},
		{"tracked", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Join(repo, RelDir), 0o700)
			os.WriteFile(filepath.Join(repo, RelDir, "current.md"), []byte("# planted\n"), 0o600)
			git(t, repo, "add", "-f", RelDir)
			git(t, repo, "commit", "-q", "-m", "x")
		}, true, nil},
		{"links inside", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Join(repo, RelDir, "worktrees"), 0o700)
			os.Symlink(filepath.Join(outside, "rc"), filepath.Join(repo, RelDir, "auto.jsonl"))
			os.Symlink(outside, filepath.Join(repo, RelDir, "worktrees", "k"))
		}, false, []string{RelDir + "/auto.jsonl", RelDir + "/worktrees/k"}},
		{"linked state folder", func(t *testing.T, repo string) {
			os.MkdirAll(filepath.Join(repo, ".claude"), 0o700)
			os.Symlink(outside, filepath.Join(repo, RelDir))
		}, false, []string{RelDir}},
		{"linked .claude", func(t *testing.T, repo string) {
			os.Symlink(outside, filepath.Join(repo, ".claude"))
		}, false, []string{".claude"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			tt.setup(t, dir)
			repo, err := gitrepo.Find(dir)
			if err != nil {
				t.Fatal(err)
			}
			tracked, links, err := For(repo).Audit(context.Background(), &repo)
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, l := range links {
				r, _ := filepath.Rel(dir, l)
				rel = append(rel, filepath.ToSlash(r))
			}
			if tracked != tt.wantTracked || !slices.Equal(rel, tt.wantLinks) {
				t.Errorf("Audit = %v, %v; want %v, %v", tracked, rel, tt.wantTracked, tt.wantLinks)
			}
		})
	}
}
