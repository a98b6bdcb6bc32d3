package index

import (
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/textcut"
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
			b.WriteString(textcut.ShortID(h.Session))
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

// matchedWords counts the relaxed words (FTS5 terms) that text holds.
func matchedWords(text string, words []string) int {
	folded := textnorm.Fold(text)
	n := 0
	for _, w := range words {
		if strings.Contains(folded, markWord(w)) {
			n++
		}
	}
	return n
}
