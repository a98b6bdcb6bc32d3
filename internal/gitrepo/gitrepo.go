// Package gitrepo finds the git worktree that holds a directory, the
// repository's main worktree and the checked-out branch, by reading git's own
// files, and tells whether a file is tracked. It runs git only to confirm
// that a file the index may list is tracked: it is on the hook path, where a
// subprocess costs more than the whole budget.
//
// It understands ordinary repositories (.git is a directory) and linked
// worktrees (.git is a file naming the worktree's git directory, which in turn
// names the common directory through its "commondir" file).
package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRepo means no enclosing git worktree was found.
var ErrNotRepo = errors.New("not inside a git worktree")

// Repo describes the worktree that holds a directory.
type Repo struct {
	// Worktree is the top folder of the worktree holding the directory.
	Worktree string
	// Main is the top folder of the repository's main worktree; it equals
	// Worktree outside linked worktrees.
	Main string
	// GitDir is the worktree's git directory; CommonDir the one shared by all
	// worktrees.
	GitDir, CommonDir string
	// Branch is the checked-out branch without "refs/heads/", or "" when HEAD
	// is detached.
	Branch string
	// Head is the commit HEAD points at when detached, else "".
	Head string
}

// Linked reports whether the worktree is a linked worktree rather than the main one.
func (r Repo) Linked() bool { return r.Worktree != r.Main }

// Find walks up from dir to the nearest worktree and describes it.
func Find(dir string) (Repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, fmt.Errorf("find repository: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		r, err := at(d)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return Repo{}, err
		}
		if parent := filepath.Dir(d); parent == d {
			return Repo{}, fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
	}
}

// at describes the worktree whose top folder is top, or returns an error
// wrapping os.ErrNotExist when top has no .git.
func at(top string) (Repo, error) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return Repo{}, err
	}
	r := Repo{Worktree: top, Main: top, GitDir: dotgit, CommonDir: dotgit}
	if !fi.IsDir() {
		gitdir, err := readGitFile(dotgit)
		if err != nil {
			return Repo{}, err
		}
		r.GitDir = gitdir
		r.CommonDir = gitdir
		if common, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
			c := strings.TrimSpace(string(common))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitdir, c)
			}
			r.CommonDir = filepath.Clean(c)
		}
		if filepath.Base(r.CommonDir) == ".git" {
			r.Main = filepath.Dir(r.CommonDir)
		}
	}
	head, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return Repo{}, fmt.Errorf("read HEAD of %s: %w", top, notExistIsCorrupt(err))
	}
	head = bytes.TrimSpace(head)
	if ref, ok := bytes.CutPrefix(head, []byte("ref: ")); ok {
		r.Branch = strings.TrimPrefix(string(ref), "refs/heads/")
	} else {
		r.Head = string(head)
	}
	return r, nil
}

// readGitFile reads a ".git" file ("gitdir: <path>") and returns the path it names.
func readGitFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	dir, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("gitdir:"))
	if !ok {
		return "", fmt.Errorf("%s: not a gitdir file", path)
	}
	d := strings.TrimSpace(string(dir))
	if !filepath.IsAbs(d) {
		d = filepath.Join(filepath.Dir(path), d)
	}
	return filepath.Clean(d), nil
}

// notExistIsCorrupt keeps a missing HEAD from reading as "no repository here",
// which would make Find silently climb to an enclosing repository.
func notExistIsCorrupt(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("repository is damaged: HEAD is missing")
	}
	return err
}
