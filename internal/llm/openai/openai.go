// Package openai asks a model through an OpenAI-compatible chat completions
// API, such as a local model server. It is the one package that links the
// OpenAI SDK; callers hold it as an llm.Client.
package openai

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/baton-cli/baton/internal/llm"
)

// Client asks Model through the chat completions API. The key and the
// address are the caller's; the SDK still reads OPENAI_ORG_ID and
// OPENAI_PROJECT_ID from the environment, and OPENAI_BASE_URL when BaseURL is
// empty.
type Client struct {
	Model string
	// MaxTokens bounds the answer; zero or less leaves it to the server.
	MaxTokens int
	// APIKey is the bearer token. BaseURL is the API's address, up to and
	// including /v1; empty: the public API.
	APIKey, BaseURL string
}

var _ llm.Client = Client{}

// Name implements llm.Client.
func (Client) Name() string { return "openai" }

// Complete implements llm.Client. Rate limits and server errors are
// retried twice, honouring retry-after; a response with no choice is
// llm.ErrOutput.
func (c Client) Complete(ctx context.Context, prompt string) (llm.Reply, error) {
	opts := []option.RequestOption{option.WithAPIKey(c.APIKey), option.WithMaxRetries(2)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	params := sdk.ChatCompletionNewParams{
		Model:    c.Model,
		Messages: []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage(prompt)},
	}
	if c.MaxTokens > 0 {
		params.MaxTokens = sdk.Int(int64(c.MaxTokens))
	}
	client := sdk.NewClient(opts...)
	res, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		// The SDK's error text is the status only; the API's message says
		// why (a model the server does not have, a spent quota).
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			err = fmt.Errorf("%w: %s", err, apiErr.Message)
		}
		return llm.Reply{}, llm.Wrap("openai", err)
	}
	r := llm.Reply{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens}
	if len(res.Choices) == 0 {
		return r, fmt.Errorf("openai: %w: no choices", llm.ErrOutput)
	}
	r.Text = res.Choices[0].Message.Content
	return r, nil
}
