// Package quotetest reads the blocks of package quote back out of a text,
// for tests that check that planted text lands inside one.
package quotetest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/quote"
)

// A Found block is a token and the text its lines enclose, with where that
// text starts and ends in the searched string.
type Found struct {
	Token      string
	Text       string
	Start, End int
}

// Blocks returns the blocks of s in order: each opening line (it may
// follow a label on its line), its token and the text up to the closing line with the same
// token. An opening line without its closing line is not a block.
func Blocks(s string) []Found {
	var out []Found
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], quote.Open)
		if j < 0 {
			break
		}
		i += j + len(quote.Open)
		rest := s[i:]
		if len(rest) < quote.TokenLen+len(quote.End) || rest[quote.TokenLen:quote.TokenLen+len(quote.End)] != quote.End {
			continue
		}
		tok := rest[:quote.TokenLen]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			break
		}
		start := i + nl + 1
		closing := "\n" + quote.Close + tok + quote.End
		k := strings.Index(s[start-1:], closing)
		if k < 0 {
			continue
		}
		end := start - 1 + k
		if end < start {
			end = start
		}
		out = append(out, Found{Token: tok, Text: s[start:end], Start: start, End: end})
		i = end + len(closing)
	}
	return out
}

// Inside reports whether needle occurs in s and every occurrence lies
// within the text of one of s's blocks.
func Inside(s, needle string) bool {
	blocks := Blocks(s)
	found := false
	for i := 0; ; {
		j := strings.Index(s[i:], needle)
		if j < 0 {
			return found
		}
		at := i + j
		in := false
		for _, b := range blocks {
			in = in || at >= b.Start && at+len(needle) <= b.End
		}
		if !in {
			return false
		}
		found = true
		i = at + 1
	}
}

// Tokens returns the tokens of s's blocks in order.
func Tokens(s string) []string {
	var out []string
	for _, b := range Blocks(s) {
		out = append(out, b.Token)
	}
	return out
}

// Masked returns s with the token of every opening and closing line
// replaced by "TOKEN", so that a golden file can hold it; it finds them in
// JSON strings too, whose encoder may write < and > as \u003c and \u003e.
func Masked(s string) string {
	return tokenLine.ReplaceAllString(s, "${1}TOKEN${2}")
}

var tokenLine = regexp.MustCompile(`((?:<<<|\\u003c\\u003c\\u003c)(?:quote|end) )[0-9a-f]{` + strconv.Itoa(quote.TokenLen) + `}(>>>|\\u003e\\u003e\\u003e)`)

// Plain returns s with every block's opening and closing lines taken out,
// its text left in their place: what s says without the fences.
func Plain(s string) string {
	var b strings.Builder
	at := 0
	for _, f := range Blocks(s) {
		b.WriteString(s[at:strings.LastIndex(s[:f.Start], quote.Open)])
		b.WriteString(s[f.Start:f.End])
		at = f.End + len("\n"+quote.Close+f.Token+quote.End)
	}
	b.WriteString(s[at:])
	return b.String()
}
