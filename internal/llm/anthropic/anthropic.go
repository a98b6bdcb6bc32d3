// Package anthropic asks a model through the Anthropic Messages API. It is
// the one package that links the Anthropic SDK; callers hold it as an
// llm.Client.
package anthropic

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/baton-cli/baton/internal/llm"
)

// DefaultMaxTokens bounds an answer when Client.MaxTokens is not set.
const DefaultMaxTokens = 1024

// Client asks Model through the Messages API. Nothing is read from the
// environment: the caller passes the key and the address.
type Client struct {
	Model string
	// MaxTokens bounds the answer; zero or less is DefaultMaxTokens.
	MaxTokens int
	// APIKey is required. BaseURL is the API's address; empty: the
	// public API.
	APIKey, BaseURL string
}

var _ llm.Client = Client{}

// Name implements llm.Client.
func (Client) Name() string { return "anthropic" }

// Complete implements llm.Client. Rate limits and server errors are
// retried twice, honouring retry-after.
func (c Client) Complete(ctx context.Context, prompt string) (llm.Reply, error) {
	if c.APIKey == "" {
		return llm.Reply{}, errors.New("anthropic: no API key (set ANTHROPIC_API_KEY)")
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(c.APIKey), option.WithMaxRetries(2)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(c.BaseURL))
	}
	maxTokens := c.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	client := sdk.NewClient(opts...)
	msg, err := client.Messages.New(ctx, sdk.MessageNewParams{
		Model:     sdk.Model(c.Model),
		MaxTokens: int64(maxTokens),
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(prompt))},
	})
	if err != nil {
		return llm.Reply{}, llm.Wrap("anthropic", err)
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	return llm.Reply{
		Text:         text.String(),
		InputTokens:  msg.Usage.InputTokens + msg.Usage.CacheCreationInputTokens + msg.Usage.CacheReadInputTokens,
		OutputTokens: msg.Usage.OutputTokens,
	}, nil
}
