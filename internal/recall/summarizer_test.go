package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/llm"
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

// fakeModel is an llm.Client answering reply and err, and recording the
// prompts it was sent. Tests use it from one goroutine.
type fakeModel struct {
	reply   llm.Reply
	err     error
	prompts []string
}

func (*fakeModel) Name() string { return "claude" }

func (m *fakeModel) Complete(_ context.Context, prompt string) (llm.Reply, error) {
	m.prompts = append(m.prompts, prompt)
	return m.reply, m.err
}

func TestModelSummarizer(t *testing.T) {
	tests := []struct {
		name        string
		model       fakeModel
		wantSummary bool
		wantErr     string // empty: no error
		wantShape   bool   // errors.Is(err, ErrSummary)
	}{
		{name: "summary", model: fakeModel{reply: llm.Reply{Text: goodAnswer, InputTokens: 1200, OutputTokens: 80}}, wantSummary: true},
		{name: "unusable answer", model: fakeModel{reply: llm.Reply{Text: "Sorry, I can't.", InputTokens: 1200, OutputTokens: 80}}, wantErr: "claude summary: summary not in the asked format", wantShape: true},
		{name: "output not understood", model: fakeModel{reply: llm.Reply{InputTokens: 1200, OutputTokens: 80}, err: fmt.Errorf("read claude result: %w", llm.ErrOutput)}, wantErr: "claude summary: summary not in the asked format: read claude result", wantShape: true},
		{name: "client failure", model: fakeModel{reply: llm.Reply{InputTokens: 1200, OutputTokens: 80}, err: errors.New("claude: error_max_turns")}, wantErr: "claude summary: claude: error_max_turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ModelSummarizer{Client: &tt.model}
			if m.Name() != "claude" {
				t.Errorf("Name() = %q; want the client's", m.Name())
			}
			out, err := m.Summarize(context.Background(), l1Input())
			if out.Tokens != 1280 {
				t.Errorf("tokens %d; want 1280, input and output, failed answers included", out.Tokens)
			}
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)) {
				t.Errorf("error %v; want %q", err, tt.wantErr)
			}
			if errors.Is(err, ErrSummary) != tt.wantShape {
				t.Errorf("errors.Is(%v, ErrSummary) = %v; want %v", err, !tt.wantShape, tt.wantShape)
			}
			if tt.wantSummary {
				checkGood(t, out)
			}
			if len(tt.model.prompts) != 1 {
				t.Fatalf("%d prompts; want 1", len(tt.model.prompts))
			}
			sent := tt.model.prompts[0]
			if !strings.Contains(sent, "Recent Actions:") || !strings.Contains(sent, "tool Edit report.go") || strings.Contains(sent, "ghp_") {
				t.Errorf("prompt lacks the format or the records, or holds a secret:\n%s", sent)
			}
		})
	}
}

// TestModelSummarizerWithTheRealCLI runs a summary through the real agent
// CLI, set up as the context commands set it up, against the scripted model
// server.
func TestModelSummarizerWithTheRealCLI(t *testing.T) {
	srv := modelserver.New(t)
	srv.OnSide(func(r *modelserver.Request) modelserver.Turn { return modelserver.Text(goodAnswer) })
	env := claudetest.New(t, srv)
	c := llm.ClaudeCLI{Command: env.Bin, Model: "sonnet", Args: []string{"--tools", "", "--no-session-persistence"}, Env: append(env.Environ(), JobEnv+"=1")}
	out, err := ModelSummarizer{Client: c}.Summarize(context.Background(), l1Input())
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
