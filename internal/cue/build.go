package cue

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Limits of what the recall file holds: enough to recall the work of
// months, small enough to read at every hook call.
const (
	maxDecisions = 1000
	maxSessions  = 300
	maxCommands  = 200
	maxFiles     = 200
	// FailureAge is how long a failure stays worth a note.
	FailureAge = 14 * 24 * time.Hour
	// DefaultScanBytes is how much of the journal's end Build reads.
	DefaultScanBytes = 64 << 20
	// maxText is the most characters of a summary or a prompt an entry
	// keeps.
	maxText = 300
	// recentTerm points at the newest sessions.
	recentTerm  = "#recent"
	recentCount = 3
)

// BuildOptions say where the recall file's sources are.
type BuildOptions struct {
	State state.Dir
	// Route is the context route whose layers are read (default the
	// repository's own).
	Route string
	// Journal is the state folder's journal; ScanBytes how much of its end
	// is read (default DefaultScanBytes).
	Journal   *journal.Journal
	ScanBytes int64
	Now       time.Time
	// Shared are the decisions teammates shared through the repository's
	// remote (their sources say who shared them), recalled beside the
	// route's own; Hide, when set, leaves out the own decisions a teammate
	// retracted.
	Shared []recall.Decision
	Hide   func(*recall.Decision) bool
}

// Built says what a recall file holds.
type Built struct {
	Path                                 string
	Decisions, Sessions, Commands, Files int
	Bytes                                int
}

// Build writes the recall file from the approved decisions, the recent
// summaries and the journal's end: sessions with their opening prompt,
// Bash commands that failed (and what worked after), files whose tool
// calls failed. It replaces the file atomically; readers see the old file
// or the new one. A state folder that does not exist gets no file.
func Build(ctx context.Context, o BuildOptions) (Built, error) {
	out := Built{Path: Path(o.State)}
	if _, err := os.Stat(o.State.Root); err != nil {
		return out, fmt.Errorf("build recall file: %w", err)
	}
	files, err := recall.FilesFor(o.State, o.Route)
	if err != nil {
		return out, err
	}
	w := newWriter()

	ds, err := recall.ReadDecisions(files, true)
	if err != nil {
		return out, err
	}
	if o.Hide != nil {
		ds = slices.DeleteFunc(ds, func(d recall.Decision) bool { return o.Hide(&d) })
	}
	if len(o.Shared) > 0 {
		ds = append(ds, o.Shared...)
		slices.SortStableFunc(ds, func(a, b recall.Decision) int { return strings.Compare(a.Date, b.Date) })
	}
	if len(ds) > maxDecisions {
		ds = ds[len(ds)-maxDecisions:]
	}
	for i := len(ds) - 1; i >= 0; i-- { // newest first: ties go to the newest
		addDecision(w, &ds[i])
	}
	out.Decisions = len(ds)

	recent, err := recall.ReadRecent(files, 4<<20)
	if err != nil {
		return out, err
	}
	sc := newScan()
	if o.Journal != nil {
		// Newest first, one record at a time: Match keeps none, so the
		// memory is the scan's maps, not the window's records.
		_, err = o.Journal.Tail(ctx, 1, journal.TailOptions{
			Prefilter: wanted, MaxBytes: cmp.Or(o.ScanBytes, DefaultScanBytes),
			Match: func(r *journal.Record) bool { sc.record(r); return false },
		})
		if err != nil {
			return out, err
		}
	}
	out.Sessions = addSessions(w, sc.sessions, recent)
	out.Commands, out.Files = addFailures(w, sc, o.Now)

	data, err := w.bytes(o.Now)
	if err != nil {
		return out, err
	}
	out.Bytes = len(data)
	if err := atomicfile.WriteIn(o.State.Base(), out.Path, data, 0o600); err != nil {
		return out, err
	}
	return out, nil
}

// wanted keeps the journal lines Build uses: prompts, failures and Bash
// calls with their command line.
func wanted(line []byte) bool {
	return bytes.Contains(line, []byte(`"event":"`+hook.UserPromptSubmit+`"`)) ||
		bytes.Contains(line, []byte(`"event":"`+hook.PostToolUseFailure+`"`)) ||
		bytes.Contains(line, []byte(`"event":"`+hook.PostToolUse+`"`)) && (bytes.Contains(line, []byte(`"cmd":`)) || bytes.Contains(line, []byte(`"file":`)))
}

// isEdit is true for the tools that change a file.
func isEdit(tool string) bool {
	return tool == "Edit" || tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit"
}

func addDecision(w *writer, d *recall.Decision) {
	e := entry{Kind: kindDecision, Text: cut(d.Summary, maxText), Ref: d.SourceText(), Slug: d.Slug, When: d.TS}
	if e.When.IsZero() {
		e.When, _ = time.Parse(recall.DateLayout, d.Date)
	}
	var ts []string
	for _, text := range []string{d.Summary, d.Slug} {
		terms(text, func(t term) { ts = append(ts, t.text) })
	}
	e.Files = pathsIn(d.Summary)
	w.add(e, append(ts, fileTerms(e.Files)...))
}

// session is what Build knows of one earlier session.
type session struct {
	id, branch, prompt, goal string
	first                    time.Time
}

// scan gathers what Build needs from the journal's records, seen newest
// first.
type scan struct {
	sessions map[string]*session
	cmds     map[string]*history
	files    map[string]*history
	// filesDone are files whose newest event was an edit that went
	// through: older failures of them are over.
	filesDone map[string]bool
}

func newScan() *scan {
	return &scan{sessions: map[string]*session{}, cmds: map[string]*history{}, files: map[string]*history{}, filesDone: map[string]bool{}}
}

// record takes one record; records come newest first.
func (sc *scan) record(r *journal.Record) {
	switch {
	case r.Event == hook.UserPromptSubmit:
		if r.Session == "" || strings.HasPrefix(strings.TrimSpace(r.Prompt), "/") {
			return
		}
		s := sc.sessions[r.Session]
		if s == nil {
			s = &session{id: r.Session}
			sc.sessions[r.Session] = s
		}
		s.prompt, s.branch, s.first = r.Prompt, r.Branch, r.TS // the oldest wins
	case r.Event == hook.PostToolUseFailure && r.Tool == "Bash" && r.Cmd != "":
		if key := CommandKey(r.Cmd); key != "" {
			historyOf(sc.cmds, key).fail(r)
		}
	case r.Event == hook.PostToolUseFailure && r.File != "":
		f := relTo(r.File, r.Worktree)
		if sc.filesDone[f] {
			return
		}
		historyOf(sc.files, f).fail(r)
	case r.Event == hook.PostToolUse && isEdit(r.Tool) && r.File != "":
		if f := relTo(r.File, r.Worktree); sc.files[f] == nil {
			sc.filesDone[f] = true
		}
	case r.Event == hook.PostToolUse && r.Tool == "Bash" && r.Cmd != "" && (r.Exit == nil || *r.Exit == 0):
		for key := range wtstate.CommandKeys(r.Cmd) {
			historyOf(sc.cmds, key).succeed(r.Cmd)
		}
	}
}

// historyOf is the history of key in m, made when m has none yet.
func historyOf(m map[string]*history, key string) *history {
	h := m[key]
	if h == nil {
		h = &history{}
		m[key] = h
	}
	return h
}

// addSessions adds the newest sessions: their opening prompt (from the
// journal) and goal (from the newest recent summary). It returns how many.
func addSessions(w *writer, byID map[string]*session, recent []recall.Recent) int {
	get := func(id string, at time.Time) *session {
		s := byID[id]
		if s == nil {
			s = &session{id: id, first: at}
			byID[id] = s
		}
		return s
	}
	for i := range recent {
		r := &recent[i]
		if r.Session == "" || r.Goal == "" {
			continue
		}
		get(r.Session, cmp.Or(r.From, r.TS)).goal = r.Goal // the newest wins
	}
	all := make([]*session, 0, len(byID))
	for _, s := range byID {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *session) int {
		return cmp.Or(b.first.Compare(a.first), strings.Compare(a.id, b.id))
	})
	if len(all) > maxSessions {
		all = all[:maxSessions]
	}
	for i, s := range all {
		text := s.prompt
		if s.goal != "" && textcut.OneLine(s.goal) != textcut.OneLine(s.prompt) {
			text = strings.TrimSpace(text + " — " + s.goal)
		}
		e := entry{Kind: kindSession, When: s.first, Text: cut(text, maxText), Ref: s.id, Branch: s.branch}
		var ts []string
		terms(s.prompt+"\n"+s.goal, func(t term) { ts = append(ts, t.text) })
		if i < recentCount {
			ts = append(ts, recentTerm)
		}
		e.Files = pathsIn(s.prompt + "\n" + s.goal)
		w.add(e, append(ts, fileTerms(e.Files)...))
	}
	return len(all)
}

// history is the failures of one command key, or one file, gathered
// newest first: the first failure seen is the last one; the successes
// seen before a failure are the lines that worked after it.
type history struct {
	last  *journal.Record
	fails int
	// since is when the oldest of the failures seen was.
	since time.Time
	// worked are the lines that worked after a failure, newest first, at
	// most three; the first afterLast of them after the last one.
	worked    []string
	afterLast int
	// pending are lines that worked, seen since the last failure seen:
	// they worked after the next failure seen, if one is.
	pending []string
}

func (h *history) fail(r *journal.Record) {
	if h.last == nil {
		h.last = r
		h.afterLast = len(h.worked)
	}
	for _, c := range h.pending {
		if c != h.last.Cmd { // the failing line that worked once and failed since says nothing
			h.addWorked(c)
		}
	}
	h.pending = h.pending[:0]
	h.fails++
	h.since = r.TS
}

// succeed notes a line that worked.
func (h *history) succeed(cmd string) {
	switch {
	case h.last == nil:
		h.addWorked(cmd)
	case !slices.Contains(h.pending, cmd) && len(h.pending) < 3:
		h.pending = append(h.pending, cmd)
	}
}

func (h *history) addWorked(cmd string) {
	if !slices.Contains(h.worked, cmd) && len(h.worked) < 3 {
		h.worked = append(h.worked, cmd)
	}
}

// resolved is true when the failing line itself worked after its last
// failure.
func (h *history) resolved() bool {
	return h.last != nil && slices.Contains(h.worked[:h.afterLast], h.last.Cmd)
}

// addFailures adds the Bash commands that failed within FailureAge and
// have not worked since as they failed, and the files whose tool calls
// failed. It returns how many of each.
func addFailures(w *writer, sc *scan, now time.Time) (commands, files int) {
	cmds, byFile := sc.cmds, sc.files
	fresh := func(m map[string]*history, limit int) []string {
		var keys []string
		for k, h := range m {
			if h.last != nil && now.Sub(h.last.TS) <= FailureAge && !h.resolved() {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b string) int { return cmp.Or(m[b].last.TS.Compare(m[a].last.TS), strings.Compare(a, b)) })
		return keys[:min(len(keys), limit)]
	}
	for _, key := range fresh(cmds, maxCommands) {
		h := cmds[key]
		e := failureEntry(h)
		e.Kind, e.Key = kindCommand, key
		e.Files = pathsIn(h.last.Error)
		ts := []string{cmdPrefix + key}
		for _, cw := range keyWords(key) {
			ts = append(ts, cmdWordPrefix+cw)
		}
		w.add(e, append(ts, fileTerms(e.Files)...))
		commands++
	}
	for _, f := range fresh(byFile, maxFiles) {
		e := failureEntry(byFile[f])
		e.Kind, e.Files = kindFile, []string{f}
		w.add(e, fileTerms(e.Files))
		files++
	}
	return commands, files
}

func failureEntry(h *history) entry {
	r := h.last
	return entry{When: r.TS, Cmd: r.Cmd, Tool: r.Tool, Exit: r.Exit, Err: firstLine(r.Error), Fails: h.fails, Since: h.since, Worked: h.worked, Ref: r.Session, Branch: r.Branch}
}

// relTo is path relative to the worktree holding it, else path.
func relTo(path, worktree string) string {
	if worktree == "" || !filepath.IsAbs(path) {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(worktree, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// pathsIn returns the file paths text names: words with a slash or with a
// file extension (queue.go, .baton.yaml), not version numbers.
func pathsIn(text string) []string {
	var out []string
	terms(text, func(t term) {
		if isPath(t.text) && !slices.Contains(out, t.text) {
			out = append(out, t.text)
		}
	})
	// The base name of a longer path is that path's, not any file's.
	return slices.DeleteFunc(out, func(p string) bool {
		return slices.ContainsFunc(out, func(q string) bool { return strings.HasSuffix(q, "/"+p) })
	})
}

func isPath(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	ext := filepath.Ext(s)
	if len(ext) < 2 || len(ext) > 6 {
		return false
	}
	for _, c := range ext[1:] {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// fileTerms are the recall file's terms for paths: the path and its base
// name.
func fileTerms(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filePrefix+p)
		if b := filepath.Base(p); b != p {
			out = append(out, filePrefix+b)
		}
	}
	return out
}

func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return cut(line, 200)
		}
	}
	return ""
}

// cut is s on one line, at most n characters.
func cut(s string, n int) string { return textcut.Chars(textcut.OneLine(s), n) }
