package gitrepo

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// ExcludePath is the repository's own ignore file, shared by its worktrees and
// never committed.
func (r Repo) ExcludePath() string { return filepath.Join(r.CommonDir, "info", "exclude") }

// AddExclude adds pattern as a line of the repository's info/exclude unless a
// line already says it, and reports whether it did.
func (r Repo) AddExclude(pattern string) (added bool, err error) {
	err = atomicfile.Update(r.ExcludePath(), 0o644, func(old []byte) ([]byte, error) {
		if hasLine(old, pattern) {
			return nil, atomicfile.ErrUnchanged
		}
		added = true
		if len(old) > 0 && old[len(old)-1] != '\n' {
			old = append(old, '\n')
		}
		return append(old, pattern+"\n"...), nil
	})
	return added, err
}

// RemoveExclude removes the lines equal to pattern and reports whether there were any.
func (r Repo) RemoveExclude(pattern string) (removed bool, err error) {
	if _, err := os.Stat(r.ExcludePath()); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	err = atomicfile.Update(r.ExcludePath(), 0o644, func(old []byte) ([]byte, error) {
		if !hasLine(old, pattern) {
			return nil, atomicfile.ErrUnchanged
		}
		removed = true
		var out []byte
		for _, line := range bytes.SplitAfter(old, []byte("\n")) {
			if string(bytes.TrimSpace(line)) != pattern {
				out = append(out, line...)
			}
		}
		return out, nil
	})
	return removed, err
}

func hasLine(b []byte, line string) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == line {
			return true
		}
	}
	return false
}
