// Package llm sends one prompt to a language model and returns the answer's
// text and the tokens it cost. It owns the Client interface and ClaudeCLI,
// the agent CLI in print mode, which needs nothing but os/exec; the API
// clients live in llm/anthropic and llm/openai, so that a program linking
// only this package (the hook) links no SDK.
//
// What a prompt says and how an answer is read belongs to the callers
// (decision extraction, context summaries), not to this package.
package llm

import (
	"context"
	"errors"
	"strings"

	"github.com/baton-cli/baton/internal/redact"
)

// A Client sends a prompt to a model as one user message.
type Client interface {
	// Name is the client's kind as config names it: "claude",
	// "anthropic" or "openai".
	Name() string
	// Complete returns the model's answer to prompt. When the model
	// answered but the answer is unusable, the error comes with a Reply
	// holding what the request cost.
	Complete(ctx context.Context, prompt string) (Reply, error)
}

// Reply is a model's answer.
type Reply struct {
	Text string
	// InputTokens counts every input token, cache writes and reads
	// included.
	InputTokens, OutputTokens int64
}

// Tokens is input plus output tokens.
func (r Reply) Tokens() int64 { return r.InputTokens + r.OutputTokens }

// ErrOutput marks an answer a client could not read: output of the agent
// CLI that is not its JSON result, or an API response with no answer in it.
var ErrOutput = errors.New("model output not understood")

// maxQuote is the most characters of outside text an error quotes.
const maxQuote = 300

// Quote is s as an error may show it: redacted, on one line and cut to
// a few hundred characters.
func Quote(s string) string {
	s = strings.Join(strings.Fields(redact.Redact(s)), " ")
	if r := []rune(s); len(r) > maxQuote {
		return string(r[:maxQuote]) + "…"
	}
	return s
}

// Wrap returns err as "op: " and its quoted text, so that an API's error
// (which may echo a request or a key) is redacted and short wherever it is
// shown; errors.Is and errors.As still see err.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return &quotedError{msg: op + ": " + Quote(err.Error()), err: err}
}

type quotedError struct {
	msg string
	err error
}

func (e *quotedError) Error() string { return e.msg }
func (e *quotedError) Unwrap() error { return e.err }
