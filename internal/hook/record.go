package hook

import (
	"os"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
)

// MaxText is the most characters of free text (a prompt, a command, a
// message) a journal record keeps.
const MaxText = 500

// Where says which worktree and branch an event happened in.
type Where struct {
	Cwd, Worktree, Branch string
}

// Record builds the journal record for p. Free text is redacted before it is
// cut, so a secret is never half kept.
func (p *Payload) Record(w Where, now time.Time) journal.Record {
	rec := journal.Record{
		TS:       now.UTC(),
		Event:    p.Event,
		Session:  p.SessionID,
		Cwd:      w.Cwd,
		Worktree: w.Worktree,
		Branch:   w.Branch,
	}
	switch p.Event {
	case PreToolUse, PostToolUse:
		rec.Tool = p.ToolName
		file, desc := p.fileAndDesc()
		rec.File = file
		rec.Desc = excerpt(desc)
	case UserPromptSubmit:
		rec.Prompt = excerpt(p.Prompt)
	case SessionStart:
		rec.Source = p.Source
		rec.Transcript = p.TranscriptPath
	case Stop, SubagentStop:
		rec.Message = excerpt(p.LastAssistantMessage)
		rec.Transcript, rec.Offset = p.TranscriptPath, size(p.TranscriptPath)
	case PreCompact:
		rec.Trigger = p.Trigger
		rec.Transcript, rec.Offset = p.TranscriptPath, size(p.TranscriptPath)
	case SessionEnd:
		rec.Reason = p.Reason
		rec.Transcript, rec.Offset = p.TranscriptPath, size(p.TranscriptPath)
	case Notification:
		rec.Message = excerpt(p.Message)
	}
	return rec
}

// excerpt redacts s and keeps at most MaxText characters, cutting on a
// character boundary and marking the cut with "…".
func excerpt(s string) string {
	s = redact.Redact(s)
	if utf8.RuneCountInString(s) <= MaxText {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxText-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// size is the transcript's current length: where a later review of the
// session's decisions has to read up to.
func size(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
