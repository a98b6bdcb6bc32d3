package journal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/safepath"
)

// A repository can commit links where the journal lives; the journal
// neither writes nor reads through them.
func TestJournalRefusesLinks(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, state, outside string)
	}{
		{"active file", func(t *testing.T, state, outside string) {
			symlink(t, outside, filepath.Join(state, ActiveName))
		}},
		{"lock file", func(t *testing.T, state, outside string) {
			symlink(t, outside, filepath.Join(state, lockName))
		}},
		{"state folder", func(t *testing.T, state, outside string) {
			os.Remove(state)
			symlink(t, filepath.Dir(outside), state)
		}},
		{"parent folder", func(t *testing.T, state, outside string) {
			os.RemoveAll(filepath.Dir(state))
			os.MkdirAll(filepath.Join(filepath.Dir(outside), "session-state"), 0o700)
			symlink(t, filepath.Dir(outside), filepath.Dir(state))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			outside := filepath.Join(t.TempDir(), ".bashrc")
			if err := os.WriteFile(outside, []byte("# rc\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(repo, ".claude", "session-state")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			c.plant(t, state, outside)
			j := Open(state, Options{})
			if err := j.Append(testRecord(0)); !errors.Is(err, safepath.ErrLink) {
				t.Errorf("Append = %v; want safepath.ErrLink", err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "# rc\n" {
				t.Errorf("file outside = %q; want it unchanged", b)
			}
			if _, err := j.Tail(context.Background(), 10, TailOptions{}); !errors.Is(err, safepath.ErrLink) {
				t.Errorf("Tail = %v; want safepath.ErrLink", err)
			}
		})
	}
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

// A record is written so that a shell reading the journal runs nothing.
func TestRecordIsShellInert(t *testing.T) {
	j := Open(t.TempDir(), Options{})
	rec := testRecord(0)
	rec.Branch, rec.Cmd = "$(touch${IFS}PWNED)", "echo `id`"
	mustAppend(t, j, rec)
	b, err := os.ReadFile(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(string(b), "$`") {
		t.Errorf("journal line %s holds $ or `", b)
	}
	got := tailOf(t, j, 1, TailOptions{})
	if len(got) != 1 || got[0].Branch != rec.Branch || got[0].Cmd != rec.Cmd {
		t.Errorf("read back %+v; want branch %q and cmd %q", got, rec.Branch, rec.Cmd)
	}
}
