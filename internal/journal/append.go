package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"syscall"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/shellsafe"
)

// Append adds recs to the end of the journal, in order, in one write under
// the writers' lock: records of concurrent writers, in this process or
// another, never interleave with them, and readers never see part of a
// record. Records without a time get Now; times are stored in UTC.
//
// It runs on every hook call, so it makes eight system calls: open and lock
// the lock file, open the active file, stat it, read its last byte, write,
// close both. There is no fsync: a power cut can lose the last records but
// not mix them up. When the active file has grown past MaxSize it is rotated:
// renamed into the archive under the lock, then compressed after the lock is
// released, so other writers wait for a rename, not for the compression,
// which this call pays for (under a second for 32 MiB).
// An error that wraps ErrRotate came after the records were written.
//
// Append takes no context: the only wait is for the lock, which no writer
// holds for longer than a write or a rename, and a rotation's compression is
// bounded by MaxSize.
func (j *Journal) Append(recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	buf, err := j.encode(recs)
	if err != nil {
		return err
	}
	rotated, err := j.appendLocked(buf)
	if err != nil {
		return err
	}
	if rotated {
		// Append is the root of this call chain and cannot be cancelled.
		if err := j.Compress(context.Background()); err != nil {
			return fmt.Errorf("%w: %w", ErrRotate, err)
		}
	}
	return nil
}

// encode returns recs as JSON lines after one leading newline, which the
// write keeps only when the file does not end in one. encoding/json escapes
// every control character inside strings, so a record never holds a raw
// newline, and '$' and '`' are escaped too (package shellsafe), so a line
// runs nothing if a shell ever reads it.
func (j *Journal) encode(recs []Record) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('\n')
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // paths and commands stay readable with grep
	for _, rec := range recs {
		if rec.TS.IsZero() {
			rec.TS = j.now()
		}
		rec.TS = rec.TS.UTC()
		if err := enc.Encode(&rec); err != nil {
			return nil, fmt.Errorf("encode journal record: %w", err)
		}
	}
	return shellsafe.JSON(buf.Bytes()), nil
}

// appendLocked writes buf under the writers' lock and, when the active file
// has grown past MaxSize, moves it into the archive before releasing the
// lock. It reports whether it did.
func (j *Journal) appendLocked(buf []byte) (rotated bool, err error) {
	d, err := j.openDir(true)
	if err != nil {
		return false, err
	}
	defer d.Close()
	lk, err := lockExclusiveIn(d)
	if err != nil {
		return false, err
	}
	defer lk.Close() // releases the lock

	size, err := writeLines(d, buf)
	if err != nil {
		return false, err
	}
	if j.maxSize < 0 || size <= j.maxSize {
		return false, nil
	}
	if err := j.detachActive(); err != nil {
		return false, fmt.Errorf("%w: %w", ErrRotate, err)
	}
	return true, nil
}

// writeLines appends buf, whose first byte is a newline, to the active file
// in the state folder d in one write. The newline is dropped unless the file is non-empty and does
// not end in one: then a writer was killed mid-write, and the newline ends its
// torn line so that the torn line cannot swallow the first new record.
// It returns the file's size after the write.
func writeLines(d safepath.Dir, buf []byte) (int64, error) {
	fd, err := d.OpenFD(ActiveName, syscall.O_RDWR|syscall.O_APPEND|syscall.O_CREAT, 0o600)
	if err != nil {
		return 0, fmt.Errorf("open journal: %w", err)
	}
	f := fdFile(fd)
	size, werr := writeAfterNewline(f, buf)
	if err := f.Close(); err != nil && werr == nil {
		werr = fmt.Errorf("close journal: %w", err)
	}
	return size, werr
}

func writeAfterNewline(f fdFile, buf []byte) (int64, error) {
	size, err := f.size()
	if err != nil {
		return 0, fmt.Errorf("stat journal: %w", err)
	}
	data := buf[1:]
	if size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return 0, fmt.Errorf("read journal end: %w", err)
		}
		if last[0] != '\n' {
			data = buf
		}
	}
	n, err := f.write(data)
	if err != nil {
		return 0, fmt.Errorf("write journal: %w", err)
	}
	return size + int64(n), nil
}
