package resume

import (
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/statefile"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Limits of the open loops a briefing lists.
const (
	// Failing is how many of the newest failing commands are shown with
	// their error output; FailingListed how many are listed in all, the
	// older ones counted in one line.
	Failing       = 5
	FailingListed = 20
	// Unanswered is how many prompts without an answer are listed.
	Unanswered = 3
	// MaxTodo is how many items of the todo list are listed.
	MaxTodo = 10
)

// Failure is a command that failed and has not succeeded since.
type Failure = wtstate.Failure

// TodoItem is an item of the agent's todo list (its TaskCreate and
// TaskUpdate tools).
type TodoItem struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	Status  string `json:"status"` // pending, in_progress, completed
}

// Task sources, beside FromState (current.md, set with `baton save --task`).
const (
	TaskFromPrompt   = "prompt"   // a request for new work that opened a chain of sessions
	TaskFromExplicit = "explicit" // a prompt that said "new task:"
)

// fromRecords fills the open loops from the worktree's records, oldest
// first, of every kind: the commands failing (those state.json keeps, the
// records applied on top), the prompts not answered, the todo list and the
// agent's last message.
func (b *Briefing) fromRecords(recs []journal.Record, failing []Failure) {
	pending := map[string][]journal.Record{}
	type todoKey struct{ session, id string }
	todo := map[todoKey]*TodoItem{}
	var todoOrder []todoKey
	todoSession := ""
	for _, r := range recs {
		switch {
		case (r.Event == "PostToolUseFailure" || r.Event == "PostToolUse") && r.Tool == "Bash" && r.Cmd != "":
			failing, _ = wtstate.ApplyFailing(failing, r)
		case r.Event == "UserPromptSubmit" && r.Prompt != "" && !strings.HasPrefix(strings.TrimSpace(r.Prompt), "/"):
			pending[r.Session] = append(pending[r.Session], r)
		case r.Event == "Stop":
			delete(pending, r.Session)
			if r.Message != "" {
				b.LastMessage, b.LastMessageAt, b.lastSession = r.Message, r.TS, r.Session
			}
		case (r.Event == "TaskCreated" || r.Event == "PostToolUse" && r.Tool == "TaskCreate") && r.TaskID != "":
			// Both are recorded where both hooks are installed.
			k := todoKey{r.Session, r.TaskID}
			if todo[k] == nil {
				todoOrder = append(todoOrder, k)
				todo[k] = &TodoItem{ID: r.TaskID, Subject: r.Desc, Status: "pending"}
			}
			todoSession, b.todoAt = r.Session, r.TS
		case r.Tool == "TaskUpdate" && r.Event == "PostToolUse" && r.TaskID != "":
			if it := todo[todoKey{r.Session, r.TaskID}]; it != nil && r.TaskStatus != "" {
				it.Status, b.todoAt = r.TaskStatus, r.TS
			}
		case r.Event == "TaskCompleted" && r.TaskID != "":
			if it := todo[todoKey{r.Session, r.TaskID}]; it != nil {
				it.Status, b.todoAt = "completed", r.TS
			}
		}
	}
	b.Failing = append([]Failure{}, failing...)
	// Newest failure first; a command that failed twice is listed once, as
	// it failed last.
	slices.SortFunc(b.Failing, func(x, y Failure) int {
		if c := y.At.Compare(x.At); c != 0 {
			return c
		}
		return strings.Compare(x.Cmd, y.Cmd)
	})
	var open []journal.Record
	for _, rs := range pending {
		open = append(open, rs...)
	}
	slices.SortStableFunc(open, func(x, y journal.Record) int { return x.TS.Compare(y.TS) })
	if len(open) > Unanswered {
		open = open[len(open)-Unanswered:]
	}
	b.Unanswered = []string{}
	for _, r := range open {
		b.Unanswered = append(b.Unanswered, r.Prompt)
	}
	b.Todo = []TodoItem{}
	for _, k := range todoOrder {
		if it := todo[k]; k.session == todoSession && it.Status != "deleted" {
			b.Todo = append(b.Todo, *it)
		}
	}
}

// fromState takes what the worktree's state.json knows better than the
// records: the agent's last message uncut and the task.
func (b *Briefing) fromState(s *wtstate.State) {
	if b.lastSession != "" {
		if ss := s.Session(b.lastSession); ss != nil && ss.Message != "" && !ss.Last.Before(b.LastMessageAt) {
			b.LastMessage = ss.Message
		}
	}
	if t := s.Task; t != nil && t.Text != "" {
		b.chainTask = t
	}
	if p := s.Previous; p != nil {
		b.PreviousTask = p.Text
	}
	b.Stated = s.Stated
	switch {
	case s.Next != nil:
		b.NextStep, b.NextStepAt = s.Next.Text, s.Next.TS
	case s.Task == nil && len(s.Sessions) == 0:
		// No state kept (hooks of an older baton): the last message's.
		b.NextStep, b.NextStepAt = wtstate.NextStep(b.LastMessage), b.LastMessageAt
	}
}

// pickTask decides the task: current.md's when it has a task in progress,
// unless a prompt set a new one explicitly after it was saved; else the
// task of the chain of sessions.
func (b *Briefing) pickTask(sf *statefile.File) {
	if sf != nil {
		b.fileTask = sf.Task
	}
	fromFile := sf != nil && sf.Status == statefile.InProgress && strings.TrimSpace(sf.Task) != ""
	ct := b.chainTask
	switch {
	case fromFile && (ct == nil || ct.By != wtstate.ByExplicit || ct.TS.Before(sf.Updated)):
		b.Task, b.TaskFrom = cutTask(sf.Task), string(FromState)
	case ct != nil:
		b.Task, b.TaskFrom, b.TaskAt = ct.Text, TaskFromPrompt, ct.TS
		b.TaskNew = ct.Chain != "" && b.Sessions != nil && ct.Chain == b.Sessions.Chain
		if b.TaskNew && b.todoAt.Before(ct.TS) {
			// The todo list was the task before this one's.
			b.Todo = []TodoItem{}
		}
		if ct.By == wtstate.ByExplicit {
			b.TaskFrom = TaskFromExplicit
		}
	}
}

// cutTask is a task as the briefing carries it: redacted, at most
// wtstate.MaxTask characters.
func cutTask(s string) string {
	return textcut.Chars(strings.TrimSpace(redact.Redact(s)), wtstate.MaxTask)
}
