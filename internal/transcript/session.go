package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/redact"
)

// ErrSession means a session's transcript cannot be read or laid: no
// session, an id that is no file name, a transcript past the size limit.
var ErrSession = errors.New("no usable session transcript")

// ReadSession returns the id and the complete lines, redacted, of a
// session's transcript in dir (a folder of <session id>.jsonl files, see
// claudecode.TranscriptDir): the named session's, else the newest. A
// transcript larger than max bytes is refused. What it returns may leave
// the machine (a checkpoint, a handoff): its secrets do not.
func ReadSession(dir, sessionID string, max int64) (string, []byte, error) {
	if sessionID == "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", nil, errors.Join(ErrSession, err)
		}
		var newest time.Time
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".jsonl")
			if !ok || e.IsDir() {
				continue
			}
			if info, err := e.Info(); err == nil && info.ModTime().After(newest) {
				newest, sessionID = info.ModTime(), id
			}
		}
	}
	if !sessionName(sessionID) {
		return "", nil, ErrSession
	}
	path := filepath.Join(dir, sessionID+".jsonl")
	if info, err := os.Stat(path); err != nil || info.Size() > max {
		return "", nil, errors.Join(ErrSession, err)
	}
	// Only complete lines: the agent may be writing the last one.
	b, _, _, err := ReadRaw(path, 0, 0)
	if err != nil {
		return "", nil, err
	}
	return sessionID, redact.JSONLines(b), nil
}

// LaySession writes a session's transcript into dir, where the agent CLI
// looks for it, so that `claude --resume <session>` finds it.
func LaySession(dir, sessionID string, data []byte) error {
	if !sessionName(sessionID) {
		return ErrSession
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, sessionID+".jsonl"), data, 0o600)
}

// sessionName reports whether id can name a transcript file.
func sessionName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\\\x00")
}
