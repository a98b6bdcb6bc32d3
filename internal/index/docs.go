package index

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/textnorm"
	"github.com/baton-cli/baton/internal/worker"
)

// The layer and decision files are decoded here by their JSON fields (the
// formats package recall and package decision write), so that a field this
// version does not know never stops the index.

// recentEntry is an L1 line.
type recentEntry struct {
	TS        time.Time `json:"ts"`
	Route     string    `json:"route"`
	Session   string    `json:"session"`
	Trigger   string    `json:"trigger"`
	Goal      string    `json:"goal"`
	Actions   []string  `json:"recent_actions"`
	OpenLoops []string  `json:"open_loops"`
}

// dailyEntry is an L2 line.
type dailyEntry struct {
	TS        time.Time `json:"ts"`
	Route     string    `json:"route"`
	Date      string    `json:"date"`
	Goal      string    `json:"daily_goal"`
	Threads   []string  `json:"threads_engaged"`
	Decisions []string  `json:"decisions_made"`
	Pending   []string  `json:"pending_tasks"`
}

// decisionEntry is a line of the approved-decision log.
type decisionEntry struct {
	Date    string    `json:"date"`
	TS      time.Time `json:"ts"`
	Slug    string    `json:"slug"`
	Summary string    `json:"summary"`
	Source  string    `json:"source"`
	Issue   int       `json:"issue"`
	Thread  string    `json:"thread"`
	Session string    `json:"session"`
	Scope   string    `json:"scope"`
	Route   string    `json:"route"`
}

func layerDoc(l layerFile, route string, line []byte, off int64) *doc {
	ref := fmt.Sprintf("%s:%d", l.path, off)
	switch l.kind {
	case "l1":
		var e recentEntry
		if json.Unmarshal(line, &e) != nil {
			return nil
		}
		body := joinLines(append(append([]string{e.Goal}, e.Actions...), e.OpenLoops...)...)
		return &doc{kind: KindSummary, source: l.path, ref: ref, session: e.Session, ts: e.TS,
			event: "l1", title: "L1 " + firstNonEmpty(e.Route, route) + ": " + e.Goal, body: body}
	case "l2":
		var e dailyEntry
		if json.Unmarshal(line, &e) != nil {
			return nil
		}
		parts := append([]string{e.Goal}, e.Threads...)
		parts = append(append(parts, e.Decisions...), e.Pending...)
		return &doc{kind: KindSummary, source: l.path, ref: ref, ts: e.TS,
			event: "l2", title: "L2 " + firstNonEmpty(e.Route, route) + " " + e.Date + ": " + e.Goal, body: joinLines(parts...)}
	default:
		var e decisionEntry
		if json.Unmarshal(line, &e) != nil || e.Summary == "" {
			return nil
		}
		ts := e.TS
		if ts.IsZero() {
			ts, _ = time.Parse(time.DateOnly, e.Date)
		}
		title := e.Slug
		if title == "" {
			title = e.Summary
		}
		return &doc{kind: KindDecision, source: l.path, ref: ref, session: e.Session, ts: ts, issue: e.Issue,
			event: "approved", title: title, body: joinLines(e.Summary, e.Source, e.Scope)}
	}
}

// pendingFile is sessions/<id>.pending-decisions.json, in the original
// tool's shape (flat decisions with a scope, the issue at the top, an entry's
// own issue when it differs) or the one earlier baton versions wrote (a
// candidate and a final_scope per decision, the issue per entry).
type pendingFile struct {
	Issue   int `json:"issue_number"`
	Entries []struct {
		SavedAt   string `json:"saved_at"`
		Issue     int    `json:"issue_number"`
		Decisions []struct {
			pendingDecision
			Candidate  *pendingDecision `json:"candidate"`
			Scope      string           `json:"scope"`
			FinalScope string           `json:"final_scope"`
		} `json:"decisions"`
	} `json:"entries"`
}

type pendingDecision struct {
	Slug         string `json:"slug"`
	What         string `json:"what"`
	Why          string `json:"why"`
	Alternatives string `json:"alternatives"`
	Consequences string `json:"consequences"`
}

func pendingDocs(path string, data []byte) []*doc {
	var pf pendingFile
	if json.Unmarshal(data, &pf) != nil {
		return nil
	}
	session := strings.TrimSuffix(filepath.Base(path), ".pending-decisions.json")
	var out []*doc
	for i, e := range pf.Entries {
		ts, _ := time.Parse(time.RFC3339, e.SavedAt)
		issue := e.Issue
		if issue == 0 {
			issue = pf.Issue
		}
		for j, d := range e.Decisions {
			c, scope := d.pendingDecision, d.Scope
			if d.Candidate != nil {
				c, scope = *d.Candidate, d.FinalScope
			}
			out = append(out, &doc{kind: KindDecision, source: path, ref: fmt.Sprintf("%s:%d:%d", path, i, j),
				session: session, ts: ts, issue: issue, event: "pending", title: c.Slug,
				body: joinLines(c.What, c.Why, c.Alternatives, c.Consequences, scope)})
		}
	}
	return out
}

func runDocs(path string, data []byte) []*doc {
	var r worker.Record
	if json.Unmarshal(data, &r) != nil || r.ID == "" {
		return nil
	}
	parts := []string{r.Summary, string(r.Category), r.State, r.Step, r.Branch, r.ResumeNote}
	if r.PullRequest != nil {
		parts = append(parts, r.PullRequest.URL)
	}
	parts = append(parts, r.Errors...)
	for _, a := range r.Attempts {
		if a.Result != nil {
			parts = append(parts, textcut.Bytes(a.Result.Result, maxToolText))
		}
		parts = append(parts, textcut.Bytes(a.Stderr, maxToolText), a.Error)
	}
	var session string
	for _, a := range r.Attempts {
		if a.Result != nil && a.Result.SessionID != "" {
			session = a.Result.SessionID
		}
	}
	return []*doc{{kind: KindRun, source: path, ref: r.ID, session: session, ts: r.StartedAt, issue: r.Issue,
		branch: r.Branch, worktree: r.Worktree, event: r.State, tool: string(r.Category),
		title: fmt.Sprintf("%s#%d %s", r.Repo, r.Issue, r.Title), body: redact.Redact(joinLines(parts...))}}
}

func debateDocs(path string, data []byte, mtime time.Time) []*doc {
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	id, role := name, "main"
	for _, side := range []string{"pro", "con"} {
		if base, ok := strings.CutSuffix(name, "-"+side); ok && debate.ValidID(base) == nil {
			id, role = base, side
		}
	}
	if debate.ValidID(id) != nil {
		return nil
	}
	title := id
	if role == "main" {
		if s, err := debate.Parse(id, data); err == nil {
			title = s.Topic + " (" + string(s.Status) + ")"
		}
	} else {
		title = id + " " + role
	}
	return []*doc{{kind: KindDebate, source: path, ref: id + ":" + role, ts: mtime, event: role,
		title: title, body: redact.Redact(string(data))}}
}

// unpack writes the decompressed contents of the gzip file path to w.
func unpack(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, zr)
	return err
}

func joinLines(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// ftsText is text as the index keeps it: folded (textnorm.Fold) and
// spaced (segment).
func ftsText(s string) string {
	if s == "" {
		return ""
	}
	return segment(textnorm.Fold(s))
}

// sessionToken is a session id as one word of the sid column.
func sessionToken(id string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, textnorm.Fold(id))
}

// spacedScripts are the scripts written without spaces between words.
var spacedScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// spacedBMP has a bit set for each character below U+10000 of
// spacedScripts, and for 'ー': every character of a document is looked up,
// and a bit is cheaper than a search of four tables.
var spacedBMP = func() *[1 << 16 / 64]uint64 {
	var t [1 << 16 / 64]uint64
	set := func(lo, hi, stride uint32) {
		for c := lo; c <= hi && c < 1<<16; c += stride {
			t[c/64] |= 1 << (c % 64)
		}
	}
	for _, rt := range spacedScripts {
		for _, r := range rt.R16 {
			set(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
		}
		for _, r := range rt.R32 {
			set(r.Lo, r.Hi, r.Stride)
		}
	}
	set('ー', 'ー', 1)
	return &t
}()

// spaced reports characters that are indexed one by one: scripts written
// without spaces between words.
func spaced(r rune) bool {
	switch {
	case r < 0x1100: // below Hangul Jamo: Latin, Greek, Cyrillic, …
		return false
	case r < 1<<16:
		return spacedBMP[r/64]&(1<<(r%64)) != 0
	}
	return unicode.In(r, spacedScripts...)
}

// segment puts spaces around every character of a script written without
// spaces, so that the tokenizer makes each one a token and a phrase of them
// finds any run of characters. The text between such characters is copied
// as it is, but for a byte that is not UTF-8, which becomes U+FFFD.
func segment(s string) string {
	i := strings.IndexFunc(s, spaced)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	start := 0 // of the text not written yet
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n == 1
		if !bad && !spaced(r) {
			i += n
			continue
		}
		b.WriteString(s[start:i])
		if bad {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
			b.WriteString(s[i : i+n])
			b.WriteByte(' ')
		}
		i += n
		start = i
	}
	b.WriteString(s[start:])
	return b.String()
}

// Columns of docs_fts that hold a document's words, by the kind of writing
// they come from; search weighs a match by its column (see weights).
const (
	colHi     = iota // approved decisions, summaries
	colSaid          // messages that settle something: a decision, a fix, a pin, a root cause
	colPrompt        // what a person wrote
	colText          // what the agent wrote; pending decisions, runs, debates
	colAside         // questions, guesses and lists (of links, of topics) in a prompt or an answer
	colTool          // tool calls and their output
	colLog           // logs, code and repeated lines pasted into a prompt or an answer
	colMeta          // event, role and tool names
	nCols
)

// columns returns the words of d for each column: those its reader put
// there, or else its title and body in the column of its kind.
func (d *doc) columns() [nCols]string {
	if d.cols != nil {
		return *d.cols
	}
	var c [nCols]string
	text := d.title + "\n" + d.body
	switch {
	case d.kind == KindSummary, d.kind == KindDecision && d.event == "approved":
		c[colHi] = text
	default:
		c[colText] = text
	}
	return c
}

// settles reports a prompt or an answer that settles something: its words
// are in the said column.
func (d *doc) settles() bool { return d.cols != nil && d.cols[colSaid] != "" }

// setCol appends text to column i of d.
func (d *doc) setCol(i int, text string) {
	if text == "" {
		return
	}
	if d.cols == nil {
		d.cols = new([nCols]string)
	}
	if d.cols[i] != "" {
		d.cols[i] += "\n"
	}
	d.cols[i] += text
}

// addWritten sorts what a person (column colPrompt) or the agent (colText)
// wrote by what it does with its topic. Pasted output (logs, stack traces,
// code, a line repeated) goes to the log column: it repeats words without
// saying anything about them. Questions and the items of a list (links, a
// status digest) go to the aside column. When a sentence left settles
// something (a decision, a fix, a pin, a root cause, a choice made) without
// guessing, the message states a resolution and its sentences go to the said
// column together, the reason with the choice; otherwise they stay in column
// i.
func (d *doc) addWritten(i int, text string) {
	prose, pasted := splitPasted(text)
	d.setCol(colLog, pasted)
	if prose == "" {
		return
	}
	// Most messages hold no word that settles anything, no question and no
	// list: they are not cut into sentences.
	maySettle, list := settles(prose), listShaped(prose)
	if !maySettle && !list && !mayAsk(prose) {
		d.setCol(i, prose)
		return
	}
	var kept, aside []string
	settled := false
	for line := range strings.Lines(prose) {
		if list && listLine(line) {
			aside = append(aside, strings.TrimSpace(line))
			continue
		}
		for _, s := range textcut.Sentences(line) {
			if question(s) {
				aside = append(aside, s)
				continue
			}
			kept = append(kept, s)
			settled = settled || maySettle && settles(s) && !guess(s)
		}
	}
	if settled {
		i = colSaid
	}
	d.setCol(i, strings.Join(kept, " "))
	d.setCol(colAside, strings.Join(aside, " "))
}

// settleWords say that a sentence settles something: a decision, a fix, a
// pin, a root cause, a change made; in English (lower case) and Japanese.
var settleWords = []string{
	"decided", "decision:", "we decide", "let's ", "lets go with", "we'll ", "we will use",
	"we'll go with", "going with", "settled on", "let's settle", "we agreed", "agreed on", "we chose", "final call",
	"the rule is", "from now on",
	"root cause", "the cause", "caused by", "was caused", "fixed", "the fix", "found it", "pinned", "turned out",
	"resolved", "solved", "switched to", "moved to", "replaced", "instead of", "done.", "done:", " now ",
	"決定", "決めた", "決めます", "決めましょう", "にします", "にしよう", "ことにした", "ことにします", "で確定", "方針は",
	"原因は", "が原因", "固定", "にした", "にしました", "ようにした", "ようにしました", "直した", "直しました",
	"直し、", "修正した", "修正しました", "変更した", "変更しました", "変えた", "変えました", "移した", "移しました",
	"置き換え", "切り替え", "まとめた", "まとめました", "そろえ", "揃え", "解決", "済ませ",
}

// guessWords say that a sentence guesses or does not know: it settles
// nothing, whatever else it says.
var guessWords = []string{
	"maybe", "might ", "perhaps", "probably", "possibly", "not sure", "i think", "i guess", "seems", "looks like",
	"can't tell", "cannot tell", "don't know", "do not know", "not yet", "unclear", "could be", "no idea",
	"かもしれ", "可能性", "ようです", "ように見え", "らしい", "わから", "わかりません", "分から", "分かりません", "不明", "気がする", "と思う", "と思います", "でしょう",
	"だろう", "未確認", "できていません",
}

// phrases are words looked for in a text in one pass over it: each word is
// filed under its first two bytes, so that at most positions of the text
// no word is compared at all. (A message is looked at for its settling
// words, and each of its sentences again: dozens of searches of the whole
// text, one per word, were most of the time spent sorting it.)
type phrases struct {
	// at holds, for a text's two bytes at a position, 1 + the index in
	// words of the words starting with them; 0 for none.
	at    [1 << 16]uint8
	words [][]string
}

func newPhrases(words ...string) *phrases {
	p := &phrases{}
	for _, w := range words {
		if len(w) < 2 {
			panic("phrase shorter than two bytes: " + w)
		}
		k := uint16(w[0])<<8 | uint16(w[1])
		if p.at[k] == 0 {
			p.words = append(p.words, nil)
			p.at[k] = uint8(len(p.words))
		}
		p.words[p.at[k]-1] = append(p.words[p.at[k]-1], w)
	}
	return p
}

// in reports whether s, lower case and between spaces, holds one of the
// words.
func (p *phrases) in(s string) bool {
	s = " " + s + " "
	for i := 0; i+1 < len(s); i++ {
		j := p.at[uint16(s[i])<<8|uint16(s[i+1])]
		if j == 0 {
			continue
		}
		for _, w := range p.words[j-1] {
			if strings.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

var settlePhrases, guessPhrases = newPhrases(settleWords...), newPhrases(guessWords...)

// settles reports a sentence that settles something. "For now" and "right
// now" put something off or describe it; they settle nothing.
func settles(s string) bool {
	s = strings.ToLower(s)
	if strings.Contains(s, "now") {
		s = notNow.Replace(s)
	}
	return settlePhrases.in(s)
}

var notNow = strings.NewReplacer("for now", "", "right now", "", "just now", "")

// guess reports a sentence that guesses, or says it does not know.
func guess(s string) bool { return guessPhrases.in(strings.ToLower(s)) }

// mayAsk reports text that may hold a question: a sentence ending as
// question reports.
func mayAsk(text string) bool {
	return strings.ContainsAny(text, "?？") || strings.Contains(text, "か") || strings.Contains(text, "っけ")
}

// question reports a sentence that asks.
func question(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "か") || strings.HasSuffix(s, "っけ")
}

// listLine reports a line that is an item of a list: a bullet, a number,
// or a link.
func listLine(line string) bool {
	t := strings.TrimSpace(line)
	if strings.Contains(t, "://") {
		return true
	}
	for _, p := range []string{"- ", "* ", "+ ", "• ", "・"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	n := 0
	for n < len(t) && isDigit(t[n]) {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' '
}

// listShaped reports prose that is mostly a list: three items or more, and
// more items than other lines.
func listShaped(prose string) bool {
	items, other := 0, 0
	for line := range strings.Lines(prose) {
		switch {
		case strings.TrimSpace(line) == "":
		case listLine(line):
			items++
		default:
			other++
		}
	}
	return items >= 3 && items > other
}

// repeatedLine is how many times a line comes back before it counts as
// output pasted, not something written.
const repeatedLine = 3

// splitPasted separates fenced blocks, lines that look like log output and
// lines repeated many times from the prose around them.
func splitPasted(text string) (prose, pasted string) {
	if !strings.Contains(text, "\n") {
		if logLine(text) {
			return "", text
		}
		return text, ""
	}
	seen := map[string]int{}
	for line := range strings.Lines(text) {
		if t := strings.TrimSpace(line); t != "" {
			seen[t]++
		}
	}
	var p, l strings.Builder
	fenced := false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
			continue
		}
		if fenced || logLine(line) || seen[t] >= repeatedLine {
			l.WriteString(line)
			continue
		}
		p.WriteString(line)
	}
	return strings.TrimSpace(p.String()), strings.TrimSpace(l.String())
}

// logLine reports a line that looks like program output: a timestamp or
// log level first, a stack frame, an indented or tab-separated dump, a run
// of key=value pairs.
func logLine(line string) bool {
	t := strings.TrimLeft(line, " ")
	if t == "" {
		return false
	}
	if len(line)-len(t) >= 4 || line[0] == '\t' {
		return true // indented: code or a stack frame
	}
	if len(t) >= 10 && isDigit(t[0]) && isDigit(t[1]) && (t[4] == '-' || t[4] == '/' || t[2] == ':') {
		return true // 2026-09-01… or 12:34:56…
	}
	if t[0] == '[' && len(t) > 2 && (isDigit(t[1]) || strings.HasPrefix(t[1:], "INFO") || strings.HasPrefix(t[1:], "WARN") || strings.HasPrefix(t[1:], "ERROR") || strings.HasPrefix(t[1:], "DEBUG")) {
		return true
	}
	for _, p := range []string{"INFO ", "WARN ", "ERROR ", "DEBUG ", "FATAL ", "panic: ", "goroutine ", "Traceback ", "E   ", "at ", "$ "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// Each word keyValues counts holds a '='.
	return strings.Count(t, "=") >= 3 && keyValues(t) >= 3
}

// keyValues counts the words of a line shaped key=value.
func keyValues(line string) int {
	n := 0
	for _, w := range strings.Fields(line) {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" && v != "" && strings.IndexFunc(k, func(r rune) bool { return !bareword(r) && r != '.' && r != '-' }) < 0 {
			n++
		}
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
