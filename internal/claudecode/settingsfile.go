package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

// ErrInvalidSettings is matched (errors.Is) by every error about a settings or
// MCP file that is not valid JSON or does not have the shape Claude Code
// expects. The file is left as it was.
var ErrInvalidSettings = errors.New("invalid settings")

// InvalidError says why a file was refused and where.
type InvalidError struct {
	Path   string
	Line   int // 1-based
	Column int // 1-based, in bytes
	Reason string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%s:%d:%d: invalid settings: %s", e.Path, e.Line, e.Column, e.Reason)
}

// Is makes errors.Is(err, ErrInvalidSettings) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalidSettings }

// Change says what an install or uninstall did to one file.
type Change struct {
	Path      string   `json:"path"`
	Added     []string `json:"added"`     // hook events or MCP server names added
	Removed   []string `json:"removed"`   // hook events or MCP server names removed
	Created   bool     `json:"created"`   // the file did not exist and was created
	Unchanged bool     `json:"unchanged"` // nothing to do; the file was not written
}

// newFilePerm is the mode of a file baton creates; an existing file keeps its
// own mode.
const newFilePerm = 0o644

// lockRetry is how often a waiting writer tries the lock again.
const lockRetry = 2 * time.Millisecond

// document is a settings file in memory: its bytes as read, for error
// positions and formatting, and its top-level object, which edits change.
type document struct {
	path string
	data []byte
	root object
}

// invalid returns the error for value n of d being of the wrong shape.
func (d *document) invalid(n node, format string, args ...any) error {
	return invalidAt(d.path, d.data, n.off, fmt.Sprintf(format, args...))
}

// editFunc changes a settings document in memory and names what it added and
// removed; if both are empty the file is not written.
type editFunc func(d *document) (added, removed []string, err error)

// editFile reads the JSON object in path, applies edit and writes the result
// atomically, all under a lock file next to it, so that concurrent editors
// do not lose each other's changes. A missing file is created when create is
// set and otherwise left missing. A symbolic link is followed, so the file it
// points to is edited and the link stays.
func editFile(ctx context.Context, path string, create bool, edit editFunc) (Change, error) {
	ch := Change{Path: path}
	target, err := resolveLink(path)
	if err != nil {
		return ch, err
	}
	if !create {
		if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
			ch.Unchanged = true
			return ch, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return ch, fmt.Errorf("create settings folder: %w", err)
	}
	unlock, err := lockFile(ctx, target+".lock")
	if err != nil {
		return ch, err
	}
	defer unlock()

	data, exists, err := readFile(target)
	if err != nil {
		return ch, err
	}
	if !exists && !create {
		ch.Unchanged = true
		return ch, nil
	}
	out, added, removed, err := apply(path, data, edit)
	if err != nil {
		return ch, err
	}
	if out == nil {
		ch.Unchanged = true
		return ch, nil
	}
	if err := writeFile(target, out); err != nil {
		return ch, err
	}
	ch.Added, ch.Removed = added, removed
	ch.Created = !exists
	return ch, nil
}

// apply parses data, the contents of the file at path, applies edit and
// returns the new contents, or nil if edit changed nothing.
func apply(path string, data []byte, edit editFunc) (out []byte, added, removed []string, err error) {
	doc, err := parseDocument(path, data)
	if err != nil {
		return nil, nil, nil, err
	}
	added, removed, err = edit(doc)
	if err != nil || len(added) == 0 && len(removed) == 0 {
		return nil, nil, nil, err
	}
	return splice(data, doc.root.bytes()), added, removed, nil
}

// readDocument reads the JSON object in path for inspection; a missing file
// reads as an empty object.
func readDocument(path string) (*document, error) {
	data, _, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return parseDocument(path, data)
}

// resolveLink returns the file path names: path itself, or, if path is a
// symbolic link, the file it points to.
func resolveLink(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("resolve settings link: %w", err)
	}
	return target, nil
}

func readFile(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read settings: %w", err)
	}
	return data, true, nil
}

// parseDocument checks that data is one JSON object and splits it. Empty data
// (a missing or empty file) is an empty object.
func parseDocument(path string, data []byte) (*document, error) {
	d := &document{path: path, data: data}
	start := skipSpace(data, 0)
	if start == len(data) {
		return d, nil
	}
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, fmt.Errorf("parse settings %s: %w", path, err)
		}
		off := int(se.Offset)
		if !strings.HasPrefix(se.Error(), "unexpected end") {
			off-- // Offset is just past the offending byte.
		}
		return nil, invalidAt(path, data, off, se.Error())
	}
	if data[start] != '{' {
		return nil, invalidAt(path, data, start, "top level is not an object")
	}
	d.root = parseObject(node{raw: data[start:valueEnd(data, start)], off: start})
	return d, nil
}

// invalidAt builds the error for a problem at byte offset off of data.
func invalidAt(path string, data []byte, off int, reason string) *InvalidError {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := off - bytes.LastIndexByte(before, '\n')
	return &InvalidError{Path: path, Line: line, Column: col, Reason: reason}
}

// indentUnit returns the indentation of the first indented line of a JSON
// document, if it is a tab or one to eight spaces, and otherwise (a new file,
// a one-line file, odd indentation) two spaces.
func indentUnit(doc []byte) string {
	nl := bytes.IndexByte(doc, '\n')
	if nl < 0 {
		return "  "
	}
	rest := doc[nl+1:]
	ws := rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))]
	switch {
	case string(ws) == "\t":
		return "\t"
	case len(ws) >= 1 && len(ws) <= 8 && len(bytes.Trim(ws, " ")) == 0:
		return string(ws)
	}
	return "  "
}

// writeFile replaces path with data atomically: a temporary file in the same
// folder, fsync, rename, fsync of the folder. An existing file keeps its mode.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := renameio.WriteFile(path, data, newFilePerm, renameio.WithTempDir(dir)); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync settings folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync settings folder: %w", err)
	}
	return nil
}

// lockFile takes an exclusive lock on the lock file path, waiting until ctx
// is done, and returns the function that releases it. The lock file is
// removed on release so that it does not linger next to the user's files; a
// waiter that then holds a lock on the removed file sees that the path no
// longer names the file it locked, and tries again.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	for {
		fl := flock.New(path)
		ok, err := fl.TryLockContext(ctx, lockRetry)
		if err != nil {
			return nil, fmt.Errorf("lock settings: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("lock settings: %w", ctx.Err())
		}
		held, err := fl.Stat()
		if err != nil {
			fl.Unlock()
			return nil, fmt.Errorf("lock settings: %w", err)
		}
		onDisk, err := os.Stat(path)
		if err == nil && os.SameFile(held, onDisk) {
			return func() {
				os.Remove(path)
				fl.Unlock()
			}, nil
		}
		fl.Unlock()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("lock settings: %w", err)
		}
	}
}
