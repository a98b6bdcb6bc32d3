// Package atomicfile writes small state files so that a reader never sees a
// half-written file and two writers never lose each other's change: every
// write goes to a temporary file in the same folder, is synced and renamed over
// the old one, and read-modify-write updates run under a lock file.
//
// The In variants are for files under a folder baton trusts (a repository's
// state folder, below state.Dir.Base): they never go through a link planted
// below that folder (see package safepath).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"

	"github.com/baton-cli/baton/internal/safepath"
)

// ErrUnchanged may be returned by an Update function to leave the file as it is.
var ErrUnchanged = errors.New("unchanged")

// Write replaces path with data atomically, creating its folder if needed.
func Write(path string, data []byte, perm fs.FileMode) error { return WriteIn("", path, data, perm) }

// WriteIn is Write for a file under root that refuses links below root
// (errors wrap safepath.ErrLink). An empty root is Write.
func WriteIn(root, path string, data []byte, perm fs.FileMode) error {
	if err := files(root).write(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Update reads path (nil when it does not exist), passes the contents to fn and
// atomically writes what fn returns, all under an exclusive lock on
// path+".lock". If fn returns an error the file is left as it was; ErrUnchanged
// is not reported as an error. An existing file keeps its permissions.
func Update(path string, perm fs.FileMode, fn func(old []byte) ([]byte, error)) error {
	return UpdateLocked(path, path+".lock", perm, fn)
}

// UpdateIn is Update for a file under root that refuses links below root,
// the lock file's included. An empty root is Update.
func UpdateIn(root, path string, perm fs.FileMode, fn func(old []byte) ([]byte, error)) error {
	return files(root).update(path, path+".lock", perm, fn)
}

// UpdateLocked is Update with the lock file at lockPath, for a file whose
// folder must hold nothing but what its owner put there.
func UpdateLocked(path, lockPath string, perm fs.FileMode, fn func(old []byte) ([]byte, error)) error {
	return files("").update(path, lockPath, perm, fn)
}

// files opens paths as they are ("") or below a trusted root.
type files string

func (root files) mkdirAll(dir string) error {
	if root == "" {
		return os.MkdirAll(dir, 0o700)
	}
	return safepath.MkdirAll(string(root), dir, 0o700)
}

func (root files) write(path string, data []byte, perm fs.FileMode) error {
	if err := root.mkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	if root == "" {
		return renameio.WriteFile(path, data, perm)
	}
	return safepath.WriteFile(string(root), path, data, perm)
}

func (root files) read(path string) ([]byte, error) {
	if root == "" {
		return os.ReadFile(path)
	}
	return safepath.ReadFile(string(root), path)
}

// check refuses a lock file the flock library would open through a link.
func (root files) check(path string) error {
	if root == "" {
		return nil
	}
	return safepath.Check(string(root), path)
}

func (root files) update(path, lockPath string, perm fs.FileMode, fn func(old []byte) ([]byte, error)) error {
	if err := root.mkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := root.mkdirAll(filepath.Dir(lockPath)); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	if err := root.check(lockPath); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	lock := flock.New(lockPath)
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Unlock()

	old, err := root.read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("update %s: %w", path, err)
	default:
		if fi, err := os.Lstat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	data, err := fn(old)
	if errors.Is(err, ErrUnchanged) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := root.write(path, data, perm); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}
