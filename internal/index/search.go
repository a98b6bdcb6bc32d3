package index

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
}

// Paging bounds.
const (
	DefaultLimit = 20
	MaxLimit     = 500
)

// RankLimit is the number of matches past which hits come newest first
// rather than by relevance, and matches are no longer counted: ranking or
// counting every match of a very common word would cost more than a search
// may take.
const RankLimit = 5000

// Results are one page of hits.
type Results struct {
	Hits []Hit
	// Total is how many documents match, across all pages; with AtLeast,
	// more than RankLimit match and Total is RankLimit+1.
	Total   int
	AtLeast bool
	// Ranked is false when the hits are newest first (see RankLimit).
	Ranked bool
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

// Search finds the documents matching q.
func (ix *Index) Search(ctx context.Context, q Query) (*Results, error) {
	match, terms, err := ftsQuery(q.Text)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	offset := max(q.Offset, 0)

	// The query looks at titles and bodies; a kind filter is a match on
	// the kind column, which the index intersects at no cost.
	match = "{title body} : (" + match + ")"
	if len(q.Kinds) > 0 {
		kinds := make([]string, len(q.Kinds))
		for i, k := range q.Kinds {
			kinds[i] = string(k)
		}
		match = "kind : (" + strings.Join(kinds, " OR ") + ") AND " + match
	}
	where := "docs_fts MATCH ?"
	args := []any{match}
	from := " FROM docs_fts WHERE "
	if !q.Since.IsZero() {
		where += " AND d.ts >= ?"
		args = append(args, q.Since.UnixMilli())
		from = " FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid WHERE "
	}
	res := &Results{}
	count := "SELECT count(*) FROM (SELECT 1" + from + where + " LIMIT " + strconv.Itoa(RankLimit+1) + ")"
	if err := ix.db.QueryRowContext(ctx, count, args...).Scan(&res.Total); err != nil {
		return nil, searchError(err)
	}
	res.AtLeast = res.Total > RankLimit
	if res.Total == 0 || (offset >= res.Total && !res.AtLeast) {
		res.Ranked = true
		return res, nil
	}
	order := "docs_fts.rowid DESC"
	if !res.AtLeast {
		order, res.Ranked = "docs_fts.rank", true
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT d.kind, d.session, d.ts, d.worktree, d.branch, d.file, d.issue, d.event, d.title, d.body, d.ref
		FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid WHERE `+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, searchError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h Hit
		var kind, body string
		var ts int64
		if err := rows.Scan(&kind, &h.Session, &ts, &h.Worktree, &h.Branch, &h.File, &h.Issue, &h.Event, &h.Title, &body, &h.Ref); err != nil {
			return nil, searchError(err)
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
		res.Hits = append(res.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(err)
	}
	return res, nil
}

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
			out = append(out, phrase(b.String(), star))
			terms = append(terms, b.String())
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
			terms = append(terms, core)
			if strings.IndexFunc(core, func(r rune) bool { return !bareword(r) || spaced(r) }) < 0 {
				out = append(out, word)
				continue
			}
			out = append(out, phrase(core, star))
		}
	}
	if len(terms) == 0 {
		return "", nil, fmt.Errorf("%w: nothing to search for", ErrQuery)
	}
	return strings.Join(out, " "), terms, nil
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
// in the cut. Matching ignores case; a term made of words matches when its
// words appear in order with only separators between them.
func snippet(text string, terms []string, size int) []Span {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return nil
	}
	lower := strings.ToLower(text)
	type hit struct{ start, end int }
	var hits []hit
	for _, t := range terms {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" {
			continue
		}
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], t)
			if i < 0 {
				break
			}
			hits = append(hits, hit{from + i, from + i + len(t)})
			from += i + len(t)
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
		spans = append(spans, Span{Text: "…"})
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
		spans = append(spans, Span{Text: "…"})
	}
	return spans
}
