package statefile

import (
	"errors"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// ErrNoTask means a change would leave the file without a task.
var ErrNoTask = errors.New("the state file has no task")

// DoneMark starts every item baton adds to the done list.
const DoneMark = "✅ "

// Change is one `baton save`: the parts it names are updated, everything
// else is kept.
type Change struct {
	// Task, when set, is the current task. A task different from a
	// completed one starts a new task: the old one goes to the done list and
	// the Now and Next sections, which described it, are emptied.
	Task string
	// Doing and Next, when set, replace the Now and Next sections.
	Doing, Next string
	// DoneItems are appended to the done list.
	DoneItems []string
	// Files are appended to the files list, skipping those already listed.
	Files []string
	// Note is appended to the notes.
	Note string
	// Complete marks the task completed.
	Complete bool
}

// Empty reports whether c changes nothing.
func (c Change) Empty() bool {
	return c.Task == "" && c.Doing == "" && c.Next == "" && len(c.DoneItems) == 0 &&
		len(c.Files) == 0 && c.Note == "" && !c.Complete
}

// Apply makes the change and sets Updated to now. New sections are headed in
// the file's language, else lang.
func (f *File) Apply(c Change, now time.Time, lang i18n.Lang) error {
	if task := textcut.OneLine(c.Task); task != "" {
		switch {
		case f.Task == "":
			f.Task = task
		case task != f.Task && f.Status == Completed:
			f.addList(Done, []string{DoneMark + f.Task}, lang, false)
			f.setList(Now, nil, lang)
			f.setList(Next, nil, lang)
			f.Task = task
		default:
			f.Task = task
		}
		f.Status = InProgress
	}
	if f.Task == "" {
		return ErrNoTask
	}
	if c.Doing != "" {
		f.setList(Now, []string{c.Doing}, lang)
	}
	if c.Next != "" {
		f.setList(Next, []string{c.Next}, lang)
	}
	if len(c.DoneItems) > 0 {
		done := make([]string, len(c.DoneItems))
		for i, d := range c.DoneItems {
			done[i] = doneItem(d)
		}
		f.addList(Done, done, lang, false)
	}
	if len(c.Files) > 0 {
		f.addList(Files, c.Files, lang, true)
	}
	if c.Note != "" {
		f.addList(Notes, []string{c.Note}, lang, false)
	}
	if c.Complete {
		f.Status = Completed
	}
	if f.Status == "" {
		f.Status = InProgress
	}
	f.Updated = now
	return nil
}

func doneItem(s string) string {
	s = textcut.OneLine(s)
	if strings.HasPrefix(s, "✅") {
		return s
	}
	return DoneMark + s
}
