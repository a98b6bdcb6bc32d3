package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/baton-cli/baton/internal/safepath"
)

func TestUpdateConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "counter")
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Update(path, 0o600, func(old []byte) ([]byte, error) {
				v, _ := strconv.Atoi(string(old))
				return []byte(strconv.Itoa(v + 1)), nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != strconv.Itoa(n) {
		t.Errorf("counter = %s; want %d (an update was lost)", b, n)
	}
}

func TestUpdateErrorLeavesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := Write(path, []byte("keep"), 0o640); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Update(path, 0o600, func([]byte) ([]byte, error) { return []byte("lost"), boom }); !errors.Is(err, boom) {
		t.Fatalf("Update error = %v; want boom", err)
	}
	if err := Update(path, 0o600, func([]byte) ([]byte, error) { return nil, ErrUnchanged }); err != nil {
		t.Fatalf("Update with ErrUnchanged = %v; want nil", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "keep" {
		t.Errorf("file = %q; want %q", b, "keep")
	}
	if err := Update(path, 0o600, func(old []byte) ([]byte, error) { return append(old, '!'), nil }); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v; want 0640 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), ".f") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// Under a trusted root, neither the file, its lock nor a folder on the way
// may be a link.
func TestInRefusesLinks(t *testing.T) {
	for _, at := range []string{"f", "f.lock", "sub"} {
		t.Run(at, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "target")
			if err := os.WriteFile(target, []byte("outside"), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "f")
			if at == "sub" {
				path = filepath.Join(root, "sub", "f")
				os.Symlink(outside, filepath.Join(root, "sub"))
			} else {
				os.Symlink(target, filepath.Join(root, at))
			}
			errU := UpdateIn(root, path, 0o600, func(old []byte) ([]byte, error) { return append(old, "!"...), nil })
			if !errors.Is(errU, safepath.ErrLink) {
				t.Errorf("UpdateIn = %v; want safepath.ErrLink", errU)
			}
			if at != "f.lock" { // a plain write takes no lock
				if err := WriteIn(root, path, []byte("written"), 0o600); !errors.Is(err, safepath.ErrLink) {
					t.Errorf("WriteIn = %v; want safepath.ErrLink", err)
				}
			}
			if b, _ := os.ReadFile(target); string(b) != "outside" {
				t.Errorf("file outside = %q; want it unchanged", b)
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("outside folder holds %d entries; want only its file", len(entries))
			}
		})
	}
	root := t.TempDir()
	path := filepath.Join(root, "a", "f")
	if err := UpdateIn(root, path, 0o600, func(old []byte) ([]byte, error) { return append(old, "one"...), nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("file = %q; want %q", b, "one")
	}
}
