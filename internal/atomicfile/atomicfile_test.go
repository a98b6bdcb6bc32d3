package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
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
