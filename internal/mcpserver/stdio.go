package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/baton-cli/baton/internal/textcut"
)

// MaxMessage is the size in bytes of the longest message `baton mcp`
// reads. A longer line is skipped to its newline without being held in
// memory, and answered with an invalid-request error.
const MaxMessage = 4 << 20

// drainWait bounds how long the end of input waits for the answers to the
// requests read before it.
const drainWait = time.Minute

// noBatchSince is the first MCP protocol version without JSON-RPC batches
// (2025-06-18 removed them; 2025-03-26 had them).
const noBatchSince = "2025-06-18"

// stdioTransport is MCP's stdio transport, newline-delimited JSON-RPC, made
// to survive its input. The SDK's own transport ends the session at the
// first line it cannot decode; this one answers every malformed message
// with a JSON-RPC error and reads on:
//
//   - a line that is not JSON: parse error (-32700), id null;
//   - JSON that is not a JSON-RPC message (a bare value, a wrong version
//     tag, an id that is neither a string nor a number, nesting the SDK
//     refuses): invalid request (-32600) with the message's id when it has
//     a usable one, else null;
//   - a line longer than MaxMessage: invalid request, id null;
//   - a batch: an invalid request, id null, unless the session settled a
//     protocol version that has batches; then an empty batch is one invalid
//     request and the batch is answered by one array holding an answer per
//     call, its malformed elements' errors included.
//
// It also holds back the end of input until every request read before it
// is answered (or drainWait passes): the SDK closes the connection at end
// of input, dropping the answers still being made, so
// `printf '<requests>' | baton mcp` would print nothing.
type stdioTransport struct {
	in  io.Reader
	out io.Writer
	max int // longest message in bytes
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		lines:   make(chan frame),
		closed:  make(chan struct{}),
		out:     t.out,
		pending: map[jsonrpc.ID]*batch{},
		max:     t.max,
	}
	go c.readLines(t.in)
	return c, nil
}

// stdioConn is one session of stdioTransport.
type stdioConn struct {
	lines     chan frame // from readLines
	closed    chan struct{}
	closeOnce sync.Once
	max       int

	queue []jsonrpc.Message // the rest of a batch; only Read touches it

	mu      sync.Mutex // guards out and what follows
	out     io.Writer
	pending map[jsonrpc.ID]*batch // calls not yet answered, each with the batch it came in (nil for none)
	idle    chan struct{}         // closed when pending becomes empty; nil while it is
	initID  jsonrpc.ID            // the initialize call's id until it is answered
	version string                // the protocol version the answer to initialize settled
}

// frame is one line of input, or the reason there are no more.
type frame struct {
	data     []byte
	tooLarge bool
	err      error
}

// batch gathers the answers to the calls of one incoming batch.
type batch struct {
	answers [][]byte           // in the order of the batch's elements that get one
	slot    map[jsonrpc.ID]int // each call's place in answers
	left    int                // calls not yet answered
}

// readLines hands the input to Read a line at a time until it ends or the
// connection closes. Like the SDK's, it leaks its goroutine while a read of
// the input blocks after Close.
func (c *stdioConn) readLines(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLarge, err := readLine(r, c.max)
		if tooLarge || len(bytes.TrimSpace(line)) > 0 {
			if !c.hand(frame{data: line, tooLarge: tooLarge}) {
				return
			}
		}
		if err != nil {
			c.hand(frame{err: err})
			return
		}
	}
}

func (c *stdioConn) hand(f frame) bool {
	select {
	case c.lines <- f:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads one line without its newline. A line longer than max
// bytes is read to its end but not kept: tooLarge reports it and line is
// nil, so memory stays within max whatever the input.
func readLine(r *bufio.Reader, max int) (line []byte, tooLarge bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLarge {
			n := len(chunk)
			if err == nil {
				n-- // the newline
			}
			if len(line)+n > max {
				line, tooLarge = nil, true
			} else {
				line = append(line, chunk[:n]...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLarge, err
		}
	}
}

// Read returns the next message, answering the malformed ones on its way.
// At end of input it waits until the pending calls are answered (or
// drainWait passes), then reports the end.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.lines:
		}
		if f.err != nil {
			if errors.Is(f.err, io.EOF) {
				c.wait(ctx)
			}
			return nil, f.err
		}
		msgs, err := c.accept(f)
		if err != nil {
			return nil, err
		}
		c.queue = msgs
	}
}

// accept turns a line into the messages for the server, answering what
// is malformed.
func (c *stdioConn) accept(f frame) ([]jsonrpc.Message, error) {
	if f.tooLarge {
		return nil, c.answer(errorAnswer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: message longer than %d bytes", c.max)))
	}
	data := bytes.TrimSpace(f.data)
	if !json.Valid(data) {
		return nil, c.answer(errorAnswer(nil, jsonrpc.CodeParseError, "parse error: not one JSON value"))
	}
	if data[0] == '[' {
		return c.acceptBatch(data)
	}
	m, answer := decode(data)
	if answer != nil {
		return nil, c.answer(answer)
	}
	c.mu.Lock()
	c.track(m, nil)
	c.mu.Unlock()
	return []jsonrpc.Message{m}, nil
}

// acceptBatch takes a batch when the session's protocol version has them.
func (c *stdioConn) acceptBatch(data []byte) ([]jsonrpc.Message, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, c.answer(errorAnswer(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.version == "":
		return nil, c.write(errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: no batch before a protocol version is settled by initialize"))
	case c.version >= noBatchSince:
		return nil, c.write(errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: MCP "+c.version+" has no JSON-RPC batches"))
	case len(elems) == 0:
		return nil, c.write(errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: empty batch"))
	}
	b := &batch{slot: map[jsonrpc.ID]int{}}
	var msgs []jsonrpc.Message
	for _, e := range elems {
		m, answer := decode(e)
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			if _, dup := b.slot[r.ID]; dup || c.isPending(r.ID) {
				answer = errorAnswer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: id %v is already in use", r.ID.Raw()))
			}
		}
		if answer != nil {
			b.answers = append(b.answers, answer)
			continue
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			b.slot[r.ID] = len(b.answers)
			b.answers = append(b.answers, nil)
			b.left++
		}
		msgs = append(msgs, m)
	}
	if b.left == 0 {
		if len(b.answers) > 0 {
			return msgs, c.write(b.array())
		}
		return msgs, nil
	}
	for _, m := range msgs {
		c.track(m, b)
	}
	return msgs, nil
}

// isPending reports whether a call with id awaits its answer. c.mu is held.
func (c *stdioConn) isPending(id jsonrpc.ID) bool {
	_, ok := c.pending[id]
	return ok
}

// track notes a call read (and an initialize, whose answer settles the
// protocol version). c.mu is held. A call whose id is already pending is
// left to the server, which refuses it.
func (c *stdioConn) track(m jsonrpc.Message, b *batch) {
	r, ok := m.(*jsonrpc.Request)
	if !ok || !r.IsCall() {
		return
	}
	if c.isPending(r.ID) {
		return
	}
	c.pending[r.ID] = b
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	if r.Method == "initialize" && c.version == "" && !c.initID.IsValid() {
		c.initID = r.ID
	}
}

// Write sends a message; an answer to a call of a batch waits for the
// batch's other answers and goes out with them as one array.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := encode(msg)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !resp.ID.IsValid() {
		return c.write(data)
	}
	if resp.ID == c.initID {
		c.initID = jsonrpc.ID{}
		c.version = settledVersion(resp)
	}
	b, ok := c.pending[resp.ID]
	if !ok {
		return c.write(data)
	}
	defer c.answered(resp.ID)
	if b == nil {
		return c.write(data)
	}
	b.answers[b.slot[resp.ID]] = data
	if b.left--; b.left > 0 {
		return nil
	}
	return c.write(b.array())
}

// answered clears a pending call once its answer is out. c.mu is held.
func (c *stdioConn) answered(id jsonrpc.ID) {
	delete(c.pending, id)
	if len(c.pending) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// answer writes an answer of the connection's own.
func (c *stdioConn) answer(data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(data)
}

// write puts one message on its own line. c.mu is held.
func (c *stdioConn) write(data []byte) error {
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// wait returns when no call is pending, after drainWait, or when ctx ends
// or the connection closes.
func (c *stdioConn) wait(ctx context.Context) {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	if idle == nil {
		return
	}
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	case <-c.closed:
	}
}

func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }

// array is the batch's answer.
func (b *batch) array() []byte {
	return append(append([]byte{'['}, bytes.Join(b.answers, []byte{','})...), ']')
}

// decode reads one JSON-RPC message the way the SDK does; what it refuses
// gets its invalid-request answer instead.
func decode(raw json.RawMessage) (jsonrpc.Message, []byte) {
	id, idOK := messageID(raw)
	if !idOK {
		return nil, errorAnswer(nil, jsonrpc.CodeInvalidRequest, "invalid request: an id must be a string, a number or null")
	}
	m, err := jsonrpc.DecodeMessage(raw)
	var we *jsonrpc.Error
	switch {
	case err == nil:
		return m, nil
	case errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidRequest:
		return nil, errorAnswer(id, jsonrpc.CodeInvalidRequest, "invalid request: neither a method nor an id")
	default:
		return nil, errorAnswer(id, jsonrpc.CodeInvalidRequest, "invalid request: "+textcut.Bytes(err.Error(), 200))
	}
}

// messageID is the id of a message that is a JSON object, as JSON, when
// it is a string or a number (nil when it is null, absent, or raw is not
// an object); ok is false when the id is of another type.
func messageID(raw json.RawMessage) (id json.RawMessage, ok bool) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil, true
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID, true
	case 'n':
		return nil, true
	}
	return nil, false
}

// errorAnswer is a JSON-RPC error response; a nil id is written as null,
// as the specification asks when the request's id cannot be known.
func errorAnswer(id json.RawMessage, code int64, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return data
}

// encode is the SDK's encoding, except that an error answer the server
// could not tie to a request carries "id": null rather than no id.
func encode(msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && !r.ID.IsValid() && r.Error != nil {
		var we *jsonrpc.Error
		code := int64(jsonrpc.CodeInternalError)
		if errors.As(r.Error, &we) {
			code = we.Code
		}
		return errorAnswer(nil, code, r.Error.Error()), nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return data, nil
}

// settledVersion is the protocol version an answer to initialize settles;
// "" when it failed.
func settledVersion(resp *jsonrpc.Response) string {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil {
		return ""
	}
	return res.ProtocolVersion
}
