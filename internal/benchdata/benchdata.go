// Package benchdata gives benchmarks the large generated files they read.
// Only tests and the bench/ programs import it.
package benchdata

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Journal returns the path of a journal of about size bytes (name says the
// size to bench/gen, e.g. "1GiB") of realistic records, written once by
// bench/gen and kept in $BATON_BENCH_DIR (default the system temp folder)
// for later runs. It is called from a package two levels below the module
// root (internal/<pkg>); without the go tool the benchmark is skipped.
func Journal(b testing.TB, name string, size int64) string {
	b.Helper()
	root := os.Getenv("BATON_BENCH_DIR")
	if root == "" {
		root = filepath.Join(os.TempDir(), "baton-bench")
	}
	path := filepath.Join(root, "resume-"+name, "auto.jsonl")
	if fi, err := os.Stat(path); err == nil && fi.Size() >= size {
		return path
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("no go tool to generate the journal: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Logf("writing a %s journal to %s", name, path)
	// Written aside and renamed, so that an interrupted run is not reused.
	tmp := path + ".tmp"
	cmd := exec.Command(goTool, "run", "./bench/gen", "journal", "-size", name, "-out", tmp)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("bench/gen: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}
