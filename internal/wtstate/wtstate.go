// Package wtstate keeps the small per-worktree files the hook maintains in
// <state folder>/worktrees/<key>/ (see state.Dir.WorktreeDir), so that what a
// session start needs about one worktree is read in time independent of the
// journal's size and of other worktrees' and sessions' activity:
//
//   - records.jsonl: the worktree's recent journal records (tool calls and
//     their failures, prompts, answers, session and task events), appended
//     under the folder's lock and cut to its newest part past MaxRecords
//     bytes;
//   - state.json: the worktree's task and its recent sessions (when they
//     started, the agent process that ran them, how far their transcripts
//     were reviewed, whether they ended).
//
// Both are caches of what the journal holds, kept by the hook on the agent's
// path: no fsync (a power cut can lose the newest change, never mix two), no
// network, a lock held for a write or a rename. A damaged or missing file
// reads as empty and the next hook call starts it again.
package wtstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/shellsafe"
)

// Sizes that keep the files small enough to read whole at every start.
const (
	// MaxRecords is the size past which records.jsonl is cut to its newest
	// KeepRecords bytes (whole lines). At a few hundred bytes a record that
	// is well over a hundred records.
	MaxRecords  = 128 << 10
	KeepRecords = 64 << 10
	// MaxSessions is how many of the newest sessions state.json keeps.
	MaxSessions = 32
)

// Files in a worktree's folder.
const (
	recordsName = "records.jsonl"
	stateName   = "state.json"
	lockName    = "lock"
)

// Dir is one worktree's folder. Its files are opened without following
// links below the folder trusted above it (see package safepath): a link
// planted there is refused with an error wrapping safepath.ErrLink.
type Dir struct {
	root, path string
}

// At is the worktree folder path, under the trusted folder root (the state
// folder's state.Dir.Base); "" trusts path's parent.
func At(root, path string) Dir {
	if root == "" {
		root = filepath.Dir(path)
	}
	return Dir{root: root, path: path}
}

// Path is the folder's path.
func (d Dir) Path() string { return d.path }

func (d Dir) records() string { return filepath.Join(d.path, recordsName) }
func (d Dir) state() string   { return filepath.Join(d.path, stateName) }

// lock opens the folder, creating it when it is missing, and takes its lock
// exclusively; the returned function releases the lock and closes the
// folder.
func (d Dir) lock() (safepath.Dir, func(), error) {
	sd, err := safepath.OpenDir(d.root, d.path, true, 0o700)
	if err != nil {
		return sd, nil, fmt.Errorf("open worktree state folder: %w", err)
	}
	fd, err := sd.OpenFD(lockName, syscall.O_RDONLY|syscall.O_CREAT, 0o600)
	if err != nil {
		sd.Close()
		return sd, nil, fmt.Errorf("open worktree lock: %w", err)
	}
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		sd.Close()
		return sd, nil, fmt.Errorf("lock worktree state: %w", err)
	}
	return sd, func() { syscall.Close(fd); sd.Close() }, nil
}

// AppendRecord adds rec to records.jsonl in one write under the lock, and
// cuts the file to its newest KeepRecords bytes when it has grown past
// MaxRecords.
func (d Dir) AppendRecord(rec journal.Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	line = append(shellsafe.JSON(line), '\n')
	sd, unlock, err := d.lock()
	if err != nil {
		return err
	}
	defer unlock()
	fd, err := sd.OpenFD(recordsName, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT, 0o600)
	if err != nil {
		return fmt.Errorf("open worktree records: %w", err)
	}
	f := os.NewFile(uintptr(fd), d.records())
	_, werr := f.Write(line)
	fi, serr := f.Stat()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return fmt.Errorf("append worktree record: %w", err)
	}
	if fi.Size() > MaxRecords {
		return cut(sd)
	}
	return nil
}

// cut rewrites records.jsonl in the open folder sd as its newest
// KeepRecords bytes, whole lines only. The caller holds the lock.
func cut(sd safepath.Dir) error {
	fd, err := sd.OpenFD(recordsName, syscall.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("cut worktree records: %w", err)
	}
	f := os.NewFile(uintptr(fd), recordsName)
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("cut worktree records: %w", err)
	}
	if len(b) > KeepRecords {
		b = fromLine(b, len(b)-KeepRecords)
	}
	return sd.Replace(recordsName, b, 0o600)
}

// fromLine returns b from the first line that starts at or after from
// (0 < from <= len(b)): a line starting exactly at from is whole and kept.
func fromLine(b []byte, from int) []byte {
	if i := bytes.IndexByte(b[from-1:], '\n'); i >= 0 {
		return b[from+i:]
	}
	return nil
}

// Records returns the worktree's recent records, oldest first; none when
// the file does not exist. Lines that are not records are skipped.
func (d Dir) Records() ([]journal.Record, error) {
	b, err := d.readBounded(recordsName, 2*MaxRecords)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	var out []journal.Record
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var r journal.Record
		if json.Unmarshal(line, &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// HasRecords reports whether the worktree's records file exists: whether a
// hook that keeps it has run here.
func (d Dir) HasRecords() bool {
	_, err := os.Lstat(d.records())
	return err == nil
}

// readBounded reads the last limit bytes of the file name at most, from a
// line start; nil, nil when it does not exist; an error only when it cannot
// be opened. A file that outgrew its cut (written by something else) costs
// no more than limit.
func (d Dir) readBounded(name string, limit int64) ([]byte, error) {
	f, err := safepath.Open(d.root, filepath.Join(d.path, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// One byte more than limit: it tells whether the window starts a line.
	off := max(fi.Size()-limit-1, 0)
	b := make([]byte, fi.Size()-off)
	// A short read (a folder in the file's place, an I/O error) keeps what
	// was read: a damaged file reads as what of it can be read, and lines
	// cut short are skipped by the callers.
	n, _ := f.ReadAt(b, off)
	b = b[:n]
	if off > 0 && len(b) > 0 {
		b = fromLine(b, 1)
	}
	return b, nil
}

// Task is the work going on in a worktree.
type Task struct {
	Text string `json:"text"`
	// By says how it was set: ByPrompt (the opening request of a chain of
	// sessions) or ByExplicit (a prompt that said "new task:").
	By      string    `json:"by"`
	Session string    `json:"session,omitempty"`
	TS      time.Time `json:"ts"`
	// Chain is the session that opened the chain it was set in.
	Chain string `json:"chain,omitempty"`
}

// How a task was set.
const (
	ByPrompt   = "prompt"
	ByExplicit = "explicit"
)

// MaxTask is the most characters of a task kept.
const MaxTask = 1000

// Session is what is known of one session of the worktree.
type Session struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Source  string    `json:"source,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	// Agent is the agent process that ran the session, when it could be
	// told.
	Agent Process `json:"agent,omitzero"`
	// Last and LastEvent are the newest Stop, PreCompact or SessionEnd.
	Last      time.Time `json:"last"`
	LastEvent string    `json:"last_event,omitempty"`
	// Trigger is the newest PreCompact's trigger: manual or auto.
	Trigger string `json:"trigger,omitempty"`
	// Transcript and Offset say how far the transcript had grown at Last.
	Transcript string `json:"transcript,omitempty"`
	Offset     int64  `json:"offset,omitempty"`
	// Message is the agent's last answer (at most MaxMessage characters).
	Message string `json:"message,omitempty"`
	Ended   bool   `json:"ended,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Crashed is set at a later start that found the session ended without
	// SessionEnd and its process gone; AfterCrash lists, on the session
	// that started then, the sessions it found so.
	Crashed    bool     `json:"crashed,omitempty"`
	AfterCrash []string `json:"after_crash,omitempty"`
	// Told is what baton's briefing in the session's conversation holds;
	// nil when no start of the session was given one.
	Told *Told `json:"told,omitempty"`
}

// Told is what the briefing a session's conversation holds says: set when
// a start gives the full briefing, its facts brought up to date by what a
// later start of the same conversation adds to it, replaced when a
// compaction takes it out of the conversation.
type Told struct {
	// At is when the full briefing was given.
	At time.Time `json:"at"`
	// Facts are the briefing's facts as its writer keys them (package
	// resume), so a later start tells only what changed.
	Facts []string `json:"facts,omitempty"`
}

// SetTold records what the briefing in session's conversation holds. A
// session not in the state yet (its start was not observed) gets an entry.
func (d Dir) SetTold(session string, t *Told) error {
	return d.Update(func(s *State) bool {
		ss := s.Session(session)
		if ss == nil {
			s.Sessions = append(s.Sessions, Session{ID: session, Started: t.At})
			ss = &s.Sessions[len(s.Sessions)-1]
		}
		ss.Told = t
		return true
	})
}

// MaxMessage is the most characters of the agent's last answer kept.
const MaxMessage = 2000

// State is state.json.
type State struct {
	// Chain is the session that opened the current chain: a session started
	// afresh opens one; --continue, --resume, a compaction and /clear go on
	// in it.
	Chain    string `json:"chain,omitempty"`
	Task     *Task  `json:"task,omitempty"`
	Previous *Task  `json:"previous_task,omitempty"`
	// Next is the next step the agent announced and has not reported done.
	// Failing is the commands failing, oldest first (see ApplyFailing).
	Failing []Failure `json:"failing,omitempty"`
	Next    *Step     `json:"next_step,omitempty"`
	// Stated is the decisions stated in the conversation, oldest first.
	Stated   []Statement `json:"stated,omitempty"`
	Sessions []Session   `json:"sessions,omitempty"`
}

// Session returns the entry of id, or nil.
func (s *State) Session(id string) *Session {
	for i := range s.Sessions {
		if s.Sessions[i].ID == id {
			return &s.Sessions[i]
		}
	}
	return nil
}

// Read returns state.json; the zero State when it does not exist or cannot
// be decoded (it is rebuilt as sessions go on).
func (d Dir) Read() (State, error) {
	b, err := d.readBounded(stateName, 1<<20)
	if err != nil {
		return State{}, fmt.Errorf("read worktree state: %w", err)
	}
	var s State
	if len(b) > 0 && json.Unmarshal(b, &s) != nil {
		return State{}, nil
	}
	return s, nil
}

// Update changes state.json under the lock: fn gets the current state and
// reports whether it changed it; only a change is written.
func (d Dir) Update(fn func(s *State) bool) error {
	sd, unlock, err := d.lock()
	if err != nil {
		return err
	}
	defer unlock()
	s, err := d.Read()
	if err != nil {
		return err
	}
	if !fn(&s) {
		return nil
	}
	if n := len(s.Sessions); n > MaxSessions {
		slices.SortStableFunc(s.Sessions, func(a, b Session) int { return a.Started.Compare(b.Started) })
		s.Sessions = s.Sessions[n-MaxSessions:]
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode worktree state: %w", err)
	}
	return sd.Replace(stateName, append(b, '\n'), 0o600)
}

// NewTask returns the task a prompt explicitly sets ("new task: …",
// "次のタスク：…", case and width of the colon aside) and true, or "" and
// false when it sets none.
func NewTask(prompt string) (string, bool) {
	p := strings.TrimSpace(prompt)
	for _, prefix := range taskPrefixes {
		if len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) {
			rest := strings.TrimLeft(p[len(prefix):], " \t")
			for _, colon := range []string{":", "："} {
				if after, ok := strings.CutPrefix(rest, colon); ok {
					if t := strings.TrimSpace(after); t != "" {
						return t, true
					}
				}
			}
		}
	}
	return "", false
}

// taskPrefixes start a prompt that sets a new task (followed by a colon).
var taskPrefixes = []string{"new task", "次のタスク", "新しいタスク"}

// Others looks at the worktree's sessions other than current: live lists
// those whose agent process still runs (parallel sessions, in another
// terminal), newest first. crashed is a session that ended without
// SessionEnd and whose process is gone: for a starting session, the newest
// of those its start found (see Session.AfterCrash), so a crash is told
// once, even when another session ran beside it; without a current
// session, the newest session when it is such. A session whose process
// cannot be told is never called crashed.
func (s *State) Others(current string) (crashed *Session, live []Session) {
	var rest []*Session
	for i := range s.Sessions {
		ss := &s.Sessions[i]
		if ss.ID == current {
			continue
		}
		if alive, _ := ss.Agent.Alive(); alive && !ss.Ended {
			live = append(live, *ss)
			continue
		}
		rest = append(rest, ss)
	}
	slices.SortStableFunc(live, func(a, b Session) int { return b.Started.Compare(a.Started) })
	var newest *Session
	if cur := s.Session(current); cur != nil {
		for _, ss := range rest {
			if slices.Contains(cur.AfterCrash, ss.ID) && (newest == nil || ss.Started.After(newest.Started)) {
				newest = ss
			}
		}
	} else {
		for _, ss := range rest {
			if newest == nil || ss.Started.After(newest.Started) {
				newest = ss
			}
		}
		if newest != nil && !gone(newest) {
			newest = nil
		}
	}
	if newest != nil {
		c := *newest
		crashed = &c
	}
	return crashed, live
}

// gone reports whether a session ended without SessionEnd and its process
// is known to be gone.
func gone(ss *Session) bool {
	if ss.Ended {
		return false
	}
	alive, known := ss.Agent.Alive()
	return known && !alive
}

// promptWindow is how much of records.jsonl's end LastPrompt reads.
const promptWindow = 32 << 10

// LastPrompt returns the newest prompt of session among the worktree's
// newest records (the last promptWindow bytes); "" when there is none.
func (d Dir) LastPrompt(session string) (string, error) {
	b, err := d.readBounded(recordsName, promptWindow)
	if err != nil {
		return "", err
	}
	for len(b) > 0 {
		line := b
		if i := bytes.LastIndexByte(bytes.TrimRight(b, "\n"), '\n'); i >= 0 {
			line, b = b[i+1:], b[:i+1]
		} else {
			b = nil
		}
		if !bytes.Contains(line, []byte(`"UserPromptSubmit"`)) {
			continue
		}
		var r journal.Record
		if json.Unmarshal(line, &r) == nil && r.Event == "UserPromptSubmit" && r.Session == session {
			return r.Prompt, nil
		}
	}
	return "", nil
}
