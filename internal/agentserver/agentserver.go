// Package agentserver is a scripted model server for end-to-end tests of
// other agents' CLIs, offline on 127.0.0.1: the OpenAI Responses API that
// the Codex CLI calls and the Gemini API that the Gemini CLI calls. Each
// main-loop request takes the next scripted turn, a shell command or a text
// answer, with the token usage it reports. (Package modelserver is the
// Anthropic Messages API's, for Claude Code.)
//
// # What the CLIs send (checked with Codex 0.169.0 and Gemini CLI 0.61.0)
//
//   - Codex: POST /v1/responses with "stream": true, the conversation in
//     "input" and a tool list holding exec_command ({"cmd": …}); it wants
//     server-sent events response.created, response.output_item.done (a
//     message with output_text, or a function_call with call_id and JSON
//     arguments) and response.completed with usage {input_tokens,
//     input_tokens_details.cached_tokens, output_tokens,
//     output_tokens_details.reasoning_tokens, total_tokens}. A function
//     call's output comes back in the next request as function_call_output.
//   - Gemini: POST /v1beta/models/<model>:streamGenerateContent?alt=sse
//     for the main loop (with "tools"), answered with "data: " events of
//     {candidates: [{content: {role: "model", parts: [{text} or
//     {functionCall: {name: "run_shell_command", args: {command}}}]},
//     finishReason}], usageMetadata {promptTokenCount,
//     candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount,
//     totalTokenCount}}; side requests without tools (POST
//     …:generateContent, a small model's routing) get a short text.
package agentserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Usage is what a turn reports it used. Input includes Cached (as both
// APIs count), Output includes Reasoning for OpenAI; Gemini reports
// Reasoning (thoughts) on top of Output.
type Usage struct {
	Input, Cached, Output, Reasoning int
}

// Turn is one scripted answer: a shell command to run, else a text.
type Turn struct {
	Command string
	Text    string
	Usage   Usage
}

// Shell returns a turn that asks the CLI to run cmd in its shell tool.
func Shell(cmd string, u Usage) Turn { return Turn{Command: cmd, Usage: u} }

// Text returns a turn that answers s.
func Text(s string, u Usage) Turn { return Turn{Text: s, Usage: u} }

// Fallback answers a main-loop request once the script has run out.
const Fallback = "Done."

// Request is one request received.
type Request struct {
	Path string
	Body map[string]any
	// Raw is the body as sent.
	Raw string
}

// Server is a scripted server; it is closed when the test ends.
type Server struct {
	URL string

	mu    sync.Mutex
	turns []Turn
	reqs  []Request
	n     int
}

// NewOpenAI starts a Responses API server answering main-loop requests
// with turns, in order.
func NewOpenAI(t testing.TB, turns ...Turn) *Server {
	s := &Server{turns: turns}
	srv := httptest.NewServer(http.HandlerFunc(s.openai))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// NewGemini starts a Gemini API server answering main-loop requests with
// turns, in order.
func NewGemini(t testing.TB, turns ...Turn) *Server {
	s := &Server{turns: turns}
	srv := httptest.NewServer(http.HandlerFunc(s.gemini))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is how many scripted turns have not been answered.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - min(s.n, len(s.turns))
}

// read records a request and returns its body, or answers 400.
func (s *Server) read(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"method not allowed"}}`, http.StatusMethodNotAllowed)
		return nil, false
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var body map[string]any
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Path: r.URL.RequestURI(), Body: body, Raw: string(raw)})
	s.mu.Unlock()
	if err != nil {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return nil, false
	}
	return body, true
}

// next takes the next turn.
func (s *Server) next() (Turn, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.n
	s.n++
	if i < len(s.turns) {
		return s.turns[i], i
	}
	return Turn{Text: Fallback}, i
}

func sse(w http.ResponseWriter, events []string) {
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		io.WriteString(w, e)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, ok := s.read(w, r)
	if !ok {
		return
	}
	turn, i := s.next()
	id := fmt.Sprintf("resp_%04d", i)
	var item map[string]any
	if turn.Command != "" {
		args := map[string]any{"cmd": turn.Command}
		name := "exec_command"
		if !offers(body, "exec_command") && offers(body, "shell") {
			name, args = "shell", map[string]any{"command": []string{"bash", "-lc", turn.Command}}
		}
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%04d", i), "call_id": fmt.Sprintf("call_%04d", i),
			"name": name, "arguments": mustJSON(args)}
	} else {
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%04d", i),
			"content": []map[string]any{{"type": "output_text", "text": turn.Text}}}
	}
	u := turn.Usage
	usage := map[string]any{"input_tokens": u.Input, "input_tokens_details": map[string]int{"cached_tokens": u.Cached},
		"output_tokens": u.Output, "output_tokens_details": map[string]int{"reasoning_tokens": u.Reasoning},
		"total_tokens": u.Input + u.Output}
	var events []string
	for _, e := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "usage": usage}},
	} {
		events = append(events, fmt.Sprintf("event: %s\ndata: %s\n\n", e["type"], mustJSON(e)))
	}
	sse(w, events)
}

// offers reports whether a Responses request lists a tool named name.
func offers(body map[string]any, name string) bool {
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		if m, ok := t.(map[string]any); ok && m["name"] == name {
			return true
		}
	}
	return false
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if !strings.Contains(path, ":generateContent") && !strings.Contains(path, ":streamGenerateContent") && !strings.Contains(path, ":countTokens") {
		http.Error(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	body, ok := s.read(w, r)
	if !ok {
		return
	}
	if strings.Contains(path, ":countTokens") {
		w.Header().Set("content-type", "application/json")
		io.WriteString(w, `{"totalTokens":10}`)
		return
	}
	var parts []map[string]any
	var u Usage
	if _, main := body["tools"]; main {
		turn, _ := s.next()
		u = turn.Usage
		if turn.Command != "" {
			parts = []map[string]any{{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]string{"command": turn.Command}}}}
		} else {
			parts = []map[string]any{{"text": turn.Text}}
		}
	} else {
		parts = []map[string]any{{"text": "{}"}}
	}
	resp := map[string]any{
		"candidates": []map[string]any{{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": u.Input, "cachedContentTokenCount": u.Cached, "candidatesTokenCount": u.Output,
			"thoughtsTokenCount": u.Reasoning, "totalTokenCount": u.Input + u.Output + u.Reasoning},
	}
	if r.URL.Query().Get("alt") == "sse" {
		sse(w, []string{"data: " + mustJSON(resp) + "\r\n\r\n"})
		return
	}
	w.Header().Set("content-type", "application/json")
	io.WriteString(w, mustJSON(resp))
}
