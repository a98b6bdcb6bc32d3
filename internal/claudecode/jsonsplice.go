package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file writes an edited document back into the text it was read from,
// changing only what the edit changed. The edit works on a compact copy (see
// object.bytes); splice walks the original text and that copy side by side:
// a value that did not change keeps its bytes exactly, whitespace and all; an
// object or array that did is rewritten member by member, its untouched
// members and the whitespace between them kept, the removed ones dropped
// with their separator, the new ones written in the style of their
// neighbours. Only values baton made are formatted, indented to their place.

// splicer holds what every level of one splice needs.
type splicer struct {
	data []byte // the original text
	unit string // one level of indentation, as the file has it
	nl   string // the file's line ending
	// compact is set for a document written on one line (but an empty
	// object): what baton adds is written on that line too.
	compact bool
}

// splice returns data with its top-level value replaced by edited, a JSON
// text holding the same document after the edit. Empty data gives edited
// indented from scratch.
func splice(data, edited []byte) []byte {
	s := &splicer{data: data, unit: indentUnit(data), nl: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		s.nl = "\r\n"
	}
	start := skipSpace(data, 0)
	if start == len(data) {
		return append(s.fresh(edited, ""), s.nl...)
	}
	end := valueEnd(data, start)
	s.compact = bytes.IndexByte(data[start:end], '\n') < 0 && len(bytes.TrimSpace(data[start+1:end-1])) > 0
	var out bytes.Buffer
	out.Write(data[:start])
	out.Write(s.value(node{raw: data[start:end], off: start}, edited))
	out.Write(data[end:])
	return out.Bytes()
}

// value returns the text of edited in the place of orig: orig's own bytes
// when they say the same, a splice of the two when both are objects or both
// arrays, else edited formatted for orig's line.
func (s *splicer) value(orig node, edited []byte) []byte {
	if sameJSON(orig.raw, edited) {
		return orig.raw
	}
	e := skipSpace(edited, 0)
	switch {
	case orig.kind() == '{' && edited[e] == '{':
		return s.object(orig, parseObject(node{raw: edited[e:], off: -1}))
	case orig.kind() == '[' && edited[e] == '[':
		return s.array(orig, parseArray(node{raw: edited[e:], off: -1}))
	}
	return s.fresh(edited, s.lineIndent(orig.off))
}

// item is one member or element of a container being written: the index of
// the original item it continues (-1 for a new one) and its text.
type item struct {
	orig int
	text []byte
}

// object writes the edited members of the original object orig. Members are
// matched by name in order: baton's edits keep the order of what they keep,
// replace values in place and add at the end.
func (s *splicer) object(orig node, edited object) []byte {
	members := parseObject(orig)
	spans := make([]span, len(members))
	for i, m := range members {
		spans[i] = span{start: m.keyOff(orig), end: m.val.off - orig.off + len(m.val.raw)}
	}
	indent := s.itemIndent(orig, spans)
	var items []item
	next := 0
	for _, m := range edited {
		j := next
		for j < len(members) && members[j].name != m.name {
			j++
		}
		if j == len(members) {
			// A new member: its key as the neighbours write theirs.
			text := append(append([]byte{}, m.key...), s.keySep(orig, members)...)
			items = append(items, item{orig: -1, text: append(text, s.fresh(m.val.raw, indent)...)})
			continue
		}
		o := members[j]
		head := orig.raw[spans[j].start : o.val.off-orig.off]
		text := append(append([]byte{}, head...), s.value(o.val, m.val.raw)...)
		items = append(items, item{orig: j, text: text})
		next = j + 1
	}
	return s.container(orig, spans, items, indent)
}

// array writes the edited elements of the original array orig. An element
// equal to an original one at or after the last match continues it; any
// other is new.
func (s *splicer) array(orig node, edited []node) []byte {
	elems := parseArray(orig)
	spans := make([]span, len(elems))
	for i, e := range elems {
		spans[i] = span{start: e.off - orig.off, end: e.off - orig.off + len(e.raw)}
	}
	indent := s.itemIndent(orig, spans)
	var items []item
	next := 0
	for _, e := range edited {
		j := next
		for j < len(elems) && !sameJSON(elems[j].raw, e.raw) {
			j++
		}
		if j == len(elems) {
			items = append(items, item{orig: -1, text: s.fresh(e.raw, indent)})
			continue
		}
		items = append(items, item{orig: j, text: elems[j].raw})
		next = j + 1
	}
	return s.container(orig, spans, items, indent)
}

// span is where an item lies in its container's text: from its first byte
// (a member's key) to just past its value.
type span struct{ start, end int }

// container joins items into orig's brackets. An original item keeps the
// separator that came before it in the file; a new one gets the separator
// of the container's last item, or, in an empty container, a line of its
// own at indent.
func (s *splicer) container(orig node, spans []span, items []item, indent string) []byte {
	raw := orig.raw
	closing := len(raw) - 1
	if len(items) == 0 {
		return []byte{raw[0], raw[closing]}
	}
	lead := s.nl + indent // before the first item
	trail := s.nl + s.lineIndent(orig.off)
	if s.compact {
		lead, trail = "", ""
	}
	sep := []byte("," + lead)
	if n := len(spans); n > 0 {
		lead = string(raw[1:spans[0].start])
		trail = string(raw[spans[n-1].end:closing])
		sep = []byte("," + lead)
		if n > 1 {
			sep = raw[spans[n-2].end:spans[n-1].start]
		}
	}
	var out bytes.Buffer
	out.WriteByte(raw[0])
	out.WriteString(lead)
	for k, it := range items {
		if k > 0 {
			if it.orig > 0 {
				out.Write(raw[spans[it.orig-1].end:spans[it.orig].start])
			} else {
				out.Write(sep)
			}
		}
		out.Write(it.text)
	}
	out.WriteString(trail)
	out.WriteByte(raw[closing])
	return out.Bytes()
}

// itemIndent is the indentation of a container's items: that of the line of
// its last item when that starts a line, else one level deeper than the
// container's own line.
func (s *splicer) itemIndent(orig node, spans []span) string {
	if n := len(spans); n > 0 {
		before := s.data[:orig.off+spans[n-1].start]
		if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 && len(bytes.Trim(before[nl+1:], " \t")) == 0 {
			return string(before[nl+1:])
		}
		return s.lineIndent(orig.off)
	}
	return s.lineIndent(orig.off) + s.unit
}

// keySep is what the object's members put between key and value (": " when
// it has none).
func (s *splicer) keySep(orig node, members object) []byte {
	if len(members) == 0 {
		if s.compact {
			return []byte(":")
		}
		return []byte(": ")
	}
	m := members[len(members)-1]
	keyEnd := m.keyOff(orig) + len(m.key)
	return orig.raw[keyEnd : m.val.off-orig.off]
}

// lineIndent is the leading whitespace of the line holding byte off of the
// original text.
func (s *splicer) lineIndent(off int) string {
	line := s.data[bytes.LastIndexByte(s.data[:off], '\n')+1 : off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// fresh formats a value baton made, its lines after the first at prefix
// (on one line in a compact document).
func (s *splicer) fresh(v []byte, prefix string) []byte {
	var b bytes.Buffer
	format := func() error { return json.Indent(&b, v, prefix, s.unit) }
	if s.compact {
		format = func() error { return json.Compact(&b, v) }
	}
	if err := format(); err != nil {
		// Unreachable: edits are built from valid JSON and valid pieces.
		panic(fmt.Sprintf("claudecode: indent settings: %v", err))
	}
	if s.nl != "\n" {
		return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(s.nl))
	}
	return b.Bytes()
}

// keyOff is where m's key starts in the text of the object orig it was
// parsed from.
func (m member) keyOff(orig node) int { return m.keyAt - orig.off }

// sameJSON reports whether a and b are the same JSON text but for
// whitespace outside strings.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
