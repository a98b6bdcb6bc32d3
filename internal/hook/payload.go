// Package hook turns one Claude Code hook call into baton's records: it parses
// the event's JSON payload, appends a journal record, keeps the tmux pane
// registry current, and assembles the context injected at session start.
//
// Everything here is on the agent's hot path. It opens no database, calls no
// network and waits on no model; the command that drives it fails open.
package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Claude Code's hook event names.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	// PostToolUseFailure replaces PostToolUse for a call that failed (a
	// Bash command that exited non-zero, an edit that did not apply).
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	SessionEnd         = "SessionEnd"
	Notification       = "Notification"

	// Events that carry work beside the tool calls, with the fields the
	// pinned CLI (2.1.328) sends.
	StopFailure      = "StopFailure"      // a turn ended by an API error: error, last_assistant_message
	PostCompact      = "PostCompact"      // trigger, compact_summary
	SubagentStart    = "SubagentStart"    // agent_id, agent_type
	TaskCreated      = "TaskCreated"      // task_id, task_subject, task_description
	TaskCompleted    = "TaskCompleted"    // the same fields
	PermissionDenied = "PermissionDenied" // tool_name, tool_input, reason
	CwdChanged       = "CwdChanged"       // old_cwd, new_cwd
	WorktreeCreate   = "WorktreeCreate"   // name
	WorktreeRemove   = "WorktreeRemove"   // worktree_path
)

// MaxPayload is the most of stdin a hook reads. Tool responses can be large
// (a whole file read back), so the limit is generous; past it the payload is
// refused rather than half-parsed.
const MaxPayload = 64 << 20

// ErrPayload marks a payload that is not a hook event baton can use.
var ErrPayload = errors.New("invalid hook payload")

// Payload is the JSON object Claude Code writes to a hook's stdin.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`

	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	// ToolResponse is decoded only for the calls whose record reads it
	// (see response): most are large (a file read back) and say nothing
	// baton keeps.
	ToolResponse json.RawMessage `json:"tool_response"`
	// Error describes a PostToolUseFailure: it reads "Exit code
	// N\n<output>" for a Bash command that exited non-zero.
	Error string `json:"error"`

	AgentType       string `json:"agent_type"`
	TaskID          string `json:"task_id"`
	TaskSubject     string `json:"task_subject"`
	TaskDescription string `json:"task_description"`
	NewCwd          string `json:"new_cwd"`
	Name            string `json:"name"`
	WorktreePath    string `json:"worktree_path"`

	Source               string `json:"source"`
	Trigger              string `json:"trigger"`
	Reason               string `json:"reason"`
	Prompt               string `json:"prompt"`
	Message              string `json:"message"`
	LastAssistantMessage string `json:"last_assistant_message"`

	// Dropped says which fields Parse dropped for being too long or not
	// of their shape (see limit), for the log.
	Dropped []string `json:"-"`
}

// Limits on the fields baton copies into records and file names as they
// are: identifiers and paths. Free text is cut by the record (MaxText).
const (
	// MaxID is the longest identifier kept (a session id is a 36-character
	// UUID; tool names of MCP servers run to a few dozen characters).
	MaxID = 128
	// MaxPath is the longest path kept (Linux's PATH_MAX).
	MaxPath = 4096
)

// limit drops the identifiers and paths that are too long or, for
// identifiers, hold anything but letters, digits and "._-:" (a session id
// names files: "../x" must never reach one), and notes each in Dropped. A
// cut identifier would name something else, so none is cut.
func (p *Payload) limit() {
	for _, f := range []struct {
		name string
		v    *string
		ok   func(string) bool
	}{
		{"session_id", &p.SessionID, isID},
		{"tool_name", &p.ToolName, isID},
		{"agent_type", &p.AgentType, isID},
		{"task_id", &p.TaskID, isID},
		{"source", &p.Source, isID},
		{"trigger", &p.Trigger, isID},
		{"cwd", &p.Cwd, isPath},
		{"transcript_path", &p.TranscriptPath, isPath},
		{"new_cwd", &p.NewCwd, isPath},
		{"worktree_path", &p.WorktreePath, isPath},
	} {
		if *f.v != "" && !f.ok(*f.v) {
			p.Dropped = append(p.Dropped, fmt.Sprintf("payload %s dropped: %d bytes, not an identifier or path baton keeps", f.name, len(*f.v)))
			*f.v = ""
		}
	}
}

// isID reports whether s is an identifier: at most MaxID letters, digits
// and "._-:", not starting with a dot.
func isID(s string) bool {
	if len(s) > MaxID || s[0] == '.' {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':') {
			return false
		}
	}
	return true
}

// isPath reports whether s can be a path: at most MaxPath bytes, no NUL.
func isPath(s string) bool {
	return len(s) <= MaxPath && strings.IndexByte(s, 0) < 0
}

// Parse reads one payload from r. The event name comes from the payload;
// want (the optional positional argument of `baton hook`) stands in for it
// only when the payload has none.
func Parse(r io.Reader, want string) (Payload, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return Payload{}, fmt.Errorf("read hook payload: %w", err)
	}
	if len(b) > MaxPayload {
		return Payload{}, fmt.Errorf("%w: larger than %d bytes", ErrPayload, MaxPayload)
	}
	var p Payload
	if err := json.Unmarshal(b, &p); err != nil {
		return Payload{}, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	switch {
	case p.Event != "" && !isID(p.Event):
		return Payload{}, fmt.Errorf("%w: hook_event_name of %d bytes is not an event name", ErrPayload, len(p.Event))
	case p.Event == "" && want == "":
		return Payload{}, fmt.Errorf("%w: no hook_event_name", ErrPayload)
	case p.Event == "":
		p.Event = want
	}
	p.limit()
	return p, nil
}

// toolInput holds the tool_input fields baton records.
type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Description  string `json:"description"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	// TaskCreate and TaskUpdate.
	Subject string `json:"subject"`
	TaskID  string `json:"taskId"`
	Status  string `json:"status"`
}

// toolResponse keeps the few tool_response fields baton reads.
type toolResponse struct {
	Interrupted      bool   `json:"interrupted"`
	BackgroundTaskID string `json:"backgroundTaskId"`
	// Task is what TaskCreate made: {"task":{"id":"1","subject":…}}.
	Task struct {
		ID string `json:"id"`
	} `json:"task"`
}

// response decodes the tool_response fields baton reads. Responses come
// in many shapes (an object for Bash, a string or an array for others):
// only an object's fields are kept, anything else is the zero value.
func (p *Payload) response() toolResponse {
	var r toolResponse
	if len(p.ToolResponse) == 0 || p.ToolResponse[0] != '{' || json.Unmarshal(p.ToolResponse, &r) != nil {
		return toolResponse{}
	}
	return r
}

// input decodes the tool_input fields baton records; the zero value when
// there are none or they are not an object.
func (p *Payload) input() toolInput {
	var in toolInput
	if len(p.ToolInput) > 0 && json.Unmarshal(p.ToolInput, &in) != nil {
		return toolInput{}
	}
	return in
}

// file and desc pick what a tool call touched and what it did.
func (in *toolInput) fileAndDesc() (file, desc string) {
	return firstNonEmpty(in.FilePath, in.NotebookPath, in.Path),
		firstNonEmpty(in.Description, in.Command, in.Pattern, in.URL, in.Query, in.Subject)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
