package index

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// TestSpacedAsTables checks the bit table of spaced characters against
// the scripts' tables, for every character.
func TestSpacedAsTables(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r >= 0x1100 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー')
		if got := spaced(r); got != want {
			t.Fatalf("spaced(%U) = %v, want %v", r, got, want)
		}
		if want {
			n++
		}
	}
	if n < 90000 {
		t.Fatalf("%d spaced characters: the tables were not read", n)
	}
}

// TestSegmentRuneByRune checks segment against spacing the text one
// character at a time, on texts mixing scripts, marks and bytes that are
// not UTF-8.
func TestSegmentRuneByRune(t *testing.T) {
	want := func(s string) string {
		i := strings.IndexFunc(s, spaced)
		if i < 0 {
			return s
		}
		var b strings.Builder
		b.WriteString(s[:i])
		for _, r := range s[i:] {
			if spaced(r) {
				b.WriteByte(' ')
				b.WriteRune(r)
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	pieces := []string{"a", "Z", " ", "\n", "é", "ー", "エ", "チ", "日本", "한국", "\xff", "\xe3\x81", "\xe3", "\ufffd", "ß", "😀", "𠮷", "ｱ", "go.mod"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, w := segment(s), want(s); got != w {
			t.Fatalf("segment(%q) = %q, want %q", s, got, w)
		}
	}
}
