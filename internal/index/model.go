package index

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/textnorm"
)

// ForModel writes hits for a model to read (the MCP search tool): one line
// each, the snippet as plain text (no marks splitting its words), with only
// what helps to place it and pull more — its kind, day, short session id and,
// for a decision, its slug; no paths. A relaxed search keeps only the hits
// that hold at least half of its words: a model asking about something never
// worked on gets nothing rather than the nearest noise. It returns "" when
// no hit is kept.
func (r *Results) ForModel(loc *time.Location) string {
	var b strings.Builder
	for i := range r.Hits {
		h := &r.Hits[i]
		text := h.Marked("", "")
		if text == "" {
			text = h.Title
		}
		if r.Relaxed && matchedWords(text+" "+h.Title, r.Words)*2 < len(r.Words) {
			continue
		}
		b.WriteString("[")
		b.WriteString(string(h.Kind))
		if !h.Time.IsZero() {
			b.WriteString(" ")
			b.WriteString(h.Time.In(loc).Format(time.DateOnly))
		}
		if h.Session != "" {
			b.WriteString(" s:")
			b.WriteString(shortSession(h.Session))
		}
		if h.Kind == KindDecision && h.Title != "" && !strings.Contains(text, h.Title) {
			b.WriteString(" ")
			b.WriteString(h.Title)
		}
		b.WriteString("] ")
		b.WriteString(text)
		b.WriteString("\n")
	}
	return b.String()
}

// shortSession keeps the start of a session id, enough to tell sessions
// apart and to ask session_log for one.
func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// matchedWords counts the relaxed words (FTS5 terms) that text holds.
func matchedWords(text string, words []string) int {
	folded := textnorm.Fold(text)
	n := 0
	for _, w := range words {
		if strings.HasPrefix(w, `"`) {
			w = strings.ReplaceAll(strings.Trim(w, `"`), " ", "")
		}
		if strings.Contains(folded, stem(w)) {
			n++
		}
	}
	return n
}

// ApproxTokens estimates how many tokens a model's tokenizer makes of s: a
// token for every four bytes of ASCII text and one for every other
// character (a kanji or kana is about one token). It errs high for
// Japanese and is within a few percent for English prose.
func ApproxTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		other++
		i += w
	}
	return (ascii+3)/4 + other
}
