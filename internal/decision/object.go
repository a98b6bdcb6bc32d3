package decision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object whose keys keep their order, so a file another tool
// wrote is rewritten with its keys where they were.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// decodeObject reads a JSON object; anything else is an error. A repeated key
// keeps its first place and its last value.
func decodeObject(b []byte) (*object, error) {
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	o := &object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) get(k string) json.RawMessage { return o.vals[k] }

func (o *object) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// encode writes the object as the original tool's json.dumps(indent=2,
// ensure_ascii=False) does: two-space indent, characters as they are, no
// newline at the end.
func (o *object) encode() ([]byte, error) {
	var compact bytes.Buffer
	compact.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			compact.WriteByte(',')
		}
		key, err := marshalPlain(k)
		if err != nil {
			return nil, err
		}
		compact.Write(key)
		compact.WriteByte(':')
		if err := json.Compact(&compact, o.vals[k]); err != nil {
			return nil, fmt.Errorf("key %s: %w", k, err)
		}
	}
	compact.WriteByte('}')
	return indentPlain(compact.Bytes())
}

// marshalPlain is json.Marshal without escaping <, > and &.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// indentPlain indents compact JSON by two spaces, as json.dumps(indent=2).
func indentPlain(compact []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
