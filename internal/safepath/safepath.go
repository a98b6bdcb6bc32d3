// Package safepath opens, creates and replaces files under a folder baton
// trusts (a repository's main worktree, a project folder) without following a
// link planted below it. A cloned repository can commit a symbolic link where
// baton keeps its state (.claude, .claude/session-state, auto.jsonl, …); a
// write through it would land in a file outside the repository, such as a
// shell's start-up file.
//
// The trusted folder itself, and the folders above it, are the person's own
// and are followed. Below it every folder is opened one at a time with
// openat(2), O_DIRECTORY and O_NOFOLLOW, and the file with O_NOFOLLOW, so
// nothing between a check and a use can swap a folder for a link. A path
// that goes through a link or out of the trusted folder is refused with an
// error wrapping ErrLink.
//
// It does not decide which folder is trusted: package state does.
package safepath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrLink means a path was refused: a folder on it below the trusted folder,
// or the file itself, is a symbolic link, or the path leaves the trusted
// folder. A file standing where a folder should be fails with ENOTDIR.
var ErrLink = errors.New("refused: a link, or a path leaving the repository")

// Dir is a folder opened under a trusted one, for opening several files in it
// with one walk. Close it when done.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens dir, which must be root or lie under it, checking each folder
// below root as it goes. With create, missing folders are made with perm
// (0o700 when 0).
func OpenDir(root, dir string, create bool, perm fs.FileMode) (Dir, error) {
	parts, err := split(root, dir)
	if err != nil {
		return Dir{fd: -1}, err
	}
	if perm == 0 {
		perm = 0o700
	}
	fd, err := openat(unix.AT_FDCWD, root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return Dir{fd: -1}, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	at := root
	for _, p := range parts {
		at = filepath.Join(at, p)
		next, err := openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, p, uint32(perm.Perm())); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
			}
		}
		if errors.Is(err, unix.ENOTDIR) && isLink(fd, p) {
			// Linux says ENOTDIR, not ELOOP, for a link under O_DIRECTORY.
			err = unix.ELOOP
		}
		unix.Close(fd)
		if err != nil {
			return Dir{fd: -1}, pathError("open", at, err)
		}
		fd = next
	}
	return Dir{fd: fd, path: dir}, nil
}

// Close closes the folder.
func (d Dir) Close() error {
	if d.fd < 0 {
		return nil
	}
	return unix.Close(d.fd)
}

// Path is the folder's path.
func (d Dir) Path() string { return d.path }

// OpenFD opens the file name (a plain name, no separator) in d with flags
// (unix O_* flags, close-on-exec added) without following a link, and
// returns its descriptor.
func (d Dir) OpenFD(name string, flags int, perm uint32) (int, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		return -1, &fs.PathError{Op: "open", Path: filepath.Join(d.path, name), Err: ErrLink}
	}
	fd, err := openat(d.fd, name, flags|unix.O_NOFOLLOW, perm)
	if err != nil {
		return -1, pathError("open", filepath.Join(d.path, name), err)
	}
	return fd, nil
}

// OpenFD opens name, which must lie under root, with flags (unix O_* flags;
// close-on-exec is added) and returns its descriptor. With O_CREAT the
// missing folders on the way are made too.
func OpenFD(root, name string, flags int, perm uint32) (int, error) {
	d, err := OpenDir(root, filepath.Dir(name), flags&unix.O_CREAT != 0, 0)
	if err != nil {
		return -1, err
	}
	defer d.Close()
	return d.OpenFD(filepath.Base(name), flags, perm)
}

// OpenFile is os.OpenFile for a file under root that refuses links.
func OpenFile(root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := OpenFD(root, name, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// Open opens name under root for reading.
func Open(root, name string) (*os.File, error) { return OpenFile(root, name, os.O_RDONLY, 0) }

// ReadFile is os.ReadFile for a file under root that refuses links.
func ReadFile(root, name string) ([]byte, error) {
	f, err := Open(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// MkdirAll is os.MkdirAll for a folder under root that refuses links.
func MkdirAll(root, dir string, perm fs.FileMode) error {
	d, err := OpenDir(root, dir, true, perm)
	if err != nil {
		return err
	}
	return d.Close()
}

// Check reports, without creating anything, whether path (root or below it)
// can be used: every existing folder on the way is a real folder and path
// itself, when it exists, is not a link. It is for a path handed to code
// that opens it by name (a lock file, SQLite, a rename); a missing part is
// not an error.
func Check(root, path string) error {
	parts, err := split(root, path)
	if err != nil {
		return err
	}
	at := root
	for i, p := range parts {
		at = filepath.Join(at, p)
		fi, err := os.Lstat(at)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return &fs.PathError{Op: "check", Path: at, Err: ErrLink}
		case i < len(parts)-1 && !fi.IsDir():
			return &fs.PathError{Op: "check", Path: at, Err: unix.ENOTDIR}
		}
	}
	return nil
}

// WriteFile replaces name, under root, with data atomically: a temporary file
// in the same folder, synced, renamed over name, and the folder synced. The
// folders on the way are made when missing. A link at name is refused.
func WriteFile(root, name string, data []byte, perm fs.FileMode) error {
	d, err := OpenDir(root, filepath.Dir(name), true, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(filepath.Base(name), data, perm)
}

// WriteFile replaces the file name in d with data atomically.
func (d Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return d.replace(name, data, perm, true)
}

// Replace is WriteFile without the syncs, for a cache on the hook's path: a
// power cut can lose the newest version, never mix two.
func (d Dir) Replace(name string, data []byte, perm fs.FileMode) error {
	return d.replace(name, data, perm, false)
}

func (d Dir) replace(name string, data []byte, perm fs.FileMode, sync bool) error {
	if isLink(d.fd, name) {
		return &fs.PathError{Op: "write", Path: filepath.Join(d.path, name), Err: ErrLink}
	}
	tmp := "." + name + ".tmp" + strconv.FormatUint(rand.Uint64(), 36)
	fd, err := d.OpenFD(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(d.path, tmp))
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(d.fd, tmp, d.fd, name)
	}
	if err != nil {
		unix.Unlinkat(d.fd, tmp, 0)
		return fmt.Errorf("write %s: %w", filepath.Join(d.path, name), err)
	}
	if !sync {
		return nil
	}
	if err := unix.Fsync(d.fd); err != nil {
		return fmt.Errorf("sync folder %s: %w", d.path, err)
	}
	return nil
}

// split returns the parts of path below root, refusing a path outside it.
func split(root, path string) ([]string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsAbs(root) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrLink}
	}
	if rel == "." {
		return nil, nil
	}
	return strings.Split(rel, string(filepath.Separator)), nil
}

// isLink reports whether name in the folder dirfd is a symbolic link.
func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// openat retries on EINTR and adds close-on-exec.
func openat(dirfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_CLOEXEC, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// pathError describes a failed open, turning the error a link gives under
// O_NOFOLLOW into ErrLink.
func pathError(op, path string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) {
		err = ErrLink
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
