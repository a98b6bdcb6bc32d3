package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSONLines redacts JSON Lines text (a transcript, a journal) so that it
// stays JSON Lines: in every line that parses, each string value is
// redacted on its own, decoded, and in the context of its key when the key
// names a secret ({"password":"…"}), so a redaction never swallows a quote
// or an escape and an escape never hides a secret (\u30d1… of a writer
// that escapes all but ASCII, \t between a command and its option). A line
// with nothing to redact comes back byte for byte. A line that does not
// parse is redacted as plain text; readers of JSON Lines skip such a line
// as they would have before.
func JSONLines(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b))
	for len(b) > 0 {
		line, rest, nl := bytes.Cut(b, []byte{'\n'})
		out.Write(jsonLine(line))
		if nl {
			out.WriteByte('\n')
		}
		b = rest
	}
	return out.Bytes()
}

// jsonLine redacts one line of JSON Lines text.
func jsonLine(line []byte) []byte {
	s := string(line)
	plain := Redact(s)
	if plain == s && bytes.IndexByte(line, '\\') < 0 {
		return line // nothing decoding could bring to light
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if !json.Valid(line) || dec.Decode(&v) != nil {
		return []byte(plain)
	}
	changed := false
	v = redactValues(v, &changed)
	if !changed {
		return line
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return []byte(plain)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// redactValues redacts every string value in v, a decoded JSON value, and
// sets *changed when one changes. Object keys are kept as they are. The
// signature of a thinking block (and a redacted_thinking block's data) and
// structural ids (see structural) are opaque values the API checks when a
// session is resumed: they get only the scanner's token shapes, not the
// high-entropy and key-name rules that any such value would trip.
func redactValues(v any, changed *bool) any {
	switch t := v.(type) {
	case string:
		r := Redact(t)
		*changed = *changed || r != t
		return r
	case []any:
		for i := range t {
			t[i] = redactValues(t[i], changed)
		}
	case map[string]any:
		for k, x := range t {
			if str, ok := x.(string); ok && structural(t, k, str) {
				r := scan(str)
				*changed = *changed || r != str
				t[k] = r
				continue
			}
			if str, ok := x.(string); ok && secretKeyKind(k) != "" {
				t[k] = redactField(k, str, changed)
				continue
			}
			t[k] = redactValues(x, changed)
		}
	}
	return v
}

// structural reports whether the string v at key k of object obj is an
// opaque value of the transcript's structure: a thinking block's
// signature, a redacted_thinking block's data, or an id (id, uuid, or a key
// ending in Id, ID, _id or Uuid) that is one word.
func structural(obj map[string]any, k, v string) bool {
	switch k {
	case "signature":
		return obj["type"] == "thinking"
	case "data":
		return obj["type"] == "redacted_thinking"
	}
	id := k == "id" || k == "uuid" || strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "ID") ||
		strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "Uuid")
	return id && len(v) <= 200 && !strings.ContainsAny(v, " \t\r\n")
}

// redactField redacts the string value of a key that names a secret as
// Redact would in the object's own text, {"key":"value"}, where the key
// gives the value its meaning.
func redactField(key, v string, changed *bool) string {
	v = redactValues(v, changed).(string)
	k, errK := json.Marshal(key)
	val, errV := json.Marshal(v)
	if errK != nil || errV != nil {
		return v
	}
	frag := "{" + string(k) + ":" + string(val) + "}"
	out := Redact(frag)
	if out == frag {
		return v
	}
	*changed = true
	var m map[string]string
	if json.Unmarshal([]byte(out), &m) != nil || len(m) != 1 {
		return marker + kindAssignment + "]" // Redact keeps JSON valid; if not, the value goes
	}
	for _, r := range m {
		v = r
	}
	return v
}
