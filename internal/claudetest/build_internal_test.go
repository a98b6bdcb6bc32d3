package claudetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

func TestRemoveStaleBuilds(t *testing.T) {
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	tmp := t.TempDir()
	dirs := map[string]bool{ // name: kept
		buildDirPrefix + strconv.Itoa(exited.ProcessState.Pid()): false,
		buildDirPrefix + strconv.Itoa(os.Getpid()):               true,
		buildDirPrefix + strconv.Itoa(os.Getppid()):              true,
		buildDirPrefix + "notapid":                               true,
		"unrelated-123":                                          true,
	}
	for name := range dirs {
		if err := os.Mkdir(filepath.Join(tmp, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	removeStaleBuilds(tmp)

	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	for name, kept := range dirs {
		if got := slices.Contains(left, name); got != kept {
			t.Errorf("%s kept = %v; want %v", name, got, kept)
		}
	}
}
