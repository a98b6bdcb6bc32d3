// Package textcut shortens text for records, briefings and messages: to at
// most n characters or n bytes, always on a character boundary, with the cut
// marked by "…", and whitespace runs collapsed to one space.
//
// It owns no state; every function is safe on any string, valid UTF-8 or not.
package textcut

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks where text was cut.
const Ellipsis = "…"

// Chars keeps at most n characters of s. When s is longer, the result is
// its first n-1 characters followed by Ellipsis, so it is n characters long.
func Chars(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}

// Bytes keeps at most n bytes of s, backing up to a character boundary,
// and marks a cut with Ellipsis (which adds its own bytes).
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + Ellipsis
}

// OneLine collapses every run of whitespace, newlines included, to one
// space and trims both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ShortIDLen is how many leading bytes of an id (a session's, a run's) its
// short form keeps.
const ShortIDLen = 8

// ShortID is the short form of id people are shown: its first ShortIDLen
// bytes. Ids are ASCII (UUIDs, hex, stamps), so no character is split.
func ShortID(id string) string {
	if len(id) > ShortIDLen {
		return id[:ShortIDLen]
	}
	return id
}

// Sentences splits text at sentence ends (".", "!" or "?" followed by a
// space or the end, "。", "！", "？") and at line breaks, trimming each
// piece; empty pieces are dropped.
func Sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	flush := func(end int) {
		if s := strings.TrimFunc(string(rs[start:end]), unicode.IsSpace); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range rs {
		switch {
		case r == '\n', r == '。', r == '！', r == '？':
			flush(i + 1)
		case (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])):
			flush(i + 1)
		}
	}
	flush(len(rs))
	return out
}
