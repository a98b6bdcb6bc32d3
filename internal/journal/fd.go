package journal

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/baton-cli/baton/internal/safepath"
)

// The append path and the start of every read use raw descriptors, opened
// under the state folder without following links (package safepath), and
// flock(2) rather than os.File and gofrs/flock: each system call counts on
// the hook path, and os.File adds a poller registration to every open.
// Measured on the 2-core development VM: about 40 µs a lock-and-append this
// way, 140 µs through os.File.

// lockFD opens the file name in d and takes a flock on it, shared
// (syscall.LOCK_SH) or exclusive (syscall.LOCK_EX). Closing the descriptor
// releases the lock, as does the death of the process.
func lockFD(d safepath.Dir, name string, flags int, how int) (int, error) {
	fd, err := d.OpenFD(name, flags, 0o600)
	if err != nil {
		return -1, err
	}
	if err := ignoringEINTR(func() error { return syscall.Flock(fd, how) }); err != nil {
		syscall.Close(fd)
		return -1, &fs.PathError{Op: "flock", Path: filepath.Join(d.Path(), name), Err: err}
	}
	return fd, nil
}

// fdFile is an open file read at offsets.
type fdFile int

// ReadAt implements io.ReaderAt.
func (f fdFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		var m int
		err := ignoringEINTR(func() (err error) {
			m, err = syscall.Pread(int(f), p[n:], off+int64(n))
			return err
		})
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// Close implements io.Closer.
func (f fdFile) Close() error { return syscall.Close(int(f)) }

func (f fdFile) size() (int64, error) {
	st, err := f.stat()
	if err != nil {
		return 0, err
	}
	return st.Size, nil
}

func (f fdFile) stat() (*syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(int(f), &st) }); err != nil {
		return nil, err
	}
	return &st, nil
}

// write writes all of p.
func (f fdFile) write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var m int
		err := ignoringEINTR(func() (err error) {
			m, err = syscall.Write(int(f), p[n:])
			return err
		})
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.ErrShortWrite
		}
		n += m
	}
	return n, nil
}

func ignoringEINTR(fn func() error) error {
	for {
		err := fn()
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
