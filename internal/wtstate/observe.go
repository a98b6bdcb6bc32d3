package wtstate

import (
	"cmp"
	"strings"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
)

// Event is one hook call as the worktree's files take it: the record the
// hook appended to the journal and the whole text that record cut.
type Event struct {
	Record journal.Record
	// Prompt is a UserPromptSubmit's whole prompt; Message a Stop's whole
	// last answer. Both are redacted here.
	Prompt, Message string
	// Agent is the agent process of a SessionStart.
	Agent Process
}

// Kept reports whether records of event go to records.jsonl. A PreToolUse
// says nothing its PostToolUse (or failure) will not; notifications and a
// subagent's answers are not the work of the session.
func Kept(event string) bool {
	switch event {
	case "PreToolUse", "Notification", "SubagentStop", "":
		return false
	}
	return true
}

// Observe updates the worktree's files for one hook call: the record goes to
// records.jsonl; a session's start, answers, compactions and end to its entry
// in state.json; a prompt may set the task.
func (d Dir) Observe(e Event) error {
	r := e.Record
	if r.Debate != "" {
		// A debate agent's session takes its turns in this worktree but
		// does none of its work: its prompts, answers and commands stay
		// in the journal only.
		return nil
	}
	if Kept(r.Event) {
		if err := d.AppendRecord(r); err != nil {
			return err
		}
	}
	switch r.Event {
	case "SessionStart", "Stop", "PreCompact", "SessionEnd":
		if r.Session == "" {
			return nil
		}
		return d.Update(func(s *State) bool { s.session(e); return true })
	case "PostToolUse", "PostToolUseFailure":
		if r.Tool == "Bash" && r.Cmd != "" {
			return d.failing(r)
		}
	case "UserPromptSubmit":
		// Most prompts change nothing: decide on a read, and again under
		// the lock only when they do.
		s, err := d.Read()
		if err != nil {
			return err
		}
		said := statedIn(promptOf(e))
		if _, ok := s.task(e); !ok && len(said) == 0 {
			return nil
		}
		return d.Update(func(s *State) bool {
			changed := s.state(said, r.Session, r.TS, true)
			t, ok := s.task(e)
			if ok {
				s.Chain = t.Chain
				if s.Task != nil {
					s.Previous = s.Task
				}
				if s.Task != nil && s.Task.Text != t.Text {
					// The step announced belonged to the task before.
					s.Next = nil
				}
				s.Task = &t
			}
			return ok || changed
		})
	}
	return nil
}

// session applies a session event to the session's entry.
func (s *State) session(e Event) {
	r := e.Record
	if r.Event == "SessionStart" && (r.Source == "startup" || r.Source == "") || s.Chain == "" {
		s.Chain = r.Session
	}
	ss := s.Session(r.Session)
	if ss == nil {
		s.Sessions = append(s.Sessions, Session{ID: r.Session, Started: r.TS})
		ss = &s.Sessions[len(s.Sessions)-1]
	}
	ss.Branch = r.Branch
	switch r.Event {
	case "SessionStart":
		if r.Source != "compact" {
			// A new process took the session up (or started it).
			ss.Source, ss.Agent = r.Source, e.Agent
			ss.Ended, ss.Reason, ss.Crashed, ss.AfterCrash = false, "", false, nil
			if r.Source == "resume" || r.Source == "startup" {
				ss.Started = r.TS
			}
			// The sessions that died since the last start: told once, by
			// this one.
			var crashed []string
			for i := range s.Sessions {
				other := &s.Sessions[i]
				if other.ID != r.Session && !other.Crashed && gone(other) {
					other.Crashed = true
					crashed = append(crashed, other.ID)
				}
			}
			ss.AfterCrash = crashed
		}
		return
	case "Stop":
		msg := redact.Redact(e.Message)
		if m := textcut.Chars(msg, MaxMessage); m != "" {
			ss.Message = m
		}
		s.answer(r, msg, ss.Last)
		s.state(statedIn(msg), r.Session, r.TS, false)
	case "PreCompact":
		ss.Trigger = r.Trigger
	case "SessionEnd":
		ss.Ended, ss.Reason = true, r.Reason
	}
	ss.Last, ss.LastEvent = r.TS, r.Event
	if r.Transcript != "" && r.Offset > 0 {
		ss.Transcript, ss.Offset = r.Transcript, r.Offset
	}
}

// task decides whether a prompt sets the task. A worktree has one task
// until a person replaces it: with a prompt that says so ("new task: …",
// always), or with the first request of a chain that is plainly new work
// (IsWork); the task it replaces becomes the previous one. Within a chain
// the task stays until a prompt says otherwise; a session started afresh
// opens a new chain. Before any session event was seen (hooks installed
// mid-session), the prompt's session opens the chain.
func (s *State) task(e Event) (Task, bool) {
	r := e.Record
	prompt := promptOf(e)
	t := Task{Session: r.Session, TS: r.TS, Chain: cmp.Or(s.Chain, r.Session)}
	if text, ok := NewTask(prompt); ok {
		t.Text, t.By = textcut.Chars(redact.Redact(text), MaxTask), ByExplicit
		return t, true
	}
	// Greetings, acknowledgements, "go on", questions and slash commands
	// never set the task; plain new work sets it once a chain.
	if s.Task != nil && s.Task.Chain == t.Chain || !IsWork(prompt) {
		return Task{}, false
	}
	t.Text, t.By = textcut.Chars(redact.Redact(prompt), MaxTask), ByPrompt
	return t, true
}

// promptOf is a UserPromptSubmit's prompt: whole when the hook had it, else
// as the record cut it.
func promptOf(e Event) string {
	return strings.TrimSpace(cmp.Or(e.Prompt, e.Record.Prompt))
}
