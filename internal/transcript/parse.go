package transcript

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	userType      = []byte(`"user"`)
	assistantType = []byte(`"assistant"`)
)

// parse decodes a user or assistant line. It reports false for every other
// line type and for lines that are not one valid JSON object.
//
// Speed matters here (a transcript can be gigabytes), so instead of a general
// JSON decoder parse walks the line once with a small validating scanner that
// skips strings with a vectorised byte search, keeps only the fields it needs,
// and walks the message value a second time to pick out its blocks. A line
// that does not contain "user" or "assistant" as a JSON string is not even
// scanned.
func parse(line []byte) (*Message, bool) {
	if !bytes.Contains(line, userType) && !bytes.Contains(line, assistantType) {
		return nil, false
	}
	// One copy of the line; every string below is a slice of it (or a
	// fresh string where escapes had to be decoded).
	s := scanner{b: string(line)}
	var typ, ts string
	m := &Message{}
	sawMessage := false
	ok := s.object(func(key string) bool {
		switch key {
		case "type":
			typ = s.stringValue()
		case "uuid":
			m.UUID = s.stringValue()
		case "timestamp":
			ts = s.stringValue()
		case "isSidechain":
			m.Sidechain = s.literal("true")
		case "message":
			// Decoded at once, whatever the type turns out to be: a
			// second walk over the largest part of the line would cost
			// more than the few other lines that carry a message.
			if s.peek() != '{' {
				return s.value()
			}
			sawMessage = true
			m.Blocks = nil
			return s.message(m)
		default:
			return s.value()
		}
		return !s.bad
	})
	if !ok || !s.end() || (typ != User && typ != Assistant) || !sawMessage {
		return nil, false
	}
	m.Role = typ
	if ts != "" {
		m.Timestamp, _ = time.Parse(time.RFC3339Nano, ts)
	}
	return m, true
}

// message reads a message object into m.Blocks.
func (s *scanner) message(m *Message) bool {
	return s.object(func(key string) bool {
		if key != "content" {
			return s.value()
		}
		switch s.peek() {
		case '"':
			m.Blocks = []Block{{Type: TextBlock, Text: s.stringValue()}}
			return !s.bad
		case '[':
			m.Blocks = nil
			return s.array(func() bool {
				if s.peek() != '{' {
					return s.value()
				}
				b, ok := s.block()
				if ok {
					m.Blocks = append(m.Blocks, b)
				}
				return !s.bad
			})
		}
		return s.value()
	})
}

// block decodes one content block; thinking, images and unknown types give
// ok=false.
func (s *scanner) block() (Block, bool) {
	var b Block
	s.object(func(key string) bool {
		switch key {
		case "type":
			b.Type = s.stringValue()
		case "text":
			b.Text = s.stringValue()
		case "name":
			b.Name = s.stringValue()
		case "id", "tool_use_id":
			b.ID = s.stringValue()
		case "is_error":
			b.IsError = s.literal("true")
		case "input":
			start := s.i
			if !s.value() {
				return false
			}
			b.Input = s.b[start:s.i]
		case "content":
			b.Text = s.resultText()
		default:
			return s.value()
		}
		return !s.bad
	})
	switch b.Type {
	case TextBlock:
		return Block{Type: b.Type, Text: b.Text}, !s.bad
	case ToolUseBlock:
		return Block{Type: b.Type, Name: b.Name, ID: b.ID, Input: b.Input}, !s.bad
	case ToolResultBlock:
		return Block{Type: b.Type, ID: b.ID, Text: b.Text, IsError: b.IsError}, !s.bad
	}
	return Block{}, false
}

// resultText reads a tool result's content: a string, or an array whose text
// blocks' text is kept.
func (s *scanner) resultText() string {
	switch s.peek() {
	case '"':
		return s.stringValue()
	case '[':
		var parts []string
		s.array(func() bool {
			if s.peek() != '{' {
				return s.value()
			}
			var typ, text string
			s.object(func(key string) bool {
				switch key {
				case "type":
					typ = s.stringValue()
				case "text":
					text = s.stringValue()
				default:
					return s.value()
				}
				return !s.bad
			})
			if typ == TextBlock {
				parts = append(parts, text)
			}
			return !s.bad
		})
		return strings.Join(parts, "\n")
	}
	s.value()
	return ""
}

// scanner walks JSON text, checking its grammar as it goes, with one
// leniency: control characters inside strings are accepted (looking at every
// byte of every string would halve the speed, and such a string is harmless).
// That is enough to tell a complete line from a torn or garbled one. Once bad
// is set every method returns false.
type scanner struct {
	b   string
	i   int
	bad bool
}

func (s *scanner) fail() bool {
	s.bad = true
	return false
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.ws()
	return !s.bad && s.i == len(s.b)
}

// object reads an object, calling fn with each key when the scanner stands at
// its value; fn must consume the value.
func (s *scanner) object(fn func(key string) bool) bool {
	if s.peek() != '{' {
		return s.fail()
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return s.fail()
		}
		key, esc, ok := s.str()
		if !ok {
			return false
		}
		if esc {
			key = unescape(key)
		}
		if s.peek() != ':' {
			return s.fail()
		}
		s.i++
		s.ws()
		if !fn(key) || s.bad {
			return s.fail()
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return s.fail()
		}
	}
}

// array reads an array, calling fn at each element; fn must consume it.
func (s *scanner) array(fn func() bool) bool {
	if s.peek() != '[' {
		return s.fail()
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if !fn() || s.bad {
			return s.fail()
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.fail()
		}
	}
}

// value skips one value of any kind.
func (s *scanner) value() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func(string) bool { return s.value() })
	case c == '[':
		return s.array(s.value)
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return s.fail()
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	digits := func() int {
		start := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i - start
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return s.fail()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return s.fail()
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return s.fail()
		}
	}
	return true
}

func (s *scanner) word(w string) bool {
	if !strings.HasPrefix(s.b[s.i:], w) {
		return s.fail()
	}
	s.i += len(w)
	return true
}

// literal reads any value and reports whether it was the literal w.
func (s *scanner) literal(w string) bool {
	start := s.i
	if !s.value() {
		return false
	}
	return s.b[start:s.i] == w
}

// stringValue reads a value, returning it when it is a string and "" when it
// is of another kind.
func (s *scanner) stringValue() string {
	if s.peek() != '"' {
		s.value()
		return ""
	}
	raw, esc, ok := s.str()
	switch {
	case !ok:
		return ""
	case esc:
		return unescape(raw)
	}
	return raw
}

// str reads a string at s.i and returns its raw contents and whether they hold
// escapes. The closing quote is found with a vectorised search; a quote
// preceded by an odd number of backslashes is escaped.
func (s *scanner) str() (raw string, esc, ok bool) {
	start := s.i + 1
	j := start
	for {
		k := strings.IndexByte(s.b[j:], '"')
		if k < 0 {
			return "", false, s.fail()
		}
		j += k
		n := 0
		for p := j - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			break
		}
		j++
	}
	raw = s.b[start:j]
	s.i = j + 1
	if strings.IndexByte(raw, '\\') < 0 {
		return raw, false, true
	}
	if !validEscapes(raw) {
		return "", false, s.fail()
	}
	return raw, true, true
}

func validEscapes(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, ok := hex4(raw[i+1:]); !ok {
				return false
			}
			i += 4
		default:
			return false
		}
	}
	return true
}

func hex4(b string) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		c := b[i]
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescape decodes the escapes of a string whose escapes validEscapes
// accepted. Unpaired surrogates become U+FFFD, as encoding/json does.
func unescape(raw string) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(raw[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if v, ok := hex4(raw[i+3:]); ok {
						r2 = v
					}
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	return string(out)
}
