package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
)

// sessionRow is one session in the timeline.
type sessionRow struct {
	ID               string
	Worktree, Branch string
	First, Last      time.Time
	Records, Prompts int
	Tools, Files     int
	LastPrompt       string
	Ended            bool
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
	Briefing         string
	Groups           []worktreeGroup
	// Limit is how many journal records were read; Truncated says the
	// journal holds more.
	Limit     int
	Truncated bool
}

// journal opens the repository's journal for reading.
func (s *Server) journal() *journal.Journal {
	return journal.Open(s.o.State.Root, journal.Options{})
}

// worktreeOf is the worktree a record belongs to: records that name none
// were written by older hooks in the main worktree.
func (s *Server) worktreeOf(r *journal.Record) string {
	if r.Worktree != "" {
		return r.Worktree
	}
	return s.o.Resume.Main
}

// sessionsFromJournal groups the journal's newest records by worktree,
// branch and session.
func (s *Server) sessionsFromJournal(ctx context.Context) ([]worktreeGroup, bool, error) {
	recs, err := s.journal().Tail(ctx, s.o.JournalRecords, journal.TailOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("read journal: %w", err)
	}
	type key struct{ worktree, branch string }
	groups := map[key]*worktreeGroup{}
	rows := map[string]*sessionRow{}
	files := map[string]map[string]bool{}
	var order []key
	for i := range recs {
		r := &recs[i]
		k := key{s.worktreeOf(r), r.Branch}
		g, ok := groups[k]
		if !ok {
			g = &worktreeGroup{Worktree: k.worktree, Branch: k.branch}
			groups[k] = g
			order = append(order, k)
		}
		g.Last = maxTime(g.Last, r.TS)
		id := r.Session + "\x00" + k.worktree + "\x00" + k.branch
		row, ok := rows[id]
		if !ok {
			row = &sessionRow{ID: r.Session, Worktree: k.worktree, Branch: k.branch, First: r.TS}
			rows[id] = row
			files[id] = map[string]bool{}
		}
		row.Last = maxTime(row.Last, r.TS)
		row.Records++
		switch {
		case r.Prompt != "":
			row.Prompts++
			row.LastPrompt = r.Prompt
		case r.Tool != "":
			row.Tools++
		}
		if r.File != "" {
			files[id][r.File] = true
		}
		switch r.Event {
		case "SessionEnd":
			row.Ended = true
		case "SessionStart":
			row.Ended = false
		}
	}
	for id, row := range rows {
		row.Files = len(files[id])
		k := key{row.Worktree, row.Branch}
		groups[k].Sessions = append(groups[k].Sessions, *row)
	}
	out := make([]worktreeGroup, 0, len(order))
	for _, k := range order {
		g := groups[k]
		slices.SortFunc(g.Sessions, func(a, b sessionRow) int { return b.Last.Compare(a.Last) })
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b worktreeGroup) int { return b.Last.Compare(a.Last) })
	return out, len(recs) >= s.o.JournalRecords, nil
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
	groups, truncated, err := s.sessionsFromJournal(ctx)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := sessionsPage{Worktree: s.o.Resume.Worktree, Branch: s.o.Resume.Branch, Groups: groups, Limit: s.o.JournalRecords, Truncated: truncated}
	// Another worktree's briefing, when asked for one the journal knows.
	if want := r.URL.Query().Get("worktree"); want != "" {
		for _, g := range groups {
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
	if b, err := resume.Build(ctx, o); err != nil {
		s.o.Log.Warn("dashboard: resume briefing", "worktree", p.Worktree, "err", err)
	} else {
		p.Briefing = b.Text(s.o.Lang)
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

type sessionPage struct {
	ID               string
	Worktree, Branch string
	First, Last      time.Time
	Records          []journal.Record
	Prompts          []journal.Record
	Tools, Files     []count
	// What the decisions capability did for the session.
	State        decision.SessionState
	StateWarning string
	Pending      []decision.PendingEntry
	Logged       []recall.Decision
	Summaries    []recall.Recent
	Limit        int
	Truncated    bool
}

// session is one session: its records, prompts, tools and files, and the
// decisions and summaries made from it.
func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	if err := decision.CheckSessionID(id); err != nil {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	recs, err := s.journal().Tail(ctx, s.o.JournalRecords, journal.TailOptions{
		Match: func(rec *journal.Record) bool { return rec.Session == id },
	})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, fmt.Errorf("read journal: %w", err))
		return
	}
	p := sessionPage{ID: id, Records: recs, Limit: s.o.JournalRecords, Truncated: len(recs) >= s.o.JournalRecords}
	tools, files := map[string]int{}, map[string]int{}
	for i := range recs {
		rec := &recs[i]
		if p.First.IsZero() {
			p.First = rec.TS
		}
		p.Last = maxTime(p.Last, rec.TS)
		p.Worktree, p.Branch = s.worktreeOf(rec), rec.Branch
		if rec.Prompt != "" {
			p.Prompts = append(p.Prompts, *rec)
		}
		if rec.Tool != "" {
			tools[rec.Tool]++
		}
		if rec.File != "" {
			files[rec.File]++
		}
	}
	p.Tools, p.Files = counts(tools), counts(files)

	p.State, p.StateWarning, err = decision.LoadState(s.o.State, id)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	pf, err := decision.LoadPending(s.o.State, id)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Pending = pf.Entries
	f, err := recall.FilesFor(s.o.State, s.o.Route)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	logged, err := recall.ReadDecisions(f, true)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, d := range logged {
		if d.Session == id {
			p.Logged = append(p.Logged, d)
		}
	}
	recents, err := readLayer[recall.Recent](f.L1())
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, rc := range recents {
		if rc.Session == id {
			p.Summaries = append(p.Summaries, rc)
		}
	}
	if len(recs) == 0 && len(p.State.CapturedSlugs) == 0 && p.State.SkillRanAt == "" && len(p.Pending) == 0 && len(p.Logged) == 0 && len(p.Summaries) == 0 {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	s.render(w, r, http.StatusOK, "session", "sessions", msgSessionTitle.Format(s.o.Lang, shortID(id)), p)
}
