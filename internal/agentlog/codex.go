package agentlog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-cli/baton/internal/textcut"
)

// Codex CLI rollout files (codex-rs, checked with 0.169.0) hold one JSON
// object a line: {"timestamp", ["ordinal",] "type", "payload"}. The types
// read here:
//
//   - session_meta: id, timestamp, cwd, and git {commit_hash, branch} when
//     the folder is a repository;
//   - turn_context: the model of the turns that follow;
//   - event_msg: user_message and agent_message {message} (older CLIs),
//     item_completed {item: UserMessage / AgentMessage {content: [{text}]},
//     CommandExecution {command, exit_code, aggregated_output, status}}
//     (newer ones), exec_command_end {call_id, command, exit_code,
//     aggregated_output}, and token_count {info: {last_token_usage,
//     total_token_usage} or null};
//   - response_item: function_call {name, arguments, call_id} and
//     local_shell_call {call_id, action {command}} joined with their
//     function_call_output {call_id, output} on call_id, for CLIs that
//     record no command event.
//
// Every other type (world_state, compacted, token_usage_record, …) and every
// other payload is skipped, as are malformed lines.

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexMeta struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
	Git       *struct {
		Commit string `json:"commit_hash"`
		Branch string `json:"branch"`
	} `json:"git"`
}

type codexText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type codexEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// exec_command_end
	CallID           string          `json:"call_id"`
	Command          json.RawMessage `json:"command"`
	ExitCode         *int            `json:"exit_code"`
	AggregatedOutput string          `json:"aggregated_output"`
	Stdout           string          `json:"stdout"`
	Stderr           string          `json:"stderr"`
	// item_completed
	Item *struct {
		Type             string          `json:"type"`
		ID               string          `json:"id"`
		Content          []codexText     `json:"content"`
		Command          json.RawMessage `json:"command"`
		ExitCode         *int            `json:"exit_code"`
		AggregatedOutput string          `json:"aggregated_output"`
		Status           string          `json:"status"`
	} `json:"item"`
	// token_count
	Info *struct {
		Last  *codexCounts `json:"last_token_usage"`
		Total *codexCounts `json:"total_token_usage"`
	} `json:"info"`
}

type codexCounts struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
}

func (u codexCounts) minus(o codexCounts) codexCounts {
	return codexCounts{max(0, u.Input-o.Input), max(0, u.Cached-o.Cached), max(0, u.Output-o.Output), max(0, u.Reasoning-o.Reasoning)}
}

// tokens splits Codex's counts the way Tokens does: its input_tokens
// include the cached ones, its output_tokens the reasoning ones.
func (u codexCounts) tokens() Tokens {
	cached := min(u.Cached, u.Input)
	return Tokens{Input: u.Input - cached, Cached: cached, Output: u.Output, Reasoning: min(u.Reasoning, u.Output)}
}

type codexItem struct {
	Type      string          `json:"type"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    *struct {
		Command json.RawMessage `json:"command"`
	} `json:"action"`
}

// codexShellTools are the function names under which Codex CLIs run a
// shell command.
var codexShellTools = map[string]bool{"shell": true, "exec_command": true, "shell_command": true, "container.exec": true, "local_shell": true}

// maxPendingCalls bounds the calls waiting for their output; a file that
// never records outputs cannot grow it past this.
const maxPendingCalls = 1024

type codexReader struct {
	s       *Session
	model   string
	prev    codexCounts // the last total_token_usage
	pending map[string]string
	done    map[string]bool
	fn      func(*Session, *Record) error
	// head stops the reading at the session's metadata; usage reads
	// only what Usage records need.
	head, usage bool
}

// codexMode says how much of a file readCodex reads.
type codexMode uint8

const (
	codexAll       codexMode = iota
	codexHead                // up to the session's metadata
	codexUsageOnly           // Usage records only
)

func readCodex(ctx context.Context, r io.Reader, s *Session, mode codexMode, fn func(*Session, *Record) error) error {
	c := &codexReader{s: s, pending: map[string]string{}, done: map[string]bool{}, fn: fn, head: mode == codexHead, usage: mode == codexUsageOnly}
	return lines(ctx, r, c.line)
}

var (
	typeKey    = []byte(`"type":"`)
	payloadKey = []byte(`"payload":{"type":"`)
)

// peekType returns the string after the first `"type":"` in b, or "".
func peekType(b []byte, key []byte) string {
	i := bytes.Index(b, key)
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// codexWanted says, from the line's first bytes, whether it can hold
// anything read here. Codex writes the line's type before its payload and
// the payload's type first, so most lines (messages, reasoning, world
// state) are passed over without decoding them; a line laid out otherwise is
// decoded.
func codexWanted(line []byte, usage bool) bool {
	head := line[:min(len(line), 160)]
	top := peekType(head, typeKey)
	switch top {
	case "":
		return true
	case "session_meta", "turn_context":
		return true
	case "event_msg", "response_item":
	default:
		return false
	}
	pt := peekType(line[:min(len(line), 200)], payloadKey)
	if usage {
		return pt == "" || pt == "token_count" && top == "event_msg"
	}
	switch pt {
	case "":
		return true
	case "user_message", "agent_message", "item_completed", "exec_command_end", "token_count":
		return top == "event_msg"
	case "function_call", "local_shell_call", "function_call_output":
		return top == "response_item"
	}
	return false
}

var tsKey = []byte(`{"timestamp":"`)

func (c *codexReader) line(b []byte, off int64) error {
	if !codexWanted(b, c.usage) {
		// Still the session's latest time, from the line's first field.
		if rest, ok := bytes.CutPrefix(b, tsKey); ok {
			if i := bytes.IndexByte(rest[:min(len(rest), 40)], '"'); i > 0 {
				if ts := parseTime(string(rest[:i])); ts.After(c.s.Last) {
					c.s.Last = ts
				}
			}
		}
		return nil
	}
	var l codexLine
	if json.Unmarshal(b, &l) != nil || len(l.Payload) == 0 || l.Payload[0] != '{' {
		return nil
	}
	ts := parseTime(l.Timestamp)
	if !ts.IsZero() && ts.After(c.s.Last) {
		c.s.Last = ts
	}
	rec := Record{Time: ts, Offset: off, Exit: -1, Model: c.model}
	switch l.Type {
	case "session_meta":
		var m codexMeta
		if json.Unmarshal(l.Payload, &m) != nil {
			return nil
		}
		if c.s.ID == "" {
			c.s.ID, c.s.Cwd = m.ID, m.Cwd
			if c.s.Start = parseTime(m.Timestamp); c.s.Start.IsZero() {
				c.s.Start = ts
			}
			if m.Git != nil {
				c.s.Branch, c.s.Commit = m.Git.Branch, m.Git.Commit
			}
		}
		if c.head {
			return ErrStop
		}
		return nil
	case "turn_context":
		var tc struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(l.Payload, &tc) == nil && tc.Model != "" {
			c.model = tc.Model
		}
		return nil
	case "event_msg":
		var e codexEvent
		if json.Unmarshal(l.Payload, &e) != nil {
			return nil
		}
		return c.event(&e, rec)
	case "response_item":
		var it codexItem
		if json.Unmarshal(l.Payload, &it) != nil {
			return nil
		}
		return c.item(&it, rec)
	}
	return nil
}

func (c *codexReader) emit(rec Record) error {
	if rec.Kind != Usage && strings.TrimSpace(rec.Text) == "" {
		return nil
	}
	return c.fn(c.s, &rec)
}

func (c *codexReader) event(e *codexEvent, rec Record) error {
	switch e.Type {
	case "user_message":
		rec.Kind, rec.Text = Request, e.Message
		return c.emit(rec)
	case "agent_message":
		rec.Kind, rec.Text = Answer, e.Message
		return c.emit(rec)
	case "item_completed":
		it := e.Item
		if it == nil {
			return nil
		}
		switch it.Type {
		case "UserMessage", "AgentMessage":
			var parts []string
			for _, p := range it.Content {
				if p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
			rec.Kind, rec.Text = Answer, strings.Join(parts, "\n\n")
			if it.Type == "UserMessage" {
				rec.Kind = Request
			}
			return c.emit(rec)
		case "CommandExecution":
			c.markDone(it.ID)
			rec.Kind, rec.Text = Command, commandLine(it.Command)
			rec.Output = textcut.Bytes(it.AggregatedOutput, MaxOutput)
			if it.ExitCode != nil {
				rec.Exit = *it.ExitCode
			}
			rec.Failed = rec.Exit > 0 || it.Status == "failed" || it.Status == "declined"
			return c.emit(rec)
		}
	case "exec_command_end":
		c.markDone(e.CallID)
		rec.Kind, rec.Text = Command, commandLine(e.Command)
		if rec.Text == "" {
			rec.Text = c.pending[e.CallID]
		}
		out := e.AggregatedOutput
		if out == "" {
			out = e.Stdout + e.Stderr
		}
		rec.Output = textcut.Bytes(out, MaxOutput)
		if e.ExitCode != nil {
			rec.Exit = *e.ExitCode
		}
		rec.Failed = rec.Exit > 0
		return c.emit(rec)
	case "token_count":
		if e.Info == nil {
			return nil
		}
		var u codexCounts
		switch {
		case e.Info.Last != nil:
			u = *e.Info.Last
		case e.Info.Total != nil:
			u = e.Info.Total.minus(c.prev)
		default:
			return nil
		}
		if e.Info.Total != nil {
			c.prev = *e.Info.Total
		}
		rec.Kind, rec.Tokens = Usage, u.tokens()
		if rec.Tokens.Zero() {
			return nil
		}
		return c.emit(rec)
	}
	return nil
}

// markDone notes a call whose command an event recorded, so that its
// function_call_output does not record it again.
func (c *codexReader) markDone(id string) {
	if id == "" {
		return
	}
	if len(c.done) >= maxPendingCalls {
		clear(c.done)
	}
	c.done[id] = true
}

func (c *codexReader) item(it *codexItem, rec Record) error {
	switch it.Type {
	case "function_call":
		if !codexShellTools[it.Name] || it.CallID == "" {
			return nil
		}
		c.wait(it.CallID, argsCommand(it.Arguments))
	case "local_shell_call":
		if it.Action != nil && it.CallID != "" {
			c.wait(it.CallID, commandLine(it.Action.Command))
		}
	case "function_call_output":
		cmd, ok := c.pending[it.CallID]
		delete(c.pending, it.CallID)
		if c.done[it.CallID] {
			delete(c.done, it.CallID)
			return nil
		}
		if !ok {
			return nil
		}
		out, exit := callOutput(it.Output)
		rec.Kind, rec.Text, rec.Exit = Command, cmd, exit
		rec.Output = textcut.Bytes(out, MaxOutput)
		rec.Failed = exit > 0
		return c.emit(rec)
	}
	return nil
}

func (c *codexReader) wait(id, cmd string) {
	if cmd == "" {
		return
	}
	if len(c.pending) >= maxPendingCalls {
		clear(c.pending)
	}
	c.pending[id] = cmd
}

// commandLine renders a command Codex recorded as an argument list (or a
// string): the script of a `bash -lc <script>` call, else the arguments
// joined by spaces.
func commandLine(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var args []string
	if json.Unmarshal(raw, &args) != nil || len(args) == 0 {
		return ""
	}
	if len(args) == 3 && (args[1] == "-lc" || args[1] == "-c") {
		return args[2]
	}
	return strings.Join(args, " ")
}

// argsCommand reads the command out of a shell function call's arguments:
// {"command": [...] or "..."} or {"cmd": "..."}.
func argsCommand(arguments string) string {
	var a struct {
		Command json.RawMessage `json:"command"`
		Cmd     string          `json:"cmd"`
	}
	if json.Unmarshal([]byte(arguments), &a) != nil {
		return ""
	}
	if a.Cmd != "" {
		return a.Cmd
	}
	return commandLine(a.Command)
}

// exitLine finds the exit status in a command's output text as Codex CLIs
// write it: "Process exited with code N" or "Exit code: N". Compiled on
// first use: the hook program links this package, and starts for every
// tool call.
var exitLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:)\s*(-?\d+)`)
})

// callOutput reads a function call's output: older CLIs wrote a JSON string
// {"output": …, "metadata": {"exit_code": N}}, newer ones plain text with
// the status on a line of its own, or a list of content items.
func callOutput(raw json.RawMessage) (string, int) {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		var items []codexText
		if json.Unmarshal(raw, &items) != nil {
			var obj struct {
				Content string `json:"content"`
			}
			if json.Unmarshal(raw, &obj) != nil {
				return "", -1
			}
			text = obj.Content
		} else {
			var parts []string
			for _, it := range items {
				parts = append(parts, it.Text)
			}
			text = strings.Join(parts, "\n")
		}
	}
	var wrapped struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &wrapped) == nil && wrapped.Output != nil {
		exit := -1
		if wrapped.Metadata.ExitCode != nil {
			exit = *wrapped.Metadata.ExitCode
		}
		return *wrapped.Output, exit
	}
	if m := exitLine().FindStringSubmatch(text); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil {
			if i := strings.Index(text, "\nOutput:\n"); i >= 0 {
				return text[i+len("\nOutput:\n"):], n
			}
			return text, n
		}
	}
	return text, -1
}

// parseTime reads an RFC 3339 time; a malformed one is the zero time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
