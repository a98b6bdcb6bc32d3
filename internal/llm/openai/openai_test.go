package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/llm/openai"
)

// leakedKey is a key an API error may echo: errors must never show it.
const leakedKey = "sk-proj-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij"

// A reply is one answer of the fake chat completions API.
type reply struct {
	status int
	header map[string]string
	body   string
}

func answer(content string) reply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1778246185, "model": "local-llama",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
	})
	return reply{status: 200, body: string(b)}
}

var (
	rateLimited = reply{
		status: 429, header: map[string]string{"retry-after-ms": "10"},
		body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
	}
	badKey = reply{
		status: 401,
		body:   `{"error":{"message":"Incorrect API key provided: ` + leakedKey + `.` + strings.Repeat(" You can find your API key in your account settings.", 10) + `","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
	}
	noChoices = reply{status: 200, body: `{"id":"chatcmpl-2","object":"chat.completion","created":1778246185,"model":"local-llama","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":0,"total_tokens":900}}`}
)

// fakeAPI answers POST /v1/chat/completions with replies in order, the last
// one from then on, and records the request bodies.
func fakeAPI(t *testing.T, replies ...reply) (*httptest.Server, func() []map[string]any) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-local" {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"message":"Unknown request URL","type":"invalid_request_error","param":null,"code":"unknown_url"}}`))
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		rep := replies[min(len(bodies), len(replies)-1)]
		bodies = append(bodies, body)
		mu.Unlock()
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		w.Write([]byte(rep.body))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), bodies...)
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name         string
		replies      []reply
		maxTokens    int
		wantRequests int
		wantReply    llm.Reply
		wantErr      string // empty: success
		wantOutput   bool   // errors.Is(err, llm.ErrOutput)
	}{
		{name: "answer", replies: []reply{answer("Goal: ship it")}, maxTokens: 300, wantRequests: 1, wantReply: llm.Reply{Text: "Goal: ship it", InputTokens: 900, OutputTokens: 60}},
		{name: "no max tokens", replies: []reply{answer("Goal: ship it")}, wantRequests: 1, wantReply: llm.Reply{Text: "Goal: ship it", InputTokens: 900, OutputTokens: 60}},
		{name: "rate limited once", replies: []reply{rateLimited, answer("Goal: ship it")}, wantRequests: 2, wantReply: llm.Reply{Text: "Goal: ship it", InputTokens: 900, OutputTokens: 60}},
		{name: "rate limited throughout", replies: []reply{rateLimited}, wantRequests: 3, wantErr: "429 Too Many Requests: Rate limit reached for requests"},
		{name: "refused key", replies: []reply{badKey}, wantRequests: 1, wantErr: "401 Unauthorized: Incorrect API key provided: [REDACTED"},
		{name: "no choices", replies: []reply{noChoices}, wantRequests: 1, wantErr: "no choices", wantOutput: true, wantReply: llm.Reply{InputTokens: 900}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, bodies := fakeAPI(t, tt.replies...)
			c := openai.Client{Model: "local-llama", MaxTokens: tt.maxTokens, APIKey: "sk-local", BaseURL: srv.URL + "/v1"}
			r, err := c.Complete(context.Background(), "Summarize: we ship it.")
			got := bodies()
			if len(got) != tt.wantRequests {
				t.Fatalf("%d requests; want %d", len(got), tt.wantRequests)
			}
			if r != tt.wantReply {
				t.Errorf("reply %+v; want %+v", r, tt.wantReply)
			}
			if errors.Is(err, llm.ErrOutput) != tt.wantOutput {
				t.Errorf("errors.Is(%v, ErrOutput) = %v; want %v", err, !tt.wantOutput, tt.wantOutput)
			}
			if tt.wantErr != "" {
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				if !strings.Contains(msg, tt.wantErr) || strings.Contains(msg, leakedKey) || len([]rune(msg)) > 320 {
					t.Errorf("error %q; want a short redacted error holding %q", msg, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body := got[len(got)-1]
			msgs, _ := body["messages"].([]any)
			wantMsgs := []any{map[string]any{"role": "user", "content": "Summarize: we ship it."}}
			if body["model"] != "local-llama" || len(msgs) != 1 || !jsonEqual(msgs, wantMsgs) {
				t.Errorf("request model %v messages %v; want local-llama and the prompt as one user message", body["model"], msgs)
			}
			mt, sent := body["max_tokens"]
			if want := tt.maxTokens > 0; sent != want || (want && mt != float64(tt.maxTokens)) {
				t.Errorf("max_tokens %v (sent %v); want %d, sent only when set", mt, sent, tt.maxTokens)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
