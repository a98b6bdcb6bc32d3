package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"unicode/utf8"
)

// Fallback is the text the server answers to a main-loop request once the
// script has run out, so a client that asks once more than scripted still
// ends its turn cleanly. Tests that care assert Remaining and Requests.
const Fallback = "done"

// CompactSummary is the summary the default side handler answers to a
// compaction request; the client carries it into the compacted
// conversation.
const CompactSummary = "Summary of the earlier conversation, written by the test server."

// A Server is a scripted Messages API server on 127.0.0.1. Create it with
// New; it is closed when the test ends.
type Server struct {
	// URL is the server's base URL, for ANTHROPIC_BASE_URL.
	URL string

	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	side   func(r *Request) Turn
	script []Turn
	all    []*Request
	main   []*Request
	ids    int
}

// New starts a server answering main-loop requests with turns, in order,
// and registers its Close with t.Cleanup. A script mistake found while
// answering (for example a tool input that is not a JSON object) fails t.
func New(t testing.TB, turns ...Turn) *Server {
	t.Helper()
	s := &Server{t: t, script: append([]Turn(nil), turns...)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Add appends turns to the script, for a test that runs the client again
// after the first script was used up.
func (s *Server) Add(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Remaining returns how many scripted turns have not been answered yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Requests returns the main-loop requests received so far, in the order
// they took their turns.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.main...)
}

// AllRequests returns every request received so far, side requests and
// requests the server could not decode included, in arrival order.
func (s *Server) AllRequests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.all...)
}

// OnSide makes f answer every side request (any kind but KindMain and
// KindCountTokens) from now on; nil restores the default, DefaultSide.
func (s *Server) OnSide(f func(r *Request) Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.side = f
}

// DefaultSide is how side requests are answered unless OnSide says
// otherwise: a compaction request gets a summary whose text is
// CompactSummary, any other request Text(Fallback).
func DefaultSide(r *Request) Turn {
	if r.Kind == KindCompact {
		return Text("<analysis>\nNothing to analyse.\n</analysis>\n\n<summary>\n" + CompactSummary + "\n</summary>")
	}
	return Text(Fallback)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := &Request{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
		Body:     body,
		Kind:     KindInvalid,
	}
	refuse := func(status int, errType, message string) {
		s.record(req)
		s.writeFault(w, Fault{Status: status, Type: errType, Message: message})
	}
	switch {
	case err != nil:
		refuse(http.StatusBadRequest, "invalid_request_error", "could not read request body")
		return
	case r.Method != http.MethodPost:
		refuse(http.StatusMethodNotAllowed, "invalid_request_error", "method not allowed")
		return
	case r.URL.Path != "/v1/messages" && r.URL.Path != "/v1/messages/count_tokens":
		refuse(http.StatusNotFound, "not_found_error", "Not found")
		return
	}
	if err := req.decodeBody(body); err != nil {
		refuse(http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if r.URL.Path == "/v1/messages/count_tokens" {
		req.Kind = KindCountTokens
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", s.newID("req_"))
		fmt.Fprintf(w, `{"input_tokens":%d}`, estimateTokens(len(body)))
		return
	}
	req.Kind = classify(req)
	turn := s.take(req)
	if turn.decide != nil {
		turn = turn.decide(req)
	}
	if err := turn.validate(); err != nil {
		s.t.Errorf("modelserver: answer to %s request %d: %v", req.Kind, s.index(req), err)
		s.writeFault(w, Fault{Status: http.StatusInternalServerError, Type: "api_error", Message: "bad test script: " + err.Error()})
		return
	}
	if turn.fault != nil {
		s.writeFault(w, *turn.fault)
		return
	}
	msg := s.message(req, turn)
	if req.Stream {
		s.writeStream(w, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", s.newID("req_"))
	w.Write(marshal(msg))
}

func (s *Server) record(req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, req)
}

// take records req and returns the turn that answers it: the next scripted
// turn for a main-loop request (Text(Fallback) once the script has run
// out), the side handler's answer for any other.
func (s *Server) take(req *Request) Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, req)
	if req.Kind != KindMain {
		side := s.side
		if side == nil {
			side = DefaultSide
		}
		return Func(side)
	}
	s.main = append(s.main, req)
	if len(s.script) == 0 {
		return Text(Fallback)
	}
	turn := s.script[0]
	s.script = s.script[1:]
	return turn
}

// index returns req's position among all requests, for messages.
func (s *Server) index(req *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.all {
		if m == req {
			return i
		}
	}
	return -1
}

func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s01%022d", prefix, s.ids)
}

// wireMessage is an assistant message as the API returns it.
type wireMessage struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []wireOutBlock `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        Usage          `json:"usage"`
}

// wireOutBlock is a content block of an answer.
type wireOutBlock struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// message builds the complete answer to req from turn, which has no fault.
func (s *Server) message(req *Request, turn Turn) wireMessage {
	model := req.Model
	if model == "" {
		model = "claude-test"
	}
	stop := turn.stopReason()
	msg := wireMessage{
		ID:         s.newID("msg_"),
		Type:       "message",
		Role:       "assistant",
		Model:      model,
		Content:    []wireOutBlock{},
		StopReason: &stop,
	}
	out := 0
	for _, b := range turn.blocks {
		switch b.Type {
		case "text":
			text := b.Text
			msg.Content = append(msg.Content, wireOutBlock{Type: "text", Text: &text})
			out += len(text)
		case "tool_use":
			id := b.ID
			if id == "" {
				id = s.newID("toolu_")
			}
			input, _ := json.Marshal(b.Input) // validated before
			msg.Content = append(msg.Content, wireOutBlock{Type: "tool_use", ID: id, Name: b.Name, Input: input})
			out += len(input)
		}
	}
	if turn.usage != nil {
		msg.Usage = *turn.usage
	} else {
		msg.Usage = Usage{InputTokens: estimateTokens(len(req.Body)), OutputTokens: estimateTokens(out)}
	}
	return msg
}

// estimateTokens turns a byte count into a plausible token count.
func estimateTokens(bytes int) int {
	return bytes/4 + 1
}

// writeStream answers msg as the Messages API's server-sent events.
func (s *Server) writeStream(w http.ResponseWriter, msg wireMessage) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", s.newID("req_"))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(event string, data any) {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, bytes.TrimSuffix(marshal(data), []byte("\n")))
		if flusher != nil {
			flusher.Flush()
		}
	}

	start := msg
	start.Content = []wireOutBlock{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	send("message_start", map[string]any{"type": "message_start", "message": start})
	send("ping", map[string]any{"type": "ping"})
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, chunk := range chunks(*b.Text) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": chunk}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			for _, chunk := range chunks(string(b.Input)) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": chunk}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil},
		"usage": msg.Usage})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// chunkSize is the most bytes one delta carries, so that clients must join
// several deltas as they do with the real API.
const chunkSize = 16

// chunks splits s into pieces of at most chunkSize bytes on rune
// boundaries; the empty string is one empty piece.
func chunks(s string) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	for len(s) > 0 {
		n := min(chunkSize, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// writeFault answers f with the Messages API's error body.
func (s *Server) writeFault(w http.ResponseWriter, f Fault) {
	reqID := s.newID("req_")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", reqID)
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(f.RetryAfter.Seconds()))))
	}
	w.WriteHeader(f.Status)
	body := map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": f.Type, "message": f.Message},
		"request_id": reqID,
	}
	w.Write(marshal(body))
}

// marshal encodes v as the API does, without escaping <, > and &, and with
// a trailing newline. v is always one of the server's own fixed shapes, so
// it cannot fail.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("modelserver: marshal %T: %v", v, err))
	}
	return b.Bytes()
}
