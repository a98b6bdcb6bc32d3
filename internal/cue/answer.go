package cue

import (
	"bytes"
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/textnorm"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Limits of what an answer prints, in UTF-16 units as the agent counts.
const (
	MaxPrompt = 1500
	MaxTool   = 800
	// recentBytes is how much of the journal's end a tool note reads for
	// failures newer than the recall file, which a Stop rewrites once it
	// is ten minutes old: several hundred records, the last minutes of a
	// busy session. promptBytes is how much a prompt that speaks of the
	// past reads. Reading is most of an answer's cost.
	recentBytes = 128 << 10
	promptBytes = 64 << 10
	recentCalls = 64
	// maxPromptBytes is how much of a prompt is looked up.
	maxPromptBytes = 4 << 10
)

// Options say whose prompt or tool call is answered.
type Options struct {
	State state.Dir
	// Journal, when set, is read (its last recentBytes) for failures the
	// recall file does not hold yet.
	Journal *journal.Journal
	// Worktree is the worktree the agent works in; file paths are taken
	// relative to it.
	Worktree string
	// Session is the agent's session: its own opening prompt is not
	// earlier work.
	Session string
	Lang    i18n.Lang
	Now     time.Time
	// Pulls names the ways to pull more (the MCP tools or the commands).
	Pulls recall.Pulls
}

// A hit is an entry a prompt touches and how strongly.
type hit struct {
	entry
	off   int
	score int
	words []string
}

// Weights of the kinds of term a prompt and an entry share.
const (
	weightWord   = 1
	weightStrong = 2 // a path, an identifier, a long katakana word
	weightFile   = 3
	weightCmd    = 2 // program and subcommand
	maxHits      = 4
	// maxDecode is how many of the best candidates a prompt decodes.
	maxDecode = 3 * maxHits
	// minScore is what a prompt that does not speak of the past must
	// share with an entry: three words, or a word and a path or an
	// identifier. Two common words (environment variables) are not enough.
	minScore = 3
	// minPast is what a prompt that speaks of the past must share: one
	// word that is not a stop word.
	minPast = 1
)

// Prompt returns the recall block for a prompt that touches earlier work,
// or "" when it touches none. A prompt touches an entry when they share
// terms worth minScore, or minPast when the prompt speaks of the past
// ("we decided", "前回"). A prompt that asks about the last session with
// nothing more specific gets the newest sessions.
func Prompt(ctx context.Context, o Options, prompt string) (text string, err error) {
	p := strings.TrimSpace(prompt)
	if p == "" || strings.HasPrefix(p, "/") {
		return "", nil
	}
	if len(p) > maxPromptBytes {
		// A pasted log says little about which earlier work is meant and
		// would cost a lookup per word: its start is the question.
		p = strings.ToValidUTF8(p[:maxPromptBytes], "")
	}
	defer guard(&err)()
	f, err := load(o.State) // nil when missing: the journal may still answer
	if err != nil {
		return "", err
	}
	defer f.close()
	folded := textnorm.Fold(p)
	past := hasAny(folded, pastWords)
	again := past || asksToRun(folded)
	byOff := map[int]*hit{}
	q := queryTerms(folded)
	// byWords are the failed commands whose words the prompt holds, with
	// how many: looked up only when the prompt asks to run something
	// again, or speaks of the past.
	byWords := map[int]int{}
	for t, w := range q {
		offs, err := f.lookup(t)
		if err != nil {
			return "", err
		}
		for _, off := range offs {
			h := byOff[off]
			if h == nil {
				h = &hit{off: off}
				byOff[off] = h
			}
			h.score += w.weight
			if w.word != "" {
				h.words = append(h.words, w.word)
			}
		}
		if again && w.word != "" && !strings.HasPrefix(t, cmdPrefix) && !strings.HasPrefix(t, filePrefix) {
			offs, err := f.lookup(cmdWordPrefix + t)
			if err != nil {
				return "", err
			}
			for _, off := range offs {
				byWords[off]++
			}
		}
	}
	// A failed command the prompt names by its words ("deploy to staging
	// again" for ./deploy.sh staging) weighs more than any session that
	// shares those words: its history is what the prompt asks about.
	for off, n := range byWords {
		h := byOff[off]
		if h == nil {
			h = &hit{off: off}
			byOff[off] = h
		}
		h.score = max(h.score, minScore+n)
	}
	// The best candidates by score (the file lists decisions, then
	// sessions, newest first, so ties go to those): only they are decoded.
	var cands []*hit
	for _, h := range byOff {
		if h.score >= minScore || past && h.score >= minPast {
			cands = append(cands, h)
		}
	}
	slices.SortFunc(cands, func(a, b *hit) int { return cmp.Or(b.score-a.score, a.off-b.off) })
	var hits []*hit
	for _, h := range cands {
		if len(hits) == maxDecode {
			break
		}
		if h.entry, err = f.entry(h.off); err != nil {
			return "", err
		}
		if h.Kind == kindSession && h.Ref == o.Session {
			continue
		}
		hits = append(hits, h)
	}
	if o.Journal != nil && again {
		// Only a prompt that speaks of the past or asks to run something
		// again can touch a failure the recall file does not hold yet (a
		// command alone weighs less than minScore): the others skip the
		// journal.
		if hits, err = recentFailures(ctx, o.Journal, q, hits); err != nil {
			return "", err
		}
	}
	if len(hits) == 0 && hasAny(folded, lastSessionWords) {
		if hits, err = newestSessions(f, o.Session); err != nil {
			return "", err
		}
	}
	if len(hits) == 0 {
		return "", nil
	}
	slices.SortFunc(hits, func(a, b *hit) int {
		return cmp.Or(b.score-a.score, kindRank(a.Kind)-kindRank(b.Kind), b.When.Compare(a.When), a.off-b.off)
	})
	return promptBlock(hits, o, folded), nil
}

// recentFailures adds to hits the Bash commands the prompt names that
// failed in the journal's last promptBytes, newer than what the recall
// file says of them: a failure minutes old is not in the file yet.
func recentFailures(ctx context.Context, j *journal.Journal, q map[string]qterm, hits []*hit) ([]*hit, error) {
	recs, err := j.Tail(ctx, 8, journal.TailOptions{
		MaxBytes: promptBytes,
		Prefilter: func(line []byte) bool {
			return bytes.Contains(line, []byte(`"event":"`+hook.PostToolUseFailure+`"`)) && bytes.Contains(line, []byte(`"tool":"Bash"`))
		},
		Match: func(r *journal.Record) bool {
			return r.Event == hook.PostToolUseFailure && failureScore(q, CommandKey(r.Cmd)) > 0
		},
	})
	if err != nil {
		return nil, err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		key := CommandKey(r.Cmd)
		known := slices.IndexFunc(hits, func(h *hit) bool { return h.Kind == kindCommand && h.Key == key })
		if known >= 0 && !r.TS.After(hits[known].When) {
			continue
		}
		e := failureEntry(&history{last: r, fails: 1, since: r.TS})
		e.Kind, e.Key = kindCommand, key
		h := &hit{entry: e, score: failureScore(q, key), off: -1 - i}
		if known >= 0 {
			// A newer failure of a command the file knows: the file's
			// failures count too, and what worked after them still did.
			k := hits[known]
			h.Fails += max(k.Fails, 1)
			h.Since = cmp.Or(k.Since, k.When)
			h.Worked = k.Worked
			h.score = max(h.score, k.score)
			hits[known] = h
		} else {
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// failureScore is what a prompt's terms q share with the failed command
// key: its program and subcommand as written ("cargo build"), or its
// words (deploy, staging for deploy.sh staging; デプロイ is deploy); 0 for
// nothing.
func failureScore(q map[string]qterm, key string) int {
	n := 0
	for _, w := range keyWords(key) {
		if q[w].weight > 0 {
			n++
		}
	}
	if n > 0 {
		n += minScore
	}
	return max(n, q[cmdPrefix+key].weight)
}

// asksToRun reports whether a prompt asks to run something (again): "run
// the migration", "retry", 「もう一度」, 「実行して」, or a katakana word
// made a verb (「デプロイして」).
func asksToRun(folded string) bool {
	for _, c := range runWords {
		if hasWord(folded, c) {
			return true
		}
	}
	if hasAny(folded, runPhrases) {
		return true
	}
	for _, v := range kanaVerbs {
		for from := 0; ; {
			i := strings.Index(folded[from:], v)
			if i < 0 {
				break
			}
			i += from
			if r, _ := utf8.DecodeLastRuneInString(folded[:i]); isKatakana(r) {
				return true
			}
			from = i + len(v)
		}
	}
	return false
}

// Words and phrases that ask to run something, folded. runWords count as
// whole words only ("run" is not in "truncate").
var (
	runWords   = []string{"run", "rerun", "re-run", "retry", "redo", "execute", "relaunch", "redeploy"}
	runPhrases = []string{"one more time", "try it", "実行", "再度", "やり直", "流して", "回して", "走らせ", "叩いて"}
	kanaVerbs  = []string{"して", "しよう", "しといて", "する", "お願い"}
)

// hasWord reports whether s holds w as a whole word.
func hasWord(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if (i == 0 || !isWord(before)) && (i+len(w) == len(s) || !isWord(after)) {
			return true
		}
		from = i + len(w)
	}
}

func newestSessions(f *file, current string) ([]*hit, error) {
	offs, err := f.lookup(recentTerm)
	if err != nil {
		return nil, err
	}
	var hits []*hit
	for _, off := range offs {
		e, err := f.entry(off)
		if err != nil {
			return nil, err
		}
		if e.Ref != current {
			hits = append(hits, &hit{entry: e, off: off, score: 1})
		}
	}
	if len(hits) > 2 {
		hits = hits[:2]
	}
	return hits, nil
}

func kindRank(k string) int {
	return strings.Index("dcfs", k)
}

// A qterm is a term of a prompt: its weight and the word it came from,
// for a search the block suggests ("" for a file or a command).
type qterm struct {
	weight int
	word   string
}

// queryTerms are the terms of a prompt, folded (textnorm.Fold), to look
// up, with their weights: its words, the paths it names (as files) and its
// pairs of words (as commands, "go test").
func queryTerms(folded string) map[string]qterm {
	q := map[string]qterm{}
	add := func(t term) {
		w := weightWord
		if t.strong {
			w = weightStrong
		}
		if w > q[t.text].weight {
			q[t.text] = qterm{w, t.word}
		}
		if isPath(t.text) {
			q[filePrefix+t.text] = qterm{weight: weightFile}
		}
	}
	foldedTerms(folded, func(t term) {
		add(t)
		// A loanword is also looked up as written in the other script
		// (timezone, タイムゾーン), as its whole word only: the other
		// form's pieces would count the one word several times.
		for _, alt := range textnorm.Loanwords(t.word) {
			foldedTerms(alt, func(a term) {
				if a.word != "" {
					add(a)
				}
			})
		}
	})
	words := strings.FieldsFunc(folded, func(r rune) bool { return !isWord(r) && r != '-' })
	for i, w := range words {
		if i+1 < len(words) && wtstate.PlainWord(words[i+1]) {
			q[cmdPrefix+w+" "+words[i+1]] = qterm{weight: weightCmd}
		}
		if len(w) >= 3 && !stopWords()[w] && q[cmdPrefix+w].weight == 0 {
			q[cmdPrefix+w] = qterm{weight: weightWord}
		}
	}
	return q
}

func hasAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Phrases that speak of earlier work, folded.
var pastWords = []string{
	"decide", "decision", "agreed", "we chose", "did we", "we did", "do we", "are we", "still", "earlier", "previous", "before",
	"last time", "last session", "left off", "remind me", "again", "history", "what happened",
	"why did", "back to", "as discussed", "we talked", "you said", "we had", "what was", "were we",
	"pick up", "continue", "resume", "carry on",
	"前回", "以前", "この前", "さっき", "先ほど", "決めた", "決定", "決まっ", "合意", "どうなった",
	"続き", "続け", "再開", "もう一度", "前に", "経緯", "履歴", "話した", "言った", "やった", "した件", "の件", "まだ", "だっけ",
}

// Phrases that ask for the last session itself.
var lastSessionWords = []string{
	"last time", "last session", "previous session", "left off", "where were we", "where we were",
	"前回", "この前のセッション", "続きから", "どこまで",
}

var (
	msgPromptHead  = i18n.Msg{JA: "baton の想起: このプロンプトは以前の作業に触れています。", EN: "baton recall: this prompt touches earlier work."}
	msgDecision    = i18n.Msg{JA: "- 承認済みの決定（%s、%s）: %s", EN: "- Approved decision (%s, %s): %s"}
	msgSession     = i18n.Msg{JA: "- セッション %s（%s%s）: %s", EN: "- Session %s (%s%s): %s"}
	msgBranch      = i18n.Msg{JA: "、ブランチ %s", EN: ", branch %s"}
	msgFailed      = i18n.Msg{JA: "- `%s` が失敗（%s、%s）: %s", EN: "- `%s` failed (%s, %s): %s"}
	msgFileFailed  = i18n.Msg{JA: "- %s への %s が失敗（%s）: %s", EN: "- %s on %s failed (%s): %s"}
	msgExit        = i18n.Msg{JA: "終了コード %d", EN: "exit %d"}
	msgNoExit      = i18n.Msg{JA: "終了コード不明", EN: "exit unknown"}
	msgTimes       = i18n.Msg{JA: "、%d 回", EN: ", %d times"}
	msgTimesSince  = i18n.Msg{JA: "、%[1]d 回・初回 %[2]s", EN: ", %d times, first at %s"}
	msgYesterday   = i18n.Msg{JA: "昨日 %s", EN: "%s yesterday"}
	msgInSession   = i18n.Msg{JA: "、セッション %s%s", EN: ", in session %s%s"}
	msgWorked      = i18n.Msg{JA: "。その後に成功した実行: `%s`", EN: ". What worked after: `%s`"}
	msgMore        = i18n.Msg{JA: "詳しくは: %s", EN: "More: %s"}
	msgToolCmdHead = i18n.Msg{JA: "baton: `%s` はこのリポジトリで以前失敗しています。", EN: "baton: `%s` failed earlier in this repository."}
	msgToolFile    = i18n.Msg{JA: "baton: %s には履歴があります。", EN: "baton: %s has history."}
	msgMinAgo      = i18n.Msg{JA: "%d 分前", EN: "%d min ago"}
	msgHourAgo     = i18n.Msg{JA: "%d 時間前", EN: "%d h ago"}
	msgJustNow     = i18n.Msg{JA: "たった今", EN: "just now"}
)

// when says when t was, relative to now within a day, else its date.
func when(t, now time.Time, lang i18n.Lang) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < time.Minute:
		return msgJustNow.In(lang)
	case d < time.Hour:
		return msgMinAgo.Format(lang, int(d/time.Minute))
	case d < 24*time.Hour:
		return msgHourAgo.Format(lang, int(d/time.Hour))
	}
	return t.In(now.Location()).Format("2006-01-02")
}

// line is one entry as a recall block shows it.
func (e *entry) line(o Options) string {
	at := when(e.When, o.Now, o.Lang)
	switch e.Kind {
	case kindDecision:
		ref := e.Ref
		if e.Slug != "" && !strings.Contains(ref, e.Slug) {
			ref = e.Slug + ", " + ref
		}
		return msgDecision.Format(o.Lang, at, ref, e.Text)
	case kindSession:
		br := ""
		if e.Branch != "" {
			br = msgBranch.Format(o.Lang, e.Branch)
		}
		return msgSession.Format(o.Lang, textcut.ShortID(e.Ref), at, br, e.Text)
	case kindFile:
		return msgFileFailed.Format(o.Lang, e.Tool, strings.Join(e.Files, ", "), at, e.Err)
	}
	return e.failedLine(o)
}

// failedLine is a failed command: its line, when, exit status, how many
// times, its first error line and what worked after.
func (e *entry) failedLine(o Options) string {
	return e.failed(o, e.exitText(o))
}

// sessionLine is a failed command as a prompt's recall shows it: its line
// with the session it last failed in beside the failure, not beside what
// worked after it, which may have run in another session. A failure of
// the agent's own session names none.
func (e *entry) sessionLine(o Options) string {
	exit := e.exitText(o)
	if e.Ref != "" && e.Ref != o.Session {
		br := ""
		if e.Branch != "" {
			br = msgBranch.Format(o.Lang, e.Branch)
		}
		exit += msgInSession.Format(o.Lang, textcut.ShortID(e.Ref), br)
	}
	return e.failed(o, exit)
}

// exitText is what a failed command's line says of how it failed: its exit
// status, and how many times since its first failure.
func (e *entry) exitText(o Options) string {
	exit := msgNoExit.In(o.Lang)
	if e.Exit != nil {
		exit = msgExit.Format(o.Lang, *e.Exit)
	}
	switch {
	case e.Fails > 1 && !e.Since.IsZero() && e.Since.Before(e.When):
		exit += msgTimesSince.Format(o.Lang, e.Fails, clock(e.Since, o.Now, o.Lang))
	case e.Fails > 1:
		exit += msgTimes.Format(o.Lang, e.Fails)
	}
	return exit
}

// failed lays out a failed command's line around exit, then its first
// error line and what worked after it.
func (e *entry) failed(o Options, exit string) string {
	s := msgFailed.Format(o.Lang, cut(e.Cmd, 160), when(e.When, o.Now, o.Lang), exit, e.Err)
	if len(e.Worked) > 0 {
		s += msgWorked.Format(o.Lang, cut(e.Worked[0], 160))
	}
	return s
}

// clock says the time of day t was: "10:42" today, "10:42 yesterday",
// else its date and time.
func clock(t, now time.Time, lang i18n.Lang) string {
	t = t.In(now.Location())
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	y3, m3, d3 := now.AddDate(0, 0, -1).Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return t.Format("15:04")
	case y1 == y3 && m1 == m3 && d1 == d3:
		return msgYesterday.Format(lang, t.Format("15:04"))
	}
	return t.Format("2006-01-02 15:04")
}

// promptBlock lays out hits, best first, whole lines only, within
// MaxPrompt, ending with the pull tools that give more: a search for the
// prompt's words that matched (in the prompt's order), the decisions, the
// session's log.
func promptBlock(hits []*hit, o Options, prompt string) string {
	head := msgPromptHead.In(o.Lang)
	var words []string
	session := ""
	for _, h := range hits {
		slices.SortFunc(h.words, func(a, b string) int { return strings.Index(prompt, a) - strings.Index(prompt, b) })
		for _, w := range h.words {
			if !slices.Contains(words, w) && len(words) < 3 {
				words = append(words, w)
			}
		}
		if h.Kind == kindSession && session == "" {
			session = h.Ref
		}
	}
	var pulls []string
	if slices.ContainsFunc(hits, func(h *hit) bool { return h.Kind == kindDecision }) {
		pulls = append(pulls, o.Pulls.Decisions())
	}
	if len(words) > 0 {
		pulls = append(pulls, o.Pulls.Search(strings.Join(words, " ")))
	}
	if session != "" || len(pulls) == 0 {
		if p := o.Pulls.SessionLog(session); !slices.Contains(pulls, p) {
			pulls = append(pulls, p)
		}
	}
	tail := msgMore.Format(o.Lang, strings.Join(pulls, ", "))
	var lines []string
	for i, h := range hits {
		if i == maxHits {
			break
		}
		if h.Kind == kindCommand {
			lines = append(lines, h.sessionLine(o))
			continue
		}
		lines = append(lines, h.line(o))
	}
	return fenced(head, lines, tail, MaxPrompt, o.Lang)
}

// fenced lays out head, then as many of lines as fit whole within max
// characters as one quoted block (package quote: they hold text baton did
// not write, error output and transcript excerpts), then tail when it is
// not "". It is "" when no line fits.
func fenced(head string, lines []string, tail string, max int, lang i18n.Lang) string {
	used := hook.Len(head) + quote.Overhead(lang)
	if tail != "" {
		used += 1 + hook.Len(tail)
	}
	var kept []string
	for _, l := range lines {
		if n := hook.Len(l) + 1; used+n <= max {
			kept = append(kept, l)
			used += n
		}
	}
	if len(kept) == 0 {
		return ""
	}
	s := head + "\n" + quote.Lines(lang, kept)
	if tail != "" {
		s += "\n" + tail
	}
	return s
}

// Tool returns the note for a tool call about to run, or "" when its file
// or command has no history: for an edit (Edit, Write, MultiEdit,
// NotebookEdit) of a file an approved decision or a recent failure names,
// the decision or the failure; for a Bash command whose program and
// subcommand failed within FailureAge and has not worked as it failed
// since, how it went last time and the line that worked after, when a line
// worked after it or it failed more than once: else the note would only
// repeat the error.
func Tool(ctx context.Context, o Options, tool, file, cmd string) (text string, err error) {
	defer guard(&err)()
	switch {
	case tool == "Bash" && cmd != "":
		return commandNote(ctx, o, cmd)
	case isEdit(tool) && file != "":
		return fileNote(ctx, o, file)
	}
	return "", nil
}

func commandNote(ctx context.Context, o Options, cmd string) (string, error) {
	key := CommandKey(cmd)
	if key == "" {
		return "", nil
	}
	f, err := load(o.State)
	if err != nil {
		return "", err
	}
	defer f.close()
	var e entry
	offs, err := f.lookup(cmdPrefix + key)
	if err != nil {
		return "", err
	}
	for _, off := range offs {
		if x, err := f.entry(off); err != nil {
			return "", err
		} else if x.Kind == kindCommand && x.Key == key {
			e = x
		}
	}
	// The journal's end, newest first, down to the file's last failure: a
	// newer failure, or the lines that worked since.
	h := &history{}
	if o.Journal != nil {
		recs, err := o.Journal.Tail(ctx, recentCalls, journal.TailOptions{
			MaxBytes: recentBytes,
			Prefilter: func(line []byte) bool {
				return bytes.Contains(line, []byte(key)) && bytes.Contains(line, []byte(`"event":"`+hook.PostToolUse)) && bytes.Contains(line, []byte(`"tool":"Bash"`))
			},
			Match: func(r *journal.Record) bool {
				return r.Tool == "Bash" && (r.Event == hook.PostToolUseFailure && CommandKey(r.Cmd) == key || r.Event == hook.PostToolUse && ranKey(r.Cmd, key))
			},
		})
		if err != nil {
			return "", err
		}
		for i := len(recs) - 1; i >= 0; i-- {
			r := &recs[i]
			switch {
			case e.Kind != "" && !r.TS.After(e.When):
				i = 0 // the recall file has this and what came before
			case r.Event == hook.PostToolUseFailure:
				h.fail(r)
			case r.Exit == nil || *r.Exit == 0:
				h.succeed(r.Cmd)
			}
		}
	}
	// Resolved by the journal alone: the recall file holds no failure
	// that worked as it failed.
	resolved := h.last != nil && h.resolved()
	if e.Kind != "" {
		// The recall file's history comes before the journal's: its
		// failures count too, from its first, and its lines that worked
		// after them still say what worked.
		if h.last == nil {
			h.last = &journal.Record{TS: e.When, Cmd: e.Cmd, Exit: e.Exit, Error: e.Err, Tool: "Bash", Session: e.Ref, Branch: e.Branch}
		}
		h.fails += max(e.Fails, 1)
		h.since = cmp.Or(e.Since, e.When)
		for _, c := range e.Worked {
			if !slices.Contains(h.worked, c) && len(h.worked) < 3 {
				h.worked = append(h.worked, c)
			}
		}
	}
	if h.last == nil || o.Now.Sub(h.last.TS) > FailureAge || resolved || slices.Contains(h.worked, cmd) {
		return "", nil
	}
	if len(h.worked) == 0 && h.fails < 2 {
		// The note reaches the model after the call's own result: one
		// failure and no line that worked after it would only repeat an
		// error it has just read, or one that no longer matters.
		return "", nil
	}
	e = failureEntry(h)
	e.When = h.last.TS
	e.Err = firstLine(h.last.Error)
	head := msgToolCmdHead.Format(o.Lang, key)
	line := cutUnits(e.failedLine(o), MaxTool-hook.Len(head)-quote.Overhead(o.Lang)-1)
	return fenced(head, []string{line}, "", MaxTool, o.Lang), nil
}

func fileNote(ctx context.Context, o Options, file string) (string, error) {
	rel := relTo(file, o.Worktree)
	base := filepath.Base(rel)
	f, err := load(o.State)
	if err != nil {
		return "", err
	}
	defer f.close()
	var hits []*hit
	seen := map[int]bool{}
	for _, t := range []string{filePrefix + rel, filePrefix + base} {
		offs, err := f.lookup(t)
		if err != nil {
			return "", err
		}
		for _, off := range offs {
			if seen[off] {
				continue
			}
			seen[off] = true
			e, err := f.entry(off)
			if err != nil {
				return "", err
			}
			if e.Kind == kindSession || !names(e.Files, rel) || e.Kind != kindDecision && o.Now.Sub(e.When) > FailureAge {
				continue
			}
			hits = append(hits, &hit{entry: e, off: off})
		}
	}
	if o.Journal != nil {
		// The journal's end: a failure newer than the file's, or a change
		// of the file that went through since its failed one.
		recs, err := o.Journal.Tail(ctx, 8, journal.TailOptions{
			MaxBytes: recentBytes,
			Prefilter: func(line []byte) bool {
				return bytes.Contains(line, []byte(`"event":"`+hook.PostToolUse)) && bytes.Contains(line, []byte(base))
			},
			Match: func(r *journal.Record) bool {
				touched := r.File != "" && relTo(r.File, r.Worktree) == rel
				return r.Event == hook.PostToolUseFailure && (touched || names(pathsIn(r.Error), rel)) || r.Event == hook.PostToolUse && isEdit(r.Tool) && touched
			},
		})
		if err != nil {
			return "", err
		}
		if n := len(recs); n > 0 {
			r := &recs[n-1]
			switch {
			case r.Event == hook.PostToolUse:
				hits = slices.DeleteFunc(hits, func(h *hit) bool { return h.Kind == kindFile && !h.When.After(r.TS) })
			case !slices.ContainsFunc(hits, func(h *hit) bool { return h.Kind != kindDecision && !r.TS.After(h.When) }):
				e := failureEntry(&history{last: r, fails: 1})
				e.Kind, e.Key, e.Files = kindFile, CommandKey(r.Cmd), []string{rel}
				if r.Tool == "Bash" {
					e.Kind = kindCommand
				}
				hits = append(hits, &hit{entry: e})
			}
		}
	}
	if len(hits) == 0 {
		return "", nil
	}
	slices.SortFunc(hits, func(a, b *hit) int {
		return cmp.Or(kindRank(a.Kind)-kindRank(b.Kind), b.When.Compare(a.When))
	})
	var lines []string
	for _, h := range hits {
		lines = append(lines, h.line(o))
	}
	return fenced(msgToolFile.Format(o.Lang, rel), lines, "", MaxTool, o.Lang), nil
}

// names is true when one of paths is rel: the same path, a shorter path
// that rel ends with, or a bare base name equal to rel's.
func names(paths []string, rel string) bool {
	for _, p := range paths {
		p = strings.TrimPrefix(p, "./")
		if p == rel || strings.HasSuffix(rel, "/"+p) {
			return true
		}
	}
	return false
}

// cutUnits keeps whole lines of text within n UTF-16 units, at least the
// first cut to fit.
func cutUnits(text string, n int) string {
	if hook.Len(text) <= n {
		return text
	}
	var out []string
	used := 0
	for _, l := range strings.Split(text, "\n") {
		if used+hook.Len(l)+1 > n {
			if len(out) == 0 {
				out = append(out, cut(l, n/2))
			}
			break
		}
		out = append(out, l)
		used += hook.Len(l) + 1
	}
	return strings.Join(out, "\n")
}
