package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/usage"
)

// sessionRow is one session in the timeline.
type sessionRow struct {
	ID               string
	Worktree, Branch string
	First, Last      time.Time
	Records, Prompts int
	Tools, Messages  int
	// LastPrompt is known when the timeline comes from the journal.
	LastPrompt string
	// Agent is the CLI the session ran in; the journal's are Claude Code's.
	Agent agentlog.Agent
}

// worktreeGroup is the sessions of one worktree and branch, newest first.
type worktreeGroup struct {
	Worktree, Branch string
	Last             time.Time
	Sessions         []sessionRow
	// Briefed marks the group whose worktree's briefing is shown.
	Briefed bool
}

type sessionsPage struct {
	Worktree, Branch string
	// Briefing is the worktree's resume briefing, its Markdown rendered
	// by markdown.
	Briefing template.HTML
	Groups   []worktreeGroup
	// FromIndex says the timeline comes from the index; otherwise from the
	// journal's newest Limit records, and Truncated says it holds more.
	FromIndex bool
	Limit     int
	Truncated bool
	Warning   string
}

// timelineSessions is how many of the most recent sessions the timeline
// shows from the index.
const timelineSessions = 500

// group puts sessions (most recently active first) into their worktree
// and branch, the most recently active group first.
func group(rows []sessionRow) []worktreeGroup {
	type key struct{ worktree, branch string }
	at := map[key]int{}
	var out []worktreeGroup
	for _, r := range rows {
		k := key{r.Worktree, r.Branch}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, worktreeGroup{Worktree: r.Worktree, Branch: r.Branch})
		}
		out[i].Sessions = append(out[i].Sessions, r)
		out[i].Last = maxTime(out[i].Last, r.Last)
	}
	for i := range out {
		slices.SortStableFunc(out[i].Sessions, func(a, b sessionRow) int { return b.Last.Compare(a.Last) })
	}
	slices.SortStableFunc(out, func(a, b worktreeGroup) int { return b.Last.Compare(a.Last) })
	return out
}

// sessionsFromIndex is the timeline as the index knows it.
func (s *Server) sessionsFromIndex(ctx context.Context) ([]sessionRow, error) {
	list, err := s.o.Index.Sessions(ctx, index.SessionFilter{Limit: timelineSessions})
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, 0, len(list))
	for _, x := range list {
		rows = append(rows, sessionRow{
			ID: x.ID, Worktree: cmp0(x.Worktree, s.o.Resume.Main), Branch: x.Branch, First: x.First, Last: x.Last,
			Records: x.Records, Prompts: x.Prompts, Tools: x.Tools, Messages: x.Messages, Agent: x.Agent,
		})
	}
	return rows, nil
}

// journal opens the repository's journal for reading.
func (s *Server) journal() *journal.Journal {
	return journal.Open(s.o.State.Root, journal.Options{})
}

// worktreeOf is the worktree a record belongs to: records that name none
// were written by older hooks in the main worktree.
func (s *Server) worktreeOf(r *journal.Record) string {
	return cmp0(r.Worktree, s.o.Resume.Main)
}

// sessionsFromJournal makes the timeline from the journal's newest records.
func (s *Server) sessionsFromJournal(ctx context.Context) ([]sessionRow, bool, error) {
	recs, err := s.journal().Tail(ctx, s.o.JournalRecords, journal.TailOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("read journal: %w", err)
	}
	byID := map[string]*sessionRow{}
	var order []string
	for i := range recs {
		r := &recs[i]
		id := r.Session + "\x00" + s.worktreeOf(r) + "\x00" + r.Branch
		row, ok := byID[id]
		if !ok {
			row = &sessionRow{ID: r.Session, Worktree: s.worktreeOf(r), Branch: r.Branch, First: r.TS, Agent: agentlog.Claude}
			byID[id] = row
			order = append(order, id)
		}
		row.Last = maxTime(row.Last, r.TS)
		row.Records++
		switch {
		case r.Prompt != "":
			row.Prompts++
			row.LastPrompt = r.Prompt
		case journal.ToolCall(r.Event, r.Tool):
			row.Tools++
		case r.Event == "Stop" && r.Message != "":
			row.Messages++
		}
	}
	rows := make([]sessionRow, 0, len(order))
	for _, id := range order {
		rows = append(rows, *byID[id])
	}
	return rows, len(recs) >= s.o.JournalRecords, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sessions is the timeline: the briefing of one worktree on top, then the
// sessions of every worktree and branch, newest first.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := sessionsPage{Worktree: s.o.Resume.Worktree, Branch: s.o.Resume.Branch, Limit: s.o.JournalRecords}
	var rows []sessionRow
	var err error
	if s.o.Index != nil {
		p.Warning = s.catchUp(ctx)
		if rows, err = s.sessionsFromIndex(ctx); err == nil {
			p.FromIndex = true
		} else {
			s.o.Log.Warn("dashboard: timeline from the index", "err", err)
			p.Warning = err.Error()
		}
	}
	if !p.FromIndex {
		if rows, p.Truncated, err = s.sessionsFromJournal(ctx); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	}
	p.Groups = group(rows)
	// Another worktree's briefing, when asked for one the timeline knows.
	if want := r.URL.Query().Get("worktree"); want != "" {
		for _, g := range p.Groups {
			if g.Worktree == want {
				p.Worktree, p.Branch = g.Worktree, g.Branch
				break
			}
		}
	}
	for i := range p.Groups {
		p.Groups[i].Briefed = p.Groups[i].Worktree == p.Worktree
	}
	o := s.o.Resume
	o.Worktree, o.Branch, o.Now = p.Worktree, p.Branch, s.o.Now()
	if br, err := resume.BuildBrief(ctx, resume.BriefOptions{Options: o, Lang: s.o.Lang, Budget: hook.MaxContext, Own: true, ForPerson: true}); err != nil {
		s.o.Log.Warn("dashboard: resume briefing", "worktree", p.Worktree, "err", err)
	} else if p.Briefing, err = markdown(br.Text); err != nil {
		s.o.Log.Warn("dashboard: render the briefing", "worktree", p.Worktree, "err", err)
	}
	s.render(w, r, http.StatusOK, "sessions", "sessions", msgNavSessions.In(s.o.Lang), p)
}

// count is a name and how often it came up.
type count struct {
	Name string
	N    int
}

func counts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	slices.SortFunc(out, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// entryView is one record or message of a session, from the journal or
// the index.
type entryView struct {
	Time             time.Time
	Event, Tool      string
	File, Text, Note string
}

func fromRecord(r *journal.Record) entryView {
	return entryView{Time: r.TS, Event: r.Event, Tool: r.Tool, File: r.File,
		Text: cmp.Or(r.Prompt, r.Message, r.Desc), Note: strings.TrimSpace(r.Source + " " + r.Trigger + " " + r.Reason)}
}

func fromEntry(e *index.Entry) entryView {
	v := entryView{Time: e.Time, Event: e.Event, Tool: e.Tool, File: e.File, Text: strings.TrimSpace(cmp.Or(e.Body, e.Title))}
	if v.Text == v.File {
		v.Text = "" // the file is shown on its own
	}
	return v
}

type sessionPage struct {
	ID               string
	Worktree, Branch string
	First, Last      time.Time
	Records          []entryView
	Prompts          []entryView
	// Messages are the transcript's, known from the index.
	Messages     []entryView
	Tools, Files []count
	// What the decisions capability did for the session.
	State        decision.SessionState
	StateWarning string
	Pending      []decision.PendingEntry
	Logged       []recall.Decision
	Summaries    []recall.Recent
	// Usage is the tokens the session's transcripts report; nil when none
	// were found.
	Usage     *usage.Row
	FromIndex bool
	Limit     int
	Truncated bool
	Warning   string
}

// session is one session: its records, prompts, tools and files, its
// conversation, the decisions and summaries made from it and its tokens.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	if err := decision.CheckSessionID(id); err != nil {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	p := sessionPage{ID: id, Limit: s.o.JournalRecords}
	var err error
	if s.o.Index != nil {
		p.Warning = s.catchUp(ctx)
		err = s.sessionFromIndex(ctx, &p)
		if err != nil && !errors.Is(err, index.ErrNoSession) {
			s.o.Log.Warn("dashboard: session from the index", "session", id, "err", err)
			p.Warning = err.Error()
		}
	}
	if !p.FromIndex {
		if err := s.sessionFromJournal(ctx, &p); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	}
	tools, files := map[string]int{}, map[string]int{}
	for _, e := range p.Records {
		if journal.ToolCall(e.Event, e.Tool) {
			tools[e.Tool]++
		}
		if e.File != "" {
			files[e.File]++
		}
	}
	p.Tools, p.Files = counts(tools), counts(files)

	if err := s.sessionDecisions(&p); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if p.Usage == nil {
		if p.Usage, err = s.sessionUsage(ctx, id); err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	}
	if len(p.Records) == 0 && len(p.Messages) == 0 && p.Usage == nil && len(p.State.CapturedSlugs) == 0 && p.State.SkillRanAt == "" &&
		len(p.Pending) == 0 && len(p.Logged) == 0 && len(p.Summaries) == 0 {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	s.render(w, r, http.StatusOK, "session", "sessions", msgSessionTitle.Format(s.o.Lang, textcut.ShortID(id)), p)
}

// sessionFromIndex fills p from the index's detail of the session.
func (s *Server) sessionFromIndex(ctx context.Context, p *sessionPage) error {
	d, err := s.o.Index.SessionDetail(ctx, p.ID)
	if err != nil {
		return err
	}
	p.FromIndex = true
	p.Worktree, p.Branch, p.First, p.Last = cmp0(d.Worktree, s.o.Resume.Main), d.Branch, d.First, d.Last
	for i := range d.Records {
		p.Records = append(p.Records, fromEntry(&d.Records[i]))
	}
	for i := range d.Prompts {
		p.Prompts = append(p.Prompts, fromEntry(&d.Prompts[i]))
	}
	for i := range d.Messages {
		p.Messages = append(p.Messages, fromEntry(&d.Messages[i]))
	}
	p.Truncated = len(d.Records) >= index.MaxDetail || len(d.Messages) >= index.MaxDetail
	p.Limit = index.MaxDetail
	if d.Usage != nil {
		for i := range d.Usage.Rows {
			if d.Usage.Rows[i].Key == p.ID {
				p.Usage = &d.Usage.Rows[i]
			}
		}
	}
	return nil
}

// sessionFromJournal fills p from the journal's newest records of the
// session.
func (s *Server) sessionFromJournal(ctx context.Context, p *sessionPage) error {
	recs, err := s.journal().Tail(ctx, s.o.JournalRecords, journal.TailOptions{
		Match: func(rec *journal.Record) bool { return rec.Session == p.ID },
	})
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	p.Truncated = len(recs) >= s.o.JournalRecords
	for i := range recs {
		rec := &recs[i]
		if p.First.IsZero() {
			p.First = rec.TS
		}
		p.Last = maxTime(p.Last, rec.TS)
		p.Worktree, p.Branch = s.worktreeOf(rec), rec.Branch
		v := fromRecord(rec)
		p.Records = append(p.Records, v)
		if rec.Prompt != "" {
			p.Prompts = append(p.Prompts, v)
		}
	}
	return nil
}

// sessionDecisions reads what the decisions capability and the context
// layers hold about the session: its capture state, pending decisions,
// logged decisions and L1 summaries.
func (s *Server) sessionDecisions(p *sessionPage) error {
	var err error
	if p.State, p.StateWarning, err = decision.LoadState(s.o.State, p.ID); err != nil {
		return err
	}
	pf, err := decision.LoadPending(s.o.State, p.ID)
	if err != nil {
		return err
	}
	p.Pending = pf.Entries
	f, err := recall.FilesFor(s.o.State, s.o.Route)
	if err != nil {
		return err
	}
	logged, err := recall.ReadDecisions(f, true)
	if err != nil {
		return err
	}
	for _, d := range logged {
		if d.Session == p.ID {
			p.Logged = append(p.Logged, d)
		}
	}
	recents, err := readLayer[recall.Recent](f.L1())
	if err != nil {
		return err
	}
	for _, rc := range recents {
		if rc.Session == p.ID {
			p.Summaries = append(p.Summaries, rc)
		}
	}
	return nil
}

// sessionUsage counts the tokens of session id's transcripts (its own and
// its subagents'); nil when it has none.
func (s *Server) sessionUsage(ctx context.Context, id string) (*usage.Row, error) {
	all, err := usage.Files(s.o.TranscriptDirs...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range all {
		if usage.SessionOf(f) == id {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	rep, err := usage.Scan(ctx, files, usage.Options{By: usage.Session, Loc: s.o.Loc})
	if err != nil {
		return nil, err
	}
	for i := range rep.Rows {
		if rep.Rows[i].Key == id {
			return &rep.Rows[i], nil
		}
	}
	return nil, nil
}

// catchUp brings the index up to date before a page reads it. Another
// process catching up is fine: the page shows what is there. Other
// failures are logged and returned as a warning for the page.
func (s *Server) catchUp(ctx context.Context) string {
	err := s.o.Index.CatchUp(ctx, nil)
	if err == nil || errors.Is(err, index.ErrBusy) {
		return ""
	}
	s.o.Log.Warn("dashboard: index catch-up", "err", err)
	return err.Error()
}
