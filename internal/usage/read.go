package usage

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
)

// MaxLine is the longest line read; a longer one is skipped (no response's
// usage line is anywhere near it).
const MaxLine = 64 << 20

// unit is a piece of work: a whole file, or the lines that start in
// [start, end) of a large one.
type unit struct {
	path       string
	session    string
	start, end int64
	gz         bool
}

// units splits files into pieces of about size bytes.
func units(files []string, size int64) ([]unit, error) {
	var out []unit
	for _, path := range files {
		u := unit{path: path, session: SessionOf(path), gz: strings.HasSuffix(path, ".gz")}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		if u.gz || fi.Size() <= size {
			u.end = -1
			out = append(out, u)
			continue
		}
		for start := int64(0); start < fi.Size(); start += size {
			u.start, u.end = start, min(start+size, fi.Size())
			if u.end == fi.Size() {
				u.end = -1 // to the end, whatever was appended meanwhile
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// size is about how many bytes the unit covers.
func (u unit) size() int64 {
	if u.end < 0 {
		return 64 << 10
	}
	return u.end - u.start
}

type unitResult struct {
	resps []resp
	err   error
}

// read parses files on several goroutines and hands the responses to push
// on the calling goroutine, in file and line order, so that ties between
// duplicates are settled the same way on every run. At most a few units are
// held in memory at once.
func read(ctx context.Context, files []string, opts Options, push func(*resp)) error {
	size := opts.ChunkSize
	if size <= 0 {
		size = DefaultChunkSize
	}
	us, err := units(files, size)
	if err != nil {
		return err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	h := newHasher()
	results := make([]chan unitResult, len(us))
	for i := range results {
		results[i] = make(chan unitResult, 1)
	}
	// ahead bounds how many units are parsed but not yet merged.
	ahead := make(chan struct{}, 2*workers)
	jobs := make(chan int)
	var wg sync.WaitGroup
	go func() {
		defer close(jobs)
		for i := range us {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{h: h, buf: make([]byte, 1<<20), strs: map[string]string{}}
			for i := range jobs {
				resps, err := w.unit(ctx, us[i])
				results[i] <- unitResult{resps, err}
			}
		}()
	}
	defer wg.Wait()

	for i := range us {
		var res unitResult
		select {
		case res = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if res.err != nil {
			return res.err
		}
		for j := range res.resps {
			push(&res.resps[j])
		}
		<-ahead
	}
	return nil
}

// worker parses units with its own buffer.
type worker struct {
	h   hasher
	buf []byte
	// strs interns the session ids and models of the responses.
	strs map[string]string
}

func (w *worker) intern(b []byte) string {
	if v, ok := w.strs[string(b)]; ok {
		return v
	}
	if len(w.strs) > 1<<16 {
		clear(w.strs)
	}
	s := string(b)
	w.strs[s] = s
	return s
}

func (w *worker) unit(ctx context.Context, u unit) ([]resp, error) {
	f, err := openFile(u.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	skipFirst := false
	limit := int64(-1)
	if u.gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("read transcript %s: %w", u.path, err)
		}
		r = zr
	} else {
		if u.start > 0 {
			var prev [1]byte
			if _, err := f.ReadAt(prev[:], u.start-1); err != nil {
				return nil, fmt.Errorf("read transcript %s: %w", u.path, err)
			}
			skipFirst = prev[0] != '\n'
			if _, err := f.Seek(u.start, io.SeekStart); err != nil {
				return nil, fmt.Errorf("read transcript %s: %w", u.path, err)
			}
		}
		if u.end >= 0 {
			limit = u.end - u.start
		}
	}
	// About one response per 3 KiB of transcript.
	out := make([]resp, 0, min(u.size()/3072+16, 1<<16))
	n := 0
	err = lines(r, &w.buf, skipFirst, limit, func(b []byte) error {
		if n++; n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		l, ok := parseLine(b)
		if !ok {
			return nil
		}
		out = w.h.makeResps(&l, u.session, w.intern, out)
		return nil
	})
	if err != nil {
		// A torn gzip stream (an archive being written) ends the file.
		if u.gz && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum)) {
			return out, nil
		}
		return nil, fmt.Errorf("read transcript %s: %w", u.path, err)
	}
	return out, nil
}

// lines calls fn for each line of r that starts before limit bytes (-1: all
// of them), without its newline. With skipFirst the bytes up to the first
// newline belong to the previous piece and are skipped. The last line needs
// no newline. Lines longer than MaxLine are skipped.
func lines(r io.Reader, bufp *[]byte, skipFirst bool, limit int64, fn func([]byte) error) error {
	buf := *bufp
	lo, hi := 0, 0
	var pos int64 // offset of buf[lo] from the piece's start
	eof := false
	skipping := skipFirst
	fill := func() error {
		if lo > 0 {
			hi = copy(buf, buf[lo:hi])
			lo = 0
		}
		if hi == len(buf) {
			if len(buf) >= MaxLine {
				// Drop what is held of an overlong line.
				pos += int64(hi)
				hi = 0
				skipping = true
			} else {
				grown := make([]byte, min(2*len(buf), MaxLine))
				copy(grown, buf[:hi])
				buf = grown
				*bufp = buf
			}
		}
		n, err := r.Read(buf[hi:])
		hi += n
		if errors.Is(err, io.EOF) {
			eof = true
			return nil
		}
		return err
	}
	scanned := 0
	for {
		if limit >= 0 && pos >= limit && !skipping {
			return nil
		}
		if i := bytes.IndexByte(buf[lo+scanned:hi], '\n'); i >= 0 {
			end := lo + scanned + i
			if !skipping {
				if err := fn(buf[lo:end]); err != nil {
					return err
				}
			}
			skipping = false
			pos += int64(end + 1 - lo)
			lo = end + 1
			scanned = 0
			continue
		}
		scanned = hi - lo
		if eof {
			if hi > lo && !skipping {
				return fn(buf[lo:hi])
			}
			return nil
		}
		before := hi - lo
		if err := fill(); err != nil {
			return err
		}
		// fill may have dropped an overlong line's bytes.
		if hi-lo < before {
			scanned = 0
		}
	}
}
