package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"

	"github.com/baton-cli/baton/internal/redact"
)

// JobEnv is set in the environment of the agent CLI a summary runs, so that
// the hooks of that run start no context job of their own: a summary must
// never cause another summary.
const JobEnv = "BATON_CONTEXT_JOB"

// ClaudeCLI summarizes through the agent CLI in print mode: the user's own
// login, no API key needed. It runs in an empty temporary folder with no
// tools, and its session is not saved.
type ClaudeCLI struct {
	// Command is the CLI program (default "claude").
	Command string
	Model   string
	// Env is the CLI's environment; JobEnv is added.
	Env []string
}

var _ Summarizer = ClaudeCLI{}

// Name implements Summarizer.
func (ClaudeCLI) Name() string { return "claude" }

// cliResult is the part of `claude -p --output-format json` read here.
type cliResult struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Usage   struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Summarize implements Summarizer.
func (c ClaudeCLI) Summarize(ctx context.Context, in Input) (Output, error) {
	command := c.Command
	if command == "" {
		command = "claude"
	}
	dir, err := os.MkdirTemp("", "baton-summary-")
	if err != nil {
		return Output{}, fmt.Errorf("claude summary: %w", err)
	}
	defer os.RemoveAll(dir)

	args := []string{"-p", "--output-format", "json", "--tools", "", "--no-session-persistence"}
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, c.Env...), JobEnv+"=1")
	cmd.Stdin = strings.NewReader(prompt(in))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return Output{}, fmt.Errorf("claude summary: %w: %s", err, cut(redact.Redact(strings.TrimSpace(stderr.String()+" "+stdout.String())), 300))
	}
	var res cliResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return Output{}, fmt.Errorf("claude summary: read result: %w", err)
	}
	tokens := res.Usage.InputTokens + res.Usage.OutputTokens + res.Usage.CacheCreationInputTokens + res.Usage.CacheReadInputTokens
	if res.IsError || res.Subtype != "success" {
		return Output{Tokens: tokens}, fmt.Errorf("claude summary: %s: %s", res.Subtype, cut(redact.Redact(res.Result), 300))
	}
	secs, err := parseAnswer(in.Layer, res.Result)
	if err != nil {
		return Output{Tokens: tokens}, fmt.Errorf("claude summary: %w", err)
	}
	return Output{Sections: secs, Tokens: tokens}, nil
}

// Anthropic summarizes through the Anthropic Messages API.
type Anthropic struct {
	Model     string
	MaxTokens int
	// APIKey and BaseURL come from ANTHROPIC_API_KEY and
	// ANTHROPIC_BASE_URL; an empty BaseURL is the public API.
	APIKey, BaseURL string
}

var _ Summarizer = Anthropic{}

// Name implements Summarizer.
func (Anthropic) Name() string { return "anthropic" }

// Summarize implements Summarizer.
func (a Anthropic) Summarize(ctx context.Context, in Input) (Output, error) {
	if a.APIKey == "" {
		return Output{}, errors.New("anthropic summary: ANTHROPIC_API_KEY is not set")
	}
	opts := []anthropicopt.RequestOption{anthropicopt.WithoutEnvironmentDefaults(), anthropicopt.WithAPIKey(a.APIKey), anthropicopt.WithMaxRetries(2)}
	if a.BaseURL != "" {
		opts = append(opts, anthropicopt.WithBaseURL(a.BaseURL))
	}
	client := anthropic.NewClient(opts...)
	msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{
		Model:     anthropic.Model(a.Model),
		MaxTokens: int64(max(a.MaxTokens, 1)),
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt(in)))},
	})
	if err != nil {
		return Output{}, fmt.Errorf("anthropic summary: %s", cut(redact.Redact(err.Error()), 300))
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	tokens := int(msg.Usage.InputTokens + msg.Usage.OutputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens)
	secs, err := parseAnswer(in.Layer, text.String())
	if err != nil {
		return Output{Tokens: tokens}, fmt.Errorf("anthropic summary: %w", err)
	}
	return Output{Sections: secs, Tokens: tokens}, nil
}

// OpenAI summarizes through an OpenAI-compatible chat completions API, such
// as a local model server.
type OpenAI struct {
	Model     string
	MaxTokens int
	// APIKey and BaseURL come from OPENAI_API_KEY and OPENAI_BASE_URL.
	APIKey, BaseURL string
}

var _ Summarizer = OpenAI{}

// Name implements Summarizer.
func (OpenAI) Name() string { return "openai" }

// Summarize implements Summarizer.
func (o OpenAI) Summarize(ctx context.Context, in Input) (Output, error) {
	opts := []openaiopt.RequestOption{openaiopt.WithAPIKey(o.APIKey), openaiopt.WithMaxRetries(2)}
	if o.BaseURL != "" {
		opts = append(opts, openaiopt.WithBaseURL(o.BaseURL))
	}
	client := openai.NewClient(opts...)
	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:     o.Model,
		MaxTokens: openai.Int(int64(max(o.MaxTokens, 1))),
		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt(in))},
	})
	if err != nil {
		return Output{}, fmt.Errorf("openai summary: %s", cut(redact.Redact(err.Error()), 300))
	}
	tokens := int(resp.Usage.TotalTokens)
	if len(resp.Choices) == 0 {
		return Output{Tokens: tokens}, fmt.Errorf("openai summary: %w: no choices", ErrSummary)
	}
	secs, err := parseAnswer(in.Layer, resp.Choices[0].Message.Content)
	if err != nil {
		return Output{Tokens: tokens}, fmt.Errorf("openai summary: %w", err)
	}
	return Output{Sections: secs, Tokens: tokens}, nil
}
