package usage

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// usageMarker is in every line Claude Code writes with usage. usageKey is in
// every line that can carry usage however it is spaced ("usage": {, "usage" :
// {): a line without it is not read, and one with it but not the marker is
// read by the same full parser, so usage written another way is never
// silently dropped.
var (
	usageMarker = []byte(`"usage":{`)
	usageKey    = []byte(`"usage"`)
)

// line is what one transcript line says about usage, before deduplication.
type line struct {
	ts time.Time
	// The strings are slices of the line, or decoded copies when the line
	// escapes them: use them before the next line is read.
	msgID   []byte
	reqID   []byte
	session []byte // the line's sessionId
	model   []byte
	side    bool
	fast    bool
	hasMsg  bool
	hasReq  bool
	hasSess bool
	hasMod  bool
	tokens  Tokens
	// advisors are usage records of an advisor model inside the response,
	// counted on their own.
	advisors []advisor
}

type advisor struct {
	model  []byte
	tokens Tokens
}

// parseLine reads one line. It reports false for a line that is not a usage
// record: no usage object, malformed JSON, a field of the wrong type, a
// timestamp in another format, an empty id or model, a version that is not
// a version number, or a null where a value is required.
func parseLine(b []byte) (line, bool) {
	if !bytes.Contains(b, usageKey) {
		return line{}, false
	}
	p := parser{b: b}
	l, ok := p.direct()
	if !ok {
		// A subagent's progress line carries the response one level down:
		// {"sessionId":…, "data":{"message":{"timestamp":…, "message":{…}}}}.
		p = parser{b: b}
		l, ok = p.progress()
	}
	if !ok || !l.valid() {
		return line{}, false
	}
	return l, true
}

// valid applies the checks on field contents.
func (l *line) valid() bool {
	switch {
	case l.hasSess && len(l.session) == 0,
		l.hasReq && len(l.reqID) == 0,
		l.hasMsg && len(l.msgID) == 0,
		l.hasMod && len(l.model) == 0:
		return false
	}
	return true
}

// parser walks one line, validating all of it as JSON while it keeps the
// fields it needs. Once bad is set every method fails.
type parser struct {
	b   []byte
	i   int
	bad bool
}

func (p *parser) fail() bool {
	p.bad = true
	return false
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) end() bool {
	p.ws()
	return !p.bad && p.i == len(p.b)
}

// nullKeys are the members that may never be null, wherever they are in the
// line: such a line is not a usage record.
func nullRefused(key []byte) bool {
	switch string(key) {
	case "id", "cwd", "model", "speed", "costUSD", "version", "sessionId", "requestId",
		"isApiErrorMessage", "cache_read_input_tokens", "cache_creation_input_tokens":
		return true
	}
	return false
}

// object reads an object, calling fn with each raw key when the parser stands
// at the member's value; fn must consume the value.
func (p *parser) object(fn func(key []byte) bool) bool {
	if p.peek() != '{' {
		return p.fail()
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if p.peek() != '"' {
			return p.fail()
		}
		raw, esc, ok := p.str()
		if !ok {
			return false
		}
		key := raw
		if esc {
			var ok bool
			if key, ok = decode(raw); !ok {
				return p.fail()
			}
		}
		if p.peek() != ':' {
			return p.fail()
		}
		p.i++
		p.ws()
		if !fn(key) || p.bad {
			return p.fail()
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return p.fail()
		}
	}
}

func (p *parser) array(fn func() bool) bool {
	if p.peek() != '[' {
		return p.fail()
	}
	p.i++
	if p.peek() == ']' {
		p.i++
		return true
	}
	for {
		p.ws()
		if !fn() || p.bad {
			return p.fail()
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return p.fail()
		}
	}
}

// member skips the value of an object member the caller does not want,
// refusing a null where nullRefused says so.
func (p *parser) member(key []byte) bool {
	if p.peek() == 'n' && nullRefused(key) {
		return p.fail()
	}
	return p.value()
}

// value skips one value of any kind.
func (p *parser) value() bool {
	switch c := p.peek(); {
	case c == '{':
		return p.object(p.member)
	case c == '[':
		return p.array(p.value)
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == 't':
		return p.word("true")
	case c == 'f':
		return p.word("false")
	case c == 'n':
		return p.word("null")
	case c == '-' || c >= '0' && c <= '9':
		_, ok := p.number()
		return ok
	}
	return p.fail()
}

func (p *parser) word(w string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(w)) {
		return p.fail()
	}
	p.i += len(w)
	return true
}

// number reads a JSON number and reports whether it is a plain unsigned
// integer (no sign, fraction or exponent).
func (p *parser) number() (integer, ok bool) {
	digits := func() int {
		start := p.i
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
		}
		return p.i - start
	}
	integer = true
	if p.b[p.i] == '-' {
		integer = false
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return false, p.fail()
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		integer = false
		p.i++
		if digits() == 0 {
			return false, p.fail()
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false, p.fail()
		}
	}
	return integer, true
}

// uint reads an unsigned integer that fits in 63 bits.
func (p *parser) uint() (int64, bool) {
	if c := p.peek(); c < '0' || c > '9' {
		return 0, p.fail()
	}
	start := p.i
	integer, ok := p.number()
	if !ok || !integer {
		return 0, p.fail()
	}
	var n int64
	for _, c := range p.b[start:p.i] {
		if n > (1<<63-1-9)/10 {
			return 0, p.fail()
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// boolean reads true or false.
func (p *parser) boolean() (bool, bool) {
	switch p.peek() {
	case 't':
		return true, p.word("true")
	case 'f':
		return false, p.word("false")
	}
	return false, p.fail()
}

// str reads a string and returns its raw bytes between the quotes and
// whether it holds escapes. Control characters are refused, as are bad
// escapes.
func (p *parser) str() (raw []byte, esc, ok bool) {
	if p.peek() != '"' {
		return nil, false, p.fail()
	}
	p.i++
	start := p.i
	for p.i < len(p.b) {
		// Skip eight plain bytes at a time.
		for p.i+8 <= len(p.b) {
			m := special(binary.LittleEndian.Uint64(p.b[p.i:]))
			if m != 0 {
				p.i += bits.TrailingZeros64(m) / 8
				break
			}
			p.i += 8
		}
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			raw = p.b[start:p.i]
			p.i++
			return raw, esc, true
		case c == '\\':
			esc = true
			if p.i+1 >= len(p.b) {
				return nil, false, p.fail()
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if _, ok := hex4(p.b[p.i+2:]); !ok {
					return nil, false, p.fail()
				}
				p.i += 6
			default:
				return nil, false, p.fail()
			}
		case c < 0x20:
			return nil, false, p.fail()
		default:
			p.i++
		}
	}
	return nil, false, p.fail()
}

// special marks the bytes of w (little-endian) that end a run of plain
// string bytes: a quote, a backslash or a control character. Only the lowest
// marked byte is exact, which is the one str needs.
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return (w-0x20*ones)&^w&highs | zero(w^'"'*ones) | zero(w^'\\'*ones)
}

// text reads a string value, refusing invalid UTF-8. The result is a slice
// of the line unless the string holds escapes.
func (p *parser) text() ([]byte, bool) {
	raw, esc, ok := p.str()
	if !ok {
		return nil, false
	}
	if esc {
		s, ok := decode(raw)
		if !ok {
			return nil, p.fail()
		}
		return s, true
	}
	if !utf8.Valid(raw) {
		return nil, p.fail()
	}
	return raw, true
}

// optText reads an optional string member. It is never null: every such
// member is one that nullRefused names.
func (p *parser) optText() (s []byte, present, ok bool) {
	s, ok = p.text()
	return s, ok, ok
}

// seen guards against a known member given twice: the line is refused.
type seen uint32

func (s *seen) once(bit uint) bool {
	if *s&(1<<bit) != 0 {
		return false
	}
	*s |= 1 << bit
	return true
}

// direct reads the usual shape: the response's fields at the top level.
func (p *parser) direct() (line, bool) {
	var l line
	var tsRaw []byte
	var hasTS, hasMsg bool
	var s seen
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "timestamp":
			if !s.once(0) {
				return false
			}
			var ok bool
			tsRaw, ok = p.text()
			hasTS = true
			return ok
		case "message":
			if !s.once(1) {
				return false
			}
			hasMsg = true
			return p.message(&l)
		case "version":
			if !s.once(2) {
				return false
			}
			v, present, ok := p.optText()
			if present && !semver(v) {
				return false
			}
			return ok
		case "sessionId":
			if !s.once(3) {
				return false
			}
			var ok bool
			l.session, l.hasSess, ok = p.optText()
			return ok
		case "requestId":
			if !s.once(4) {
				return false
			}
			var ok bool
			l.reqID, l.hasReq, ok = p.optText()
			return ok
		case "isSidechain":
			if !s.once(5) {
				return false
			}
			return p.optBool(&l.side)
		case "costUSD":
			if !s.once(6) {
				return false
			}
			return p.optNumber()
		case "isApiErrorMessage":
			if !s.once(7) {
				return false
			}
			_, ok := p.boolean()
			return ok
		default:
			return p.member(key)
		}
	})
	if !ok || !p.end() || !hasTS || !hasMsg {
		return line{}, false
	}
	ts, ok := parseTime(tsRaw)
	if !ok {
		return line{}, false
	}
	l.ts = ts
	return l, true
}

// progress reads a subagent progress line.
func (p *parser) progress() (line, bool) {
	var l line
	var tsRaw []byte
	var hasTS, hasMsg, hasData bool
	var s seen
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "sessionId":
			if !s.once(0) {
				return false
			}
			var ok bool
			l.session, l.hasSess, ok = p.optText()
			return ok
		case "data":
			if !s.once(1) {
				return false
			}
			hasData = true
			var ds seen
			return p.object(func(key []byte) bool {
				if string(key) != "message" {
					return p.member(key)
				}
				if !ds.once(0) {
					return false
				}
				var ms seen
				return p.object(func(key []byte) bool {
					switch string(key) {
					case "timestamp":
						if !ms.once(0) {
							return false
						}
						var ok bool
						tsRaw, ok = p.text()
						hasTS = true
						return ok
					case "message":
						if !ms.once(1) {
							return false
						}
						hasMsg = true
						return p.message(&l)
					case "requestId":
						if !ms.once(2) {
							return false
						}
						var ok bool
						l.reqID, l.hasReq, ok = p.optText()
						return ok
					case "isSidechain":
						if !ms.once(3) {
							return false
						}
						return p.optBool(&l.side)
					case "costUSD":
						if !ms.once(4) {
							return false
						}
						return p.optNumber()
					default:
						return p.member(key)
					}
				})
			})
		default:
			return p.member(key)
		}
	})
	if !ok || !p.end() || !hasData || !hasTS || !hasMsg {
		return line{}, false
	}
	ts, ok := parseTime(tsRaw)
	if !ok {
		return line{}, false
	}
	l.ts = ts
	return l, true
}

func (p *parser) optBool(dst *bool) bool {
	if p.peek() == 'n' {
		return p.word("null")
	}
	v, ok := p.boolean()
	*dst = v
	return ok
}

func (p *parser) optNumber() bool {
	if c := p.peek(); c != '-' && (c < '0' || c > '9') {
		return p.fail()
	}
	_, ok := p.number()
	return ok
}

// message reads the response object: its id, model and usage.
func (p *parser) message(l *line) bool {
	if p.peek() != '{' {
		return p.fail()
	}
	var hasUsage bool
	var s seen
	ok := p.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			if !s.once(0) {
				return false
			}
			var ok bool
			l.msgID, l.hasMsg, ok = p.optText()
			return ok
		case "model":
			if !s.once(1) {
				return false
			}
			var ok bool
			l.model, l.hasMod, ok = p.optText()
			return ok
		case "usage":
			if !s.once(2) {
				return false
			}
			hasUsage = true
			return p.usage(l)
		default:
			return p.member(key)
		}
	})
	return ok && hasUsage
}

// tokenFields reads the token counts shared by a usage object and its
// iterations; it reports handled=false for other keys.
type tokenFields struct {
	t                 Tokens
	hasIn, hasOut     bool
	creation          int64
	hasCreationObj    bool
	ephemeral5, eph1h int64
	fast              bool
	s                 seen
}

func (p *parser) tokenField(key []byte, f *tokenFields) (handled, ok bool) {
	switch string(key) {
	case "input_tokens":
		if !f.s.once(0) {
			return true, false
		}
		f.t.Input, ok = p.uint()
		f.hasIn = true
	case "output_tokens":
		if !f.s.once(1) {
			return true, false
		}
		f.t.Output, ok = p.uint()
		f.hasOut = true
	case "cache_creation_input_tokens":
		if !f.s.once(2) {
			return true, false
		}
		f.creation, ok = p.uint()
	case "cache_read_input_tokens":
		if !f.s.once(3) {
			return true, false
		}
		f.t.CacheRead, ok = p.uint()
	case "cache_creation":
		if !f.s.once(4) {
			return true, false
		}
		if p.peek() == 'n' {
			return true, p.word("null")
		}
		f.hasCreationObj = true
		var cs seen
		ok = p.object(func(key []byte) bool {
			var ok bool
			switch string(key) {
			case "ephemeral_5m_input_tokens":
				if !cs.once(0) {
					return false
				}
				f.ephemeral5, ok = p.optUint()
			case "ephemeral_1h_input_tokens":
				if !cs.once(1) {
					return false
				}
				f.eph1h, ok = p.optUint()
			default:
				return p.member(key)
			}
			return ok
		})
	case "speed":
		if !f.s.once(5) {
			return true, false
		}
		var v []byte
		v, ok = p.text()
		switch string(v) {
		case "fast":
			f.fast = true
		case "standard":
		default:
			ok = false
		}
	default:
		return false, false
	}
	return true, ok && !p.bad
}

// done completes the counts: a cache_creation breakdown, when given, is the
// cache-creation count.
func (f *tokenFields) done() (Tokens, bool) {
	if !f.hasIn || !f.hasOut {
		return Tokens{}, false
	}
	t := f.t
	t.CacheCreation = f.creation
	if f.hasCreationObj {
		t.CacheCreation = f.ephemeral5 + f.eph1h
		t.CacheCreation1h = f.eph1h
	}
	return t, true
}

func (p *parser) optUint() (int64, bool) {
	if p.peek() == 'n' {
		return 0, p.word("null")
	}
	return p.uint()
}

// usage reads the usage object, and the advisor records among its
// iterations.
func (p *parser) usage(l *line) bool {
	var f tokenFields
	var advisors []advisor
	advisorsOK := true
	var iterSeen bool
	ok := p.object(func(key []byte) bool {
		if handled, ok := p.tokenField(key, &f); handled {
			return ok
		}
		if string(key) != "iterations" {
			return p.member(key)
		}
		if iterSeen || p.peek() != '[' {
			// Not the array the advisor records are read from.
			iterSeen = true
			advisorsOK = false
			return p.value()
		}
		iterSeen = true
		return p.array(func() bool {
			a, isAdvisor, valid, ok := p.iteration()
			if !valid {
				advisorsOK = false
			}
			if isAdvisor {
				advisors = append(advisors, a)
			}
			return ok
		})
	})
	if !ok {
		return false
	}
	t, ok := f.done()
	if !ok {
		return p.fail()
	}
	l.tokens, l.fast = t, f.fast
	if advisorsOK {
		l.advisors = advisors
	}
	return true
}

// iteration reads one element of usage.iterations. valid is false when it
// is not a well-formed iteration record, which voids all advisor records of
// the line; ok is false only when the JSON itself is bad. Its model may be
// null.
func (p *parser) iteration() (a advisor, isAdvisor, valid, ok bool) {
	if p.peek() != '{' {
		return advisor{}, false, false, p.value()
	}
	var f tokenFields
	var typ, model []byte
	var hasType, hasModel bool
	valid = true
	var s seen
	ok = p.object(func(key []byte) bool {
		if handled, ok := p.tokenField(key, &f); handled {
			return ok
		}
		switch string(key) {
		case "type":
			if !s.once(0) {
				valid = false
				return p.value()
			}
			if p.peek() != '"' {
				valid = false
				return p.value()
			}
			var ok bool
			typ, ok = p.text()
			hasType = true
			return ok
		case "model":
			if !s.once(1) {
				valid = false
				return p.value()
			}
			if p.peek() != '"' {
				if p.peek() != 'n' {
					valid = false
				}
				return p.value()
			}
			var ok bool
			model, ok = p.text()
			hasModel = true
			return ok
		default:
			return p.member(key)
		}
	})
	if !ok {
		return advisor{}, false, false, false
	}
	t, tokensOK := f.done()
	if !tokensOK || !hasType {
		valid = false
	}
	if valid && string(typ) == "advisor_message" && hasModel && len(model) > 0 {
		return advisor{model: model, tokens: t}, true, true, true
	}
	return advisor{}, false, valid, true
}

// semver reports whether v starts like a version number: digits, a dot,
// digits, a dot and a digit.
func semver(v []byte) bool {
	i := 0
	for part := 0; part < 2; part++ {
		start := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		if i == start || i >= len(v) || v[i] != '.' {
			return false
		}
		i++
	}
	return i < len(v) && v[i] >= '0' && v[i] <= '9'
}

// parseTime accepts the one timestamp form Claude Code writes:
// YYYY-MM-DDTHH:MM:SS, optionally .mmm, then Z or ±HH:MM. The date and time
// must exist (no February 30th, no hour 24, no leap second).
func parseTime(s []byte) (time.Time, bool) {
	const base = len("2006-01-02T15:04:05")
	if len(s) < base+1 {
		return time.Time{}, false
	}
	for i := 0; i < base; i++ {
		c := s[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return time.Time{}, false
			}
		case 10:
			if c != 'T' {
				return time.Time{}, false
			}
		case 13, 16:
			if c != ':' {
				return time.Time{}, false
			}
		default:
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
		}
	}
	year, month, day := num(s[0:4]), num(s[5:7]), num(s[8:10])
	hour, minute, sec := num(s[11:13]), num(s[14:16]), num(s[17:19])
	rest := s[base:]
	ms := 0
	if rest[0] == '.' {
		if len(rest) < 4 || !digits(rest[1:4]) {
			return time.Time{}, false
		}
		ms = num(rest[1:4])
		rest = rest[4:]
	}
	offset := 0
	switch {
	case len(rest) == 1 && rest[0] == 'Z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:6]):
		oh, om := num(rest[1:3]), num(rest[4:6])
		if oh > 23 || om > 59 {
			return time.Time{}, false
		}
		offset = (oh*60 + om) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), time.UTC)
	if t.Day() != day {
		return time.Time{}, false // past the end of the month
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// num reads a run of ASCII digits.
func num(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

func digits(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
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

// decode turns a string's raw bytes, whose escapes str checked, into text.
// It refuses invalid UTF-8 and unpaired surrogates.
func decode(raw []byte) ([]byte, bool) {
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
				if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return nil, false
				}
				r2, _ := hex4(raw[i+3:])
				d := utf16.DecodeRune(r, r2)
				if d == utf8.RuneError {
					return nil, false
				}
				r = d
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	if !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}
