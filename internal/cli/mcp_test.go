package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// mcpClient talks to `baton mcp` run by Main over pipes, as an agent does
// over stdio.
type mcpClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan int
	id   int
}

func startMCP(t *testing.T, f *Factory) *mcpClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f.IO.In, f.IO.Out = inR, outW
	c := &mcpClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan int, 1)}
	go func() {
		c.done <- Main(context.Background(), []string{"mcp"}, f)
		outW.Close()
	}()
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *mcpClient) send(msg any) {
	b, _ := json.Marshal(msg)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

func (c *mcpClient) call(method string, params any) map[string]any {
	c.id++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read %s answer: %v", method, err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("not JSON: %s", line)
		}
		if id, ok := m["id"].(float64); ok && int(id) == c.id {
			return m
		}
	}
}

// tool calls a tool and returns its text and whether it is a tool error.
func (c *mcpClient) tool(name string, args map[string]any) (string, bool) {
	res := c.call("tools/call", map[string]any{"name": name, "arguments": args})["result"].(map[string]any)
	var b strings.Builder
	for _, item := range res["content"].([]any) {
		b.WriteString(item.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

func (c *mcpClient) close() {
	c.in.Close()
	select {
	case code := <-c.done:
		if code != 0 {
			c.t.Errorf("baton mcp exited %d", code)
		}
	case <-time.After(10 * time.Second):
		c.t.Error("baton mcp did not exit when its stdin closed")
	}
}

// TestMCPCommand runs `baton mcp` in a repository: the tools answer from
// its state folder, and search uses index.db once it exists.
func TestMCPCommand(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	files, _ := recall.FilesFor(state.At(dir), "")
	if err := os.MkdirAll(files.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := recall.AppendDecisions(files, recall.Decision{Date: "2026-05-12", Summary: "Release on Fridays", Source: "issue", Issue: 12}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LANG": "en_US.UTF-8"}
	factory := func() *Factory {
		var errOut bytes.Buffer
		return &Factory{
			IO:      &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut},
			Getenv:  func(k string) string { return env[k] },
			Environ: os.Environ, Now: time.Now, Executable: os.Executable,
			Getwd: func() (string, error) { return dir, nil },
		}
	}

	c := startMCP(t, factory())
	text, isErr := c.tool("decisions", map[string]any{"query": "fridays"})
	if text = quoted(t, text); isErr || text != "- [2026-05-12] Release on Fridays (source: issue #12)" {
		t.Errorf("decisions = %q (error %v)", text, isErr)
	}
	text, _ = c.tool("search", map[string]any{"query": "Fridays"})
	if text = quoted(t, text); !strings.HasPrefix(text, "[L3] - [2026-05-12] Release on Fridays") {
		t.Errorf("search without an index = %q; want the file search's hit", text)
	}
	text, isErr = c.tool("issue_body", map[string]any{"number": 99})
	if !isErr || !strings.Contains(text, "issue_body") {
		t.Errorf("issue_body of a missing issue = %q (error %v); want a tool error", text, isErr)
	}
	c.close()

	if code := Main(context.Background(), []string{"reindex"}, factory()); code != 0 {
		t.Fatalf("baton reindex exited %d", code)
	}
	c = startMCP(t, factory())
	text, _ = c.tool("search", map[string]any{"query": "Fridays"})
	if text = quoted(t, text); !strings.HasPrefix(text, "[decision 2026-05-12") || !strings.Contains(text, "] Release on Fridays") || strings.ContainsAny(text, "«»/") {
		t.Errorf("search with an index = %q; want the index's hit, plain, without paths", text)
	}
	c.close()
}

// quoted returns what a tool's answer holds between its quote lines, failing
// the test when the answer is not one block fenced as quoted data: text
// from the journal and the index reaches the model as data only.
func quoted(t *testing.T, text string) string {
	t.Helper()
	first, rest, _ := strings.Cut(text, "\n")
	tok, ok := strings.CutPrefix(first, quote.Open)
	tok, _, ok2 := strings.Cut(tok, quote.End)
	body, ok3 := strings.CutSuffix(rest, "\n"+quote.Close+tok+quote.End)
	if !ok || !ok2 || !ok3 || len(tok) != quote.TokenLen {
		t.Errorf("tool answer %q; want one block fenced as quoted data", text)
		return text
	}
	return body
}
