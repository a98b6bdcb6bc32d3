package recall

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

// Hook event names as the journal records them.
const (
	evSessionStart = "SessionStart"
	evSessionEnd   = "SessionEnd"
	evPrompt       = "UserPromptSubmit"
	evPreTool      = "PreToolUse"
	evPostTool     = "PostToolUse"
	evStop         = "Stop"
	evPreCompact   = "PreCompact"
)

// An Entry is one record a summary is made from: a journal record, or a
// line of a host's own session log.
type Entry struct {
	TS       time.Time
	Event    string
	Session  string
	Thread   string // the chat thread a host's entry belongs to
	Branch   string
	Worktree string
	Tool     string
	File     string
	Desc     string
	Prompt   string // what the person asked
	Message  string // what the agent answered
}

// FromRecord converts a journal record.
func FromRecord(r *journal.Record) Entry {
	return Entry{
		TS: r.TS, Event: r.Event, Session: r.Session, Branch: r.Branch, Worktree: r.Worktree,
		Tool: r.Tool, File: r.File, Desc: r.Desc, Prompt: r.Prompt, Message: r.Message,
	}
}

// logLine is a line of a host's session log: the journal's fields, plus
// "response" for the agent's answer and "thread" for a chat thread.
type logLine struct {
	journal.Record
	Response string `json:"response"`
	Thread   string `json:"thread"`
	ThreadTS string `json:"thread_ts"`
}

// ReadSessionLog reads the last n entries of a host's session log: JSON
// lines with ts, session, thread (or thread_ts), prompt, response (or
// message), tool, file, desc. At most the last 4 MiB are read; lines that
// are not JSON objects are skipped.
func ReadSessionLog(path string, n int) ([]Entry, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("session log: %w", err)
	}
	lines, err := tailLines(path, 4<<20)
	var out []Entry
	for _, line := range lines {
		var l logLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		e := FromRecord(&l.Record)
		if e.Message == "" {
			e.Message = l.Response
		}
		e.Thread = firstNonEmpty(l.Thread, l.ThreadTS)
		if e.Event == "" {
			e.Event = inferEvent(e)
		}
		out = append(out, e)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, err
}

// inferEvent names what a host's log line holds, for lines that do not say.
func inferEvent(e Entry) string {
	switch {
	case e.Tool != "":
		return evPostTool
	case e.Prompt != "" && e.Message == "":
		return evPrompt
	case e.Message != "":
		return evStop
	}
	return ""
}

// isActivity reports whether an entry says something a summary can use:
// a completed tool call, a prompt, an answer. PreToolUse duplicates its
// PostToolUse and session events say nothing about the work.
func isActivity(e *Entry) bool {
	switch e.Event {
	case evPostTool:
		return e.Tool != ""
	case evPrompt:
		return e.Prompt != ""
	case evStop:
		return e.Message != ""
	case "":
		return e.Tool != "" || e.Prompt != "" || e.Message != ""
	}
	return false
}

// isActivityRecord is isActivity for a journal record, without converting.
func isActivityRecord(r *journal.Record) bool {
	if r.Debate != "" {
		// A debate agent's turns are its debate's, not the work's.
		return false
	}
	switch r.Event {
	case evPostTool:
		return r.Tool != ""
	case evPrompt:
		return r.Prompt != ""
	case evStop:
		return r.Message != ""
	case "":
		return r.Tool != ""
	}
	return false
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
