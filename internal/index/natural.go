package index

import (
	"slices"
	"strings"
	"unicode"

	"github.com/baton-cli/baton/internal/textnorm"
)

// A query in plain words that no document holds whole — most often a
// question, "what did we decide about the queue", "キューについて何を決めた" —
// is asked again for its content words, any of them, ranked: English stop
// words are dropped; Japanese is cut where its script changes, and
// kana-only pieces (particles, endings) and a few empty kanji are dropped.
// (The index stems English words, so decide also finds decided.)

// relaxedQuery returns the content words of a plain query, as FTS5 terms
// (a word or a quoted phrase), a loanword's other script after it, and false
// when the query uses FTS5 syntax or has no content word.
func relaxedQuery(q string) ([]string, bool) {
	groups, ok := contentWords(q)
	var out []string
	for _, g := range groups {
		for _, t := range g {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out, ok
}

// contentWords returns the content words of a plain query, each as a group
// of FTS5 terms that find it (the word, and a loanword as it is written in
// the other script), and false when the query uses FTS5 syntax or has no
// content word.
func contentWords(q string) ([][]string, bool) {
	if strings.ContainsAny(q, `"()*:^{}`) {
		return nil, false
	}
	var out [][]string
	seen := map[string]bool{}
	for _, field := range strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '_' && r != '-' || unicode.IsSymbol(r)
	}) {
		switch field {
		case "AND", "OR", "NOT", "NEAR":
			return nil, false
		}
		for _, run := range scriptRuns(textnorm.Fold(field)) {
			var t string
			if run.spaced {
				if run.kana || stopWord(jaStopWords, run.text) {
					continue
				}
				t = `"` + segment(run.text) + `"`
			} else {
				w := strings.Trim(run.text, "-_")
				if w == "" || stopWord(enStopWords, w) || len(w) < 2 {
					continue
				}
				if strings.IndexFunc(w, func(r rune) bool { return !bareword(r) }) >= 0 {
					t = `"` + w + `"`
				} else {
					t = w
				}
			}
			if seen[t] {
				continue
			}
			seen[t] = true
			group := []string{t}
			// A loanword is also looked for in the other script.
			for _, alt := range textnorm.Loanwords(run.text) {
				group = append(group, ftsWord(alt, false))
			}
			out = append(out, group)
		}
	}
	return out, len(out) > 0
}

// orQuery joins relaxed terms with OR and returns the words to mark in
// snippets.
func orQuery(terms []string) (string, []string) {
	marks := make([]string, len(terms))
	for i, t := range terms {
		marks[i] = markWord(t)
	}
	return strings.Join(terms, " OR "), marks
}

// markWord is the text a relaxed term is found by in folded text: a phrase
// (a segmented Japanese run) with its quotes and spaces gone, a word stemmed.
func markWord(term string) string {
	if strings.HasPrefix(term, `"`) {
		term = strings.ReplaceAll(strings.Trim(term, `"`), " ", "")
	}
	return stem(term)
}

// stem strips a common English ending, for marking a word's other forms in
// a snippet (the index itself stems with FTS5's porter tokenizer): retry
// marks retries and retried. Short words and others stay whole.
func stem(w string) string {
	if len(w) < 4 || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return w
	}
	for _, suffix := range []string{"ations", "ation", "ings", "ing", "ions", "ion", "ies", "ed", "es", "s", "e", "y"} {
		if root, ok := strings.CutSuffix(w, suffix); ok && len(root) >= 4 {
			return root
		}
	}
	return w
}

type scriptRun struct {
	text   string
	spaced bool // written without spaces (Japanese, Chinese)
	kana   bool // hiragana only
}

// scriptRuns cuts s where it changes between hiragana, katakana, kanji and
// everything else.
func scriptRuns(s string) []scriptRun {
	class := func(r rune) int {
		switch {
		case unicode.Is(unicode.Hiragana, r):
			return 1
		case unicode.Is(unicode.Katakana, r) || r == 'ー':
			return 2
		case spaced(r):
			return 3
		}
		return 0
	}
	var out []scriptRun
	start, cur := 0, -1
	for i, r := range s {
		c := class(r)
		if c != cur && i > start {
			out = append(out, scriptRun{text: s[start:i], spaced: cur != 0, kana: cur == 1})
			start = i
		}
		cur = c
	}
	if start < len(s) {
		out = append(out, scriptRun{text: s[start:], spaced: cur != 0, kana: cur == 1})
	}
	return out
}

// enStopWords are English words that say nothing about a topic, each
// between spaces.
const enStopWords = " a about above after again all also am an and any are as at be been before being below between both but by " +
	"can could did do does doing done down during each few for from further had has have having he her here hers him his how " +
	"i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own " +
	"same she should so some such than that the their theirs them then there these they this those through to too under until " +
	"up us very was we were what when where which while who whom why will with would you your yours " +
	"tell remember recall know ago last earlier previous please "

// jaStopWords are kanji words that say nothing about a topic, each between
// spaces.
const jaStopWords = " 何 今 前 後 時 事 方 私 僕 俺 誰 話 等 的 件 際 中 上 下 前回 以前 今回 教 "

// stopWord reports whether w is one of the words of list.
func stopWord(list, w string) bool {
	return strings.Contains(list, " "+w+" ")
}
