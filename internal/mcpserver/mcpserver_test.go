package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/quote/quotetest"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// connect runs the server for p in memory and returns a client session.
func connect(t *testing.T, p *recall.Puller) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(p, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func seeded(t testing.TB) *recall.Puller {
	t.Helper()
	d := state.Dir{Root: t.TempDir()}
	j := journal.Open(d.Root, journal.Options{})
	now := time.Date(2026, 5, 13, 1, 0, 0, 0, time.UTC)
	for i := range 80 {
		if err := j.Append(journal.Record{TS: now.Add(time.Duration(i) * time.Second), Event: "PostToolUse", Session: "s1", Tool: "Bash", Desc: "step " + strings.Repeat("x", i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := recall.FilesFor(d, "")
	if _, err := recall.AppendDecisions(f, recall.Decision{Date: "2026-05-12", Summary: "Ship on Friday", Source: "issue", Issue: 9}); err != nil {
		t.Fatal(err)
	}
	return &recall.Puller{State: d, MaxDepth: 50, Lang: i18n.EN}
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// quoted is the text of a tool's result, which is one quoted block.
func quoted(t *testing.T, s string) string {
	t.Helper()
	b := quotetest.Blocks(s)
	if len(b) != 1 || !strings.HasPrefix(s, quote.Open) || !strings.HasSuffix(s, b[0].Token+quote.End) {
		t.Fatalf("result is not one quoted block:\n%s", s)
	}
	return b[0].Text
}

func TestTools(t *testing.T) {
	cs := connect(t, seeded(t))
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"decisions", "issue_body", "search", "session_log", "thread_history"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v; want %v", names, want)
	}
	// Typed parameters with descriptions; the required ones marked.
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct{ Type, Description string }
			Required   []string
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		switch tool.Name {
		case "session_log":
			if d := schema.Properties["depth"]; d.Type != "integer" || !strings.Contains(d.Description, "1 to 50") {
				t.Errorf("session_log schema %s lacks a typed, described depth", raw)
			}
		case "issue_body":
			if !slices.Equal(schema.Required, []string{"number"}) {
				t.Errorf("issue_body schema %s; want number required", raw)
			}
		}
	}

	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		wantError bool
		want      []string
		wantLines int
	}{
		{name: "session log capped at 50", tool: "session_log", args: map[string]any{"depth": 1000000000}, wantLines: 50, want: []string{`"event":"PostToolUse"`}},
		{name: "session log default", tool: "session_log", args: map[string]any{}, wantLines: 20},
		{name: "decisions", tool: "decisions", args: map[string]any{"query": "friday"}, want: []string{"- [2026-05-12] Ship on Friday (source: issue #9)"}},
		{name: "search", tool: "search", args: map[string]any{"query": "ship"}, want: []string{"[L3]"}},
		{name: "issue without a tracker is a tool error", tool: "issue_body", args: map[string]any{"number": 3}, wantError: true, want: []string{"no issue tracker is configured"}},
		{name: "thread without Slack is a tool error", tool: "thread_history", args: map[string]any{"thread_ts": "1.2"}, wantError: true, want: []string{"SLACK_BOT_TOKEN"}},
		{name: "missing required argument", tool: "search", args: map[string]any{}, wantError: true},
		{name: "wrongly typed argument", tool: "session_log", args: map[string]any{"depth": "lots"}, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if tt.wantError {
				if err == nil && !res.IsError {
					t.Fatalf("call succeeded: %s", text(t, res))
				}
				if err == nil {
					for _, w := range tt.want {
						if !strings.Contains(text(t, res), w) {
							t.Errorf("error %q lacks %q", text(t, res), w)
						}
					}
				}
				return
			}
			if err != nil || res.IsError {
				t.Fatalf("call failed: %v %v", err, res)
			}
			got := quoted(t, text(t, res))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %q:\n%s", w, got)
				}
			}
			if tt.wantLines > 0 {
				if n := len(strings.Split(strings.TrimSpace(got), "\n")); n != tt.wantLines {
					t.Errorf("%d lines; want %d", n, tt.wantLines)
				}
			}
		})
	}
}

// A tool that panics answers a tool error and the server goes on.
func TestPanicIsAToolError(t *testing.T) {
	p := seeded(t)
	p.Slack = func() (recall.SlackReader, error) { panic("boom") }
	cs := connect(t, p)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "thread_history", Arguments: map[string]any{"thread_ts": "1778246185.616809", "channel": "C1"}})
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "thread_history failed: boom") {
		t.Fatalf("panic: %v, %+v; want a tool error", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_log", Arguments: map[string]any{"depth": 1}})
	if err != nil || res.IsError {
		t.Fatalf("server did not go on after a panic: %v %+v", err, res)
	}
}

// TestServeStdio speaks newline-delimited JSON-RPC over the streams, as a
// client on stdio does.
func TestServeStdio(t *testing.T) {
	p := seeded(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, p, "test", inR, outW) }()
	out := bufio.NewReader(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if init := read(); init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"] != "baton" {
		t.Fatalf("initialize: %v", init)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_log","arguments":{"depth":2}}}`)
	res := read()
	content := res["result"].(map[string]any)["content"].([]any)
	if txt := quoted(t, content[0].(map[string]any)["text"].(string)); len(strings.Split(strings.TrimSpace(txt), "\n")) != 2 {
		t.Errorf("session_log over stdio: %q; want 2 records", txt)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v; want nil when the client closes", err)
		}
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Serve did not return when stdin closed")
	}
	cancel()
}

// TestServeClosedInput: input piped in whole and closed is answered in
// full, request by request, before Serve returns.
func TestServeClosedInput(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"session_log","arguments":{"depth":1}}}`,
	}, "\n") + "\n"
	var out syncBuffer
	if err := Serve(context.Background(), seeded(t), "test", strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil {
			t.Fatalf("answer %q: %v; want a result", line, err)
		}
		ids[fmt.Sprint(m.ID)] = true
	}
	for _, id := range []string{"1", "two", "3"} {
		if !ids[id] {
			t.Errorf("no answer to request %s in %q", id, out.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server's writer goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
