package decision

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestObjectKeepsOrder(t *testing.T) {
	in := `{"b": 1, "a": {"x": [1, 2]}, "b": 3, "c": "<&> ü"}`
	o, err := decodeObject([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o.set("session_id", json.RawMessage(`"s"`))
	o.set("a", json.RawMessage(`[]`))
	got, err := o.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": 3,\n  \"a\": [],\n  \"c\": \"<&> ü\",\n  \"session_id\": \"s\"\n}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{`[1]`, `"s"`, `{"a":1} {"b":2}`, `{"a":`, ``} {
		if _, err := decodeObject([]byte(bad)); err == nil {
			t.Errorf("decodeObject(%q): no error", bad)
		}
	}
}

// FuzzObject: whatever decodes re-encodes to JSON that means the same, and
// encoding is stable.
func FuzzObject(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","captured_slugs":["a"],"x":{"y":null}}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := decodeObject(in)
		if err != nil {
			return
		}
		out, err := o.encode()
		if err != nil {
			t.Fatalf("encode of %q: %v", in, err)
		}
		var a, b any
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatalf("decodeObject accepted %q, json did not: %v", in, err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("encode wrote invalid JSON %q: %v", out, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q became %q", in, out)
		}
		o2, err := decodeObject(out)
		if err != nil {
			t.Fatal(err)
		}
		if out2, _ := o2.encode(); !bytes.Equal(out, out2) {
			t.Fatalf("not stable: %q then %q", out, out2)
		}
	})
}

// FuzzDecodePending: a pending file either is refused or re-encodes to one
// that decodes to the same decisions.
func FuzzDecodePending(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"session_id":"s","issue_number":3,"entries":[{"saved_at":"t","decisions":[{"slug":"a","what":"w","why":"y","alternatives":"x","consequences":"c","scope":"global"}]}]}`))
	f.Add([]byte(`{"schema_version":1,"entries":[{"saved_at":"t","issue_number":2,"decisions":[{"candidate":{"slug":"b","scope_hint":"issue"},"final_scope":"cross-issue"}]}]}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		pf, err := decodePending("p", in)
		if err != nil {
			return
		}
		out, err := encodePending(pf)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again, err := decodePending("p", out)
		if err != nil {
			t.Fatalf("re-read of %q: %v", out, err)
		}
		for i := range pf.Entries {
			for j := range pf.Entries[i].Decisions {
				a, b := pf.Entries[i].Decisions[j], again.Entries[i].Decisions[j]
				if a.Candidate.Slug != b.Candidate.Slug || a.Candidate.What != b.Candidate.What || a.FinalScope != b.FinalScope || pf.Entries[i].Issue != again.Entries[i].Issue {
					t.Fatalf("entry %d decision %d: %+v became %+v (issue %d, %d)", i, j, a, b, pf.Entries[i].Issue, again.Entries[i].Issue)
				}
			}
		}
	})
}
