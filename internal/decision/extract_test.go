package decision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/modelserver"
)

const modelAnswer = `Here they are:
[{"slug":"keep-state-per-session","what":"Keep one state file per session","why":"No shared lock","alternatives":"One big file","consequences":"Many small files","scope_hint":"issue"},
 {"slug":"BAD","what":"","why":"x","alternatives":"y","consequences":"z","scope_hint":"issue"}]`

// secret looks like a GitHub token: it must never reach a model.
const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

var excerpt = Excerpt{
	Assistant:    "We keep one state file per session.",
	Conversation: "[user]\nHow? My token is " + secret + "\n\n[assistant]\nWe keep one state file per session.\n",
}

// fakeModel is an llm.Client answering with answer and recording the
// prompts it was sent.
type fakeModel struct {
	name   string
	answer func() (llm.Reply, error)

	mu      sync.Mutex
	prompts []string
}

func (m *fakeModel) Name() string { return m.name }

func (m *fakeModel) Complete(_ context.Context, prompt string) (llm.Reply, error) {
	m.mu.Lock()
	m.prompts = append(m.prompts, prompt)
	m.mu.Unlock()
	return m.answer()
}

func (m *fakeModel) sent() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts...)
}

// answers returns a fakeModel answering text at a cost of 120 input and
// 30 output tokens.
func answers(text string) *fakeModel {
	return &fakeModel{name: "openai", answer: func() (llm.Reply, error) {
		return llm.Reply{Text: text, InputTokens: 120, OutputTokens: 30}, nil
	}}
}

// fails returns a fakeModel failing with err at a cost of 50 input tokens.
func fails(err error) *fakeModel {
	return &fakeModel{name: "claude", answer: func() (llm.Reply, error) { return llm.Reply{InputTokens: 50}, err }}
}

func TestModelExtractor(t *testing.T) {
	tests := []struct {
		name      string
		model     *fakeModel
		wantSlugs []string
		wantUsage Usage
		wantParse bool // errors.Is(err, ErrExtractorParse)
		wantErr   bool
	}{
		{name: "candidates", model: answers(modelAnswer), wantSlugs: []string{"keep-state-per-session"}, wantUsage: Usage{120, 30}},
		{name: "no decisions", model: answers("[]"), wantUsage: Usage{120, 30}},
		{name: "prose answer", model: answers("I found no decisions."), wantUsage: Usage{120, 30}, wantParse: true, wantErr: true},
		{name: "unreadable output", model: fails(fmt.Errorf("read claude result: %w", llm.ErrOutput)), wantUsage: Usage{50, 0}, wantParse: true, wantErr: true},
		{name: "client failure", model: fails(errors.New("run claude: exit status 1")), wantUsage: Usage{50, 0}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ModelExtractor{Client: tt.model}
			if m.Name() != tt.model.name {
				t.Errorf("Name() = %q; want the client's %q", m.Name(), tt.model.name)
			}
			cands, usage, err := m.Extract(context.Background(), excerpt)
			if (err != nil) != tt.wantErr || errors.Is(err, ErrExtractorParse) != tt.wantParse {
				t.Fatalf("err %v; want an error %v, ErrExtractorParse %v", err, tt.wantErr, tt.wantParse)
			}
			var slugs []string
			for _, c := range cands {
				slugs = append(slugs, c.Slug)
			}
			if !reflect.DeepEqual(slugs, tt.wantSlugs) || usage != tt.wantUsage {
				t.Errorf("slugs %v usage %+v; want %v and %+v", slugs, usage, tt.wantSlugs, tt.wantUsage)
			}
			sent := tt.model.sent()
			if len(sent) != 1 || !strings.HasPrefix(sent[0], Prompt) || !strings.Contains(sent[0], "We keep one state file per session.") || strings.Contains(sent[0], secret) {
				t.Errorf("prompts %q; want one: Prompt and the redacted conversation", sent)
			}
		})
	}
}

func TestBudgetFallsBackToRules(t *testing.T) {
	model := answers(`[{"slug":"from-the-model","what":"w","why":"y","alternatives":"a","consequences":"c","scope_hint":"issue"}]`)
	e := newFlow(t)
	e.flow.Close = false
	e.flow.Extractor = ModelExtractor{Client: model}
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
	if err != nil || o.Extractor != "rules" || !reflect.DeepEqual(o.Posted, []string{"later"}) || len(model.sent()) != 1 {
		t.Fatalf("second run: extractor %s posted %v err %v prompts %d", o.Extractor, o.Posted, err, len(model.sent()))
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
	tests := []struct {
		name  string
		model *fakeModel
	}{
		{name: "answer not an array", model: answers("no JSON here")},
		{name: "output not understood", model: fails(fmt.Errorf("read claude result: %w", llm.ErrOutput))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFlow(t)
			e.flow.Extractor = ModelExtractor{Client: tt.model}
			if _, err := e.flow.Run(context.Background()); !errors.Is(err, ErrExtractorParse) {
				t.Fatalf("got %v; want ErrExtractorParse", err)
			}
			if _, err := os.Stat(StatePath(e.flow.State, e.flow.Session)); !os.IsNotExist(err) {
				t.Errorf("state written after a parse error: %v", err)
			}
		})
	}
}

func TestExtractorFailureUsesRules(t *testing.T) {
	e := newFlow(t)
	e.flow.Close = false
	e.flow.Lang = i18n.EN
	e.flow.Extractor = ModelExtractor{Client: fails(errors.New("run claude: exit status 1: not logged in"))}
	o, err := e.flow.Run(context.Background())
	if err != nil || o.Extractor != "rules" || len(o.Posted) != 2 || !strings.Contains(strings.Join(o.Warnings, "\n"), "extractor claude failed, so the rules extractor was used: run claude: exit status 1: not logged in") {
		t.Errorf("extractor %s posted %v warnings %q err %v", o.Extractor, o.Posted, o.Warnings, err)
	}
}

// TestModelExtractorWithTheRealCLI runs the real agent CLI in print mode
// against the scripted model server.
func TestModelExtractorWithTheRealCLI(t *testing.T) {
	s := modelserver.New(t, modelserver.Text(modelAnswer), modelserver.Text("Sorry, no JSON today."))
	env := claudetest.New(t, s)
	a := ModelExtractor{Client: llm.ClaudeCLI{Command: env.Bin, Env: env.Environ()}}
	cands, usage, err := a.Extract(context.Background(), excerpt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || cands[0].Slug != "keep-state-per-session" || usage.Total() == 0 {
		t.Errorf("candidates %+v usage %+v", cands, usage)
	}
	if p := s.Requests()[0].Text(); !strings.Contains(p, "We keep one state file per session.") || !strings.Contains(p, "Answer with a JSON array only") || strings.Contains(p, secret) {
		t.Errorf("the redacted prompt did not reach the model: %q", p)
	}
	if _, _, err := a.Extract(context.Background(), excerpt); !errors.Is(err, ErrExtractorParse) {
		t.Errorf("prose answer: got %v; want ErrExtractorParse", err)
	}
}
