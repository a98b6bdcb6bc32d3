// Package transcript reads Claude Code session transcripts: JSON Lines files
// under ~/.claude/projects/ in which each line is one event of a session.
//
// Read streams a transcript forwards from a byte offset and hands the user and
// assistant messages it finds to a callback, in memory that does not depend on
// the file's size. Every other line type, and every line that is not valid
// JSON, is skipped. The offset it returns is always the start of a line, so a
// line still being written is read whole next time.
//
// The package knows nothing about decisions or issues; callers decide what the
// messages mean.
package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/textcut"
)

// Roles of the messages Read returns.
const (
	User      = "user"
	Assistant = "assistant"
)

// Block types inside a message.
const (
	TextBlock       = "text"
	ToolUseBlock    = "tool_use"
	ToolResultBlock = "tool_result"
)

// Message is one user or assistant line of a transcript.
type Message struct {
	// Role is User or Assistant.
	Role      string
	UUID      string
	Timestamp time.Time
	// Sidechain marks a subagent's message.
	Sidechain bool
	Blocks    []Block
	// Offset is where the line starts; End is just past its newline.
	Offset, End int64
}

// Block is one piece of a message's content. A user message whose content is
// a plain string has one text block.
type Block struct {
	Type string
	// Text is a text block's text or a tool result's text content.
	Text string
	// Name is a tool_use block's tool name.
	Name string
	// ID is a tool_use block's id or a tool_result block's tool_use_id.
	ID string
	// Input is a tool_use block's input, as raw JSON.
	Input string
	// IsError marks a tool result that reported an error.
	IsError bool
}

// Text returns the message's text blocks joined by blank lines.
func (m *Message) Text() string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Type == TextBlock && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// ErrStop may be returned by Read's callback to stop reading after the message
// it was given; Read then returns the offset just past that message and no
// error.
var ErrStop = errors.New("stop reading")

// ErrOffset reports an offset before the start or past the end of the file.
var ErrOffset = errors.New("offset outside the transcript")

// ErrNotRegular reports a transcript path that names something other than
// a regular file: a FIFO, a device, a folder.
var ErrNotRegular = errors.New("not a regular file")

// Reading sizes. The buffer grows for a longer line up to MaxLine; a line
// longer than that is skipped (its content is a pasted image or a huge tool
// result, never a decision).
const (
	bufferSize = 1 << 20
	MaxLine    = 64 << 20
)

// Read reads the transcript at path from the byte offset from, calling fn for
// each user and assistant message, and returns the offset to resume from: just
// past the last complete line it read.
//
//   - Lines of other types, and malformed lines, are skipped.
//   - Bytes after the last newline are a line still being written; they are
//     left for the next Read.
//   - An offset inside a line resumes at the start of the next line.
//   - An offset past the end of the file is an error wrapping ErrOffset (the
//     file was replaced or truncated); a missing file wraps fs.ErrNotExist.
//
// If fn returns an error other than ErrStop, Read stops and returns it with
// the offset of that message's line, so it is read again next time.
func Read(ctx context.Context, path string, from int64, fn func(*Message) error) (int64, error) {
	return read(ctx, path, from, bufferSize, MaxLine, fn)
}

// read is Read with the buffer's starting and largest sizes.
func read(ctx context.Context, path string, from int64, bufSize, maxLine int, fn func(*Message) error) (int64, error) {
	f, fi, err := open(path)
	if err != nil {
		return from, err
	}
	defer f.Close()
	if from < 0 || from > fi.Size() {
		return from, fmt.Errorf("read transcript %s from %d, size %d: %w", path, from, fi.Size(), ErrOffset)
	}
	r := &reader{f: f, pos: from, buf: make([]byte, bufSize), maxLine: maxLine}
	if from > 0 {
		if err := r.alignToLine(); err != nil {
			return from, fmt.Errorf("read transcript %s: %w", path, err)
		}
	}
	end, err := r.run(ctx, fn)
	if err != nil && !errors.Is(err, ErrStop) {
		return end, err
	}
	return end, nil
}

// open opens a transcript to read, and only a regular file: the open does
// not wait for a FIFO's writer or a device (O_NONBLOCK), and what it opened
// is checked on the open file, so nothing swapped in between is read.
func open(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read transcript: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is a %s: %w", path, fileKind(fi.Mode()), ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read transcript: %w", err)
	}
	return f, fi, nil
}

// fileKind names what a mode that is not a regular file's is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// reader holds Read's position. buf[lo:hi] are bytes read from the file but
// not yet consumed; pos is the file offset of buf[lo], always a line start.
type reader struct {
	f      *os.File
	buf    []byte
	lo, hi int
	pos    int64
	eof    bool
	// maxLine is the longest line read; longer ones are skipped.
	maxLine int
}

// alignToLine moves pos to the start of a line: unchanged when the byte before
// it is a newline, else just past the next newline (or nowhere, when the line
// is still being written).
func (r *reader) alignToLine() error {
	var prev [1]byte
	if _, err := r.f.ReadAt(prev[:], r.pos-1); err != nil {
		return err
	}
	if _, err := r.f.Seek(r.pos, io.SeekStart); err != nil {
		return err
	}
	if prev[0] == '\n' {
		return nil
	}
	// Inside a line: its start is unknown, so treat the rest as a line to
	// skip. pos is not a line start yet; skipLine makes it one.
	_, err := r.skipLine()
	return err
}

// next returns the next complete line without its newline, or ok=false when
// only a partial line (or nothing) is left. Lines longer than MaxLine are
// skipped whole.
func (r *reader) next() (line []byte, ok bool, err error) {
	scanned := 0 // bytes of buf[lo:hi] known to hold no newline
	for {
		if i := bytes.IndexByte(r.buf[r.lo+scanned:r.hi], '\n'); i >= 0 {
			n := scanned + i
			line = r.buf[r.lo : r.lo+n]
			r.lo += n + 1
			r.pos += int64(n + 1)
			return line, true, nil
		}
		scanned = r.hi - r.lo
		if r.eof {
			return nil, false, nil
		}
		if r.lo == 0 && r.hi == len(r.buf) {
			if len(r.buf) < r.maxLine {
				grown := make([]byte, min(2*len(r.buf), r.maxLine))
				copy(grown, r.buf[:r.hi])
				r.buf = grown
			} else {
				found, err := r.skipLine()
				if err != nil || !found {
					return nil, false, err
				}
				scanned = 0
				continue
			}
		}
		if err := r.fill(); err != nil {
			return nil, false, err
		}
	}
}

// skipLine discards bytes up to and including the next newline. Without one
// (the line is still being written) it leaves pos where it was and reports
// found=false, with nothing left to read.
func (r *reader) skipLine() (found bool, err error) {
	start := r.pos
	for {
		if i := bytes.IndexByte(r.buf[r.lo:r.hi], '\n'); i >= 0 {
			r.lo += i + 1
			r.pos += int64(i + 1)
			return true, nil
		}
		r.pos += int64(r.hi - r.lo)
		r.lo, r.hi = 0, 0
		if r.eof {
			r.pos = start
			return false, nil
		}
		if err := r.fill(); err != nil {
			return false, err
		}
	}
}

// fill reads more of the file after the unconsumed bytes, first moving them
// to the front of the buffer.
func (r *reader) fill() error {
	if r.lo > 0 {
		n := copy(r.buf, r.buf[r.lo:r.hi])
		r.lo, r.hi = 0, n
	}
	n, err := r.f.Read(r.buf[r.hi:])
	r.hi += n
	if errors.Is(err, io.EOF) {
		r.eof = true
		return nil
	}
	return err
}

func (r *reader) run(ctx context.Context, fn func(*Message) error) (int64, error) {
	lines := 0
	for {
		start := r.pos
		line, ok, err := r.next()
		if err != nil {
			return start, fmt.Errorf("read transcript: %w", err)
		}
		if !ok {
			return r.pos, nil
		}
		if lines++; lines&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return start, err
			}
		}
		m, ok := parse(line)
		if !ok {
			continue
		}
		m.Offset, m.End = start, r.pos
		if err := fn(m); err != nil {
			if errors.Is(err, ErrStop) {
				return r.pos, err
			}
			return start, err
		}
	}
}

// MaxToolText is how much of a tool's input or result Render keeps.
const MaxToolText = 2000

// Render writes the message as plain text for a reader or a model: one
// paragraph per block, each headed by who said it. Tool inputs and results
// are cut to MaxToolText bytes.
func (m *Message) Render(w *strings.Builder) {
	for _, b := range m.Blocks {
		switch b.Type {
		case TextBlock:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			fmt.Fprintf(w, "[%s]\n%s\n\n", m.Role, b.Text)
		case ToolUseBlock:
			fmt.Fprintf(w, "[%s: tool %s]\n%s\n\n", m.Role, b.Name, textcut.Bytes(b.Input, MaxToolText))
		case ToolResultBlock:
			fmt.Fprintf(w, "[tool result]\n%s\n\n", textcut.Bytes(b.Text, MaxToolText))
		}
	}
}

// ReadRaw returns the bytes of the complete lines of the file at path from
// the byte offset from, whatever they hold, and the offset just past them.
// It stops after the line that reaches limit bytes (limit <= 0: no limit;
// a first line longer than limit is returned whole, up to MaxLine, so a
// reader always moves on) and reports more when complete lines are left.
// Bytes after the last newline are a line still being written: left for
// the next read. An offset past the end returns nothing and from itself; a
// missing file wraps fs.ErrNotExist.
func ReadRaw(path string, from int64, limit int) (data []byte, end int64, more bool, err error) {
	f, fi, err := open(path)
	if err != nil {
		return nil, from, false, err
	}
	defer f.Close()
	if from < 0 {
		return nil, from, false, fmt.Errorf("read transcript %s from %d: %w", path, from, ErrOffset)
	}
	if from >= fi.Size() {
		return nil, from, false, nil
	}
	avail := fi.Size() - from
	want := avail
	if limit > 0 && int64(limit) < want {
		want = int64(limit)
	}
	buf := make([]byte, want)
	n, err := f.ReadAt(buf, from)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, from, false, fmt.Errorf("read transcript: %w", err)
	}
	buf = buf[:n]
	cut := bytes.LastIndexByte(buf, '\n')
	if cut < 0 && int64(n) < avail {
		// One line longer than limit: read on to its end.
		for cut < 0 && int64(len(buf)) < avail && len(buf) < MaxLine {
			chunk := make([]byte, min(avail-int64(len(buf)), bufferSize))
			m, rerr := f.ReadAt(chunk, from+int64(len(buf)))
			if i := bytes.IndexByte(chunk[:m], '\n'); i >= 0 {
				cut = len(buf) + i
			}
			buf = append(buf, chunk[:m]...)
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				return nil, from, false, fmt.Errorf("read transcript: %w", rerr)
			}
			if m == 0 {
				break
			}
		}
	}
	if cut < 0 {
		return nil, from, false, nil
	}
	data = buf[:cut+1]
	end = from + int64(len(data))
	if end < fi.Size() {
		rest := make([]byte, min(fi.Size()-end, bufferSize))
		m, _ := f.ReadAt(rest, end)
		more = bytes.IndexByte(rest[:m], '\n') >= 0 || int64(m) < fi.Size()-end
	}
	return data, end, more, nil
}
