package redact_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/redact"
)

func TestJSONLines(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3x", 9)
	in := strings.Join([]string{
		`{"type":"user","message":{"content":"plain words, nothing secret"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"export GITHUB_TOKEN=` + secret + `"}}]},"n":12.50}`,
		`{"type":"user","toolUseResult":{"stdout":"token=\"` + secret + `\" <b>"}}`,
		`not json at all ` + secret,
		`{"type":"last-prompt"}`,
	}, "\n") + "\n"

	out := redact.JSONLines([]byte(in))
	if bytes.Contains(out, []byte(secret)) {
		t.Fatalf("the secret is still there:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	inLines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	if len(lines) != len(inLines) || !strings.HasSuffix(string(out), "\n") {
		t.Fatalf("got %d lines (final newline %v); want %d and the newline kept", len(lines), strings.HasSuffix(string(out), "\n"), len(inLines))
	}
	if lines[0] != inLines[0] || lines[4] != inLines[4] {
		t.Errorf("lines with nothing to redact changed:\n%s\n%s", lines[0], lines[4])
	}
	for _, i := range []int{1, 2} {
		var v map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Errorf("line %d is no longer JSON: %v\n%s", i, err, lines[i])
		}
	}
	if !strings.Contains(lines[1], `"n":12.50`) {
		t.Errorf("a number changed its form: %s", lines[1])
	}
	if !strings.Contains(lines[2], `<b>`) {
		t.Errorf("HTML characters were escaped: %s", lines[2])
	}
}

// TestJSONLinesKeepsStructure: a thinking block's signature and the
// transcript's ids are opaque values a resumed session sends back to the
// API as they were, so they survive redaction; a token of a known shape in
// them does not.
func TestJSONLinesKeepsStructure(t *testing.T) {
	sig := "EqQBCkgIARABGAIiQL2fP7gO5wJ1kZq9pY3xT6mV8nR4sL0cH2dF7jK9aB1eG3iU5oW8yQ6tZ4vX2nM0lP7rS9uE1wD3fA5gC8hJ=="
	token := "ghp_" + strings.Repeat("aB3x", 9)
	tests := []struct {
		name, in string
		keep     []string
		drop     []string
	}{
		{
			name: "thinking signature and ids",
			in: `{"uuid":"7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d","requestId":"req_011CVfKm8zQ4Xy7N2pLw3RtAq9Zb","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","content":[` +
				`{"type":"thinking","thinking":"GITHUB_TOKEN=` + token + `","signature":"` + sig + `"},` +
				`{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9XkP7v","name":"Bash","input":{"command":"ls"}}]}}`,
			keep: []string{sig, "req_011CVfKm8zQ4Xy7N2pLw3RtAq9Zb", "msg_01XFDUDYJgAACzvnptvVoYEL", "toolu_01A09q90qw90lq917835lq9XkP7v", "7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d"},
			drop: []string{token},
		},
		{
			name: "redacted thinking data",
			in:   `{"message":{"content":[{"type":"redacted_thinking","data":"` + sig + `"},{"type":"text","text":"key ` + token + `"}]}}`,
			keep: []string{sig},
			drop: []string{token},
		},
		{
			name: "a token put where an id goes",
			in:   `{"tool_use_id":"` + token + `","content":"x"}`,
			drop: []string{token},
		},
		{
			name: "a signature outside a thinking block",
			in:   `{"type":"text","signature":"` + sig + `"}`,
			drop: []string{sig},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := string(redact.JSONLines([]byte(tt.in)))
			if !json.Valid([]byte(out)) {
				t.Fatalf("JSONLines = %s; not JSON", out)
			}
			for _, k := range tt.keep {
				if !strings.Contains(out, `"`+k+`"`) {
					t.Errorf("JSONLines = %s; want %q kept", out, k)
				}
			}
			for _, d := range tt.drop {
				if strings.Contains(out, d) {
					t.Errorf("JSONLines = %s; want %q redacted", out, d)
				}
			}
		})
	}
}

func TestJSONLinesDecodesWhatTheTextHides(t *testing.T) {
	tests := []struct{ name, in, secret string }{
		{"escaped non-ASCII", `{"type": "user", "message": {"content": "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f Tr0ub4dor&3xyzQ \u3067\u3059"}}`, "Tr0ub4dor"},
		{"a tab escape before an option", `{"command": "mysql\t-pMyS3cretPw99 shop"}`, "MyS3cretPw99"},
		{"a key that names a secret", `{"password": "hunter2Abc!", "user": "x"}`, "hunter2Abc!"},
		{"nested, spaced", `{"tool_input": {"api_key": "k3y-value-123"}, "a": "b"}`, "k3y-value-123"},
		{"authorization header", `{"headers": {"Authorization": "Bearer abcdef0123456789abcdef"}}`, "abcdef0123456789abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := redact.JSONLines([]byte(tt.in))
			if bytes.Contains(out, []byte(tt.secret)) {
				t.Errorf("JSONLines(%s) = %s; want no %q", tt.in, out, tt.secret)
			}
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Errorf("JSONLines(%s) = %s, no longer JSON: %v", tt.in, out, err)
			}
		})
	}
	for _, in := range []string{
		`{"type": "user", "message": {"content": "line one\nline two \u30c6\u30b9\u30c8"}}`,
		`{"password_min_length": "12", "token_type": "bearer", "password": "${DB_PASSWORD}"}`,
	} {
		if out := redact.JSONLines([]byte(in)); string(out) != in {
			t.Errorf("JSONLines(%s) = %s; want it byte for byte", in, out)
		}
	}
}

// FuzzJSONLines checks that JSONLines keeps the lines of its input, keeps
// each line that is JSON valid JSON, and finds nothing more in its own
// output.
func FuzzJSONLines(f *testing.F) {
	for _, s := range []string{
		"",
		`{"password": "hunter2Abc!", "user": "x"}` + "\n" + `not json password=x`,
		`{"content": "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f Tr0ub4dor&3xyzQ"}`,
		`{"command": "mysql\t-pMyS3cretPw99"}` + "\n\n" + `[1, "token: abc123def456", {"Cookie": "sid=1"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := redact.JSONLines([]byte(s))
		in, got := strings.Split(s, "\n"), strings.Split(string(out), "\n")
		if len(got) != len(in) {
			t.Fatalf("JSONLines(%q) = %q: %d lines; want %d", s, out, len(got), len(in))
		}
		for i := range in {
			if json.Valid([]byte(in[i])) && !json.Valid([]byte(got[i])) {
				t.Fatalf("JSONLines(%q) line %d = %q; want valid JSON", s, i, got[i])
			}
		}
		if again := redact.JSONLines(out); !bytes.Equal(again, out) {
			t.Fatalf("JSONLines(JSONLines(%q)) = %q; want %q", s, again, out)
		}
	})
}
