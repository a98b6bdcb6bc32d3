package decision

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/modelserver"
)

const modelAnswer = `Here they are:
[{"slug":"keep-state-per-session","what":"Keep one state file per session","why":"No shared lock","alternatives":"One big file","consequences":"Many small files","scope_hint":"issue"},
 {"slug":"BAD","what":"","why":"x","alternatives":"y","consequences":"z","scope_hint":"issue"}]`

var excerpt = Excerpt{Assistant: "We keep one state file per session.", Conversation: "[user]\nHow?\n\n[assistant]\nWe keep one state file per session.\n"}

func TestAnthropicExtractor(t *testing.T) {
	s := modelserver.New(t)
	answer := modelAnswer
	s.OnSide(func(r *modelserver.Request) modelserver.Turn { return modelserver.Text(answer) })
	a := Anthropic{BaseURL: s.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-5"}
	cands, usage, err := a.Extract(context.Background(), excerpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Slug != "keep-state-per-session" {
		t.Errorf("candidates: %+v; want the one valid item", cands)
	}
	if usage.Total() == 0 {
		t.Errorf("usage not counted: %+v", usage)
	}
	reqs := s.AllRequests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Prompt(), "We keep one state file per session.") || !strings.Contains(reqs[0].Prompt(), "JSON array") || reqs[0].Model != "claude-sonnet-4-5" {
		t.Errorf("request: %+v", reqs)
	}
	answer = "I found no decisions."
	if _, _, err := a.Extract(context.Background(), excerpt); !errors.Is(err, ErrExtractorParse) {
		t.Errorf("prose answer: got %v; want ErrExtractorParse", err)
	}
}

// chatServer answers the chat completions API with answer.
func chatServer(t *testing.T, answer *string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var prompts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-local" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		for _, m := range req.Messages {
			prompts = append(prompts, req.Model+"|"+m.Role+"|"+m.Content)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": *answer}}},
			"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &prompts
}

func TestOpenAIExtractor(t *testing.T) {
	answer := modelAnswer
	srv, prompts := chatServer(t, &answer)
	o := OpenAI{BaseURL: srv.URL + "/v1/", APIKey: "sk-local", Model: "local-model"}
	cands, usage, err := o.Extract(context.Background(), excerpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Slug != "keep-state-per-session" || usage != (Usage{InputTokens: 120, OutputTokens: 30}) {
		t.Errorf("candidates %+v usage %+v", cands, usage)
	}
	if len(*prompts) != 1 || !strings.HasPrefix((*prompts)[0], "local-model|user|You extract the decisions") {
		t.Errorf("prompts: %q", *prompts)
	}
	answer = `{"decision": "none"}`
	if _, _, err := o.Extract(context.Background(), excerpt); !errors.Is(err, ErrExtractorParse) {
		t.Errorf("object answer: got %v; want ErrExtractorParse", err)
	}
}

func TestBudgetFallsBackToRules(t *testing.T) {
	answer := `[{"slug":"from-the-model","what":"w","why":"y","alternatives":"a","consequences":"c","scope_hint":"issue"}]`
	srv, prompts := chatServer(t, &answer)
	e := newFlow(t)
	e.flow.Close = false
	e.flow.Extractor = OpenAI{BaseURL: srv.URL + "/v1/", APIKey: "sk-local", Model: "m"}
	e.flow.Budget = &Budget{Path: BudgetPath(e.flow.State.Root), Limit: 100, Now: clock}
	o, err := e.flow.Run(context.Background())
	if err != nil || o.Extractor != "openai" || !reflect.DeepEqual(o.Posted, []string{"from-the-model"}) {
		t.Fatalf("first run: extractor %s posted %v err %v", o.Extractor, o.Posted, err)
	}
	if used, _ := e.flow.Budget.Used(); used != 150 {
		t.Errorf("tokens counted: %d; want 150", used)
	}
	// 150 > 100: today's budget is spent, so the next run uses rules.
	appendTranscript(t, e.flow.Transcript, block(cand("later")))
	o, err = e.flow.Run(context.Background())
	if err != nil || o.Extractor != "rules" || !reflect.DeepEqual(o.Posted, []string{"later"}) || len(*prompts) != 1 {
		t.Fatalf("second run: extractor %s posted %v err %v prompts %d", o.Extractor, o.Posted, err, len(*prompts))
	}
	if w := strings.Join(o.Warnings, "\n"); !strings.Contains(w, "token budget (100) is spent") {
		t.Errorf("warnings: %q", w)
	}
	// A new day has a new budget.
	next := *e.flow.Budget
	next.Now = func() time.Time { return fixedNow.Add(24 * time.Hour) }
	if spent, _ := next.Spent(); spent {
		t.Errorf("the next day's budget is spent")
	}
}

func TestExtractorParseLeavesStateAlone(t *testing.T) {
	answer := "no JSON here"
	srv, _ := chatServer(t, &answer)
	e := newFlow(t)
	e.flow.Extractor = OpenAI{BaseURL: srv.URL + "/v1/", APIKey: "sk-local", Model: "m"}
	if _, err := e.flow.Run(context.Background()); !errors.Is(err, ErrExtractorParse) {
		t.Fatalf("got %v; want ErrExtractorParse", err)
	}
	if _, err := os.Stat(StatePath(e.flow.State, e.flow.Session)); !os.IsNotExist(err) {
		t.Errorf("state written after a parse error: %v", err)
	}
}

func TestExtractorFailureUsesRules(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.flow.Lang = i18n.EN
	e.flow.Extractor = OpenAI{BaseURL: "http://127.0.0.1:1/v1/", APIKey: "k", Model: "m"}
	o, err := e.flow.Run(context.Background())
	if err != nil || o.Extractor != "rules" || len(o.Posted) != 2 || !strings.Contains(strings.Join(o.Warnings, "\n"), "extractor openai failed") {
		t.Errorf("extractor %s posted %v warnings %q err %v", o.Extractor, o.Posted, o.Warnings, err)
	}
}

// TestAgentCLIExtractor runs the real agent CLI in print mode against the
// scripted model server.
func TestAgentCLIExtractor(t *testing.T) {
	s := modelserver.New(t, modelserver.Text(modelAnswer), modelserver.Text("Sorry, no JSON today."))
	env := claudetest.New(t, s)
	a := AgentCLI{Command: env.Bin, Dir: env.Dir, Env: env.Environ()}
	cands, usage, err := a.Extract(context.Background(), excerpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Slug != "keep-state-per-session" || usage.Total() == 0 {
		t.Errorf("candidates %+v usage %+v", cands, usage)
	}
	if p := s.Requests()[0].Text(); !strings.Contains(p, "We keep one state file per session.") || !strings.Contains(p, "Answer with a JSON array only") {
		t.Errorf("the prompt did not reach the model: %q", p)
	}
	if _, _, err := a.Extract(context.Background(), excerpt); !errors.Is(err, ErrExtractorParse) {
		t.Errorf("prose answer: got %v; want ErrExtractorParse", err)
	}
}
