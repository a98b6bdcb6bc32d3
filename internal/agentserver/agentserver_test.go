package agentserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestOpenAI(t *testing.T) {
	u := Usage{Input: 10, Cached: 4, Output: 3, Reasoning: 1}
	s := NewOpenAI(t, Shell("ls", u), Text("done", u))
	tools := `{"stream":true,"input":[],"tools":[{"type":"function","name":"exec_command"}]}`
	tests := []struct {
		name, body string
		code       int
		want       []string
	}{
		{"a command", tools, 200, []string{"event: response.created", `"type":"function_call"`, `"name":"exec_command"`, `"arguments":"{\"cmd\":\"ls\"}"`, `"cached_tokens":4`, `"reasoning_tokens":1`, "event: response.completed"}},
		{"a text", tools, 200, []string{`"text":"done","type":"output_text"`}},
		{"past the script", tools, 200, []string{`"text":"` + Fallback + `"`}},
		{"not JSON", "{", 400, []string{"invalid_request_error"}},
	}
	for _, tt := range tests {
		code, body := post(t, s.URL+"/v1/responses", tt.body)
		if code != tt.code {
			t.Errorf("%s: status %d; want %d", tt.name, code, tt.code)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: body lacks %s:\n%s", tt.name, w, body)
			}
		}
	}
	if code, _ := post(t, s.URL+"/v1/other", "{}"); code != 404 {
		t.Errorf("another path: %d; want 404", code)
	}
	if got := len(s.Requests()); got != 4 {
		t.Errorf("requests = %d; want 4", got)
	}
}

func TestGemini(t *testing.T) {
	u := Usage{Input: 10, Cached: 4, Output: 3, Reasoning: 2}
	s := NewGemini(t, Shell("make", u))
	code, body := post(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", `{"contents":[],"tools":[{}]}`)
	for _, w := range []string{"data: ", `"functionCall":{"args":{"command":"make"},"name":"run_shell_command"}`, `"thoughtsTokenCount":2`, `"totalTokenCount":15`} {
		if code != 200 || !strings.Contains(body, w) {
			t.Errorf("main loop: %d, body lacks %s:\n%s", code, w, body)
		}
	}
	// A side request (no tools) takes no turn.
	if _, body := post(t, s.URL+"/v1beta/models/flash:generateContent", `{"contents":[]}`); !strings.Contains(body, `"text":"{}"`) {
		t.Errorf("side request: %s", body)
	}
	if s.Remaining() != 0 {
		t.Errorf("remaining = %d; want 0", s.Remaining())
	}
}
