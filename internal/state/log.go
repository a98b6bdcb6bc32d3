package state

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/shellsafe"
)

// logPath is a log file and the folder trusted above it ("" for the
// person's own files, opened as they are).
type logPath struct{ root, path string }

// lazyFile opens its file for appending on the first Write, so a command that
// logs nothing never touches baton.log. It takes the first of its paths that
// can be opened.
type lazyFile struct {
	paths []logPath
	once  sync.Once
	f     *os.File
	err   error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.once.Do(func() {
		l.err = errors.New("no log file")
		for _, lp := range l.paths {
			if lp.path == "" {
				continue
			}
			if l.f, l.err = openLog(lp); l.err == nil {
				return
			}
		}
	})
	if l.err != nil {
		return 0, l.err
	}
	// One record is one write; it is made inert for a shell, since a log
	// holds values from the repository (branch names, paths).
	if _, err := l.f.Write(shellsafe.JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func openLog(lp logPath) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_APPEND | os.O_CREATE
	if lp.root != "" {
		return safepath.OpenFile(lp.root, lp.path, flags, 0o600)
	}
	if err := os.MkdirAll(filepath.Dir(lp.path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(lp.path, flags, 0o600)
}

// Close closes the file if it was opened.
func (l *lazyFile) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// newLogger returns a logger writing JSON records to the first of paths that
// can be opened, opened on first use, and a function that closes it. Each
// record is one write to an O_APPEND file, so concurrent processes do not
// interleave records, and holds no '$' or '`' (see package shellsafe).
func newLogger(paths ...logPath) (*slog.Logger, io.Closer) {
	f := &lazyFile{paths: paths}
	return slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})), f
}

// Logger returns the logger of d's baton.log, falling back to the user-level
// log (UserLog) when that cannot be opened (it is reached through a link,
// say) or d is the zero Dir, and the closer of its file.
func (d Dir) Logger(getenv func(string) string) (*slog.Logger, io.Closer) {
	var primary logPath
	if d.Root != "" {
		primary = logPath{root: d.Base(), path: d.Log()}
	}
	return newLogger(primary, logPath{path: UserLog(getenv)})
}

// UserLogger returns the logger of the user-level log alone, for what must
// not be written inside a repository: that its state folder was refused.
func UserLogger(getenv func(string) string) (*slog.Logger, io.Closer) {
	return newLogger(logPath{path: UserLog(getenv)})
}
