package textnorm

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// loanwordText is the table of words written in either script (see the
// file's head).
//
//go:embed loanwords.txt
var loanwordText string

// loanwordTable is the table read once: each form, folded, to the forms of
// its line, English first.
var loanwordTable = sync.OnceValue(func() map[string][]string {
	m := make(map[string][]string, 2*strings.Count(loanwordText, "\n"))
	for line := range strings.Lines(loanwordText) {
		forms := fields(line)
		if len(forms) < 2 || strings.HasPrefix(forms[0], "#") {
			continue
		}
		for _, f := range forms {
			m[f] = forms
		}
	}
	return m
})

// fields is strings.Fields, quicker on the katakana of the table (for a
// line that is not ASCII, strings.Fields looks every rune up in the table
// of spaces; a prompt's hook builds the table at every start).
func fields(s string) []string {
	out := make([]string, 0, 4)
	start := -1
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if isSpace(r) {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += n
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// isSpace is unicode.IsSpace with a shortcut: no space is above U+3000.
func isSpace(r rune) bool {
	return r <= 0x3000 && unicode.IsSpace(r)
}

// Loanwords returns the other ways the folded word w is written, when it
// is a programming loanword people write in either script: "timezone"
// gives タイムゾーン, and タイムゾーン gives "timezone". It returns nil for
// any other word.
func Loanwords(w string) []string {
	forms := loanwordTable()[w]
	if forms == nil {
		return nil
	}
	out := make([]string, 0, len(forms)-1)
	for _, f := range forms {
		if f != w {
			out = append(out, f)
		}
	}
	return out
}

// LoanwordKey returns the English form of the folded word w when it is a
// loanword of the table, and w itself otherwise: the forms of one word
// share a key.
func LoanwordKey(w string) string {
	if forms := loanwordTable()[w]; forms != nil {
		return forms[0]
	}
	return w
}
