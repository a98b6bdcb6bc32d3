package gitrepo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// maxIndexRead is the largest index file Tracked reads itself; a larger
// one is left to git.
const maxIndexRead = 8 << 20

// gitTimeout bounds the one git call Tracked may make.
const gitTimeout = 5 * time.Second

// Tracked reports whether path, a file inside r.Worktree, is tracked by
// git (in the worktree's index). It first reads the index: in its usual
// forms (versions 2 and 3, not split) every tracked path is stored whole,
// so an index that does not hold the path's bytes rules it out without a
// subprocess. Only when the index holds them, or keeps its paths in
// another form (version 4 compresses them, a split index keeps most of
// them in a shared file), does it ask git (`git ls-files --error-unmatch`,
// with the file system monitor off so that the repository's config runs
// nothing).
func (r Repo) Tracked(ctx context.Context, path string) (bool, error) {
	rel, err := filepath.Rel(r.Worktree, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return false, fmt.Errorf("tracked: %s is not inside %s", path, r.Worktree)
	}
	rel = filepath.ToSlash(rel)
	switch maybe, err := r.indexMayHold(rel); {
	case err != nil:
		return false, err
	case !maybe:
		return false, nil
	}
	return r.lsFiles(ctx, rel)
}

// indexMayHold reports whether the worktree's index may list rel: false
// only when it certainly does not.
func (r Repo) indexMayHold(rel string) (bool, error) {
	f, err := os.Open(filepath.Join(r.GitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // nothing was ever added
	}
	if err != nil {
		return false, fmt.Errorf("tracked: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("tracked: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxIndexRead {
		return true, nil
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return false, fmt.Errorf("tracked: read index: %w", err)
	}
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return true, nil
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v != 2 && v != 3 {
		return true, nil
	}
	for _, dir := range []string{r.GitDir, r.CommonDir} {
		if shared, _ := filepath.Glob(filepath.Join(dir, "sharedindex.*")); len(shared) > 0 {
			return true, nil
		}
	}
	return bytes.Contains(b, []byte(rel)), nil
}

// lsFiles asks git whether rel is tracked in the worktree.
func (r Repo) lsFiles(ctx context.Context, rel string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--literal-pathspecs", "-c", "core.fsmonitor=false", "ls-files", "--error-unmatch", "--", rel)
	cmd.Dir = r.Worktree
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	}
	return false, fmt.Errorf("tracked: git ls-files: %w: %s", err, strings.TrimSpace(errOut.String()))
}
