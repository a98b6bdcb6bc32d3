package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// decodeLine returns the record on one line (without its newline). Lines that
// are not a JSON object fitting Record, such as the rest of a torn write,
// are not records.
func decodeLine(line []byte) (Record, bool) {
	var rec Record
	// Unmarshal accepts null for a struct; only objects are records.
	if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
		return rec, false
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, false
	}
	return rec, true
}

// lineReader splits a stream into lines, keeping any line whole however long.
type lineReader struct {
	r       io.Reader
	buf     []byte
	lo, hi  int   // unread bytes are buf[lo:hi]
	checked int   // buf[lo:checked] holds no newline
	err     error // the read error that ended the stream, io.EOF at its end
}

func newLineReader(r io.Reader, size int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, size)}
}

// next returns the next line without its newline. At the end of the stream it
// returns the bytes after the last newline, if any, with complete false, then
// io.EOF. The line is valid until the next call.
func (l *lineReader) next() (line []byte, complete bool, err error) {
	for {
		if i := bytes.IndexByte(l.buf[l.checked:l.hi], '\n'); i >= 0 {
			end := l.checked + i
			line = l.buf[l.lo:end]
			l.lo, l.checked = end+1, end+1
			return line, true, nil
		}
		l.checked = l.hi
		if l.err != nil {
			if l.lo < l.hi && l.err == io.EOF {
				line = l.buf[l.lo:l.hi]
				l.lo = l.hi
				return line, false, nil
			}
			return nil, false, l.err
		}
		l.fill()
	}
}

// fill reads more, first making room by dropping consumed bytes or growing.
func (l *lineReader) fill() {
	if l.lo > 0 {
		n := copy(l.buf, l.buf[l.lo:l.hi])
		l.checked -= l.lo
		l.lo, l.hi = 0, n
	}
	if l.hi == len(l.buf) {
		grown := make([]byte, 2*len(l.buf))
		copy(grown, l.buf[:l.hi])
		l.buf = grown
	}
	n, err := l.r.Read(l.buf[l.hi:])
	l.hi += n
	l.err = err
}

// backLines reads the lines of r[floor:size) from the last to the first,
// in blocks growing from firstBlock to the journal's block size, keeping any
// line whole however long. It never returns the bytes
// after the last newline: they are a line still being written, or torn.
type backLines struct {
	r       io.ReaderAt
	floor   int64 // no byte before floor is read
	pos     int64 // offset in r of scratch[lo]
	scratch []byte
	lo, hi  int  // unconsumed bytes are scratch[lo:hi]; scratch[hi] was '\n'
	tail    bool // the bytes after the last newline are still to drop
	done    bool
	next    int // size of the next read: it doubles up to max
	max     int
}

// firstBlock is the size of backLines' first read: enough for a few dozen
// records, small enough not to be a large allocation.
const firstBlock = 16 << 10

func newBackLines(r io.ReaderAt, floor, size int64, block int) *backLines {
	first := min(block, firstBlock)
	s := make([]byte, 2*first)
	return &backLines{r: r, floor: floor, pos: size, scratch: s, lo: len(s), hi: len(s), tail: true, next: first, max: block}
}

// prev returns the line before the last one returned, without its newline;
// ok is false when there is none left. The line is valid until the next call.
// The first line in the window is returned only if it starts the file: when
// floor > 0 it may have begun before floor.
func (b *backLines) prev() (line []byte, ok bool, err error) {
	for !b.done {
		buf := b.scratch[b.lo:b.hi]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			line = buf[i+1:]
			b.hi = b.lo + i
			if b.tail {
				b.tail = false
				continue
			}
			return line, true, nil
		}
		if b.pos == b.floor {
			b.done = true
			if b.floor == 0 && !b.tail {
				return buf, true, nil
			}
			return nil, false, nil
		}
		if err := b.fill(); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// fill reads the block before scratch[lo:hi], first moving those bytes to
// the end of scratch (or of a bigger one, for a long line) to make room.
func (b *backLines) fill() error {
	n := int64(b.next)
	b.next = min(2*b.next, b.max)
	if avail := b.pos - b.floor; avail < n {
		n = avail
	}
	if int64(b.lo) < n {
		kept := b.hi - b.lo
		s := b.scratch
		if need := kept + int(n); need > len(s) {
			s = make([]byte, max(2*len(s), need))
		}
		copy(s[len(s)-kept:], b.scratch[b.lo:b.hi])
		b.scratch, b.lo, b.hi = s, len(s)-kept, len(s)
	}
	b.pos -= n
	b.lo -= int(n)
	if _, err := b.r.ReadAt(b.scratch[b.lo:b.lo+int(n)], b.pos); err != nil {
		return fmt.Errorf("read journal at %d: %w", b.pos, err)
	}
	return nil
}
