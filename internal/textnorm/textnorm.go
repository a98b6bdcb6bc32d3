// Package textnorm folds text so that the same words written differently
// compare equal: Unicode NFKC (full-width ＡＰＩ and half-width ｶﾀｶﾅ become
// API and カタカナ, ligatures and circled digits their plain letters) and
// lower case. The search index folds what it stores and what it is asked
// with it; anything that matches words typed by a person against words kept
// by baton should too.
//
// It owns no state and reads no files; ASCII text is folded without
// allocating when it is already lower case.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold returns s in NFKC, lower case.
func Fold(s string) string {
	if plain(s) {
		return lowerASCII(s)
	}
	folded, _ := fold(s, false)
	return folded
}

// FoldMap folds s as Fold does and returns, for every byte of the result,
// the offset in s of the text it came from, plus one last entry len(s): a
// match found at [i, j) of the folded text is s[at[i]:at[j]] (widened to
// whole characters of s). Text folds in whole normalisation segments (a
// half-width kana and its sound mark become one character), so each byte
// of a segment's result points at the segment's start.
func FoldMap(s string) (folded string, at []int) {
	return fold(s, true)
}

func fold(s string, mapped bool) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	var at []int
	if mapped {
		at = make([]int, 0, len(s)+1)
	}
	var it *norm.Iter
	for i := 0; i < len(s); {
		// A run of plain text is only lower-cased. Its last character
		// stays out of it when something else follows: a combining mark
		// may join it.
		j := plainEnd(s, i)
		if j < len(s) && j > i {
			_, w := utf8.DecodeLastRuneInString(s[i:j])
			j -= w
		}
		for ; i < j; i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			if mapped {
				at = append(at, i)
			}
		}
		if i == len(s) {
			break
		}
		// The rest, up to the next plain character after it, goes through
		// the normaliser, segment by segment.
		k := i + 1
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		for k < len(s) {
			r, w := utf8.DecodeRuneInString(s[k:])
			if r < utf8.RuneSelf || stableRune(r) {
				break
			}
			k += w
		}
		if it == nil {
			it = new(norm.Iter)
		}
		it.InitString(norm.NFKC, s[i:k])
		for !it.Done() {
			start := i + it.Pos()
			seg := it.Next()
			for len(seg) > 0 {
				r, w := utf8.DecodeRune(seg)
				seg = seg[w:]
				n := b.Len()
				b.WriteRune(unicode.ToLower(r))
				if mapped {
					for range b.Len() - n {
						at = append(at, start)
					}
				}
			}
		}
		i = k
	}
	if mapped {
		at = append(at, len(s))
	}
	return b.String(), at
}

// plainEnd returns where the plain text starting at i ends.
func plainEnd(s string, i int) int {
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !stableRune(r) {
			break
		}
		i += w
	}
	return i
}

// plain reports text that NFKC leaves as it is and whose only cased
// letters are ASCII: ASCII, and the kana, kanji and punctuation most
// Japanese text is made of. It is checked by ranges, much faster than the
// normaliser's own check.
func plain(s string) bool {
	return plainEnd(s, 0) == len(s)
}

// stableRune reports characters NFKC keeps, that compose with nothing
// before them and have no case.
func stableRune(r rune) bool {
	switch {
	case r >= 0x3001 && r <= 0x3029: // CJK punctuation: 、。「」〜…
	case r >= 0x3041 && r <= 0x3096, r == 0x309D, r == 0x309E: // hiragana
	case r >= 0x30A0 && r <= 0x30FE: // katakana, ・, ー
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF: // kanji
	default:
		return false
	}
	return true
}

// lowerASCII lower-cases the ASCII letters of s, allocating only when
// there is one.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
