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
