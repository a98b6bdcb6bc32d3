package redact

import (
	"bytes"
	"encoding/json"
)

// JSONLines redacts JSON Lines text (a transcript, a journal) so that it
// stays JSON Lines: in every line that parses, each string value is
// redacted on its own, so a redaction never swallows a quote or an escape.
// A line with nothing to redact comes back byte for byte. A line that does
// not parse is redacted as plain text; readers of JSON Lines skip such a
// line as they would have before.
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
	if Redact(s) == s {
		return line
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if !json.Valid(line) || dec.Decode(&v) != nil {
		return []byte(Redact(s))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(redactValues(v)) != nil {
		return []byte(Redact(s))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// redactValues redacts every string value in v, a decoded JSON value.
// Object keys are kept as they are.
func redactValues(v any) any {
	switch t := v.(type) {
	case string:
		return Redact(t)
	case []any:
		for i := range t {
			t[i] = redactValues(t[i])
		}
	case map[string]any:
		for k, x := range t {
			t[k] = redactValues(x)
		}
	}
	return v
}
