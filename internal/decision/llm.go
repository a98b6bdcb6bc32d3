package decision

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"

	"github.com/baton-cli/baton/internal/redact"
)

// AgentCLI extracts with the agent CLI in print mode: Command -p
// --output-format json, the prompt on standard input, run in Dir (a folder
// of its own, so the run's transcript and hooks stay out of the project).
type AgentCLI struct {
	Command string
	Args    []string
	Dir     string
	// Env is the CLI's environment; nil: the process's.
	Env []string
}

// Name implements Extractor.
func (AgentCLI) Name() string { return "claude" }

// Extract implements Extractor.
func (a AgentCLI) Extract(ctx context.Context, ex Excerpt) ([]Candidate, Usage, error) {
	args := append([]string{"-p", "--output-format", "json"}, a.Args...)
	cmd := exec.CommandContext(ctx, a.Command, args...)
	cmd.Dir = a.Dir
	cmd.Env = a.Env
	cmd.Stdin = bytes.NewBufferString(Prompt + redact.Redact(ex.Conversation))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return nil, Usage{}, fmt.Errorf("run %s: %w: %s", a.Command, err, clip(errOut.String()+out.String(), 200))
	}
	var res struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
		Usage   struct {
			InputTokens              int64 `json:"input_tokens"`
			OutputTokens             int64 `json:"output_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, Usage{}, fmt.Errorf("%w: %s output: %v", ErrExtractorParse, a.Command, err)
	}
	u := Usage{
		InputTokens:  res.Usage.InputTokens + res.Usage.CacheCreationInputTokens + res.Usage.CacheReadInputTokens,
		OutputTokens: res.Usage.OutputTokens,
	}
	if res.IsError {
		return nil, u, fmt.Errorf("%s: %s", a.Command, clip(res.Result, 200))
	}
	cands, err := ParseModelAnswer(res.Result)
	return cands, u, err
}

// Anthropic extracts through the Anthropic Messages API (BaseURL from
// ANTHROPIC_BASE_URL when set).
type Anthropic struct {
	BaseURL, APIKey, Model string
	MaxTokens              int64
}

// Name implements Extractor.
func (Anthropic) Name() string { return "anthropic" }

// Extract implements Extractor.
func (a Anthropic) Extract(ctx context.Context, ex Excerpt) ([]Candidate, Usage, error) {
	opts := []anthropicoption.RequestOption{anthropicoption.WithAPIKey(a.APIKey), anthropicoption.WithMaxRetries(2)}
	if a.BaseURL != "" {
		opts = append(opts, anthropicoption.WithBaseURL(a.BaseURL))
	}
	client := anthropic.NewClient(opts...)
	msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(a.Model),
		MaxTokens: max(a.MaxTokens, 1024),
		Messages: []anthropic.MessageParam{
			anthropic.NewUserMessage(anthropic.NewTextBlock(Prompt + redact.Redact(ex.Conversation))),
		},
	})
	if err != nil {
		return nil, Usage{}, fmt.Errorf("anthropic: %w", err)
	}
	u := Usage{InputTokens: msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens, OutputTokens: msg.Usage.OutputTokens}
	var text bytes.Buffer
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	cands, err := ParseModelAnswer(text.String())
	return cands, u, err
}

// OpenAI extracts through an OpenAI-compatible chat completions endpoint
// (BaseURL from OPENAI_BASE_URL when set), such as a local model server.
type OpenAI struct {
	BaseURL, APIKey, Model string
}

// Name implements Extractor.
func (OpenAI) Name() string { return "openai" }

// Extract implements Extractor.
func (o OpenAI) Extract(ctx context.Context, ex Excerpt) ([]Candidate, Usage, error) {
	opts := []openaioption.RequestOption{openaioption.WithAPIKey(o.APIKey), openaioption.WithMaxRetries(2)}
	if o.BaseURL != "" {
		opts = append(opts, openaioption.WithBaseURL(o.BaseURL))
	}
	client := openai.NewClient(opts...)
	res, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModel(o.Model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(Prompt + redact.Redact(ex.Conversation))},
	})
	if err != nil {
		return nil, Usage{}, fmt.Errorf("openai: %w", err)
	}
	u := Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens}
	if len(res.Choices) == 0 {
		return nil, u, fmt.Errorf("%w: no choices in the answer", ErrExtractorParse)
	}
	cands, err := ParseModelAnswer(res.Choices[0].Message.Content)
	return cands, u, err
}
