package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/slackthread"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/tracker"
)

// Pull targets, as <<FETCH>> tags and MCP tools name them.
const (
	TargetSessionLog    = "session_log"
	TargetIssueBody     = "issue_body"
	TargetThreadHistory = "thread_history"
)

// Pull limits.
const (
	// DefaultDepth is the depth of a pull that names none, when the cap
	// allows it.
	DefaultDepth = 20
	// maxComment is the most characters of one issue comment or body
	// returned; a cut is marked.
	maxComment = 8000
	// pullScanBytes bounds how far back in the journal a pull reads.
	pullScanBytes = 64 << 20
)

// ErrNotConfigured means a pull needs a service baton was not given.
var ErrNotConfigured = errors.New("not configured")

// Puller answers on-demand requests for context. Everything it returns is
// redacted. Its fields are read only.
type Puller struct {
	State state.Dir
	Route string
	// MaxDepth caps every pull's depth.
	MaxDepth int
	Lang     i18n.Lang
	// Tracker opens the issue tracker for issue_body and a function that
	// closes it; nil when there is none.
	Tracker func(ctx context.Context) (t tracker.Tracker, closeFn func() error, err error)
	// Slack opens the Slack client for thread_history; nil when there is
	// no token.
	Slack func() (SlackReader, error)
	// SlackChannel is the channel of a thread request that names none.
	SlackChannel string
	// Index searches the search index; nil, or ErrNoIndex when there is
	// none, makes Search read the layer files and the journal instead.
	Index func(ctx context.Context, query string, limit int) (string, error)
	// Shared, when set, returns the decisions teammates shared through the
	// repository's remote (their sources say who shared them) and the
	// function hiding the route's own decisions a teammate retracted (nil
	// when none was).
	Shared func() ([]Decision, func(*Decision) bool, error)
}

// SlackReader reads Slack threads for thread_history (the Slack client,
// slackapi.Client, is one).
type SlackReader interface {
	// Replies reads the thread ts of channel: its first message and the
	// newest replies, at most depth messages in all.
	Replies(ctx context.Context, channel, ts string, depth int) (*slackthread.Thread, error)
}

// ErrNoIndex means there is no search index to ask.
var ErrNoIndex = errors.New("no search index")

// Depth applies the default and the cap to a requested depth and says
// whether it was capped.
func (p *Puller) Depth(asked int) (depth int, capped bool) {
	limit := p.MaxDepth
	if limit <= 0 {
		limit = 50
	}
	switch {
	case asked <= 0:
		return min(DefaultDepth, limit), false
	case asked > limit:
		return limit, true
	}
	return asked, false
}

// SessionLogQuery narrows session_log.
type SessionLogQuery struct {
	Depth   int
	Session string
	Event   string
}

// SessionLog returns the newest journal records (PreToolUse, which repeats
// its PostToolUse, left out) as JSON lines, oldest first.
func (p *Puller) SessionLog(ctx context.Context, q SessionLogQuery) (string, error) {
	depth, _ := p.Depth(q.Depth)
	recs, err := journal.Open(p.State.Root, journal.Options{}).Tail(ctx, depth, journal.TailOptions{
		MaxBytes: pullScanBytes,
		Match: func(r *journal.Record) bool {
			return r.Event != evPreTool && (q.Session == "" || r.Session == q.Session) && (q.Event == "" || r.Event == q.Event)
		},
	})
	if err != nil {
		return "", fmt.Errorf("session log: %w", err)
	}
	var b strings.Builder
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("session log: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if len(recs) == 0 {
		return msgNoRecords.In(p.Lang), nil
	}
	return redact.Redact(b.String()), nil
}

var (
	msgNoRecords  = i18n.Msg{JA: "（該当する記録はありません）", EN: "(no matching records)"}
	msgNoTracker  = i18n.Msg{JA: "課題トラッカーがありません（tracker.kind を設定してください）", EN: "no issue tracker is configured (see tracker.kind)"}
	msgNoSlack    = i18n.Msg{JA: "Slack が設定されていません（SLACK_BOT_TOKEN）", EN: "Slack is not configured (set SLACK_BOT_TOKEN)"}
	msgNoChannel  = i18n.Msg{JA: "チャンネルの指定がありません（channel か context.slack_channel）", EN: "no channel given (channel, or context.slack_channel)"}
	msgOmitted    = i18n.Msg{JA: "（古いコメント %d 件を省略）", EN: "(%d older comment(s) left out)"}
	msgOmittedMsg = i18n.Msg{JA: "（途中の %d 件を省略）", EN: "(%d message(s) in between left out)"}
	msgCut        = i18n.Msg{JA: "…（以下省略）", EN: "… (cut)"}
)

// IssueBody returns an issue with its newest depth comments.
func (p *Puller) IssueBody(ctx context.Context, number, depth int) (string, error) {
	if number <= 0 {
		return "", fmt.Errorf("issue number %d: want a positive number", number)
	}
	if p.Tracker == nil {
		return "", fmt.Errorf("issue_body: %w: %s", ErrNotConfigured, msgNoTracker.In(p.Lang))
	}
	depth, _ = p.Depth(depth)
	t, closeFn, err := p.Tracker(ctx)
	if err != nil {
		return "", p.trackerError(err)
	}
	defer closeFn()
	is, err := t.Issue(ctx, number)
	if err != nil {
		return "", p.trackerError(err)
	}
	cs, err := t.Comments(ctx, number)
	if err != nil {
		return "", p.trackerError(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# #%d %s [%s]\n", is.Number, is.Title, is.State)
	if len(is.Labels) > 0 {
		fmt.Fprintf(&b, "labels: %s\n", strings.Join(is.Labels, ", "))
	}
	if is.URL != "" {
		fmt.Fprintf(&b, "%s\n", is.URL)
	}
	fmt.Fprintf(&b, "by %s, %s\n\n%s\n", is.Author, is.CreatedAt.UTC().Format("2006-01-02 15:04"), p.cutText(is.Body))
	if len(cs) > depth {
		fmt.Fprintf(&b, "\n%s\n", msgOmitted.Format(p.Lang, len(cs)-depth))
		cs = cs[len(cs)-depth:]
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "\n## %s, %s\n%s\n", c.Author, c.CreatedAt.UTC().Format("2006-01-02 15:04"), p.cutText(c.Body))
	}
	return redact.Redact(b.String()), nil
}

func (p *Puller) cutText(s string) string {
	if len([]rune(s)) <= maxComment {
		return s
	}
	return textcut.Chars(s, maxComment-1) + msgCut.In(p.Lang)
}

func (p *Puller) trackerError(err error) error {
	kind := tracker.KindOf(err)
	return fmt.Errorf("issue_body: %s (%s)", tracker.Summary(err), tracker.Hint(kind, p.Lang))
}

// ThreadHistory returns a Slack thread's first message and newest replies.
func (p *Puller) ThreadHistory(ctx context.Context, channel, ts string, depth int) (string, error) {
	if p.Slack == nil {
		return "", fmt.Errorf("thread_history: %w: %s", ErrNotConfigured, msgNoSlack.In(p.Lang))
	}
	if channel == "" {
		channel = p.SlackChannel
	}
	if channel == "" {
		return "", fmt.Errorf("thread_history: %s", msgNoChannel.In(p.Lang))
	}
	if err := checkChannel(channel); err != nil {
		return "", err
	}
	if err := checkThreadTS(ts); err != nil {
		return "", err
	}
	depth, _ = p.Depth(depth)
	c, err := p.Slack()
	if err != nil {
		return "", fmt.Errorf("thread_history: %w", err)
	}
	th, err := c.Replies(ctx, channel, ts, depth)
	if err != nil {
		return "", fmt.Errorf("thread_history: %s", textcut.Chars(redact.Redact(err.Error()), 300))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# thread %s in %s (%d messages)\n", ts, channel, th.Total)
	for i, m := range th.Messages {
		if i == 1 && th.Omitted > 0 {
			fmt.Fprintf(&b, "%s\n", msgOmittedMsg.Format(p.Lang, th.Omitted))
		}
		who := firstNonEmpty(m.User, m.Username, m.BotID, "?")
		fmt.Fprintf(&b, "[%s] %s: %s\n", slackTime(m.TS), who, p.cutText(m.Text))
	}
	return redact.Redact(b.String()), nil
}

// slackTime shows a message ts ("1778246185.616809") as a UTC time.
func slackTime(ts string) string {
	sec, _, _ := strings.Cut(ts, ".")
	var n int64
	if _, err := fmt.Sscan(sec, &n); err != nil {
		return ts
	}
	return time.Unix(n, 0).UTC().Format("2006-01-02 15:04")
}

// DecisionQuery narrows the decisions pull.
type DecisionQuery struct {
	// Query keeps decisions whose text holds every word of it (any case).
	Query string
	// Since keeps decisions of that day (YYYY-MM-DD) or later.
	Since string
	// Source keeps decisions whose source text holds it ("issue #12").
	Source string
	// Archived includes the archive.
	Archived bool
	// Limit keeps the newest ones (capped like a depth).
	Limit int
}

// Decisions returns the route's approved decisions in the log's text
// format, oldest first.
func (p *Puller) Decisions(_ context.Context, q DecisionQuery) (string, error) {
	f, err := FilesFor(p.State, p.Route)
	if err != nil {
		return "", err
	}
	all, err := ReadDecisions(f, q.Archived)
	if err != nil {
		return "", err
	}
	if p.Shared != nil {
		team, hide, err := p.Shared()
		if err != nil {
			return "", err
		}
		if hide != nil {
			all = slices.DeleteFunc(all, func(d Decision) bool { return hide(&d) })
		}
		// Oldest first, by the day approved, own ones first within a day.
		all = append(all, team...)
		slices.SortStableFunc(all, func(a, b Decision) int { return strings.Compare(a.Date, b.Date) })
	}
	words := strings.Fields(strings.ToLower(q.Query))
	var keep []string
	for _, d := range all {
		line := d.Line()
		switch {
		case q.Since != "" && d.Date < q.Since:
			continue
		case q.Source != "" && !strings.Contains(strings.ToLower(d.SourceText()), strings.ToLower(q.Source)):
			continue
		case !hasAll(strings.ToLower(line+" "+d.Slug), words):
			continue
		}
		keep = append(keep, line)
	}
	limit, _ := p.Depth(q.Limit)
	if q.Limit <= 0 {
		limit = p.MaxDepth
		if limit <= 0 {
			limit = 50
		}
	}
	if len(keep) > limit {
		keep = keep[len(keep)-limit:]
	}
	if len(keep) == 0 {
		return msgNoRecords.In(p.Lang), nil
	}
	return redact.Redact(strings.Join(keep, "\n")), nil
}

func hasAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// Search asks the search index when there is one; else it finds query's
// words (all of them, any case) in the route's layers, the decision archive
// included, and in the journal's newest records, and returns up to limit
// hits, newest first.
func (p *Puller) Search(ctx context.Context, query string, limit int) (string, error) {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return "", errors.New("search: empty query")
	}
	limit, _ = p.Depth(limit)
	if p.Index != nil {
		text, err := p.Index(ctx, query, limit)
		if !errors.Is(err, ErrNoIndex) {
			return redact.Redact(text), err
		}
	}
	f, err := FilesFor(p.State, p.Route)
	if err != nil {
		return "", err
	}
	type hit struct {
		at   time.Time
		text string
	}
	var hits []hit
	add := func(at time.Time, kind, text string) {
		if hasAll(strings.ToLower(text), words) {
			hits = append(hits, hit{at, "[" + kind + "] " + textcut.OneLine(text)})
		}
	}
	ds, err := ReadDecisions(f, true)
	if err != nil {
		return "", err
	}
	for _, d := range ds {
		at, _ := time.Parse(DateLayout, d.Date)
		add(at, "L3", d.Line())
	}
	recents, err := readAll[Recent](f.L1(), 8<<20)
	if err != nil {
		return "", err
	}
	for _, r := range recents {
		add(r.TS, "L1 "+r.TS.UTC().Format("2006-01-02 15:04"), r.Text())
	}
	dailies, err := readAll[Daily](f.L2(), 8<<20)
	if err != nil {
		return "", err
	}
	for _, d := range dailies {
		add(d.TS, "L2 "+d.Date, d.Text())
	}
	recs, err := journal.Open(p.State.Root, journal.Options{}).Tail(ctx, 5000, journal.TailOptions{
		MaxBytes: pullScanBytes,
		Match: func(r *journal.Record) bool {
			return isActivityRecord(r) && hasAll(strings.ToLower(r.File+" "+r.Desc+" "+r.Prompt+" "+r.Message), words)
		},
	})
	if err != nil {
		return "", fmt.Errorf("search: %w", err)
	}
	for _, r := range recs {
		e := FromRecord(&r)
		add(r.TS, "journal", entryLine(e, time.UTC))
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.at.Compare(a.at) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	if len(hits) == 0 {
		return msgNoRecords.In(p.Lang), nil
	}
	lines := make([]string, len(hits))
	for i, h := range hits {
		lines[i] = textcut.Chars(h.text, 600)
	}
	return redact.Redact(strings.Join(lines, "\n")), nil
}
