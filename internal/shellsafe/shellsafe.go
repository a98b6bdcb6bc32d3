// Package shellsafe keeps the JSON lines baton appends (the journal, the
// logs) inert when a shell reads them: a planted link can make a file baton
// writes a shell's start-up file, and values from a repository (a branch
// named "$(touch${IFS}PWNED)") would then run as commands.
//
// In JSON text the two characters that start an expansion inside a
// double-quoted shell word, '$' and '`', can only occur inside strings, so
// writing them as \u0024 and \u0060 leaves the JSON meaning the same. What
// is left outside strings ({ } [ ] : , digits, true, false, null) holds no
// space, separator or expansion: a sourced line is one word naming no
// command.
package shellsafe

import "bytes"

// JSON rewrites every '$' and '`' in the JSON text b as a \u escape and
// returns the result, b itself when it holds neither.
func JSON(b []byte) []byte {
	if bytes.IndexByte(b, '$') < 0 && bytes.IndexByte(b, '`') < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for _, c := range b {
		switch c {
		case '$':
			out = append(out, `\u0024`...)
		case '`':
			out = append(out, `\u0060`...)
		default:
			out = append(out, c)
		}
	}
	return out
}
