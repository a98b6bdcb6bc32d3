// Package mcpserver is `baton mcp`: a Model Context Protocol server over
// stdio whose tools let an agent pull context when it needs it — its own
// session log, an issue with its comments, a Slack thread, the approved
// decisions, a search over all of them. It only reads; what each tool
// returns comes from package recall, redacted.
//
// Every failure, a panic included, is answered as a tool error the model
// can read; the server itself keeps running.
package mcpserver

import (
	"context"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/recall"
)

// Name is the server's name; Claude Code shows its tools as
// mcp__baton__<tool>.
const Name = "baton"

// SessionLogInput are session_log's parameters.
type SessionLogInput struct {
	Depth   int    `json:"depth,omitempty" jsonschema:"how many of the newest records to return, 1 to 50 (default 20); larger values are capped"`
	Session string `json:"session,omitempty" jsonschema:"only records of this session id"`
	Event   string `json:"event,omitempty" jsonschema:"only records of this hook event, e.g. PostToolUse, UserPromptSubmit, Stop"`
}

// IssueBodyInput are issue_body's parameters.
type IssueBodyInput struct {
	Number int `json:"number" jsonschema:"the issue number"`
	Depth  int `json:"depth,omitempty" jsonschema:"how many of the newest comments to include, 1 to 50 (default 20)"`
}

// ThreadHistoryInput are thread_history's parameters.
type ThreadHistoryInput struct {
	ThreadTS string `json:"thread_ts" jsonschema:"the thread's timestamp, e.g. 1778246185.616809"`
	Channel  string `json:"channel,omitempty" jsonschema:"the channel id, e.g. C0123ABCD (default: the configured channel)"`
	Depth    int    `json:"depth,omitempty" jsonschema:"how many messages to return, 1 to 50 (default 20): the thread's first message and its newest replies"`
}

// DecisionsInput are decisions' parameters.
type DecisionsInput struct {
	Query    string `json:"query,omitempty" jsonschema:"only decisions holding all these words (any case)"`
	Since    string `json:"since,omitempty" jsonschema:"only decisions of this day (YYYY-MM-DD) or later"`
	Source   string `json:"source,omitempty" jsonschema:"only decisions whose source holds this, e.g. issue #12 or thread"`
	Archived bool   `json:"archived,omitempty" jsonschema:"include decisions archived for their age"`
	Limit    int    `json:"limit,omitempty" jsonschema:"at most this many, the newest (default 50)"`
}

// SearchInput are search's parameters.
type SearchInput struct {
	Query string `json:"query" jsonschema:"words to find in the decisions, the summaries and the session log; a question in plain words works too"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many hits, the best first, 1 to 50 (default 20)"`
}

// New builds the server with its tools over p.
func New(p *recall.Puller, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "baton context", Version: version}, &mcp.ServerOptions{
		Instructions: "Tools to pull context you lost to a restart or a compaction: your recent session log, " +
			"issues, Slack threads and the approved decisions. Use them when a reference is unclear " +
			"(\"that one\", \"as discussed\") or your memory and the person disagree.",
	})
	add(s, p.Lang, "session_log", "The newest records of this repository's agent session log (the journal): prompts, tool calls, answers, session starts and ends, as JSON lines, oldest first.",
		func(ctx context.Context, in SessionLogInput) (string, error) {
			return p.SessionLog(ctx, recall.SessionLogQuery{Depth: in.Depth, Session: in.Session, Event: in.Event})
		})
	add(s, p.Lang, "issue_body", "An issue of the configured tracker with its newest comments.",
		func(ctx context.Context, in IssueBodyInput) (string, error) {
			return p.IssueBody(ctx, in.Number, in.Depth)
		})
	add(s, p.Lang, "thread_history", "A Slack thread: its first message and its newest replies.",
		func(ctx context.Context, in ThreadHistoryInput) (string, error) {
			return p.ThreadHistory(ctx, in.Channel, in.ThreadTS, in.Depth)
		})
	add(s, p.Lang, "decisions", "The approved decisions (the L3 log), one line each: - [date] summary (source: …).",
		func(ctx context.Context, in DecisionsInput) (string, error) {
			return p.Decisions(ctx, recall.DecisionQuery{Query: in.Query, Since: in.Since, Source: in.Source, Archived: in.Archived, Limit: in.Limit})
		})
	add(s, p.Lang, "search", "Find words in the approved decisions (archived ones too), the recent and daily summaries and the session log.",
		func(ctx context.Context, in SearchInput) (string, error) {
			return p.Search(ctx, in.Query, in.Limit)
		})
	return s
}

// add registers a read-only tool whose handler returns text. Every tool
// returns stored text baton did not write (journal records, issue bodies and
// comments, Slack messages, decisions, search snippets): the text goes out as
// one quoted block in lang (package quote), so what it says cannot pass for
// baton's words or the tool's structure. An error or a panic becomes a tool
// error.
func add[In any](s *mcp.Server, lang i18n.Lang, name, description string, fn func(context.Context, In) (string, error)) {
	t := &mcp.Tool{Name: name, Description: description, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}}
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ any, err error) {
		defer func() {
			if r := recover(); r != nil {
				res, err = nil, fmt.Errorf("%s failed: %v", name, r)
			}
		}()
		text, err := fn(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: quote.Block(lang, text)}}}, nil, nil
	})
}

// Serve runs the server over in and out (newline-delimited JSON-RPC, as on
// stdio) until the client closes in or ctx ends. Malformed input is
// answered with JSON-RPC errors and does not end it (see stdioTransport).
func Serve(ctx context.Context, p *recall.Puller, version string, in io.Reader, out io.Writer) error {
	t := &stdioTransport{in: in, out: out, max: MaxMessage}
	if err := New(p, version).Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}
