// Package resume builds the briefing an agent gets at every session start and
// after every compaction, which `baton resume` prints: the restart case, the
// task, the approved decisions, where the worktree left off and the context
// layers, assembled once within the hook's limit (BuildBrief).
//
// Where the worktree left off comes from the hand-kept state file current.md
// (the worktree's own; see state.Dir.CurrentOf) when it describes a task in
// progress, and from the worktree's own recent records and sessions, which the
// hook keeps beside the journal (package wtstate): the cost does not grow with
// the journal or with other worktrees' activity. Where a worktree's own records
// are too few (none yet under hooks of an older baton, or just started by the
// first hook of a newer one), the journal's last Options.ScanBytes add the
// work before them.
//
// It only reads. current.md is parsed by package statefile and written by
// `baton save`; the journal is package journal's; the layers are package
// recall's.
package resume

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/statefile"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Source says where a briefing comes from.
type Source string

const (
	// FromState is current.md with status in_progress.
	FromState Source = "current"
	// FromJournal is the worktree's newest journal records.
	FromJournal Source = "journal"
	// FromNothing means there is nothing to resume.
	FromNothing Source = "none"
)

// Limits of what a briefing lists.
const (
	// TopFiles is how many of the most touched files are listed.
	TopFiles = 5
	// Commands is how many recent commands are listed.
	Commands = 5
	// DigestLines is how many lines of "now" and "next" are shown.
	DigestLines = 2
)

// Options say which worktree to brief and how.
type Options struct {
	State state.Dir
	// Journal is the journal to read; nil means the one in State.
	Journal *journal.Journal
	// Worktree is the top folder of the worktree being resumed; Main is the
	// repository's main worktree, to which records that name no worktree
	// (written by older hook scripts) belong.
	Worktree, Main string
	Branch         string
	// Session is the session being started, when a hook asks; it is not
	// another session of the worktree.
	Session string
	Now     time.Time
	// Records is how many of the worktree's newest activity records the
	// journal briefing uses.
	Records int
	// Stale is the age past which current.md is called old.
	Stale time.Duration
	// ScanBytes bounds how far back from its end the journal is read.
	ScanBytes int64
	// BatonFiles are files that count as baton's own besides the state
	// folder and .baton.yaml, such as the user's config file.
	BatonFiles []string
}

// Configured returns the Options set by configuration: cfg's resume
// settings, with the user's config file among baton's own files. The caller
// adds the worktree and the time.
func Configured(cfg *config.Config, getenv func(string) string) Options {
	return Options{
		Records:    cfg.ResumeRecords(),
		Stale:      cfg.ResumeStale(),
		ScanBytes:  cfg.ResumeScanBytes(),
		BatonFiles: []string{config.UserPath(getenv)},
	}
}

// Briefing is what is known about where the worktree left off.
type Briefing struct {
	Source Source
	// From current.md (Task, Updated and Status also when it is not in
	// progress).
	Task    string
	Updated time.Time
	Status  statefile.Status
	Stale   bool
	Doing   []string // digest of いまやってること / Now
	Next    []string // digest of 次の一手 / Next
	// StateFile is current.md's path; StateError why it cannot be used,
	// nil when it is usable or missing.
	StateFile  string
	StateError *statefile.FormatError
	// StateIgnored says why current.md, which exists, was not read at
	// all (IgnoredTracked, IgnoredLink, IgnoredUnknown): a file the
	// repository can plant is not the person's own state; "" otherwise.
	StateIgnored string

	// From the journal.
	LastActivity time.Time // zero when the worktree has no records
	Records      int       // how many records the journal part is built from
	TopFiles     []FileCount
	Commands     []string
	SetupOnly    bool
	// Elsewhere is the newest activity of another worktree, set when this
	// worktree has none and that activity is newer than Options.Stale.
	Elsewhere *Activity

	// TaskFrom says where Task came from: FromState (current.md),
	// TaskFromPrompt or TaskFromExplicit; "" when there is no task. TaskAt
	// is when a prompt set it. PreviousTask is the task before it.
	TaskFrom     string
	TaskAt       time.Time
	PreviousTask string
	// TaskNew is set when a prompt of the current chain of sessions set
	// the task, replacing PreviousTask.
	TaskNew bool
	// Open loops and evidence, from the worktree's records.
	Failing       []Failure
	Unanswered    []string
	Todo          []TodoItem
	LastMessage   string
	LastMessageAt time.Time
	// NextStep is the next step the agent announced and has not reported
	// done, whatever was said after it; NextStepAt when it said so.
	NextStep   string
	NextStepAt time.Time
	// Stated is the decisions stated in the conversation that no person
	// approved, oldest first (a briefing leaves out those it finds among
	// the approved decisions).
	Stated []wtstate.Statement
	// Sessions is what the worktree's state.json knows of its sessions;
	// nil when it has none.
	Sessions *wtstate.State

	lastSession string
	// workedAt is the starting session's newest prompt, tool call or
	// answer.
	workedAt  time.Time
	chainTask *wtstate.Task
	// todoAt is the newest change of the todo list.
	todoAt   time.Time
	fileTask string // current.md's task, whatever its status

	Worktree, Branch string
	At               time.Time // when the briefing was made
}

// FileCount is a file and how many of the records touched it.
type FileCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// Activity is the newest activity of a worktree.
type Activity struct {
	Worktree string
	Branch   string
	At       time.Time
}

// StateBroken reports whether current.md exists but cannot be used.
func (b *Briefing) StateBroken() bool { return b.StateError != nil }

// Build reads current.md and the journal's tail and decides what to brief.
func Build(ctx context.Context, o Options) (*Briefing, error) {
	b := &Briefing{
		Source: FromNothing, StateFile: o.State.CurrentOf(o.Worktree, o.Main),
		Worktree: o.Worktree, Branch: o.Branch, At: o.Now,
	}
	sf, err := readState(ctx, o.State.Base(), b.StateFile)
	var fe *statefile.FormatError
	var ig ignoredError
	switch {
	case errors.As(err, &ig):
		b.StateIgnored = string(ig)
	case errors.As(err, &fe):
		b.StateError = fe
	case err != nil:
		return nil, err
	case sf != nil:
		b.Updated, b.Status = sf.Updated, sf.Status
	}

	wt := wtstate.At(o.State.Base(), o.State.WorktreeDir(o.Worktree))
	all, recs, err := records(ctx, o, wt)
	if err != nil {
		return nil, err
	}
	st, err := wt.Read()
	if err != nil {
		return nil, err
	}
	b.fromJournal(recs, o)
	b.fromRecords(all, st.Failing)
	b.workedAt = workedAt(all, o.Session)
	if len(st.Sessions) > 0 || st.Task != nil {
		b.Sessions = &st
	}
	b.fromState(&st)
	b.pickTask(sf)

	inProgress := sf != nil && sf.Status == statefile.InProgress
	var other *journal.Record
	if !inProgress && len(recs) == 0 {
		if other, err = elsewhere(ctx, o); err != nil {
			return nil, err
		}
	}
	switch {
	case inProgress:
		b.Source = FromState
		b.Doing = sf.Digest(statefile.Now, DigestLines)
		b.Next = sf.Digest(statefile.Next, DigestLines)
		b.Stale = !sf.Updated.IsZero() && o.Now.Sub(sf.Updated) > o.Stale
		b.SetupOnly = false
	case len(recs) > 0 || b.Task != "":
		b.Source = FromJournal
	case other != nil && o.Now.Sub(other.TS) <= o.Stale:
		b.Elsewhere = &Activity{Worktree: other.Worktree, Branch: other.Branch, At: other.TS}
	}
	return b, nil
}

// Why an existing current.md was not read.
const (
	IgnoredTracked = "tracked" // git tracks it: it came with the repository
	IgnoredLink    = "link"    // it is a symbolic link
	IgnoredUnknown = "unknown" // whether git tracks it could not be told
)

// ignoredError is a current.md left unread, for the reason it holds.
type ignoredError string

func (e ignoredError) Error() string { return "state file not read: " + string(e) }

// readState reads and parses current.md under root: nil, nil when it does
// not exist. A file that cannot be read (a folder in its place, no
// permission) is as unusable as a broken one: the briefing falls back to
// the journal and says why. A link (the file or a folder on the way, see
// package safepath), or a file git tracks (a cloned repository can commit
// one full of instructions), is not read at all: an ignoredError.
func readState(ctx context.Context, root, path string) (*statefile.File, error) {
	f, err := safepath.OpenFile(root, path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, safepath.ErrLink):
		return nil, ignoredError(IgnoredLink)
	case err != nil:
		return nil, unreadable(err)
	}
	defer f.Close()
	if repo, ferr := gitrepo.Find(filepath.Dir(path)); ferr == nil {
		switch tracked, terr := repo.Tracked(ctx, path); {
		case terr != nil:
			return nil, ignoredError(IgnoredUnknown)
		case tracked:
			return nil, ignoredError(IgnoredTracked)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, unreadable(err)
	}
	return statefile.Parse(b)
}

// unreadable is a state file that cannot be read, for the reason err gives.
func unreadable(err error) error {
	detail := err.Error()
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		detail = pe.Err.Error()
	}
	return &statefile.FormatError{Problem: statefile.Unreadable, Detail: detail}
}

// records returns the worktree's recent records of every kind and its
// newest o.Records activity records, both oldest first: from the
// worktree's own records file in wt, which the hook keeps whatever other
// worktrees do. Where that file holds fewer than o.Records activity records, the
// journal's last o.ScanBytes stand in for what came before its first record:
// all of it where there is no file yet (hooks of an older baton), and the
// earlier work where the file was started lately (at the first hook call of
// a newer baton, just before the briefing of that very start).
func records(ctx context.Context, o Options, wt wtstate.Dir) (all, activity []journal.Record, err error) {
	if wt.HasRecords() {
		if all, err = wt.Records(); err != nil {
			return nil, nil, fmt.Errorf("read worktree records: %w", err)
		}
	}
	if n := countFunc(all, isActivity); n < o.Records {
		// A debate agent's records are turns of its debate, not the
		// worktree's work (the worktree's own files never keep them).
		here := func(r *journal.Record) bool { return r.Debate == "" && cmp.Or(r.Worktree, o.Main) == o.Worktree }
		if len(all) > 0 {
			first := all[0].TS
			here = func(r *journal.Record) bool {
				return r.Debate == "" && r.TS.Before(first) && cmp.Or(r.Worktree, o.Main) == o.Worktree
			}
		}
		older, err := o.journal().Tail(ctx, 8*(o.Records-n), journal.TailOptions{Match: here, Prefilter: mayBeActivityOf(o.Worktree), MaxBytes: o.ScanBytes})
		if err != nil {
			return nil, nil, fmt.Errorf("read journal: %w", err)
		}
		all = append(older, all...)
	}
	for _, r := range all {
		if isActivity(&r) {
			activity = append(activity, r)
		}
	}
	if len(activity) > o.Records {
		activity = activity[len(activity)-o.Records:]
	}
	return all, activity, nil
}

func countFunc(recs []journal.Record, f func(*journal.Record) bool) int {
	n := 0
	for i := range recs {
		if f(&recs[i]) {
			n++
		}
	}
	return n
}

// elsewhere returns the last written activity record of another worktree
// within the scanned part of the journal, its worktree filled in; nil if
// none. It stops at the first one found going back: by timestamp, a later
// record may be older only by clock skew.
func elsewhere(ctx context.Context, o Options) (*journal.Record, error) {
	there := func(r *journal.Record) bool { return isActivity(r) && cmp.Or(r.Worktree, o.Main) != o.Worktree }
	recs, err := o.journal().Tail(ctx, 1, journal.TailOptions{Match: there, MaxBytes: o.ScanBytes})
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	r := recs[0]
	r.Worktree = cmp.Or(r.Worktree, o.Main)
	return &r, nil
}

func (o Options) journal() *journal.Journal {
	if o.Journal != nil {
		return o.Journal
	}
	return journal.Open(o.State.Root, journal.Options{})
}

// mayBeActivityOf is the journal prefilter of worktree's activity records.
// A line that names a worktree but not this one belongs to another, and is
// skipped undecoded. Everything the test could misjudge is decoded: a path
// JSON may write otherwise (a character it may escape), a line with an
// escape (a path written with "\/"), an empty string (an empty worktree is
// the main one), and lines that name no worktree, written by older hook
// scripts for the main worktree (or with a key in other case, which decoding
// accepts).
func mayBeActivityOf(worktree string) func(line []byte) bool {
	if worktree == "" || strings.ContainsFunc(worktree, func(r rune) bool {
		return r < 0x20 || r > 0x7e || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&'
	}) {
		return nil
	}
	quoted, key := []byte(`"`+worktree+`"`), []byte(`"worktree"`)
	return func(line []byte) bool {
		return bytes.Contains(line, quoted) || !bytes.Contains(line, key) ||
			bytes.IndexByte(line, '\\') >= 0 || bytes.Contains(line, []byte(`""`))
	}
}

// isActivity reports whether a record is something the agent did: a tool
// call that completed or failed. PreToolUse records duplicate their PostToolUse ones
// and are left out, as are prompts, session events and a debate agent's
// calls (its debate's, not the worktree's). Lines written by
// older hook scripts have a tool but no event.
func isActivity(r *journal.Record) bool {
	return r.Debate == "" && r.Tool != "" && (r.Event == "PostToolUse" || r.Event == "PostToolUseFailure" || r.Event == "")
}

// fromJournal fills the journal part of the briefing from recs, oldest first.
func (b *Briefing) fromJournal(recs []journal.Record, o Options) {
	b.Records = len(recs)
	b.TopFiles, b.Commands = []FileCount{}, []string{}
	if len(recs) == 0 {
		return
	}
	b.LastActivity = recs[len(recs)-1].TS

	type tally struct {
		count, last int
	}
	counts := map[string]*tally{}
	setup, work := 0, 0
	for i, r := range recs {
		if r.File != "" {
			p := displayPath(r.File, o.Worktree)
			t := counts[p]
			if t == nil {
				t = &tally{}
				counts[p] = t
			}
			t.count++
			t.last = i
		}
		switch {
		case isBatonFile(r.File, o):
			setup++
		case r.File != "":
			work++
		case r.Tool == "Bash" && isBatonCommand(r.Desc):
			setup++
		case r.Tool == "Bash" && r.Desc != "":
			work++
		}
	}
	b.SetupOnly = setup > 0 && work == 0

	for p, t := range counts {
		b.TopFiles = append(b.TopFiles, FileCount{Path: p, Count: t.count})
	}
	slices.SortFunc(b.TopFiles, func(x, y FileCount) int {
		if x.Count != y.Count {
			return y.Count - x.Count
		}
		return counts[y.Path].last - counts[x.Path].last
	})
	if len(b.TopFiles) > TopFiles {
		b.TopFiles = b.TopFiles[:TopFiles]
	}

	// A command run again is listed once, as it went the last time.
	seen := map[string]bool{}
	for i := len(recs) - 1; i >= 0 && len(b.Commands) < Commands; i-- {
		r := recs[i]
		if r.Tool != "Bash" || r.Desc == "" && r.Cmd == "" {
			continue
		}
		if cmd := command(&r); !seen[cmd] {
			seen[cmd] = true
			b.Commands = append(b.Commands, cmd+exitStatus(&r))
		}
	}
}

// command shows a Bash record's command line (older records have only a
// description), as the briefing lists it.
func command(r *journal.Record) string {
	if r.Cmd == "" {
		return textcut.Chars(textcut.OneLine(r.Desc), statefile.DigestWidth)
	}
	return shownCommand(r.Cmd)
}

// shownCommand is a command line as the briefing lists it: on one line,
// cut, in backticks.
func shownCommand(cmd string) string {
	return "`" + textcut.Chars(textcut.OneLine(cmd), statefile.DigestWidth) + "`"
}

// exitStatus shows a Bash record's exit status, when known.
func exitStatus(r *journal.Record) string {
	if r.Exit == nil {
		return ""
	}
	return " (exit " + strconv.Itoa(*r.Exit) + ")"
}

// displayPath shows a path inside the worktree relative to it.
func displayPath(p, worktree string) string {
	p = filepath.Clean(p)
	if worktree != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(worktree, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}

// isBatonFile reports whether path is one of baton's own files: in a state
// folder, a .baton.yaml, or one of o.BatonFiles.
func isBatonFile(path string, o Options) bool {
	if path == "" {
		return false
	}
	p := filepath.Clean(path)
	slash := "/" + filepath.ToSlash(p)
	if strings.Contains(slash+"/", "/"+state.RelDir+"/") || filepath.Base(p) == ".baton.yaml" {
		return true
	}
	for _, f := range o.BatonFiles {
		if f != "" && p == filepath.Clean(f) {
			return true
		}
	}
	return false
}

// isBatonCommand reports whether a Bash record ran baton itself.
func isBatonCommand(desc string) bool {
	d := strings.TrimSpace(desc)
	return d == "baton" || strings.HasPrefix(d, "baton ")
}
