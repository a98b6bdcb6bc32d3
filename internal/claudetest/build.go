package claudetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// batonBuild builds baton's programs at most once per test process: every
// test that puts baton on the CLI's PATH shares the binaries. It is a memo of a
// value that never changes once computed, not state tests could observe.
var batonBuild = sync.OnceValues(buildBaton)

// BuildBaton builds the programs of the module under test (./cmd/...: baton
// and baton-hook), once per test process, and returns the directory holding
// them, to put on Env.Path. It fails t when the build fails.
//
// The directory, os.TempDir()/baton-test-bin-<pid>, outlives the process
// (no test owns it); each build removes the ones left by processes that
// have exited.
func BuildBaton(t testing.TB) string {
	t.Helper()
	dir, err := batonBuild()
	if err != nil {
		t.Fatalf("build baton: %v", err)
	}
	return dir
}

const buildDirPrefix = "baton-test-bin-"

func buildBaton() (string, error) {
	removeStaleBuilds(os.TempDir())
	ctx := context.Background() // the build outlives the test that asked first
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	mod := strings.TrimSpace(string(gomod))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("find module root: not inside a Go module")
	}
	dir := filepath.Join(os.TempDir(), buildDirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create build dir: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = filepath.Dir(mod)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/...: %w\n%s", err, out)
	}
	return dir, nil
}

// removeStaleBuilds removes the build directories under tmp whose process
// has exited. Errors are ignored: a directory left behind costs only disk.
func removeStaleBuilds(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), buildDirPrefix))
		if !e.IsDir() || !strings.HasPrefix(e.Name(), buildDirPrefix) || err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.RemoveAll(filepath.Join(tmp, e.Name()))
		}
	}
}
