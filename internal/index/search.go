package index

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/textnorm"
)

// Query is a search.
type Query struct {
	// Text is the FTS5 query.
	Text string
	// Kinds limits the kinds of documents; empty means all.
	Kinds []Kind
	// Since drops documents older than this; zero keeps all.
	Since time.Time
	// Limit is the page size (default DefaultLimit, at most MaxLimit);
	// Offset the number of hits skipped.
	Limit, Offset int
	// Newest orders the hits newest first instead of best first.
	Newest bool
}

// Paging bounds.
const (
	DefaultLimit = 20
	MaxLimit     = 500
	// CountLimit is how far a search counts the documents matching. A
	// common word matches most documents, and counting them all took as
	// long as ranking its page; past this, a count says only "more".
	CountLimit = 10_000
)

// Results are one page of hits.
type Results struct {
	Hits []Hit
	// Total is how many documents match, across all pages, counted up to
	// CountLimit or to the end of the page asked for, whichever is
	// further; More says that more than Total match.
	Total int
	More  bool
	// Ranked is true when the hits come best first, false when newest
	// first (Query.Newest).
	Ranked bool
	// Relaxed says that no document holds every word of the query, and
	// that the hits hold some of Words instead (the query's words without
	// its stop words, English endings left open), best first: a question
	// asked in plain words finds what answers it.
	Relaxed bool
	Words   []string
}

// Hit is one document found.
type Hit struct {
	Kind     Kind
	Session  string
	Time     time.Time
	Worktree string
	Branch   string
	File     string
	Issue    int
	// Event is the journal event, the transcript role, the decision's
	// state (approved, pending), the layer (l1, l2), the run's state or
	// the debate file's role.
	Event string
	Title string
	// Snippet is an excerpt of the document around the first match, the
	// matches marked.
	Snippet []Span
	// Ref says where the document is: journal:<offset>,
	// <transcript path>:<line offset>, <layer file>:<offset>, a run id, or
	// <debate id>:<main|pro|con>.
	Ref string
	// Tier is the hit's tier, 0 the strongest (see Search's ranking): hits
	// come tier by tier. Score is its relevance within the tier, higher is
	// better. Both are 0 for hits newest first.
	Tier  int
	Score float64
}

// Span is a piece of a snippet; Match marks the words the query found.
type Span struct {
	Text  string
	Match bool
}

// Marked writes the snippet as text with each match between open and close.
func (h *Hit) Marked(open, close string) string {
	var b strings.Builder
	for _, s := range h.Snippet {
		if s.Match {
			b.WriteString(open)
			b.WriteString(s.Text)
			b.WriteString(close)
			continue
		}
		b.WriteString(s.Text)
	}
	return b.String()
}

// Ranking. Hits are ordered by tier first: a document's tier is the
// strongest group of columns its match can be made in — approved decisions
// and summaries (hi); messages that settle something, a decision, a fix, a
// pin, a root cause (said); then what a person wrote (prompt); what the
// agent wrote (text); the questions and lists of links or topics in either
// (aside);
// tool calls, their output and the event and tool names (tool, meta); logs,
// code and repeated lines pasted into a prompt or an answer last (log). A
// document whose match needs a weaker column belongs to that column's tier:
// for "queue retry" with queue in a decision and retry only in tool output,
// the tool tier. So a decision matching the query comes before any number of
// tool outputs repeating it, and a tier is searched only while the page is
// not full: the common case ranks the few strong matches and never scores
// the thousands of weak ones.
//
// Within a tier bm25 orders, with column weights (the tier's columns count,
// falling steeply as above; kinds and session ids count nothing). bm25's
// term frequency saturates, so a word said many times pays little more than
// a word said twice; output that repeats it was put in the log column. The
// documents of a session that made an approved decision matching the query
// count boostDecided times as much, and those of a session among the
// tier's best that holds a message settling something boostSettled times:
// what a session did with a topic counts, not how often it named it. Ties go to
// the newest. The three strongest tiers are ranked in strong_fts, which
// holds only their columns: a document's length there is the length of its
// decisions, settling messages and prompts, not of the tool output beside
// them, and a word's rarity is its rarity among them.
const (
	weights       = "bm25(docs_fts, 1.0, 1.0, 0.2, 0.2, 0.05, 0.04, 0.015, 0.02, 0, 0)"
	strongWeights = "bm25(strong_fts, 1.0, 1.0, 0.2, 0, 0)"
	boostDecided  = 2.0
	boostSettled  = 3.0
	// textColumns are the columns a query's words are looked for in.
	textColumns = "{hi said prompt text aside tool log meta}"
	// decidedSessions is how many sessions of matching decisions are
	// boosted.
	decidedSessions = 3
)

// A tier is ranked in table, among the documents matching in columns, with
// score (a bm25 of table).
type tier struct{ table, columns, score string }

// tierSaid is the tier of the messages that settle something, tierPrompt
// that of what a person wrote that settles nothing.
const (
	tierSaid   = 1
	tierPrompt = 2
)

// tiers are the tiers, strongest first, each one's columns holding the
// columns of the tiers before it: a document is in the first tier whose
// columns it matches in. The last is textColumns.
var tiers = []tier{
	{"strong_fts", "{hi}", strongWeights},
	{"strong_fts", "{hi said}", strongWeights},
	{"strong_fts", "{hi said prompt}", strongWeights},
	{"docs_fts", "{hi said prompt text}", weights},
	{"docs_fts", "{hi said prompt text aside}", weights},
	{"docs_fts", "{hi said prompt text aside tool meta}", weights},
	{"docs_fts", textColumns, weights},
}

// Search finds the documents matching q. When none holds every word of a
// plain query (no operators, quotes or stars), it looks again for documents
// holding some of its words (Results.Relaxed).
func (ix *Index) Search(ctx context.Context, q Query) (*Results, error) {
	match, terms, err := ftsQuery(q.Text)
	if err != nil {
		return nil, err
	}
	words, _ := contentWords(q.Text)
	res, err := ix.search(ctx, q, match, terms, words)
	if err != nil || res.Total > 0 {
		return res, err
	}
	relaxed, ok := relaxedQuery(q.Text)
	if !ok {
		return res, nil
	}
	match, terms = orQuery(relaxed)
	res, err = ix.search(ctx, q, match, terms, nil)
	if err != nil {
		return nil, err
	}
	res.Relaxed, res.Words = true, relaxed
	return res, nil
}

// scored is a document found, before it is read.
type scored struct {
	id    int64
	tier  int
	score float64 // bm25: lower is better
}

// search finds the documents matching match; a ranked search also ranks
// the settling messages of the sessions that hold every group of words
// (content words, see covering) across their messages.
func (ix *Index) search(ctx context.Context, q Query, match string, terms []string, words [][]string) (*Results, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(q.Offset, 0)

	// A kind filter is a match on the kind column, which the index
	// intersects at no cost.
	var kindFilter string
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		kindFilter = "kind : (" + strings.Join(kinds, " OR ") + ") AND "
	}
	f := filter{kinds: kindFilter, match: match}
	if !q.Since.IsZero() {
		f.since = []any{q.Since.UnixMilli()}
	}
	res := &Results{Ranked: !q.Newest}
	count := func() error {
		upTo := max(CountLimit, offset+limit)
		if err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1"+f.from("docs_fts")+" LIMIT ?)", append(f.args(textColumns), upTo+1)...).Scan(&res.Total); err != nil {
			return searchError(err)
		}
		if res.Total > upTo {
			res.Total, res.More = upTo, true
		}
		return nil
	}
	var page []scored
	if q.Newest {
		if err := count(); err != nil {
			return nil, err
		}
		if res.Total == 0 || offset >= res.Total {
			return res, nil
		}
		rows, err := ix.db.QueryContext(ctx, "SELECT docs_fts.rowid"+f.joined("docs_fts")+
			" ORDER BY d.ts DESC, d.id DESC LIMIT ? OFFSET ?", append(f.args(textColumns), limit, offset)...)
		if err != nil {
			return nil, searchError(err)
		}
		page, err = scanScored(rows, false)
		if err != nil {
			return nil, err
		}
	} else {
		// Counting the matches does not wait for the ranking, nor
		// the ranking for the count: they run at once, on two
		// connections.
		counted := make(chan error, 1)
		go func() { counted <- count() }()
		boosts, err := ix.boosts(ctx, f)
		var covered []scored
		if err == nil {
			covered, err = ix.covering(ctx, f, words)
		}
		added := 0
		if err == nil {
			page, added, err = ix.tiered(ctx, f, boosts, covered, offset+limit)
		}
		if cerr := <-counted; err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		// The settling messages ranked for their sessions hold only some
		// of the words: they count beside the matches, when there are
		// any (with none, the search is asked again, relaxed).
		if res.Total > 0 {
			res.Total += added
		}
		page = page[min(offset, len(page)):]
		page = page[:min(limit, len(page))]
	}
	if err := ix.readHits(ctx, res, page, terms); err != nil {
		return nil, err
	}
	return res, nil
}

// filter is what a search asks of every document besides its words.
type filter struct {
	// kinds is the match on the kinds asked for ("" for all, else ending
	// in AND); match the query's.
	kinds, match string
	// since holds the oldest time asked for, when one is.
	since []any
}

// in puts the query's match in a column filter, with the kinds asked for.
func (f filter) in(columns string) string {
	return f.kinds + columns + " : (" + f.match + ")"
}

// from is the FROM and WHERE of a query of table matching ?, joined with
// docs when the time is asked for.
func (f filter) from(table string) string {
	if f.since == nil {
		return " FROM " + table + " WHERE " + table + " MATCH ?"
	}
	return f.joined(table)
}

// joined is the FROM and WHERE of a query of table matching ?, always
// joined with docs d.
func (f filter) joined(table string) string {
	return " FROM " + table + " CROSS JOIN docs d ON d.id = " + table + ".rowid WHERE " + table + " MATCH ?" + f.where()
}

// where is the condition on docs d, when there is one.
func (f filter) where() string {
	if f.since == nil {
		return ""
	}
	return " AND d.ts >= ?"
}

// args are the arguments of a query of from: the match in columns, then
// the time.
func (f filter) args(columns string) []any {
	return append([]any{f.in(columns)}, f.since...)
}

// tiered returns the n best documents matching, best first: tier by tier,
// each ranked, until n are found or every tier is asked, the documents
// covered right after the settling tier's. A tier's columns hold the
// stronger tiers' columns, so its ranking returns their documents again;
// they are all known by then (a tier is asked for only when the ones before
// it held fewer than n) and are skipped. It also returns how many of covered
// it placed.
func (ix *Index) tiered(ctx context.Context, f filter, boosts []boost, covered []scored, n int) ([]scored, int, error) {
	var out []scored
	seen := make(map[int64]bool)
	add := func(s scored, tier int) bool {
		if seen[s.id] {
			return false
		}
		seen[s.id] = true
		s.tier = tier
		out = append(out, s)
		return true
	}
	added := 0
	for i, t := range tiers {
		if len(out) >= n {
			break
		}
		ranked, err := ix.ranked(ctx, t, f, boosts, n)
		if err != nil {
			return nil, 0, err
		}
		for _, s := range ranked {
			add(s, i)
		}
		if i == tierSaid {
			for _, s := range covered {
				if add(s, i) {
					added++
				}
			}
		}
	}
	return out[:min(n, len(out))], added, nil
}

// A boost multiplies the scores of the documents of some sessions.
type boost struct {
	sessions []string // session tokens
	factor   float64
}

// boosts returns the sessions boosted for a query whatever the tier: those
// of the approved decisions matching it.
func (ix *Index) boosts(ctx context.Context, f filter) ([]boost, error) {
	sessions, err := ix.sessionsOf(ctx, "kind : decision AND "+f.in("{hi}"), decidedSessions)
	if err != nil || len(sessions) == 0 {
		return nil, err
	}
	return []boost{{sessions, boostDecided}}, nil
}

// ranked returns the n best documents of tier t, best first: the best by
// its bm25, merged with the n best of each boost's sessions, boosted, a
// document keeping its best score. The sessions settling something among
// those of the tier's window best documents are boosted boostSettled
// times. Each list is exact, so the merge is; the window does not depend on
// n, so neither do the sessions boosted, and pages agree.
func (ix *Index) ranked(ctx context.Context, t tier, f filter, boosts []boost, n int) ([]scored, error) {
	top := func(args []any, n int) ([]scored, error) {
		rows, err := ix.db.QueryContext(ctx, "SELECT "+t.table+".rowid, "+t.score+" AS score"+f.from(t.table)+
			" ORDER BY score, "+t.table+".rowid DESC LIMIT ?", append(args, n)...)
		if err != nil {
			return nil, searchError(err)
		}
		return scanScored(rows, true)
	}
	args := f.args(t.columns)
	best, err := top(args, max(n, window))
	if err != nil || len(best) == 0 {
		return best, err
	}
	among, err := ix.settledAmong(ctx, best[:min(window, len(best))])
	if err != nil {
		return nil, err
	}
	if len(among) > 0 {
		boosts = append(slices.Clone(boosts), boost{among, boostSettled})
	}
	byID := make(map[int64]int, len(best))
	for i, s := range best {
		byID[s.id] = i
	}
	match := args[0].(string)
	for _, b := range boosts {
		args[0] = "sid : (" + strings.Join(b.sessions, " OR ") + ") AND " + match
		boosted, err := top(args, n)
		if err != nil {
			return nil, err
		}
		for _, s := range boosted {
			s.score *= b.factor
			if i, ok := byID[s.id]; ok {
				best[i].score = min(best[i].score, s.score)
				continue
			}
			byID[s.id] = len(best)
			best = append(best, s)
		}
	}
	slices.SortFunc(best, func(a, b scored) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	return best[:min(n, len(best))], nil
}

// A session that settled a topic rarely says every word of the question in
// the message that settles it: the prompt names the symptom ("token expired
// right after login"), the answer the cause ("a fresh token looked stale
// after login"). So a session whose prompts and answers hold every content
// word of a plain query between them, one of its messages settling
// something with some of those words, ranks that message with the settling
// tier, after the messages that settle something with every word: what a
// session did with the topic counts, not whether one message repeats the
// whole query. The step is bounded: one ranking of the settling messages
// holding any of the words (strong_fts's said column, coverWindow of them,
// at most coverSessions sessions) and one match per content word over
// those sessions' documents.
const (
	coverWindow   = 50
	coverSessions = 10
	// coverWords is the most content words a query is covered for.
	coverWords = 8
	// coverColumns are the columns of prompts and answers.
	coverColumns = "{hi said prompt text aside}"
)

// covering returns, best first, the best settling message of each session
// among those of the coverWindow best settling messages holding any of
// words whose prompts and answers hold every group of words.
func (ix *Index) covering(ctx context.Context, f filter, words [][]string) ([]scored, error) {
	if len(words) < 2 || len(words) > coverWords {
		return nil, nil
	}
	var terms []string
	for _, g := range words {
		terms = append(terms, g...)
	}
	some := f
	some.match = strings.Join(terms, " OR ")
	rows, err := ix.db.QueryContext(ctx, "SELECT strong_fts.rowid, d.session, "+strongWeights+" AS score FROM strong_fts CROSS JOIN docs d ON d.id = strong_fts.rowid"+
		" WHERE strong_fts MATCH ? AND d.session != ''"+f.where()+" ORDER BY score, strong_fts.rowid DESC LIMIT ?", append(some.args("{said}"), coverWindow)...)
	if err != nil {
		return nil, searchError(err)
	}
	var best []scored
	var sessions []string // their tokens, in the order of best
	for rows.Next() {
		var s scored
		var session string
		if err := rows.Scan(&s.id, &session, &s.score); err != nil {
			rows.Close()
			return nil, searchError(err)
		}
		if t := sessionToken(session); t != "" && !slices.Contains(sessions, t) && len(sessions) < coverSessions {
			sessions = append(sessions, t)
			best = append(best, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, searchError(err)
	}
	if len(sessions) == 0 {
		return nil, nil
	}
	// held counts, for each session, the groups of words its prompts and
	// answers hold.
	held := make(map[string]int, len(sessions))
	in := "sid : (" + strings.Join(sessions, " OR ") + ") AND " + coverColumns + " : "
	for _, g := range words {
		rows, err := ix.db.QueryContext(ctx, `SELECT DISTINCT d.session FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid WHERE docs_fts MATCH ?`,
			in+"("+strings.Join(g, " OR ")+")")
		if err != nil {
			return nil, searchError(err)
		}
		found, err := sessionTokens(rows, len(sessions))
		if err != nil {
			return nil, err
		}
		for _, t := range found {
			held[t]++
		}
	}
	var out []scored
	for i, t := range sessions {
		if held[t] == len(words) {
			out = append(out, best[i])
		}
	}
	return out, nil
}

// window is how many of a tier's best documents are looked at for sessions
// that settled something.
const window = 50

// settledAmong returns the tokens of the sessions of docs that hold a
// message settling something.
func (ix *Index) settledAmong(ctx context.Context, docs []scored) ([]string, error) {
	ids := make([]any, len(docs))
	for i, s := range docs {
		ids[i] = s.id
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT DISTINCT d.session FROM docs d WHERE d.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)
		AND d.session != '' AND EXISTS (SELECT 1 FROM docs s WHERE s.session = d.session AND s.settles = 1)`, ids...)
	if err != nil {
		return nil, searchError(err)
	}
	out, err := sessionTokens(rows, len(docs))
	slices.Sort(out)
	return out, err
}

// sessionsOf returns the session tokens of the n best documents of
// strong_fts matching match, best first.
func (ix *Index) sessionsOf(ctx context.Context, match string, n int) ([]string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT d.session FROM strong_fts CROSS JOIN docs d ON d.id = strong_fts.rowid
		WHERE strong_fts MATCH ? AND d.session != '' ORDER BY `+strongWeights+` LIMIT ?`, match, 4*n)
	if err != nil {
		return nil, searchError(err)
	}
	return sessionTokens(rows, n)
}

// sessionTokens reads rows of session ids and returns the first n distinct
// session tokens, in order.
func sessionTokens(rows *sql.Rows, n int) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, searchError(err)
		}
		if t := sessionToken(s); t != "" && !slices.Contains(out, t) && len(out) < n {
			out = append(out, t)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(err)
	}
	return out, nil
}

func scanScored(rows *sql.Rows, withScore bool) ([]scored, error) {
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var s scored
		var err error
		if withScore {
			err = rows.Scan(&s.id, &s.score)
		} else {
			err = rows.Scan(&s.id)
		}
		if err != nil {
			return nil, searchError(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(err)
	}
	return out, nil
}

// readHits reads the documents of page, in its order, into res.
func (ix *Index) readHits(ctx context.Context, res *Results, page []scored, terms []string) error {
	if len(page) == 0 {
		return nil
	}
	ids := make([]any, len(page))
	for i, s := range page {
		ids[i] = s.id
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, kind, session, ts, worktree, branch, file, issue, event, title, body, ref
		FROM docs WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, ids...)
	if err != nil {
		return searchError(err)
	}
	defer rows.Close()
	hits := make(map[int64]Hit, len(page))
	for rows.Next() {
		var h Hit
		var id int64
		var kind, body string
		var ts int64
		if err := rows.Scan(&id, &kind, &h.Session, &ts, &h.Worktree, &h.Branch, &h.File, &h.Issue, &h.Event, &h.Title, &body, &h.Ref); err != nil {
			return searchError(err)
		}
		h.Kind = Kind(kind)
		if ts != 0 {
			h.Time = time.UnixMilli(ts)
		}
		h.Snippet = snippet(body, terms, snippetRunes)
		if len(h.Snippet) == 0 || !hasMatch(h.Snippet) {
			if t := snippet(h.Title, terms, snippetRunes); hasMatch(t) {
				h.Snippet = t
			}
		}
		hits[id] = h
	}
	if err := rows.Err(); err != nil {
		return searchError(err)
	}
	for _, s := range page {
		if h, ok := hits[s.id]; ok {
			h.Tier, h.Score = s.tier, -s.score
			res.Hits = append(res.Hits, h)
		}
	}
	return nil
}

func alnum(c byte) bool { return c < utf8.RuneSelf && (c == '_' || isDigit(c) || 'a' <= c && c <= 'z') }

func hasMatch(spans []Span) bool {
	for _, s := range spans {
		if s.Match {
			return true
		}
	}
	return false
}

// searchError tells a query FTS5 could not read from a failure of the
// database.
func searchError(err error) error {
	msg := err.Error()
	for _, p := range []string{"fts5:", "syntax error", "malformed MATCH", "unterminated string", "no such column", "unknown special query"} {
		if strings.Contains(msg, p) {
			// SQLite's words, without the driver's prefix.
			if i := strings.Index(msg, "fts5:"); i >= 0 {
				msg = msg[i:]
			}
			return fmt.Errorf("%w: %s", ErrQuery, msg)
		}
	}
	return fmt.Errorf("search: %w", classify(err))
}

// bareword reports characters FTS5 accepts in a bare word.
func bareword(r rune) bool {
	return r >= utf8.RuneSelf || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// ftsQuery rewrites a query for the index: phrases and words holding
// characters of scripts without spaces are spaced as the index is, and words
// FTS5 would not take bare (paths, file names) become phrases. Operators,
// parentheses and prefix stars are kept. It also returns the words and
// phrases to mark in snippets.
func ftsQuery(q string) (string, []string, error) {
	var out []string
	var terms []string
	// A NEAR group takes only phrases, no OR of a word's other forms.
	near := strings.Contains(q, "NEAR")
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')':
			out = append(out, string(r))
			i++
		case r == '"':
			j := i + 1
			var b strings.Builder
			closed := false
			for j < len(rs) {
				if rs[j] == '"' {
					if j+1 < len(rs) && rs[j+1] == '"' {
						b.WriteRune('"')
						j += 2
						continue
					}
					closed = true
					break
				}
				b.WriteRune(rs[j])
				j++
			}
			if !closed {
				return "", nil, fmt.Errorf("%w: a quote is not closed", ErrQuery)
			}
			i = j + 1
			star := i < len(rs) && rs[i] == '*'
			if star {
				i++
			}
			text := textnorm.Fold(b.String())
			out = append(out, phrase(text, star))
			terms = append(terms, text)
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && rs[j] != '(' && rs[j] != ')' && rs[j] != '"' {
				j++
			}
			word := string(rs[i:j])
			i = j
			switch word {
			case "AND", "OR", "NOT", "NEAR":
				out = append(out, word)
				continue
			}
			core, star := strings.CutSuffix(word, "*")
			if core == "" {
				return "", nil, fmt.Errorf("%w: %q has nothing before its star", ErrQuery, word)
			}
			core = textnorm.Fold(core)
			terms = append(terms, stem(core))
			alts := textnorm.Loanwords(core)
			if star || near || len(alts) == 0 {
				out = append(out, ftsWord(core, star))
				continue
			}
			// A loanword is also looked for as it is written in the
			// other script: timezone finds タイムゾーン.
			group := []string{ftsWord(core, false)}
			for _, alt := range alts {
				group = append(group, ftsWord(alt, false))
				terms = append(terms, stem(alt))
			}
			// FTS5 joins a group to its neighbours only by an explicit AND.
			if n := len(out); n > 0 && !ftsOperator(out[n-1]) && out[n-1] != "(" {
				out = append(out, "AND")
			}
			out = append(out, "("+strings.Join(group, " OR ")+")", "")
		}
	}
	out = andAfterGroups(out)
	if len(terms) == 0 {
		return "", nil, fmt.Errorf("%w: nothing to search for", ErrQuery)
	}
	return strings.Join(out, " "), terms, nil
}

// ftsOperator reports FTS5's operators.
func ftsOperator(s string) bool {
	switch s {
	case "AND", "OR", "NOT", "NEAR":
		return true
	}
	return false
}

// andAfterGroups drops the empty marks ftsQuery leaves after a loanword's
// group, putting an AND in their place when an operand follows.
func andAfterGroups(out []string) []string {
	kept := out[:0]
	for i, s := range out {
		if s != "" {
			kept = append(kept, s)
			continue
		}
		if i+1 < len(out) && out[i+1] != "" && out[i+1] != ")" && !ftsOperator(out[i+1]) {
			kept = append(kept, "AND")
		}
	}
	return kept
}

// ftsWord is a folded word as FTS5 takes it: bare when it can be, else a
// phrase spaced as the index is.
func ftsWord(w string, star bool) string {
	if strings.IndexFunc(w, func(r rune) bool { return !bareword(r) || spaced(r) }) >= 0 {
		return phrase(w, star)
	}
	if star {
		w += "*"
	}
	return w
}

// phrase quotes s as an FTS5 phrase, spaced as the index is.
func phrase(s string, star bool) string {
	p := `"` + strings.ReplaceAll(strings.TrimSpace(segment(s)), `"`, `""`) + `"`
	if star {
		p += " *"
	}
	return p
}

// snippetRunes is about how long a snippet is.
const snippetRunes = 160

// snippet cuts text around the first match of a term and marks every match
// in the cut. Matching is on folded text (textnorm.Fold: width and case), the
// snippet shows the text as written; a term made of words matches when its
// words appear in order with only separators between them.
func snippet(text string, terms []string, size int) []Span {
	text = textcut.OneLine(text)
	if text == "" {
		return nil
	}
	folded, at := textnorm.FoldMap(text)
	type hit struct{ start, end int }
	var hits []hit
	for _, t := range terms {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		for from := 0; from < len(folded); {
			i := strings.Index(folded[from:], t)
			if i < 0 {
				break
			}
			fs, fe := from+i, from+i+len(t)
			from = fe
			// A word of letters matches from a word's start to its end
			// (retry marks retries); other terms match anywhere.
			if alnum(t[0]) && fs > 0 && alnum(folded[fs-1]) {
				continue
			}
			if alnum(t[len(t)-1]) {
				for fe < len(folded) && alnum(folded[fe]) {
					fe++
				}
			}
			start, end := at[fs], at[fe]
			if end <= start {
				_, w := utf8.DecodeRuneInString(text[start:])
				end = start + w
			}
			hits = append(hits, hit{start, end})
		}
	}
	// The window starts a little before the first match.
	first := len(text)
	for _, h := range hits {
		first = min(first, h.start)
	}
	if first == len(text) {
		first = 0
	}
	start := max(0, first-size/4)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	end := start
	for n := 0; end < len(text) && n < size; n++ {
		_, w := utf8.DecodeRuneInString(text[end:])
		end += w
	}
	var spans []Span
	if start > 0 {
		spans = append(spans, Span{Text: textcut.Ellipsis})
	}
	pos := start
	for pos < end {
		next, nextEnd := end, end
		for _, h := range hits {
			if h.start >= pos && h.start < next {
				next, nextEnd = h.start, min(h.end, end)
			}
		}
		if next > pos {
			spans = append(spans, Span{Text: text[pos:next]})
		}
		if next < end {
			spans = append(spans, Span{Text: text[next:nextEnd], Match: true})
		}
		pos = nextEnd
	}
	if end < len(text) {
		spans = append(spans, Span{Text: textcut.Ellipsis})
	}
	return spans
}
