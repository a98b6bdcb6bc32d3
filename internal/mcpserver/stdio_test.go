package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// initialize is a client's first request, for protocol version v.
func initialize(v string) string {
	return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

const (
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listAfter   = `{"jsonrpc":"2.0","id":"after","method":"tools/list"}`
)

// answer is what a test reads of a JSON-RPC response.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Tools []struct{ Name string } `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// serveAll runs Serve over in to its end and returns the lines it wrote.
func serveAll(t *testing.T, in io.Reader) []string {
	t.Helper()
	var out syncBuffer
	if err := Serve(context.Background(), seeded(t), "test", in, &out); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// repeat is n bytes of b, made as they are read.
type repeat struct {
	b byte
	n int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = r.b
	}
	r.n -= n
	return n, nil
}

// Every malformed message is answered with a JSON-RPC error and the next
// request is still served.
func TestServeAnswersMalformedInput(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name     string
		in       io.Reader
		wantCode int64  // 0: no answer at all
		wantID   string // the answer's id, as JSON
	}{
		{name: "not JSON", in: strings.NewReader("hello"), wantCode: -32700, wantID: "null"},
		{name: "truncated JSON", in: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/li`), wantCode: -32700, wantID: "null"},
		{name: "two values on a line", in: strings.NewReader(`{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}`), wantCode: -32700, wantID: "null"},
		{name: "trailing bytes", in: strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}xyz`), wantCode: -32700, wantID: "null"},
		{name: "empty object", in: strings.NewReader(`{}`), wantCode: -32600, wantID: "null"},
		{name: "a number", in: strings.NewReader(`42`), wantCode: -32600, wantID: "null"},
		{name: "a string", in: strings.NewReader(`"x"`), wantCode: -32600, wantID: "null"},
		{name: "null", in: strings.NewReader(`null`), wantCode: -32600, wantID: "null"},
		{name: "object id", in: strings.NewReader(`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`), wantCode: -32600, wantID: "null"},
		{name: "array id", in: strings.NewReader(`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`), wantCode: -32600, wantID: "null"},
		{name: "boolean id", in: strings.NewReader(`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`), wantCode: -32600, wantID: "null"},
		{name: "no version tag", in: strings.NewReader(`{"id":5,"method":"tools/list"}`), wantCode: -32600, wantID: "5"},
		{name: "wrong version tag", in: strings.NewReader(`{"jsonrpc":"1.0","id":"v","method":"tools/list"}`), wantCode: -32600, wantID: `"v"`},
		{name: "method not a string", in: strings.NewReader(`{"jsonrpc":"2.0","id":6,"method":1}`), wantCode: -32600, wantID: "6"},
		{name: "neither method nor id", in: strings.NewReader(`{"jsonrpc":"2.0","result":{}}`), wantCode: -32600, wantID: "null"},
		{name: "nested past the SDK's depth", in: strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":` + deep(2000) + `}}`), wantCode: -32600, wantID: "9"},
		{name: "nested past JSON's depth", in: strings.NewReader(`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":` + deep(100000) + `}`), wantCode: -32700, wantID: "null"},
		{name: "50 MB line", in: io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":14,"method":"tools/list","params":{"x":"`), &repeat{'A', 50 << 20}, strings.NewReader(`"}}`)), wantCode: -32600, wantID: "null"},
		{name: "50 MB of newline-free garbage", in: &repeat{'{', 50 << 20}, wantCode: -32600, wantID: "null"},
		{name: "empty batch", in: strings.NewReader(`[]`), wantCode: -32600, wantID: "null"},
		{name: "batch of invalid", in: strings.NewReader(`[1,2,3]`), wantCode: -32600, wantID: "null"},
		{name: "batch of valid", in: strings.NewReader(`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`), wantCode: -32600, wantID: "null"},
		{name: "unknown method", in: strings.NewReader(`{"jsonrpc":"2.0","id":12,"method":"nope"}`), wantCode: -32601, wantID: "12"},
		{name: "params not an object", in: strings.NewReader(`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":5}`), wantCode: -32602, wantID: "13"},
		{name: "response to nothing", in: strings.NewReader(`{"jsonrpc":"2.0","id":99,"result":{}}`)},
		{name: "blank line", in: strings.NewReader(" \t\r")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := io.MultiReader(strings.NewReader(initialize("2025-06-18")+"\n"+initialized+"\n"), tt.in, strings.NewReader("\n"+listAfter+"\n"))
			var others []answer
			listed := false
			for _, line := range serveAll(t, in) {
				var a answer
				if err := json.Unmarshal([]byte(line), &a); err != nil {
					t.Fatalf("answer %q is not JSON: %v", line, err)
				}
				switch string(a.ID) {
				case `"init"`:
				case `"after"`:
					listed = a.Result != nil && len(a.Result.Tools) == 5
				default:
					others = append(others, a)
				}
			}
			if !listed {
				t.Errorf("tools/list after the input was not answered with the tools")
			}
			if tt.wantCode == 0 {
				if len(others) != 0 {
					t.Errorf("answers %+v; want none", others)
				}
				return
			}
			if len(others) != 1 || others[0].Error == nil {
				t.Fatalf("answers %+v; want one error", others)
			}
			if got := others[0]; got.Error.Code != tt.wantCode || string(got.ID) != tt.wantID {
				t.Errorf("error %d with id %s; want %d with id %s", got.Error.Code, got.ID, tt.wantCode, tt.wantID)
			}
		})
	}
}

// client speaks to Serve line by line over pipes.
type client struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func startClient(t *testing.T) *client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(t.Context(), seeded(t), "test", inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve = %v; want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return when its input closed")
		}
		outR.Close()
	})
	return &client{t: t, in: inW, out: bufio.NewReader(outR)}
}

func (c *client) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) read() string {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// Under MCP 2025-03-26, which has batches, a batch is answered by one
// array with an answer per call, its malformed elements' errors included;
// an empty batch is one invalid request.
func TestServeBatchesWhereTheVersionHasThem(t *testing.T) {
	c := startClient(t)
	c.send(initialize("2025-03-26"))
	var init struct {
		Result struct{ ProtocolVersion string }
	}
	if err := json.Unmarshal([]byte(c.read()), &init); err != nil || init.Result.ProtocolVersion != "2025-03-26" {
		t.Fatalf("initialize settled %q (%v); want 2025-03-26", init.Result.ProtocolVersion, err)
	}
	c.send(initialized)

	tests := []struct {
		name  string
		batch string
		want  []string // each answer's id and, for errors, code: "1", "null -32600"
	}{
		{name: "empty", batch: `[]`, want: nil},
		{name: "of invalid", batch: `[1,"x",{}]`, want: []string{"null -32600", "null -32600", "null -32600"}},
		{name: "mixed", batch: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"foo":1},{"jsonrpc":"2.0","method":"notifications/x"},` +
			`{"jsonrpc":"2.0","id":"two","method":"tools/list"},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}]`,
			want: []string{"1", "null -32600", `"two"`, "null -32600", "null -32600"}},
		{name: "unknown method", batch: `[{"jsonrpc":"2.0","id":3,"method":"nope"}]`, want: []string{"3 -32601"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.send(tt.batch)
			line := c.read()
			if tt.want == nil {
				var a answer
				if err := json.Unmarshal([]byte(line), &a); err != nil || a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" {
					t.Fatalf("answer %s; want one invalid request with id null", line)
				}
				return
			}
			var got []answer
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatalf("answer %s is not an array: %v", line, err)
			}
			var ids []string
			for _, a := range got {
				s := string(a.ID)
				if a.Error != nil {
					s += " " + jsonInt(a.Error.Code)
				}
				ids = append(ids, s)
			}
			if strings.Join(ids, ",") != strings.Join(tt.want, ",") {
				t.Errorf("answers %v; want %v\n%s", ids, tt.want, line)
			}
		})
	}
	// A batch of notifications only gets no answer: the next line read
	// answers the request after it.
	c.send(`[{"jsonrpc":"2.0","method":"notifications/x"}]`)
	c.send(listAfter)
	if line := c.read(); !strings.Contains(line, `"id":"after"`) {
		t.Errorf("after a batch of notifications read %s; want the answer to tools/list", line)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Under MCP 2025-06-18 and later a batch is one invalid request, whatever
// it holds.
func TestServeRefusesBatchesWhereTheVersionHasNone(t *testing.T) {
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			c := startClient(t)
			c.send(initialize(v))
			c.read()
			c.send(initialized)
			for _, b := range []string{`[]`, `[1]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`} {
				c.send(b)
				line := c.read()
				var a answer
				if err := json.Unmarshal([]byte(line), &a); err != nil || a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" {
					t.Errorf("batch %s answered %s; want one invalid request with id null", b, line)
				}
			}
		})
	}
}

// An error the server cannot tie to a request (a duplicate id in flight)
// goes out with "id": null, as JSON-RPC asks; the rest as the SDK writes it.
func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		msg  jsonrpc.Message
		want string
	}{
		{name: "error without id", msg: &jsonrpc.Response{Error: fmt.Errorf("%w: request ID 1 already in use", &jsonrpc.Error{Code: -32600, Message: "invalid request"})},
			want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: request ID 1 already in use"}}`},
		{name: "uncoded error without id", msg: &jsonrpc.Response{Error: errors.New("boom")},
			want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"boom"}}`},
		{name: "error with id", msg: &jsonrpc.Response{ID: mustID(t, "a"), Error: &jsonrpc.Error{Code: -32601, Message: "method not found"}},
			want: `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"method not found"}}`},
		{name: "result", msg: &jsonrpc.Response{ID: mustID(t, float64(7)), Result: json.RawMessage(`{}`)},
			want: `{"jsonrpc":"2.0","id":7,"result":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encode(tt.msg)
			if err != nil || string(got) != tt.want {
				t.Errorf("encode = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		max      int
		want     []string // lines read; "!" for one too large
		wantTail error
	}{
		{name: "lines", in: "ab\ncd\n", max: 2, want: []string{"ab", "cd"}},
		{name: "last line without newline", in: "ab\ncd", max: 2, want: []string{"ab", "cd"}},
		{name: "too long", in: "abc\nde\n", max: 2, want: []string{"!", "de"}},
		{name: "too long at the end", in: "ab\ncde", max: 2, want: []string{"ab", "!"}},
		{name: "longer than the buffer", in: strings.Repeat("x", 100) + "\nok\n", max: 50, want: []string{"!", "ok"}},
		{name: "just fits a buffer's worth", in: strings.Repeat("x", 40) + "\n", max: 40, want: []string{strings.Repeat("x", 40)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			for {
				line, tooLarge, err := readLine(r, tt.max)
				switch {
				case tooLarge:
					got = append(got, "!")
				case len(line) > 0:
					got = append(got, string(line))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q; want %q", got, tt.want)
			}
		})
	}
}

// listEnd is the request that ends a fuzz input, its id one the fuzzer
// is unlikely to use.
const listEnd = `{"jsonrpc":"2.0","id":"end-5f0c2e","method":"tools/list"}`

// FuzzServe feeds arbitrary bytes to the server between a valid start and
// a valid tools/list: the server must not stop, must write only JSON, and
// must answer the tools/list.
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		"hello", `{"jsonrpc":"2.0","id":1,"method":"tools/li`, `[]`, `[1,2,3]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"ship"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"x":1}]`, strings.Repeat("[", 3000), "\x00\xff\n\r\n", `{"jsonrpc":"2.0","id":-1.5e300,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	p := seeded(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := io.MultiReader(strings.NewReader(initialize("2025-03-26")+"\n"+initialized+"\n"), bytes.NewReader(data), strings.NewReader("\n"+listEnd+"\n"))
		var out syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := Serve(ctx, p, "test", in, &out); err != nil {
			t.Fatalf("Serve = %v; want nil", err)
		}
		listed := false
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if !json.Valid([]byte(line)) {
				t.Fatalf("answer %q is not JSON", line)
			}
			var a answer
			if json.Unmarshal([]byte(line), &a) == nil && string(a.ID) == `"end-5f0c2e"` && a.Result != nil && len(a.Result.Tools) == 5 {
				listed = true
			}
		}
		if !listed {
			t.Fatalf("tools/list after %q not answered; output:\n%s", data, out.String())
		}
	})
}
