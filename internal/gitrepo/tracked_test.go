package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestTracked(t *testing.T) {
	main, linked := newRepo(t)
	write := func(dir, rel string) string {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const state = ".claude/session-state/current.md"
	committed := write(main, state)
	git(t, main, "add", state)
	untracked := write(linked, state)
	other := write(main, "docs/current.md")

	tests := []struct {
		name    string
		dir     string
		path    string
		index   string // "" keeps the index as git wrote it
		want    bool
		wantErr bool
	}{
		{name: "added in the main worktree", dir: main, path: committed, want: true},
		{name: "same name, untracked, in a linked worktree", dir: linked, path: untracked, want: false},
		{name: "never added", dir: main, path: other, want: false},
		{name: "added, index version 4", dir: main, path: committed, index: "4", want: true},
		{name: "never added, index version 4", dir: main, path: other, index: "4", want: false},
		{name: "outside the worktree", dir: main, path: filepath.Join(filepath.Dir(main), "x"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.index != "" {
				git(t, tt.dir, "update-index", "--index-version", tt.index)
				t.Cleanup(func() { git(t, tt.dir, "update-index", "--index-version", "2") })
			}
			r, err := Find(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Tracked(context.Background(), tt.path)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Tracked(%s) = %v, %v; want %v (error %v)", tt.path, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// An index that does not hold the path rules it out without git: a git
// that cannot run does not matter then.
func TestTrackedNeedsNoGitForAnAbsentPath(t *testing.T) {
	main, _ := newRepo(t)
	r, err := Find(main)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	got, err := r.Tracked(context.Background(), filepath.Join(main, ".claude/session-state/current.md"))
	if err != nil || got {
		t.Errorf("Tracked = %v, %v; want false, nil without running git", got, err)
	}
}
