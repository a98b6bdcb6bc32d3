package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file holds a small JSON object representation that keeps what a user
// wrote: members stay in file order and every key and value keeps its bytes as
// written (escapes, number spelling such as 1e3 or 10.0). Only the objects and
// arrays baton edits are split; everything else stays one opaque slice.
//
// Duplicate keys follow the JSON parsers that read these files: the last one
// wins. Lookups and replacements therefore use the last occurrence, and
// removing a key removes every occurrence, so that an earlier, shadowed
// duplicate does not come back to life.

// node is one JSON value as written, with its offset in the file for error
// positions (-1 for a value baton made).
type node struct {
	raw []byte
	off int
}

// kind reports the JSON type of n by its first byte: '{', '[', '"', 't', 'f',
// 'n' or a digit or '-'.
func (n node) kind() byte { return n.raw[0] }

// member is one key and its value.
type member struct {
	key   []byte // as written, quotes included
	keyAt int    // the key's offset in the file, as node.off
	name  string // decoded
	val   node
}

// object is a JSON object's members in file order.
type object []member

// parseObject splits the object n into its members. n must be valid JSON.
func parseObject(n node) object {
	b := n.raw
	var o object
	i := skipSpace(b, 1)
	for b[i] != '}' {
		ks, ke := i, stringEnd(b, i)
		key := b[ks:ke]
		i = skipSpace(b, ke)
		i = skipSpace(b, i+1) // past ':'
		ve := valueEnd(b, i)
		o = append(o, member{key: key, keyAt: n.off + ks, name: decodeString(key), val: node{raw: b[i:ve], off: n.off + i}})
		i = skipSpace(b, ve)
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return o
}

// parseArray splits the array n into its elements. n must be valid JSON.
func parseArray(n node) []node {
	b := n.raw
	var elems []node
	i := skipSpace(b, 1)
	for b[i] != ']' {
		ve := valueEnd(b, i)
		elems = append(elems, node{raw: b[i:ve], off: n.off + i})
		i = skipSpace(b, ve)
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return elems
}

// index returns the position of the member that counts for name (the last
// one), or -1.
func (o object) index(name string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].name == name {
			return i
		}
	}
	return -1
}

// get returns the value that counts for name.
func (o object) get(name string) (node, bool) {
	i := o.index(name)
	if i < 0 {
		return node{}, false
	}
	return o[i].val, true
}

// live reports whether o[i] is the member that counts for its name, that is,
// no later member shadows it.
func (o object) live(i int) bool { return o.index(o[i].name) == i }

// liveNames returns the names of o's members in file order, each once, skipping
// members shadowed by a later duplicate.
func (o object) liveNames() []string {
	var names []string
	for i, m := range o {
		if o.live(i) {
			names = append(names, m.name)
		}
	}
	return names
}

// set replaces the value that counts for name, in place, or appends a member.
func (o *object) set(name string, raw []byte) {
	if i := o.index(name); i >= 0 {
		(*o)[i].val = node{raw: raw, off: -1}
		return
	}
	*o = append(*o, member{key: encodeString(name), name: name, val: node{raw: raw, off: -1}})
}

// remove deletes every member named name.
func (o *object) remove(name string) {
	kept := (*o)[:0]
	for _, m := range *o {
		if m.name != name {
			kept = append(kept, m)
		}
	}
	*o = kept
}

// bytes writes o compactly except for the whitespace inside untouched values,
// which formatting removes.
func (o object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key)
		b.WriteByte(':')
		b.Write(m.val.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// arrayBytes writes elems as a JSON array.
func arrayBytes(elems []node) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.raw)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// stringValue returns the string that n holds, if n is a JSON string.
func stringValue(n node) (string, bool) {
	if n.kind() != '"' {
		return "", false
	}
	return decodeString(n.raw), true
}

// decodeString decodes a valid JSON string literal.
func decodeString(lit []byte) string {
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		// Unreachable for a literal taken from valid JSON.
		panic(fmt.Sprintf("claudecode: decode JSON string %s: %v", lit, err))
	}
	return s
}

// encodeString writes s as a JSON string literal without HTML escaping, so a
// command such as `a && b` stays readable in the file.
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		// Unreachable: every Go string encodes.
		panic(fmt.Sprintf("claudecode: encode JSON string: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string literal starting at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the valid JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	default:
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
}
