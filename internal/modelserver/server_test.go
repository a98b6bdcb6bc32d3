package modelserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/baton-cli/baton/internal/modelserver"
)

// bashInput is the input of a scripted Bash tool call.
var bashInput = map[string]string{"command": "echo hello-from-tool", "description": "Say hello"}

// client returns an SDK client pointed at s that does not retry.
func client(s *modelserver.Server) anthropic.Client {
	return anthropic.NewClient(
		option.WithBaseURL(s.URL),
		option.WithAPIKey("sk-ant-test"),
		option.WithMaxRetries(0),
	)
}

// params is a request offering one tool, so the server takes it for a
// main-loop request.
func params(prompt string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test-model",
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: "You are a test."}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "Bash",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"command": map[string]any{"type": "string"}}},
		}}},
	}
}

// block is the part of a returned content block the tests compare.
type block struct {
	Type, Text, Name, Input string
}

func blocksOf(m *anthropic.Message) []block {
	var out []block
	for _, c := range m.Content {
		b := block{Type: c.Type, Text: c.Text, Name: c.Name}
		if c.Type == "tool_use" {
			b.Input = string(c.Input)
		}
		out = append(out, b)
	}
	return out
}

func TestServerAnswersScriptedTurns(t *testing.T) {
	tests := []struct {
		name       string
		turn       modelserver.Turn
		wantBlocks []block
		wantStop   anthropic.StopReason
	}{
		{
			name:       "text",
			turn:       modelserver.Text("Hello, here is a longer answer that spans several deltas — ünïcödé too."),
			wantBlocks: []block{{Type: "text", Text: "Hello, here is a longer answer that spans several deltas — ünïcödé too."}},
			wantStop:   anthropic.StopReasonEndTurn,
		},
		{
			name:       "tool use",
			turn:       modelserver.ToolUse("Bash", bashInput),
			wantBlocks: []block{{Type: "tool_use", Name: "Bash", Input: `{"command":"echo hello-from-tool","description":"Say hello"}`}},
			wantStop:   anthropic.StopReasonToolUse,
		},
		{
			name: "text then tool use",
			turn: modelserver.Blocks(modelserver.TextBlock("Let me run it."), modelserver.ToolUseBlock("Bash", bashInput)),
			wantBlocks: []block{
				{Type: "text", Text: "Let me run it."},
				{Type: "tool_use", Name: "Bash", Input: `{"command":"echo hello-from-tool","description":"Say hello"}`},
			},
			wantStop: anthropic.StopReasonToolUse,
		},
		{
			name:       "empty text",
			turn:       modelserver.Text(""),
			wantBlocks: []block{{Type: "text", Text: ""}},
			wantStop:   anthropic.StopReasonEndTurn,
		},
	}
	for _, tt := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				s := modelserver.New(t, tt.turn)
				c := client(s)
				var msg anthropic.Message
				if stream {
					st := c.Messages.NewStreaming(t.Context(), params("hi"))
					for st.Next() {
						if err := msg.Accumulate(st.Current()); err != nil {
							t.Fatalf("accumulate: %v", err)
						}
					}
					if err := st.Err(); err != nil {
						t.Fatalf("stream: %v", err)
					}
				} else {
					m, err := c.Messages.New(t.Context(), params("hi"))
					if err != nil {
						t.Fatalf("new message: %v", err)
					}
					msg = *m
				}
				if got := blocksOf(&msg); !equalBlocks(got, tt.wantBlocks) {
					t.Errorf("blocks = %+v; want %+v", got, tt.wantBlocks)
				}
				if msg.StopReason != tt.wantStop {
					t.Errorf("stop_reason = %q; want %q", msg.StopReason, tt.wantStop)
				}
				if !strings.HasPrefix(msg.ID, "msg_01") {
					t.Errorf("id = %q; want a msg_01… id", msg.ID)
				}
				if msg.Model != "claude-test-model" {
					t.Errorf("model = %q; want the requested claude-test-model", msg.Model)
				}
				if msg.Usage.InputTokens <= 0 || msg.Usage.OutputTokens <= 0 {
					t.Errorf("usage = %+v; want positive input and output tokens", msg.Usage)
				}
				for _, c := range msg.Content {
					if c.Type == "tool_use" && !strings.HasPrefix(c.ID, "toolu_01") {
						t.Errorf("tool_use id = %q; want a toolu_01… id", c.ID)
					}
				}
				reqs := s.Requests()
				if len(reqs) != 1 {
					t.Fatalf("recorded %d main requests; want 1", len(reqs))
				}
				if reqs[0].Stream != stream {
					t.Errorf("recorded Stream = %v; want %v", reqs[0].Stream, stream)
				}
			})
		}
	}
}

func equalBlocks(a, b []block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// event is one server-sent event.
type event struct {
	name string
	data map[string]any
}

// readEvents parses a text/event-stream body.
func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var events []event
	var cur event
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				events = append(events, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("event %s data %q: %v", cur.name, line, err)
			}
		default:
			t.Fatalf("unexpected stream line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return events
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// toolRequest is a minimal streaming main-loop request body.
const toolRequest = `{"model":"m","max_tokens":10,"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`

func TestStreamWireFormat(t *testing.T) {
	s := modelserver.New(t, modelserver.Blocks(
		modelserver.TextBlock("Running the command for you now."),
		modelserver.ToolUseBlock("Bash", bashInput),
	))
	resp := post(t, s.URL+"/v1/messages?beta=true", toolRequest)
	if got := resp.Header.Get("Content-Type"); got != "text/event-stream" {
		t.Errorf("content-type = %q; want text/event-stream", got)
	}
	if got := resp.Header.Get("Request-Id"); !strings.HasPrefix(got, "req_") {
		t.Errorf("request-id = %q; want req_…", got)
	}
	events := readEvents(t, resp.Body)

	var names []string
	for _, e := range events {
		if e.data["type"] != e.name {
			t.Errorf("event %q carries type %v; want the event name", e.name, e.data["type"])
		}
		if len(names) == 0 || names[len(names)-1] != e.name {
			names = append(names, e.name)
		}
	}
	wantNames := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Errorf("events (repeats folded) = %v; want %v", names, wantNames)
	}

	start := events[0].data["message"].(map[string]any)
	usage := start["usage"].(map[string]any)
	for _, field := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if _, ok := usage[field]; !ok {
			t.Errorf("message_start usage lacks %s: %v", field, usage)
		}
	}
	if start["stop_reason"] != nil || len(start["content"].([]any)) != 0 {
		t.Errorf("message_start = %v; want no content and a null stop_reason", start)
	}

	var text, partialJSON strings.Builder
	textDeltas := 0
	for _, e := range events {
		if e.name != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		switch d["type"] {
		case "text_delta":
			textDeltas++
			text.WriteString(d["text"].(string))
		case "input_json_delta":
			partialJSON.WriteString(d["partial_json"].(string))
		default:
			t.Errorf("unexpected delta %v", d)
		}
	}
	if got, want := text.String(), "Running the command for you now."; got != want {
		t.Errorf("joined text deltas = %q; want %q", got, want)
	}
	if textDeltas < 2 {
		t.Errorf("text came in %d delta(s); want it split like the real API", textDeltas)
	}
	if got, want := partialJSON.String(), `{"command":"echo hello-from-tool","description":"Say hello"}`; got != want {
		t.Errorf("joined input_json_delta = %q; want %q", got, want)
	}
	toolStart := events[0]
	for _, e := range events {
		if e.name == "content_block_start" && e.data["index"] == 1.0 {
			toolStart = e
		}
	}
	cb := toolStart.data["content_block"].(map[string]any)
	if cb["type"] != "tool_use" || cb["name"] != "Bash" || !strings.HasPrefix(fmt.Sprint(cb["id"]), "toolu_") {
		t.Errorf("tool content_block_start = %v; want a Bash tool_use with a toolu_ id", cb)
	}
	last := events[len(events)-2].data
	if got := last["delta"].(map[string]any)["stop_reason"]; got != "tool_use" {
		t.Errorf("message_delta stop_reason = %v; want tool_use", got)
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name           string
		turn           modelserver.Turn
		wantStatus     int
		wantType       string
		wantRetryAfter string
	}{
		{name: "overloaded", turn: modelserver.Overloaded(), wantStatus: 529, wantType: "overloaded_error"},
		{name: "rate limited", turn: modelserver.RateLimited(1500 * time.Millisecond), wantStatus: 429, wantType: "rate_limit_error", wantRetryAfter: "2"},
		{name: "server error", turn: modelserver.ServerError(), wantStatus: 500, wantType: "api_error"},
		{
			name:           "custom",
			turn:           modelserver.Fail(modelserver.Fault{Status: 400, Type: "invalid_request_error", Message: "prompt is too long", RetryAfter: 3 * time.Second}),
			wantStatus:     400,
			wantType:       "invalid_request_error",
			wantRetryAfter: "3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modelserver.New(t, tt.turn)
			resp := post(t, s.URL+"/v1/messages", toolRequest)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d; want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := resp.Header.Get("Retry-After"); got != tt.wantRetryAfter {
				t.Errorf("retry-after = %q; want %q", got, tt.wantRetryAfter)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("content-type = %q; want application/json", got)
			}
			var body struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
				RequestID string `json:"request_id"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("decode error body: %v", err)
			}
			if body.Type != "error" || body.Error.Type != tt.wantType || body.Error.Message == "" {
				t.Errorf("body = %+v; want type error, error.type %s and a message", body, tt.wantType)
			}
			if body.RequestID != resp.Header.Get("Request-Id") {
				t.Errorf("body request_id = %q; want the request-id header %q", body.RequestID, resp.Header.Get("Request-Id"))
			}
		})
	}
}

func TestSDKSeesFaultAndRetryTakesNextTurn(t *testing.T) {
	s := modelserver.New(t, modelserver.Overloaded(), modelserver.Text("recovered"))
	c := client(s)
	_, err := c.Messages.New(t.Context(), params("hi"))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v; want *anthropic.Error", err)
	}
	if apiErr.StatusCode != 529 || apiErr.Type() != "overloaded_error" {
		t.Errorf("error = %d %q; want 529 overloaded_error", apiErr.StatusCode, apiErr.Type())
	}

	s = modelserver.New(t, modelserver.Overloaded(), modelserver.Text("recovered"))
	retrying := anthropic.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("k"), option.WithMaxRetries(1))
	msg, err := retrying.Messages.New(t.Context(), params("hi"))
	if err != nil {
		t.Fatalf("with a retry: %v", err)
	}
	if got := blocksOf(msg); len(got) != 1 || got[0].Text != "recovered" {
		t.Errorf("answer after retry = %+v; want the next turn, recovered", got)
	}
	if got := len(s.Requests()); got != 2 {
		t.Errorf("recorded %d main requests; want 2 (fault, retry)", got)
	}
}

func TestRecordsAndClassifiesRequests(t *testing.T) {
	s := modelserver.New(t,
		modelserver.Text("first"),
		modelserver.Func(func(r *modelserver.Request) modelserver.Turn {
			return modelserver.Text("echo: " + r.Prompt())
		}),
	)
	compact := `{"model":"m","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"Your task is to create a detailed summary of the conversation so far."}]}`
	requests := []struct {
		path, body string
		wantStatus int
		wantText   string // in the answer
	}{
		{"/v1/messages", `{"model":"m","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"one"}]}`, 200, "first"},
		{"/v1/messages", `{"model":"haiku","max_tokens":10,"messages":[{"role":"user","content":"title this"}]}`, 200, modelserver.Fallback},
		{"/v1/messages", compact, 200, `<summary>\n` + modelserver.CompactSummary + `\n</summary>`}, // JSON-escaped newlines
		{"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"count"}]}`, 200, `"input_tokens":`},
		{"/v1/models", `{}`, 404, "not_found_error"},
		{"/v1/messages", `not json`, 400, "invalid_request_error"},
		{"/v1/messages", `{"model":"m","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"two"}]}`, 200, "echo: two"},
		{"/v1/messages", `{"model":"m","max_tokens":10,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"three"}]}`, 200, modelserver.Fallback},
	}
	for i, r := range requests {
		resp := post(t, s.URL+r.path, r.body)
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("request %d: read: %v", i, err)
		}
		if resp.StatusCode != r.wantStatus || !strings.Contains(string(body), r.wantText) {
			t.Errorf("request %d to %s: got %d %s; want %d containing %q", i, r.path, resp.StatusCode, body, r.wantStatus, r.wantText)
		}
	}

	var kinds []modelserver.Kind
	for _, r := range s.AllRequests() {
		kinds = append(kinds, r.Kind)
	}
	wantKinds := []modelserver.Kind{
		modelserver.KindMain, modelserver.KindUtility, modelserver.KindCompact, modelserver.KindCountTokens,
		modelserver.KindInvalid, modelserver.KindInvalid, modelserver.KindMain, modelserver.KindMain,
	}
	if fmt.Sprint(kinds) != fmt.Sprint(wantKinds) {
		t.Errorf("kinds = %v; want %v", kinds, wantKinds)
	}
	var prompts []string
	for _, r := range s.Requests() {
		prompts = append(prompts, r.Prompt())
	}
	if got, want := strings.Join(prompts, ","), "one,two,three"; got != want {
		t.Errorf("main-loop prompts = %s; want %s", got, want)
	}
	if got := s.Remaining(); got != 0 {
		t.Errorf("Remaining = %d; want 0", got)
	}
	s.Add(modelserver.Text("added"))
	if got := s.Remaining(); got != 1 {
		t.Errorf("Remaining after Add = %d; want 1", got)
	}
}

func TestOnSideReplacesSideAnswers(t *testing.T) {
	s := modelserver.New(t)
	s.OnSide(func(r *modelserver.Request) modelserver.Turn {
		return modelserver.Text("side answer for " + r.Model)
	})
	resp := post(t, s.URL+"/v1/messages", `{"model":"small","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "side answer for small") {
		t.Errorf("answer = %s; want the OnSide answer", body)
	}
	s.OnSide(nil)
	resp = post(t, s.URL+"/v1/messages", `{"model":"small","max_tokens":10,"messages":[{"role":"user","content":"x"}]}`)
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"text":"`+modelserver.Fallback+`"`) {
		t.Errorf("answer after OnSide(nil) = %s; want Text(Fallback)", body)
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("side requests recorded as main-loop: %d; want 0", got)
	}
}

func TestRequestDecoding(t *testing.T) {
	tests := []struct {
		name           string
		body           string
		wantSystem     string
		wantPrompt     string
		wantToolResult string
		wantText       []string
		wantTools      []string
	}{
		{
			name:       "string content and system",
			body:       `{"model":"m","system":"be brief","tools":[{"name":"Bash"},{"name":"Read"}],"messages":[{"role":"user","content":"hello"}]}`,
			wantSystem: "be brief",
			wantPrompt: "hello",
			wantText:   []string{"be brief", "hello"},
			wantTools:  []string{"Bash", "Read"},
		},
		{
			name: "blocks, system role and tool results",
			body: `{"model":"m","system":[{"type":"text","text":"part one"},{"type":"text","text":"part two","cache_control":{"type":"ephemeral"}}],
				"tools":[{"name":"Bash"}],
				"messages":[
				{"role":"user","content":[{"type":"text","text":"<system-reminder>r</system-reminder>"},{"type":"text","text":"run it"}]},
				{"role":"system","content":[{"type":"text","text":"SessionStart hook additional context: MARKER-1"}]},
				{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo a"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"first result"}]},
				{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"echo b"}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"second"},{"type":"text","text":"result"}]}]}
			]}`,
			wantSystem:     "part one\npart two",
			wantPrompt:     "<system-reminder>r</system-reminder>\nrun it",
			wantToolResult: "second\nresult",
			wantText:       []string{"part one", "run it", "MARKER-1", "ok", "first result", "second\nresult"},
			wantTools:      []string{"Bash"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := modelserver.New(t)
			post(t, s.URL+"/v1/messages", tt.body)
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("recorded %d main requests; want 1", len(reqs))
			}
			r := reqs[0]
			if r.System != tt.wantSystem {
				t.Errorf("System = %q; want %q", r.System, tt.wantSystem)
			}
			if got := r.Prompt(); got != tt.wantPrompt {
				t.Errorf("Prompt() = %q; want %q", got, tt.wantPrompt)
			}
			if got := r.LastToolResult(); got != tt.wantToolResult {
				t.Errorf("LastToolResult() = %q; want %q", got, tt.wantToolResult)
			}
			for _, want := range tt.wantText {
				if !strings.Contains(r.Text(), want) {
					t.Errorf("Text() = %q; want it to contain %q", r.Text(), want)
				}
			}
			if fmt.Sprint(r.Tools) != fmt.Sprint(tt.wantTools) {
				t.Errorf("Tools = %v; want %v", r.Tools, tt.wantTools)
			}
			if !bytes.Equal(r.Body, []byte(tt.body)) {
				t.Errorf("Body differs from what was sent")
			}
		})
	}

	t.Run("tool result by id", func(t *testing.T) {
		s := modelserver.New(t)
		post(t, s.URL+"/v1/messages", tests[1].body)
		c, ok := s.Requests()[0].ToolResult("toolu_1")
		if !ok || c.Text != "first result" || c.IsError {
			t.Errorf("ToolResult(toolu_1) = %+v, %v; want first result, not an error", c, ok)
		}
		c, ok = s.Requests()[0].ToolResult("toolu_2")
		if !ok || !c.IsError {
			t.Errorf("ToolResult(toolu_2) = %+v, %v; want an error result", c, ok)
		}
		if _, ok := s.Requests()[0].ToolResult("toolu_9"); ok {
			t.Errorf("ToolResult(toolu_9) found; want none")
		}
	})
}

func TestWithUsage(t *testing.T) {
	want := modelserver.Usage{InputTokens: 1200, OutputTokens: 34, CacheCreationInputTokens: 500, CacheReadInputTokens: 7000}
	s := modelserver.New(t, modelserver.Text("x").WithUsage(want))
	var msg anthropic.Message
	c := client(s)
	st := c.Messages.NewStreaming(t.Context(), params("hi"))
	for st.Next() {
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	got := modelserver.Usage{
		InputTokens:              int(msg.Usage.InputTokens),
		OutputTokens:             int(msg.Usage.OutputTokens),
		CacheCreationInputTokens: int(msg.Usage.CacheCreationInputTokens),
		CacheReadInputTokens:     int(msg.Usage.CacheReadInputTokens),
	}
	if got != want {
		t.Errorf("usage = %+v; want %+v", got, want)
	}
}

func TestConcurrentRequestsTakeEachTurnOnce(t *testing.T) {
	const n = 20
	var turns []modelserver.Turn
	for i := range n {
		turns = append(turns, modelserver.Text(fmt.Sprintf("turn-%d", i)))
	}
	s := modelserver.New(t, turns...)
	answers := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(strings.Replace(toolRequest, `"stream":true,`, "", 1)))
			if err != nil {
				t.Errorf("post: %v", err)
				return
			}
			defer resp.Body.Close()
			var m struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || len(m.Content) != 1 {
				t.Errorf("decode answer: %v %+v", err, m)
				return
			}
			answers <- m.Content[0].Text
		})
	}
	wg.Wait()
	close(answers)
	seen := map[string]bool{}
	for a := range answers {
		if seen[a] {
			t.Errorf("turn %q answered twice", a)
		}
		seen[a] = true
	}
	if len(seen) != n || len(s.Requests()) != n || s.Remaining() != 0 {
		t.Errorf("got %d distinct answers, %d requests, %d remaining; want %d, %d, 0", len(seen), len(s.Requests()), s.Remaining(), n, n)
	}
}

func BenchmarkStreamedTurn(b *testing.B) {
	s := modelserver.New(b)
	c := client(s)
	p := params("hi")
	turn := modelserver.Blocks(modelserver.TextBlock(strings.Repeat("word ", 200)), modelserver.ToolUseBlock("Bash", bashInput))
	for b.Loop() {
		s.Add(turn)
		st := c.Messages.NewStreaming(b.Context(), p)
		var msg anthropic.Message
		for st.Next() {
			if err := msg.Accumulate(st.Current()); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
