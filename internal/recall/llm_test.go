package recall

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/modelserver"
)

const goodAnswer = "Goal: ship the CSV export\nRecent Actions:\n- 10:01 edited report.go\n- 10:04 ran the tests\nOpen Loops:\n- header row localization?"

// l1Input is an input holding a secret, which must never reach a model.
func l1Input() Input {
	return Input{Layer: L1, Entries: []Entry{
		{TS: at(0), Event: evPrompt, Session: "s", Prompt: "Add CSV export; the key is ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		{TS: at(1), Event: evPostTool, Session: "s", Tool: "Edit", File: "report.go"},
	}}
}

func checkGood(t *testing.T, out Output) {
	t.Helper()
	var r Recent
	r.setSections(out.Sections)
	if r.Goal != "ship the CSV export" || len(r.Actions) != 2 || len(r.OpenLoops) != 1 {
		t.Errorf("parsed %+v; want the model's summary", r)
	}
}

func TestAnthropic(t *testing.T) {
	srv := modelserver.New(t)
	answer := goodAnswer
	srv.OnSide(func(r *modelserver.Request) modelserver.Turn {
		return modelserver.Text(answer).WithUsage(modelserver.Usage{InputTokens: 1200, OutputTokens: 80})
	})
	a := Anthropic{Model: "claude-test", MaxTokens: 500, APIKey: "sk-ant-test", BaseURL: srv.URL}
	out, err := a.Summarize(context.Background(), l1Input())
	if err != nil {
		t.Fatal(err)
	}
	checkGood(t, out)
	if out.Tokens != 1280 {
		t.Errorf("tokens %d; want 1280 from the usage", out.Tokens)
	}
	reqs := srv.AllRequests()
	if len(reqs) != 1 || reqs[0].Model != "claude-test" || reqs[0].MaxTokens != 500 {
		t.Fatalf("requests %+v; want one for claude-test with max_tokens 500", reqs)
	}
	sent := reqs[0].Text()
	if !strings.Contains(sent, "Recent Actions:") || !strings.Contains(sent, "tool Edit report.go") {
		t.Errorf("request lacks the format or the records:\n%s", sent)
	}
	if strings.Contains(sent, "ghp_") {
		t.Errorf("a secret was sent to the model:\n%s", sent)
	}

	answer = "Sorry, I can't."
	if _, err := a.Summarize(context.Background(), l1Input()); err == nil || !strings.Contains(err.Error(), "not in the asked format") {
		t.Errorf("unusable answer: %v; want ErrSummary", err)
	}
	if _, err := (Anthropic{Model: "m"}).Summarize(context.Background(), l1Input()); err == nil {
		t.Error("no API key accepted")
	}
}

// fakeOpenAI answers chat completions as the OpenAI API does.
func fakeOpenAI(t *testing.T, answer string) (*httptest.Server, *[]map[string]any) {
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-local" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1778246185, "model": body["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
			"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestOpenAI(t *testing.T) {
	srv, got := fakeOpenAI(t, goodAnswer)
	o := OpenAI{Model: "local-llama", MaxTokens: 300, APIKey: "sk-local", BaseURL: srv.URL + "/v1"}
	out, err := o.Summarize(context.Background(), l1Input())
	if err != nil {
		t.Fatal(err)
	}
	checkGood(t, out)
	if out.Tokens != 960 || len(*got) != 1 || (*got)[0]["model"] != "local-llama" {
		t.Errorf("tokens %d, requests %v; want 960 and one for local-llama", out.Tokens, *got)
	}
	if _, err := (OpenAI{Model: "m", APIKey: "wrong", BaseURL: srv.URL + "/v1"}).Summarize(context.Background(), l1Input()); err == nil {
		t.Error("a 401 was not an error")
	}
}

// TestClaudeCLI runs the summary through the real agent CLI against the
// scripted model server.
func TestClaudeCLI(t *testing.T) {
	srv := modelserver.New(t)
	srv.OnSide(func(r *modelserver.Request) modelserver.Turn { return modelserver.Text(goodAnswer) })
	env := claudetest.New(t, srv)
	c := ClaudeCLI{Command: env.Bin, Model: "sonnet", Env: env.Environ()}
	out, err := c.Summarize(context.Background(), l1Input())
	if err != nil {
		t.Fatal(err)
	}
	checkGood(t, out)
	if out.Tokens <= 0 {
		t.Errorf("tokens %d; want the run's usage", out.Tokens)
	}
	var sent string
	for _, r := range srv.AllRequests() {
		if strings.Contains(r.Text(), "Recent Actions:") {
			sent = r.Text()
			if len(r.Tools) != 0 {
				t.Errorf("the summary run offered tools %v; want none", r.Tools)
			}
		}
	}
	if sent == "" || strings.Contains(sent, "ghp_") {
		t.Errorf("summary request missing or holding a secret:\n%.2000s", sent)
	}
}
