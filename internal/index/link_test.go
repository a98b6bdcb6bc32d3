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

// A planted link in the transcript archive takes no copy out of the
// repository.
func TestArchiveRefusesLinks(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.transcripts, "s1.jsonl"), []byte(msgLine("user", "2026-09-01T10:00:00.000Z", "words")+"\n"), 0o644)
	dest := ArchiveDir(f.state)
	outside := t.TempDir()
	if err := os.MkdirAll(dest, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dest, filepath.Base(f.transcripts))); err != nil {
		t.Fatal(err)
	}
	res, err := ArchiveTranscripts(context.Background(), []string{f.transcripts}, f.state.Base(), dest)
	if err != nil || len(res.Failed) != 1 || len(res.Copied) != 0 {
		t.Errorf("ArchiveTranscripts = %+v, %v; want the copy refused", res, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("a copy went through the link: %s", entries[0].Name())
	}
}
