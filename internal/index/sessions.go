package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/journal"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/usage"
)

// SessionFilter narrows a timeline.
type SessionFilter struct {
	// Worktree and Branch, when set, keep only the sessions last seen
	// there.
	Worktree, Branch string
	// Since keeps the sessions active since then.
	Since time.Time
	// Limit is how many of the most recent sessions (default 100);
	// Offset skips the most recent ones.
	Limit, Offset int
}

// Session is one agent session as the index knows it.
type Session struct {
	ID       string
	Worktree string
	Branch   string
	// First and Last are the times of its first and last record or
	// message.
	First, Last time.Time
	// Records counts its journal records, of which Prompts are prompts and
	// Tools tool calls; Messages counts its transcript's prompts and
	// answers (not the lines holding only tool calls or results), or, when
	// no transcript of it is indexed, the answers its Stop records kept.
	Records, Prompts, Tools, Messages int
	// Transcript is the path of its transcript (another agent's: its
	// session file), when known.
	Transcript string
	// Agent is the CLI the session ran in.
	Agent agentlog.Agent
}

// Sessions returns the timeline: sessions, most recently active first.
func (ix *Index) Sessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	where := []string{"1 = 1"}
	var args []any
	if f.Worktree != "" {
		where = append(where, "worktree = ?")
		args = append(args, f.Worktree)
	}
	if f.Branch != "" {
		where = append(where, "branch = ?")
		args = append(args, f.Branch)
	}
	if !f.Since.IsZero() {
		where = append(where, "last >= ?")
		args = append(args, f.Since.UnixMilli())
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, worktree, branch, first, last, records, prompts, tools, CASE WHEN messages > 0 THEN messages ELSE answers END, transcript, agent
		FROM sessions WHERE `+strings.Join(where, " AND ")+` ORDER BY last DESC, id LIMIT ? OFFSET ?`,
		append(args, limit, max(f.Offset, 0))...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", classify(err))
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", classify(err))
	}
	return out, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (Session, error) {
	var s Session
	var first, last int64
	var agent string
	err := r.Scan(&s.ID, &s.Worktree, &s.Branch, &first, &last, &s.Records, &s.Prompts, &s.Tools, &s.Messages, &s.Transcript, &agent)
	s.Agent = agentlog.Claude
	if agent != "" {
		s.Agent = agentlog.Agent(agent)
	}
	if first != 0 {
		s.First = time.UnixMilli(first)
	}
	if last != 0 {
		s.Last = time.UnixMilli(last)
	}
	return s, err
}

// Entry is one document of a session, in time order.
type Entry struct {
	Kind  Kind
	Time  time.Time
	Event string
	Tool  string
	File  string
	Issue int
	Title string
	Body  string
	Ref   string
}

// SessionDetail is everything the index holds about one session.
type SessionDetail struct {
	Session
	// Records are its journal records, oldest first.
	Records []Entry
	// Prompts are the person's prompts, from the journal, else from the
	// transcript.
	Prompts []Entry
	// Tools counts the tool calls by tool name.
	Tools map[string]int
	// Files are the files its tools touched, in the order first touched.
	Files []string
	// Decisions and Summaries name the session.
	Decisions []Entry
	Summaries []Entry
	// Messages are its transcript's prompts and answers, oldest first.
	Messages []Entry
	// Usage is the tokens its transcript records, per model; nil when the
	// transcript is not at hand.
	Usage *usage.Report
}

// ErrNoSession means the index knows no session of that id.
var ErrNoSession = errors.New("no such session")

// MaxDetail is the most documents of each kind SessionDetail returns.
const MaxDetail = 5000

// SessionDetail returns what the index holds about session id.
func (ix *Index) SessionDetail(ctx context.Context, id string) (*SessionDetail, error) {
	row := ix.db.QueryRowContext(ctx, `SELECT id, worktree, branch, first, last, records, prompts, tools, CASE WHEN messages > 0 THEN messages ELSE answers END, transcript, agent
		FROM sessions WHERE id = ?`, id)
	s, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, classify(err))
	}
	d := &SessionDetail{Session: s, Tools: map[string]int{}}
	rows, err := ix.db.QueryContext(ctx, `SELECT kind, ts, event, tool, file, issue, title, body, ref FROM docs
		WHERE session = ? ORDER BY ts, id LIMIT ?`, id, 6*MaxDetail)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, classify(err))
	}
	defer rows.Close()
	seenFile := map[string]bool{}
	for rows.Next() {
		var e Entry
		var kind string
		var ts int64
		if err := rows.Scan(&kind, &ts, &e.Event, &e.Tool, &e.File, &e.Issue, &e.Title, &e.Body, &e.Ref); err != nil {
			return nil, fmt.Errorf("session %s: %w", id, classify(err))
		}
		e.Kind = Kind(kind)
		if ts != 0 {
			e.Time = time.UnixMilli(ts)
		}
		switch e.Kind {
		case KindJournal:
			d.Records = appendMax(d.Records, e)
			if e.Event == "UserPromptSubmit" {
				d.Prompts = appendMax(d.Prompts, e)
			}
			if journal.ToolCall(e.Event, e.Tool) {
				d.Tools[e.Tool]++
			}
			if e.File != "" && !seenFile[e.File] {
				seenFile[e.File] = true
				d.Files = append(d.Files, e.File)
			}
		case KindTranscript:
			if e.Event != eventTool {
				d.Messages = appendMax(d.Messages, e)
			}
		case KindDecision:
			d.Decisions = appendMax(d.Decisions, e)
		case KindSummary:
			d.Summaries = appendMax(d.Summaries, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, classify(err))
	}
	if len(d.Prompts) == 0 {
		for _, m := range d.Messages {
			if m.Event == "user" && m.Tool == "" {
				d.Prompts = appendMax(d.Prompts, m)
			}
		}
	}
	if s.Transcript != "" {
		if _, err := os.Stat(s.Transcript); err == nil {
			rep, err := usage.Scan(ctx, []string{s.Transcript}, usage.Options{By: usage.Session})
			if err == nil {
				d.Usage = rep
			}
		}
	}
	slices.SortStableFunc(d.Decisions, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	return d, nil
}

func appendMax(s []Entry, e Entry) []Entry {
	if len(s) >= MaxDetail {
		return s
	}
	return append(s, e)
}
