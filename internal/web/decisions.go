package web

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/recall"
)

// postedRow is a session whose decisions went to an issue.
type postedRow struct {
	Session string
	State   decision.SessionState
}

// pendingRow is an approved decision that could not be posted yet.
type pendingRow struct {
	Session  string
	SavedAt  string
	Issue    int
	Decision decision.UserDecision
}

// loggedRow is a decision of the approved-decision log.
type loggedRow struct {
	Route    string
	Decision recall.Decision
	// InMemory: a cross-issue decision's file is in the agent memory
	// folder.
	InMemory bool
}

// waitingRow is a proposal a person seemed to approve, waiting for them
// to confirm it.
type waitingRow struct {
	Route     string
	Candidate recall.Candidate
}

type decisionsPage struct {
	Posted    []postedRow
	Pending   []pendingRow
	Waiting   []waitingRow
	Escalated []loggedRow
	Log       []loggedRow
	MemoryDir string
	Warnings  []string
}

// decisions shows every decision baton knows of: posted to issues, approved
// but not posted yet, waiting for approval, escalated to the agent's
// memory, and the whole approved-decision log.
func (s *Server) decisions(w http.ResponseWriter, r *http.Request) {
	p := decisionsPage{MemoryDir: s.o.MemoryDir}
	ids, err := s.stateSessions()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, id := range ids {
		st, warn, err := decision.LoadState(s.o.State, id)
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		if warn != "" {
			p.Warnings = append(p.Warnings, warn)
		}
		if len(st.CapturedSlugs) > 0 {
			p.Posted = append(p.Posted, postedRow{Session: id, State: st})
		}
	}
	slices.SortFunc(p.Posted, func(a, b postedRow) int { return cmp.Compare(b.State.SkillRanAt, a.State.SkillRanAt) })

	pending, err := decision.PendingSessions(s.o.State)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, id := range pending {
		pf, err := decision.LoadPending(s.o.State, id)
		if err != nil {
			p.Warnings = append(p.Warnings, err.Error())
			continue
		}
		for _, e := range pf.Entries {
			for _, d := range e.Decisions {
				p.Pending = append(p.Pending, pendingRow{Session: id, SavedAt: e.SavedAt, Issue: e.Issue, Decision: d})
			}
		}
	}
	slices.SortFunc(p.Pending, func(a, b pendingRow) int { return cmp.Compare(b.SavedAt, a.SavedAt) })

	routes, err := s.routes()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, route := range routes {
		f, err := recall.FilesFor(s.o.State, route)
		if err != nil {
			continue
		}
		cands, err := recall.Pending(f)
		if err != nil {
			p.Warnings = append(p.Warnings, err.Error())
		}
		for _, c := range cands {
			p.Waiting = append(p.Waiting, waitingRow{Route: route, Candidate: c})
		}
		logged, err := recall.ReadDecisions(f, true)
		if err != nil {
			p.Warnings = append(p.Warnings, err.Error())
		}
		for _, d := range logged {
			row := loggedRow{Route: route, Decision: d}
			if d.Scope == decision.ScopeCrossIssue {
				row.InMemory = s.inMemory(d.Slug)
				p.Escalated = append(p.Escalated, row)
			}
			p.Log = append(p.Log, row)
		}
	}
	newestFirst := func(a, b loggedRow) int {
		return cmp.Or(cmp.Compare(b.Decision.Date, a.Decision.Date), b.Decision.TS.Compare(a.Decision.TS))
	}
	slices.SortStableFunc(p.Log, newestFirst)
	slices.SortStableFunc(p.Escalated, newestFirst)
	s.render(w, r, http.StatusOK, "decisions", "decisions", msgNavDecisions.In(s.o.Lang), p)
}

// stateSessions lists the sessions that have a decision state file.
func (s *Server) stateSessions() ([]string, error) {
	entries, err := os.ReadDir(s.o.State.Sessions())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list session states: %w", err)
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".pending-decisions.json") {
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || decision.CheckSessionID(id) != nil || decision.StatePath(s.o.State, id) != filepath.Join(s.o.State.Sessions(), name) {
			continue
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// inMemory reports whether the decision slug has its file in the agent
// memory folder.
func (s *Server) inMemory(slug string) bool {
	if s.o.MemoryDir == "" || !decision.ValidSlug(slug) {
		return false
	}
	_, err := os.Stat(filepath.Join(s.o.MemoryDir, decision.MemoryFileName(slug)))
	return err == nil
}
