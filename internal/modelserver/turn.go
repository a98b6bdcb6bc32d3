package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// A Turn is one scripted answer of the model: the content blocks of one
// assistant message, a fault to answer instead, or a function that decides
// from the request. The zero Turn answers an empty end_turn message.
type Turn struct {
	blocks []Block
	fault  *Fault
	decide func(r *Request) Turn
	usage  *Usage
}

// A Block is one content block of a scripted assistant message.
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is the text of a text block.
	Text string
	// ID is the id of a tool_use block; empty means the server generates
	// one ("toolu_01…", unique within the server).
	ID string
	// Name is the tool a tool_use block calls, for example "Bash".
	Name string
	// Input is the tool_use input, marshalled to a JSON object.
	Input any
}

// Usage is the token usage a turn reports. Fields left zero are reported as
// zero; a turn without WithUsage reports estimates from the request and
// answer sizes.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// A Fault is an HTTP error the server answers instead of a message, with
// the Messages API's error body:
// {"type":"error","error":{"type":Type,"message":Message},"request_id":…}.
type Fault struct {
	// Status is the HTTP status code, for example 529, 429 or 500.
	Status int
	// Type is the error type, for example "overloaded_error".
	Type string
	// Message is the human-readable error message.
	Message string
	// RetryAfter, when positive, is sent in the retry-after header, in
	// whole seconds rounded up.
	RetryAfter time.Duration
}

// TextBlock returns a text content block.
func TextBlock(s string) Block {
	return Block{Type: "text", Text: s}
}

// ToolUseBlock returns a tool_use content block calling the tool name with
// input, which must marshal to a JSON object. Its id is generated.
func ToolUseBlock(name string, input any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// Text returns a turn answering s as one text block, with stop_reason
// end_turn.
func Text(s string) Turn {
	return Blocks(TextBlock(s))
}

// ToolUse returns a turn calling the tool name with input, with stop_reason
// tool_use. The client runs the tool and sends the result in its next
// request, which takes the next turn of the script.
func ToolUse(name string, input any) Turn {
	return Blocks(ToolUseBlock(name, input))
}

// Blocks returns a turn answering the given blocks in order. Its
// stop_reason is tool_use when any block is a tool_use block, else end_turn.
func Blocks(blocks ...Block) Turn {
	return Turn{blocks: blocks}
}

// Func returns a turn decided when its request arrives: f gets the request
// and returns the turn to answer (which may not itself be a Func turn).
func Func(f func(r *Request) Turn) Turn {
	return Turn{decide: f}
}

// Fail returns a turn answering the fault f instead of a message. A client
// that retries takes the next turn of the script with its retry.
func Fail(f Fault) Turn {
	return Turn{fault: &f}
}

// Overloaded returns a turn answering 529 overloaded_error, as the API does
// when it is temporarily overloaded.
func Overloaded() Turn {
	return Fail(Fault{Status: 529, Type: "overloaded_error", Message: "Overloaded"})
}

// RateLimited returns a turn answering 429 rate_limit_error with a
// retry-after header of retryAfter (rounded up to whole seconds; none when
// retryAfter is not positive).
func RateLimited(retryAfter time.Duration) Turn {
	return Fail(Fault{
		Status:     http.StatusTooManyRequests,
		Type:       "rate_limit_error",
		Message:    "Number of request tokens has exceeded your per-minute rate limit",
		RetryAfter: retryAfter,
	})
}

// ServerError returns a turn answering 500 api_error.
func ServerError() Turn {
	return Fail(Fault{Status: http.StatusInternalServerError, Type: "api_error", Message: "Internal server error"})
}

// WithUsage returns a copy of t that reports u as its token usage.
func (t Turn) WithUsage(u Usage) Turn {
	t.usage = &u
	return t
}

// stopReason is the stop_reason a message answering t ends with.
func (t Turn) stopReason() string {
	for _, b := range t.blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// validate reports a turn the server cannot answer, so a mistake in a test
// script shows as a test failure rather than a confused client.
func (t Turn) validate() error {
	if t.decide != nil {
		return fmt.Errorf("a Func turn returned another Func turn")
	}
	if t.fault != nil {
		if t.fault.Status < 400 || t.fault.Status > 599 {
			return fmt.Errorf("fault status %d is not an HTTP error", t.fault.Status)
		}
		return nil
	}
	for i, b := range t.blocks {
		switch b.Type {
		case "text":
		case "tool_use":
			if b.Name == "" {
				return fmt.Errorf("block %d: tool_use without a name", i)
			}
			raw, err := json.Marshal(b.Input)
			if err != nil {
				return fmt.Errorf("block %d: marshal tool input: %w", i, err)
			}
			if len(raw) == 0 || raw[0] != '{' {
				return fmt.Errorf("block %d: tool input %s is not a JSON object", i, raw)
			}
		default:
			return fmt.Errorf("block %d: unknown block type %q", i, b.Type)
		}
	}
	return nil
}
