package recall

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Maker makes a route's L1 and L2 entries. It is used by commands and
// detached jobs, never on a hook's path: a summarizer may take seconds.
type Maker struct {
	Files Files
	// Journal holds the route's records; nil when they come from a host's
	// session log (Entries in the options).
	Journal *journal.Journal
	// Recent and Daily write L1 and L2.
	Recent, Daily Summarizer
	Phrases       []string
	// Records is how many of the newest records an L1 entry is made from.
	Records int
	Lang    i18n.Lang
	Now     func() time.Time
	Log     *slog.Logger
}

// Bounds of the journal reads of a job.
const (
	// sessionScanBytes is how far back an L1 job looks for its session's
	// records, goal and approvals.
	sessionScanBytes = 16 << 20
	// sessionScanRecords is how many of the session's records it reads.
	sessionScanRecords = 400
	// dayScanBytes is how far back a daily job looks for a day's records.
	dayScanBytes = 256 << 20
	// dayScanRecords bounds the records of one day a daily job reads.
	dayScanRecords = 200000
)

// RecentOptions say what an L1 entry is made of.
type RecentOptions struct {
	// Session limits the records to one session; empty takes the route's
	// newest records whatever their session.
	Session string
	// Trigger says what asked for the entry: PreCompact, SessionEnd,
	// manual.
	Trigger string
	// Entries, when set, are the records (a host's session log) instead of
	// the journal's.
	Entries []Entry
	// Task is the worktree's task, when known: the entry's goal is it, not
	// the newest prompt ("go on", "status?").
	Task string
}

// MakeRecent makes an L1 entry from the newest records and appends it, and
// records the approval candidates found in them. It writes nothing and
// returns ok false when there are no records, when a session's are only
// talk (no tool call, no request for work: "hello", "where are we?"), or
// when the newest entry already covers the same records (unless this one
// is for a compaction and that one is not). A summarizer error leaves the
// layer as it was.
func (m *Maker) MakeRecent(ctx context.Context, o RecentOptions) (r Recent, ok bool, err error) {
	now := m.Now()
	all := o.Entries
	if all == nil && m.Journal != nil {
		if all, err = m.sessionEntries(ctx, o.Session); err != nil {
			return r, false, err
		}
	}
	if len(all) == 0 {
		return r, false, nil
	}
	if _, err := AddCandidates(m.Files, FindCandidates(all, m.Phrases), now); err != nil {
		m.Log.Warn("record approval candidates", "err", err)
	}
	if o.Entries == nil && chatOnly(all) {
		// A session that only greeted or asked ("hello", "where are
		// we?"): nothing of the work to sum up, and its entry would stand
		// in for the last one that had some. (A host's chat thread is its
		// work.)
		return r, false, nil
	}
	entries := all
	if len(entries) > m.Records {
		entries = entries[len(entries)-m.Records:]
	}
	last := entries[len(entries)-1]
	// The same records summarized again say nothing new, except that a
	// compaction leaves an entry of its own: it marks the summary the
	// compacted session goes on from.
	if prev, has, err := lastOf[Recent](m.Files.L1(), layerReadBytes); err == nil && has &&
		prev.Session == o.Session && prev.To.Equal(last.TS) && prev.Records == len(entries) &&
		(o.Trigger != evPreCompact || prev.Trigger == evPreCompact) {
		return prev, false, nil
	}

	in := Input{Layer: L1, Route: m.Files.Route, Lang: m.Lang, Loc: now.Location(), Entries: entries, Phrases: m.Phrases}
	for i := len(all) - 1; i >= 0 && in.Goal == ""; i-- {
		if p := all[i].Prompt; p != "" && !IsApproval(p, m.Phrases) {
			in.Goal = p
		}
	}
	pending, err := Pending(m.Files)
	if err != nil {
		m.Log.Warn("read approval candidates", "err", err)
	}
	for _, c := range pending {
		if o.Session == "" || c.Session == o.Session {
			in.Pending = append(in.Pending, msgAwaiting.Format(m.Lang, textcut.Chars(firstSentence(c.Proposal), 120)+" [baton context approve "+c.ID+"]"))
		}
	}
	out, err := m.Recent.Summarize(ctx, in)
	if err != nil {
		return r, false, fmt.Errorf("summarize recent activity: %w", err)
	}
	r = Recent{
		TS: now, Route: m.Files.Route, Session: o.Session, Trigger: o.Trigger,
		Summarizer: summarizerName(m.Recent, out), From: entries[0].TS, To: last.TS, Records: len(entries),
	}
	r.setSections(out.Sections)
	if o.Task != "" {
		r.Goal = cutItem(o.Task)
	}
	if err := appendLine(m.Files.L1(), r); err != nil {
		return r, false, err
	}
	return r, true, nil
}

// chatOnly reports whether entries hold only talk: no tool call, and every
// prompt a greeting, an acknowledgement, a question or a slash command
// (wtstate.IsTalk).
func chatOnly(entries []Entry) bool {
	for i := range entries {
		e := &entries[i]
		if journal.ToolCall(e.Event, e.Tool) || e.Prompt != "" && !wtstate.IsTalk(e.Prompt) {
			return false
		}
	}
	return true
}

// FindApprovals records the approval candidates among a session's newest
// records (see FindCandidates) and returns how many are new. It is what the
// Stop after an approving prompt starts in the background, so that
// `baton context approve` finds the proposal at once.
func (m *Maker) FindApprovals(ctx context.Context, session string) (int, error) {
	all, err := m.sessionEntries(ctx, session)
	if err != nil {
		return 0, err
	}
	return AddCandidates(m.Files, FindCandidates(all, m.Phrases), m.Now())
}

// sessionEntries reads the newest activity records of a session (or of the
// route, for an empty session) from the journal.
func (m *Maker) sessionEntries(ctx context.Context, session string) ([]Entry, error) {
	recs, err := m.Journal.Tail(ctx, sessionScanRecords, journal.TailOptions{
		MaxBytes: sessionScanBytes,
		Match: func(r *journal.Record) bool {
			return isActivityRecord(r) && (session == "" || r.Session == session)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	out := make([]Entry, len(recs))
	for i := range recs {
		out[i] = FromRecord(&recs[i])
	}
	return out, nil
}

// DailyOptions say which day an L2 entry is made for.
type DailyOptions struct {
	// Day is YYYY-MM-DD in the clock's time zone.
	Day string
	// Entries, when set, are the records (a host's session log) instead of
	// the journal's; those of other days are ignored.
	Entries []Entry
}

// MakeDaily makes the L2 entry of a day from the newest earlier day's
// entry, the day's records, its L1 entries and its decisions, and appends
// it. It is safe to run again for the same day: when the records at hand
// are fewer than the existing entry was made from (the journal lost some),
// or the same with the same summarizer, it writes nothing and returns ok
// false. A summarizer error leaves the layer as it was.
func (m *Maker) MakeDaily(ctx context.Context, o DailyOptions) (d Daily, ok bool, err error) {
	now := m.Now()
	loc := now.Location()
	start, err := time.ParseInLocation(DateLayout, o.Day, loc)
	if err != nil {
		return d, false, fmt.Errorf("day %q: want YYYY-MM-DD", o.Day)
	}
	end := start.AddDate(0, 0, 1)
	inDay := func(t time.Time) bool { return !t.Before(start) && t.Before(end) }

	var entries []Entry
	if o.Entries != nil {
		for _, e := range o.Entries {
			if inDay(e.TS) {
				entries = append(entries, e)
			}
		}
	} else if m.Journal != nil {
		recs, err := m.Journal.Tail(ctx, dayScanRecords, journal.TailOptions{
			MaxBytes: dayScanBytes,
			Match:    func(r *journal.Record) bool { return inDay(r.TS) && (isActivityRecord(r) || r.Event == evSessionStart) },
		})
		if err != nil {
			return d, false, fmt.Errorf("read journal: %w", err)
		}
		for i := range recs {
			entries = append(entries, FromRecord(&recs[i]))
		}
	}
	recents, err := readAll[Recent](m.Files.L1(), 8<<20)
	if err != nil {
		return d, false, err
	}
	var dayRecents []Recent
	for _, r := range recents {
		if inDay(r.TS) {
			dayRecents = append(dayRecents, r)
		}
	}
	decisions, err := ReadDecisions(m.Files, true)
	if err != nil {
		return d, false, err
	}
	var dayDecisions []Decision
	for _, x := range decisions {
		if x.Date == o.Day {
			dayDecisions = append(dayDecisions, x)
		}
	}
	records := 0
	for i := range entries {
		if isActivity(&entries[i]) {
			records++
		}
	}
	if records == 0 && len(dayRecents) == 0 && len(dayDecisions) == 0 {
		return d, false, nil
	}

	if have, has, err := newestDaily(m.Files, o.Day); err != nil {
		return d, false, err
	} else if has && (have.Records > records || (have.Records == records && have.Summarizer == m.Daily.Name())) {
		return have, false, nil
	}

	in := Input{Layer: L2, Route: m.Files.Route, Lang: m.Lang, Loc: loc, Entries: entries, Phrases: m.Phrases, Recents: dayRecents, Decisions: dayDecisions}
	if prev, has, err := m.previousDaily(o.Day); err != nil {
		return d, false, err
	} else if has {
		in.Previous = &prev
	}
	pending, err := Pending(m.Files)
	if err != nil {
		m.Log.Warn("read approval candidates", "err", err)
	}
	for _, c := range pending {
		if inDay(c.TS) {
			in.Pending = append(in.Pending, textcut.Chars(firstSentence(c.Proposal), 120))
		}
	}
	out, err := m.Daily.Summarize(ctx, in)
	if err != nil {
		return d, false, fmt.Errorf("summarize the day: %w", err)
	}
	d = Daily{TS: now, Route: m.Files.Route, Date: o.Day, Summarizer: summarizerName(m.Daily, out), Records: records}
	d.setSections(out.Sections)
	if err := appendLine(m.Files.L2(), d); err != nil {
		return d, false, err
	}
	return d, true, nil
}

// previousDaily is the newest L2 entry of a day before day.
func (m *Maker) previousDaily(day string) (Daily, bool, error) {
	all, err := readAll[Daily](m.Files.L2(), layerReadBytes)
	if err != nil {
		return Daily{}, false, err
	}
	var best Daily
	ok := false
	for _, d := range all {
		if d.Date < day && (!ok || d.Date >= best.Date) {
			best, ok = d, true
		}
	}
	return best, ok, nil
}
