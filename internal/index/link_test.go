package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// SQLite opens index.db and its side files by name: a planted link at any
// of them is refused before SQLite sees it.
func TestOpenRefusesLinks(t *testing.T) {
	for _, name := range []string{"index.db", "index.db-wal", "index.db-shm"} {
		t.Run(name, func(t *testing.T) {
			repo, outside := t.TempDir(), t.TempDir()
			d := state.Dir{Root: filepath.Join(repo, state.RelDir)}
			if err := os.MkdirAll(d.Root, 0o700); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(outside, "victim")
			if err := os.Symlink(target, filepath.Join(d.Root, name)); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(context.Background(), d.Index(), Options{})
			if err == nil {
				ix.Close()
			}
			if !errors.Is(err, safepath.ErrLink) {
				t.Errorf("Open = %v; want safepath.ErrLink", err)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("Open made %s outside the repository", target)
			}
		})
	}
}
