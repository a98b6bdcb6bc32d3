package textnorm

import (
	_ "embed"
	"strings"
	"sync"
)

// loanwordText is the table of words written in either script (see the
// file's head).
//
//go:embed loanwords.txt
var loanwordText string

// loanwordTable is the table read once: each form, folded, to the forms of
// its line, English first.
var loanwordTable = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for line := range strings.Lines(loanwordText) {
		forms := strings.Fields(line)
		if len(forms) < 2 || strings.HasPrefix(forms[0], "#") {
			continue
		}
		for _, f := range forms {
			m[f] = forms
		}
	}
	return m
})

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
