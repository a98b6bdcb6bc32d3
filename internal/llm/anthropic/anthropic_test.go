package anthropic_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/llm/anthropic"
	"github.com/baton-cli/baton/internal/modelserver"
)

// leakedKey is a key an API error may echo: errors must never show it.
const leakedKey = "sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz0123456789AA"

// script answers the requests with turns in order, the last one from then
// on.
func script(srv *modelserver.Server, turns ...modelserver.Turn) {
	var mu sync.Mutex
	n := 0
	srv.OnSide(func(*modelserver.Request) modelserver.Turn {
		mu.Lock()
		defer mu.Unlock()
		t := turns[min(n, len(turns)-1)]
		n++
		return t
	})
}

func TestComplete(t *testing.T) {
	answer := modelserver.Text("Goal: ship it").WithUsage(modelserver.Usage{InputTokens: 1200, CacheCreationInputTokens: 30, CacheReadInputTokens: 70, OutputTokens: 80})
	tests := []struct {
		name          string
		turns         []modelserver.Turn
		maxTokens     int
		wantMaxTokens int
		wantRequests  int
		wantErr       string // empty: success
	}{
		{name: "answer", turns: []modelserver.Turn{answer}, maxTokens: 500, wantMaxTokens: 500, wantRequests: 1},
		{name: "default max tokens", turns: []modelserver.Turn{answer}, wantMaxTokens: anthropic.DefaultMaxTokens, wantRequests: 1},
		{name: "rate limited once", turns: []modelserver.Turn{modelserver.RateLimited(0), answer}, wantMaxTokens: anthropic.DefaultMaxTokens, wantRequests: 2},
		{
			name:         "refused key",
			turns:        []modelserver.Turn{modelserver.Fail(modelserver.Fault{Status: 401, Type: "authentication_error", Message: "invalid x-api-key " + leakedKey + strings.Repeat(" details", 80)})},
			wantRequests: 1, wantErr: "anthropic: POST",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modelserver.New(t)
			script(srv, tt.turns...)
			c := anthropic.Client{Model: "claude-test", MaxTokens: tt.maxTokens, APIKey: "sk-ant-test", BaseURL: srv.URL}
			r, err := c.Complete(context.Background(), "Summarize: we ship it.")
			reqs := srv.AllRequests()
			if len(reqs) != tt.wantRequests {
				t.Fatalf("%d requests; want %d", len(reqs), tt.wantRequests)
			}
			if tt.wantErr != "" {
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				if !strings.Contains(msg, tt.wantErr) || !strings.Contains(msg, "401") || strings.Contains(msg, leakedKey) || len([]rune(msg)) > 320 {
					t.Errorf("error %q; want a short redacted %q with the status", msg, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := llm.Reply{Text: "Goal: ship it", InputTokens: 1300, OutputTokens: 80}
			if r != want {
				t.Errorf("reply %+v; want %+v", r, want)
			}
			last := reqs[len(reqs)-1]
			key := last.Header.Get("X-Api-Key") + last.Header.Get("Authorization")
			if last.Model != "claude-test" || last.MaxTokens != tt.wantMaxTokens || last.Prompt() != "Summarize: we ship it." || !strings.Contains(key, "sk-ant-test") {
				t.Errorf("request model %q max_tokens %d prompt %q key %q; want claude-test, %d, the prompt and the key",
					last.Model, last.MaxTokens, last.Prompt(), key, tt.wantMaxTokens)
			}
		})
	}
}

func TestCompleteNeedsAKey(t *testing.T) {
	srv := modelserver.New(t)
	_, err := anthropic.Client{Model: "m", BaseURL: srv.URL}.Complete(context.Background(), "hi")
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("got %v; want an error naming ANTHROPIC_API_KEY", err)
	}
	if n := len(srv.AllRequests()); n != 0 {
		t.Errorf("%d requests sent without a key; want none", n)
	}
}
