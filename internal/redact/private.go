package redact

import "strings"

const (
	privateOpen  = "<private>"
	privateClose = "</private>"
)

// indexTag returns the index of the first occurrence of tag in s, ignoring
// ASCII case, or -1. tag is lower-case and starts with '<'.
func indexTag(s, tag string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if hasPrefixFold(s[i:], tag) {
			return i
		}
		i++
	}
}

// stripPrivate removes every <private>…</private> span from s, the first of
// which opens at open. An unclosed span runs to the end of s. Removing a span
// can join the text around it into a new opening tag ("<pri" + "vate>"), so
// the output is checked for one each time a '>' is copied.
func stripPrivate(s string, open int) string {
	out := make([]byte, 0, len(s))
	out = append(out, s[:open]...)
	i := open + len(privateOpen)
	for {
		j := indexTag(s[i:], privateClose)
		if j < 0 {
			break
		}
		i += j + len(privateClose)
		reopened := false
		for i < len(s) && !reopened {
			k := strings.IndexByte(s[i:], '>')
			if k < 0 {
				out = append(out, s[i:]...)
				i = len(s)
				break
			}
			out = append(out, s[i:i+k+1]...)
			i += k + 1
			if n := len(out) - len(privateOpen); n >= 0 && hasPrefixFold(out[n:], privateOpen) {
				out = out[:n]
				reopened = true
			}
		}
		if !reopened {
			break
		}
	}
	return string(out)
}
