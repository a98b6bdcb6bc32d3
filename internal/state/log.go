package state

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// lazyFile opens its file for appending on the first Write, so a command that
// logs nothing never touches baton.log. It takes the first of its paths that
// can be opened.
type lazyFile struct {
	paths []string
	once  sync.Once
	f     *os.File
	err   error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.once.Do(func() {
		l.err = errors.New("no log file")
		for _, path := range l.paths {
			if path == "" {
				continue
			}
			if l.err = os.MkdirAll(filepath.Dir(path), 0o700); l.err != nil {
				continue
			}
			if l.f, l.err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); l.err == nil {
				return
			}
		}
	})
	if l.err != nil {
		return 0, l.err
	}
	return l.f.Write(p)
}

// Close closes the file if it was opened.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// NewLogger returns a logger writing text records to the first of paths that
// can be opened (a repository's baton.log, then a user-level fallback), opened
// on first use, and a function that closes it. Each record is one write to an
// O_APPEND file, so concurrent processes do not interleave records.
func NewLogger(paths ...string) (*slog.Logger, io.Closer) {
	f := &lazyFile{paths: paths}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})), f
}

// Logger returns the logger of d's baton.log, falling back to the user-level
// log (UserLog) when that cannot be opened or d is the zero Dir, and the
// closer of its file.
func (d Dir) Logger(getenv func(string) string) (*slog.Logger, io.Closer) {
	var primary string
	if d.Root != "" {
		primary = d.Log()
	}
	return NewLogger(primary, UserLog(getenv))
}
