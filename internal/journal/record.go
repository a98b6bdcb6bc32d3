// Package journal owns baton's append-only activity journal: the JSON Lines file
// auto.jsonl in a repository's state folder and its compressed archive segments.
//
// It appends records safely from many processes at once, reads the newest records
// backwards from the end (Tail) and reads forwards from a byte offset (Scan).
// It knows nothing about hooks, Claude Code or git: callers fill in Records.
package journal

import "time"

// Record is one line of the journal. The first four fields keep the format of
// the hand-written hook scripts users already have (ts, tool, file, desc);
// the rest say where the record came from and what happened.
type Record struct {
	TS   time.Time `json:"ts"`
	Tool string    `json:"tool,omitempty"`
	File string    `json:"file,omitempty"`
	Desc string    `json:"desc,omitempty"`

	Event    string `json:"event,omitempty"`
	Session  string `json:"session,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`

	// Event-specific fields.
	Source     string `json:"source,omitempty"`     // SessionStart: startup, resume, compact, clear
	Trigger    string `json:"trigger,omitempty"`    // PreCompact: manual, auto
	Reason     string `json:"reason,omitempty"`     // SessionEnd
	Prompt     string `json:"prompt,omitempty"`     // UserPromptSubmit, redacted excerpt
	Message    string `json:"message,omitempty"`    // Notification, Stop (last assistant message excerpt)
	Transcript string `json:"transcript,omitempty"` // transcript path, for later review
	Offset     int64  `json:"offset,omitempty"`     // transcript size when the record was made

	// Tool calls: Cmd is a Bash command line (redacted, cut like other
	// text); Exit its exit status when known (0 for a Bash call that
	// succeeded, N from a failure's "Exit code N"); Error the first lines of
	// a failed call's error (redacted, cut).
	Cmd   string `json:"cmd,omitempty"`
	Exit  *int   `json:"exit,omitempty"`
	Error string `json:"error,omitempty"`

	// The agent's task list (TaskCreate, TaskUpdate and the TaskCreated and
	// TaskCompleted events): the task's id and, for an update, its new
	// status (pending, in_progress, completed, deleted). The subject is Desc.
	TaskID     string `json:"task_id,omitempty"`
	TaskStatus string `json:"task_status,omitempty"`

	// Debate marks every record of a debate agent's session with its
	// debate and role, "<id>:<role>" (panes.DebateEnv): its prompts are
	// turns of the debate and its answers arguments, not the worktree's
	// work.
	Debate string `json:"debate,omitempty"`
}

// ToolCall reports whether a record of event naming tool is a tool call
// that ran: its PostToolUse, or PostToolUseFailure when it failed. Lines of
// older hook scripts name a tool and no event. A PreToolUse is the same
// call before it runs and is not counted again.
func ToolCall(event, tool string) bool {
	return tool != "" && (event == "PostToolUse" || event == "PostToolUseFailure" || event == "")
}
