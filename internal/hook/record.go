package hook

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
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
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionDenied:
		rec.Tool = p.ToolName
		in := p.input()
		file, desc := in.fileAndDesc()
		if isPath(file) {
			rec.File = file
		}
		rec.Desc = excerpt(desc)
		if p.ToolName == "Bash" {
			rec.Cmd = excerpt(in.Command)
		}
		if p.ToolName == "TaskUpdate" || p.ToolName == "TaskCreate" {
			rec.TaskID, rec.TaskStatus = keepID(in.TaskID), keepID(in.Status)
			if rec.TaskID == "" {
				rec.TaskID = keepID(p.response().Task.ID) // a new task's id is in the response
			}
			if in.Subject != "" {
				rec.Desc = excerpt(in.Subject)
			}
		}
		if p.Event == PermissionDenied {
			rec.Reason = excerpt(p.Reason)
		}
		switch {
		case p.Event == PostToolUseFailure:
			rec.Exit, rec.Error = failure(p.Error)
		case p.Event == PostToolUse && p.ToolName == "Bash":
			// A Bash command that exits non-zero fires PostToolUseFailure,
			// so one reported here exited 0 (unless it was interrupted or
			// left running in the background, where nobody knows yet).
			if resp := p.response(); !resp.Interrupted && resp.BackgroundTaskID == "" {
				zero := 0
				rec.Exit = &zero
			}
		}
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
		rec.Reason = excerpt(p.Reason)
		rec.Transcript, rec.Offset = p.TranscriptPath, size(p.TranscriptPath)
	case Notification:
		rec.Message = excerpt(p.Message)
	case StopFailure:
		rec.Message = excerpt(p.LastAssistantMessage)
		rec.Error = excerpt(p.Error)
	case PostCompact:
		rec.Trigger = p.Trigger
	case SubagentStart:
		rec.Desc = excerpt(p.AgentType)
	case TaskCreated, TaskCompleted:
		rec.TaskID, rec.Desc, rec.Message = p.TaskID, excerpt(p.TaskSubject), excerpt(p.TaskDescription)
	case CwdChanged:
		rec.Desc = p.NewCwd // limited by Parse
	case WorktreeCreate:
		rec.Desc = excerpt(p.Name)
	case WorktreeRemove:
		rec.Desc = p.WorktreePath
	}
	return rec
}

// keepID is s when it is an identifier (see isID), else "".
func keepID(s string) string {
	if s == "" || !isID(s) {
		return ""
	}
	return s
}

// ErrorLines is how many lines of a failed call's error a record keeps.
const ErrorLines = 5

// failure splits a PostToolUseFailure error into the exit status (nil when
// the error does not start with "Exit code N") and its first lines.
func failure(msg string) (exit *int, lines string) {
	if rest, ok := strings.CutPrefix(msg, "Exit code "); ok {
		num, after, _ := strings.Cut(rest, "\n")
		if n, err := strconv.Atoi(strings.TrimSpace(num)); err == nil {
			exit, msg = &n, after
		}
	}
	msg = strings.TrimLeft(msg, "\n")
	if parts := strings.SplitN(msg, "\n", ErrorLines+1); len(parts) > ErrorLines {
		msg = strings.Join(parts[:ErrorLines], "\n") + "\n…"
	}
	return exit, excerpt(strings.TrimRight(msg, "\n"))
}

// excerpt redacts s and keeps at most MaxText characters, cutting on a
// character boundary and marking the cut with "…".
func excerpt(s string) string {
	return textcut.Chars(redact.Redact(s), MaxText)
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
