// Package atomicfile writes small state files so that a reader never sees a
// half-written file and two writers never lose each other's change: every
// write goes to a temporary file in the same folder, is synced and renamed over
// the old one, and read-modify-write updates run under a lock file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

// ErrUnchanged may be returned by an Update function to leave the file as it is.
var ErrUnchanged = errors.New("unchanged")

// Write replaces path with data atomically, creating its folder if needed.
func Write(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := renameio.WriteFile(path, data, perm); err != nil {
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

// UpdateLocked is Update with the lock file at lockPath, for a file whose
// folder must hold nothing but what its owner put there.
func UpdateLocked(path, lockPath string, perm fs.FileMode, fn func(old []byte) ([]byte, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o700); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	lock := flock.New(lockPath)
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer lock.Unlock()

	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("update %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
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
	if err := renameio.WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}
