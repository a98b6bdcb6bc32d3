package recall

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// A link planted where a context file, its lock or its folder goes makes
// FilesFor refuse, so nothing opens them by name afterwards.
func TestFilesForRefusesLinks(t *testing.T) {
	for _, at := range []string{"context", "context/decisions.jsonl", "context/l1.jsonl.lock", "context/archive"} {
		t.Run(at, func(t *testing.T) {
			repo, outside := t.TempDir(), t.TempDir()
			d := state.Dir{Root: filepath.Join(repo, state.RelDir)}
			p := filepath.Join(d.Root, filepath.FromSlash(at))
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			if _, err := FilesFor(d, ""); !errors.Is(err, safepath.ErrLink) {
				t.Errorf("FilesFor = %v; want safepath.ErrLink", err)
			}
		})
	}
	d := state.Dir{Root: filepath.Join(t.TempDir(), state.RelDir)}
	if _, err := FilesFor(d, ""); err != nil {
		t.Errorf("FilesFor without links = %v; want nil", err)
	}
}
