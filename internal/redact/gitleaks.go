package redact

//go:generate go run ./internal/gengitleaks -o gitleaks_rules.go

import (
	"math"
	"math/bits"
	"regexp"
	"strings"
	"sync"
)

// The rules of gitleaks (https://github.com/gitleaks/gitleaks), taken from
// its default configuration by go generate into gitleaks_rules.go. Each rule
// has keywords; its regular expression is compiled the first time one of
// them shows up in a text, and run only on the text around them: from 64
// bytes before the keyword to the longest match the expression allows after
// it, within the keyword's line. On text crafted to hold keywords
// everywhere, the expressions stop after reading twice the text's length
// (and 16 KiB); the scanner and the high-entropy check still cover it.

type gitleaksRule struct {
	id      string
	re      int // index in gitleaksRegexps
	maxLen  int // the most bytes a match spans (4096 when unbounded)
	group   int // the secret's capture group; 0 for the first that matched
	entropy float64
	allow   []gitleaksAllowlist
}

// gitleaksAllowlist is a set of conditions under which a match is not a
// secret, as gitleaks' [[rules.allowlists]].
type gitleaksAllowlist struct {
	target    string // what re is matched against: "" the secret, "match" or "line"
	and       bool   // all conditions must hold, not one
	never     bool   // needs a file path or commit, which a text has not
	re        int    // index in gitleaksRegexps, or -1
	stopwords []string
}

type gitleaksKeyword struct {
	text  string
	rules []uint8
}

const (
	// A rule runs on the text from this far before its keyword to its
	// longest match after it, within the keyword's line.
	maxLeadIn = 64
	// Regular expressions run on at most this many bytes per byte of text
	// (plus regexpAllowance): text crafted to hold keywords everywhere
	// could otherwise make every rule run over all of it.
	regexpBudget    = 2
	regexpAllowance = 16 << 10
)

// compiled holds the regular expressions compiled so far.
var compiled [len(gitleaksRegexps)]struct {
	once sync.Once
	re   *regexp.Regexp
}

func gitleaksRegexp(i int) *regexp.Regexp {
	c := &compiled[i]
	c.once.Do(func() { c.re = regexp.MustCompile(gitleaksRegexps[i]) })
	return c.re
}

// ruleRuns tracks, during one pass, where each rule has run up to and how
// many bytes the regular expressions may still read.
type ruleRuns struct {
	end    [len(gitleaksRules)]int
	budget int
}

// find appends to spans the secrets that gitleaks' rules, the
// high-entropy check and the naming words of prose.go find in s, in one
// pass over its bytes.
//
// A keyword is looked for where a word starts (after a byte that is not a
// letter or digit) or where it starts with punctuation, which keeps the pass
// fast; gitleaks itself looks anywhere. The one keyword that starts inside a
// word, "q~" of Azure client secrets, is looked for at its '~'.
func find(s string, spans []span) []span {
	runs := ruleRuns{budget: regexpBudget*len(s) + regexpAllowance}
	run := -1 // start of the current run of entropy bytes
	for i := 0; i < len(s); {
		class := byteClass[s[i]]
		k, next := i, i+1
		if class&classAlnum != 0 {
			// A word starts: the keyword check at i, then on past it.
			if run < 0 {
				run = i
			}
			for next < len(s) && byteClass[s[next]]&classAlnum != 0 {
				next++
			}
			if next > i+1 && namingPair(s[i], s[i+1]) && namingStart(s, i) {
				spans = named(s, i, false, spans)
			}
		} else {
			if c := s[i]; c >= 0x80 && c < 0xC0 && namingJaLast>>(c&63)&1 != 0 && i >= 2 {
				spans = named(s, i-2, true, spans)
			}
			if class&classRun == 0 && run >= 0 {
				spans = highEntropy(s, run, i, spans)
				run = -1
			} else if class&classRun != 0 && run < 0 {
				run = i
			}
			switch c := s[i]; {
			case c == '~' && i > 0:
				k = i - 1
			case gitleaksPunctFirst[c>>6]>>(c&63)&1 == 0:
				i = next
				continue
			}
		}
		i = next
		if k+1 >= len(s) {
			continue
		}
		pair := uint16(lowerASCII[s[k]])<<8 | uint16(lowerASCII[s[k+1]])
		word := gitleaksPairs[pair>>6]
		if word>>(pair&63)&1 == 0 {
			continue
		}
		r := int(gitleaksPairRank[pair>>6]) + bits.OnesCount64(word&(1<<(pair&63)-1))
		if k+2 < len(s) {
			if c := lowerASCII[s[k+2]]; gitleaksPairThird[r][c>>6]>>(c&63)&1 == 0 {
				continue
			}
		}
		for x := gitleaksPairKeywords[r]; x < gitleaksPairKeywords[r+1]; x++ {
			kw := &gitleaksKeywords[x]
			if !hasPrefixFold(s[k:], kw.text) {
				continue
			}
			for _, r := range kw.rules {
				spans = runs.rule(s, int(r), k, spans)
			}
		}
	}
	if run >= 0 {
		spans = highEntropy(s, run, len(s), spans)
	}
	return spans
}

// rule runs gitleaks rule r on the text around its keyword at k, within
// the keyword's line, and appends the secrets it finds. Text the rule has run
// on before is not read again, save for an overlap of its longest match.
func (runs *ruleRuns) rule(s string, r, k int, spans []span) []span {
	rule := &gitleaksRules[r]
	start := max(0, k-maxLeadIn)
	if j := strings.LastIndexByte(s[start:k], '\n'); j >= 0 {
		start += j + 1
	}
	end := min(len(s), k+rule.maxLen)
	if j := strings.IndexByte(s[k:end], '\n'); j >= 0 {
		end = k + j
	}
	if end <= runs.end[r] {
		return spans
	}
	start = max(start, runs.end[r]-rule.maxLen)
	if end-start > runs.budget {
		return spans
	}
	runs.budget -= end - start
	runs.end[r] = end
	text := s[start:end]
	re := gitleaksRegexp(rule.re)
	if !re.MatchString(text) {
		return spans
	}
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		a, e := rule.secret(m)
		if a < 0 || !rule.isSecret(text, m[0], m[1], a, e) {
			continue
		}
		a, e = a+start, e+start
		if !insideMarker(s, a, e) {
			spans = append(spans, span{a, e, rule.id})
		}
	}
	return spans
}

// secret returns the span of the secret in a match: the rule's secret group,
// or the first group that matched, or the whole match.
func (r *gitleaksRule) secret(m []int) (start, end int) {
	if len(m) <= 2 {
		return m[0], m[1]
	}
	if r.group > 0 {
		if 2*r.group+1 >= len(m) {
			return -1, -1
		}
		return m[2*r.group], m[2*r.group+1]
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			return m[g], m[g+1]
		}
	}
	return m[0], m[1]
}

// isSecret applies the rule's entropy threshold and the allowlists to the
// secret text[a:e] of the match text[ms:me].
func (r *gitleaksRule) isSecret(text string, ms, me, a, e int) bool {
	if a < 0 || e <= a {
		return false
	}
	secret := text[a:e]
	if r.entropy != 0 && shannon(secret) <= r.entropy {
		return false
	}
	match := strings.Trim(text[ms:me], "\n")
	ls := strings.LastIndexByte(text[:ms], '\n') + 1
	le := len(text)
	if j := strings.IndexByte(text[me:], '\n'); j >= 0 {
		le = me + j
	}
	line := text[ls:le]
	for _, list := range [2][]gitleaksAllowlist{gitleaksGlobalAllow, r.allow} {
		for i := range list {
			if list[i].allows(secret, match, line) {
				return false
			}
		}
	}
	return true
}

func (a *gitleaksAllowlist) allows(secret, match, line string) bool {
	if a.never {
		return false
	}
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	reHit := a.re >= 0 && gitleaksRegexp(a.re).MatchString(target)
	stopHit := false
	for _, w := range a.stopwords {
		if containsFold(secret, w) {
			stopHit = true
			break
		}
	}
	if a.and {
		return (a.re < 0 || reHit) && (len(a.stopwords) == 0 || stopHit) && (a.re >= 0 || len(a.stopwords) > 0)
	}
	return reHit || stopHit
}

// maxMarkerLen bounds the length of a replacement: "[REDACTED:", the
// longest kind (a gitleaks rule id) and "]".
const maxMarkerLen = 96

// insideMarker reports whether s[a:e] overlaps an earlier replacement.
func insideMarker(s string, a, e int) bool {
	lo := max(0, a-maxMarkerLen)
	m := strings.LastIndex(s[lo:e], marker)
	if m < 0 {
		return false
	}
	m += lo
	close := strings.IndexByte(s[m:], ']')
	return close < 0 || m+close >= a
}

// shannon returns the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	var counts [256]uint32
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// containsFold reports whether s contains sub, ignoring ASCII case; sub is
// lower-case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasPrefixFold(s[i:], sub) {
			return true
		}
	}
	return false
}

// lowerASCII maps each byte to its ASCII lower case.
var lowerASCII = [256]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	' ', '!', '"', '#', '$', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', '/',
	'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
	'@', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '[', '\\', ']', '^', '_',
	'`', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', '{', '|', '}', '~', 0x7f,
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
}
