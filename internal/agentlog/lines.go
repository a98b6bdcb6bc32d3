package agentlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"
)

// MaxLine is the longest line read; a longer one (a pasted image, a huge
// tool output) is skipped whole, so memory stays bounded.
const MaxLine = 16 << 20

// ErrNotRegular reports a session path that names something other than a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// open opens a session file to read, and only a regular file: the open does
// not wait for a FIFO's writer (O_NONBLOCK) and the kind is checked on the
// open file. A .zst file is read through a zstd decoder; close releases both.
func open(path string) (io.Reader, func(), error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read session %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read session %s: %w", path, err)
	}
	if !strings.HasSuffix(path, ".zst") {
		return f, func() { f.Close() }, nil
	}
	// One decoding goroutine and a bounded window: a hostile frame header
	// cannot ask for gigabytes.
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read session %s: %w", path, err)
	}
	return zr, func() { zr.Close(); f.Close() }, nil
}

// lines calls fn with each complete line of r (without its newline, and a
// last line without one) and the offset where it starts. Lines longer than
// MaxLine are skipped. The slice is only valid during the call. fn's error
// stops the reading and is returned.
func lines(ctx context.Context, r io.Reader, fn func(line []byte, off int64) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte // a line longer than the buffer, gathered
	var pos int64
	skipping := false
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !skipping {
				if len(long)+len(chunk) > MaxLine {
					skipping, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			pos += int64(len(chunk))
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return err
		}
		line := chunk
		if long != nil {
			if len(long)+len(chunk) > MaxLine {
				skipping = true
			}
			long = append(long, chunk...)
			line = long
		}
		start := pos - int64(len(line)-len(chunk))
		pos += int64(len(chunk))
		if !skipping && len(line) > 0 {
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if n++; n&1023 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
			}
			if len(line) > 0 {
				if ferr := fn(line, start); ferr != nil {
					return ferr
				}
			}
		}
		skipping, long = false, nil
		if err != nil { // io.EOF
			return nil
		}
	}
}
