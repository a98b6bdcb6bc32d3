package modelserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// A Request is one HTTP request the server received, with the Messages API
// body decoded. Requests are recorded as received and never changed after.
type Request struct {
	// Method and Path are the request's method and URL path; RawQuery is
	// the query without '?' (the client may add "beta=true").
	Method   string
	Path     string
	RawQuery string
	// Header is a copy of the request headers.
	Header http.Header
	// Body is the raw request body.
	Body []byte

	// Model, Stream and MaxTokens are the body's fields of those names.
	Model     string
	Stream    bool
	MaxTokens int
	// System is the text of every system block, joined with newlines.
	System string
	// Messages are the conversation sent, oldest first.
	Messages []Message
	// Tools are the names of the tools offered, in order.
	Tools []string

	// Kind tells the main conversation loop from side requests; only
	// KindMain requests take scripted turns.
	Kind Kind
}

// Kind classifies a request.
type Kind string

const (
	// KindMain is a request of the agent's own loop: a Messages request
	// that offers tools. It takes the next scripted turn.
	KindMain Kind = "main"
	// KindCompact is the request for a conversation summary that
	// compaction (/compact or automatic) sends. It offers the same tools as
	// the main loop but is answered by the side handler.
	KindCompact Kind = "compact"
	// KindUtility is a Messages request offering no tools, such as a
	// request for a title or a summary of fetched text.
	KindUtility Kind = "utility"
	// KindCountTokens is a request to /v1/messages/count_tokens.
	KindCountTokens Kind = "count_tokens"
	// KindInvalid is a request the server refused: wrong method, unknown
	// path or undecodable body.
	KindInvalid Kind = "invalid"
)

// compactMarker is in the prompt of every compaction request.
const compactMarker = "create a detailed summary of the conversation so far"

// classify returns the kind of a decoded Messages request.
func classify(r *Request) Kind {
	switch {
	case len(r.Tools) == 0:
		return KindUtility
	case strings.Contains(r.Prompt(), compactMarker):
		return KindCompact
	default:
		return KindMain
	}
}

// A Message is one message of a request's conversation.
type Message struct {
	// Role is "user", "assistant" or "system".
	Role    string
	Content []Content
}

// Content is one content block of a message.
type Content struct {
	// Type is the block type: "text", "tool_use", "tool_result", "image", …
	Type string
	// Text is a text block's text, or a tool_result's content flattened to
	// its text.
	Text string
	// ID, Name and Input describe a tool_use block.
	ID    string
	Name  string
	Input json.RawMessage
	// ToolUseID and IsError describe a tool_result block.
	ToolUseID string
	IsError   bool
}

// Text returns everything the model was sent as text: the system text, then
// every message's text blocks and tool results, in order, one per line. Use
// it to assert that something reached the model, e.g. text a hook injected.
func (r *Request) Text() string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if c.Type == "text" || c.Type == "tool_result" {
				b.WriteByte('\n')
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// LastToolResult returns the content of the last tool_result block sent,
// flattened to text, or "" when there is none.
func (r *Request) LastToolResult() string {
	c, ok := r.lastContent("tool_result")
	if !ok {
		return ""
	}
	return c.Text
}

// ToolResult returns the tool_result block answering the tool_use with the
// given id, and whether there is one.
func (r *Request) ToolResult(toolUseID string) (Content, bool) {
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" && c.ToolUseID == toolUseID {
				return c, true
			}
		}
	}
	return Content{}, false
}

// Prompt returns the text of the last user message that is not only tool
// results: the prompt being answered, including any text the client added
// to it (reminders, hook context).
func (r *Request) Prompt() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var texts []string
		for _, c := range m.Content {
			if c.Type == "text" {
				texts = append(texts, c.Text)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
}

func (r *Request) lastContent(typ string) (Content, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		cs := r.Messages[i].Content
		for j := len(cs) - 1; j >= 0; j-- {
			if cs[j].Type == typ {
				return cs[j], true
			}
		}
	}
	return Content{}, false
}

// wireRequest is the part of a Messages API request body the server reads.
type wireRequest struct {
	Model     string          `json:"model"`
	Stream    bool            `json:"stream"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// wireBlock is a content block as sent on the wire.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// decodeBody fills r's Messages API fields from body.
func (r *Request) decodeBody(body []byte) error {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return fmt.Errorf("decode request body: %w", err)
	}
	r.Model, r.Stream, r.MaxTokens = w.Model, w.Stream, w.MaxTokens
	system, err := decodeBlocks(w.System)
	if err != nil {
		return fmt.Errorf("decode system: %w", err)
	}
	r.System = joinText(system)
	for i, m := range w.Messages {
		blocks, err := decodeBlocks(m.Content)
		if err != nil {
			return fmt.Errorf("decode message %d: %w", i, err)
		}
		msg := Message{Role: m.Role, Content: make([]Content, 0, len(blocks))}
		for _, b := range blocks {
			c := Content{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, IsError: b.IsError}
			if b.Type == "tool_result" {
				inner, err := decodeBlocks(b.Content)
				if err != nil {
					return fmt.Errorf("decode message %d tool result: %w", i, err)
				}
				c.Text = joinText(inner)
			}
			msg.Content = append(msg.Content, c)
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, t.Name)
	}
	return nil
}

// decodeBlocks decodes content that is either a string (one text block), an
// array of blocks, or absent.
func decodeBlocks(raw json.RawMessage) ([]wireBlock, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if s[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
		return []wireBlock{{Type: "text", Text: text}}, nil
	}
	var blocks []wireBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, nil
}

func joinText(blocks []wireBlock) string {
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}
