package agentlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/baton-cli/baton/internal/textcut"
)

// Gemini CLI chat files (packages/core chatRecordingService, checked with
// 0.61.0) are JSON Lines: a metadata line {sessionId, projectHash,
// startTime, lastUpdated, kind}, then records appended as the session goes:
//
//   - a message {id, timestamp, type: user|gemini|info|error|…, content
//     (a string or a list of parts {text} / {functionResponse}), toolCalls
//     [{id, name, args, result, status}], tokens {input, output, cached,
//     thoughts, tool, total}, model}; a message written again with the same
//     id replaces the earlier copy, in the earlier copy's place;
//   - {"$set": {…}} merges into the metadata; a $set holding messages
//     replaces every message so far with those;
//   - {"$rewindTo": id} drops that message and every one after it (all of
//     them when the id is unknown).
//
// Older CLIs wrote one whole JSON object per session (session-*.json) with
// the metadata and a messages array; a resumed one is carried over into a
// .jsonl file of the same name.
//
// A message's final copy is only known at the end of the file, so a .jsonl
// file is read twice: once for where each message's last copy is (offsets,
// not contents), then those lines again, in order. Memory grows with the
// number of messages, not with their size.

type geminiRecord struct {
	ID          *string         `json:"id"`
	Rewind      *string         `json:"$rewindTo"`
	Set         json.RawMessage `json:"$set"`
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	Messages    json.RawMessage `json:"messages"`
}

type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	ToolCalls []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Args   struct {
			Command string `json:"command"`
		} `json:"args"`
		Result json.RawMessage `json:"result"`
	} `json:"toolCalls"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
}

type geminiPart struct {
	Text             *string `json:"text"`
	FunctionResponse *struct {
		Response struct {
			Output string `json:"output"`
		} `json:"response"`
	} `json:"functionResponse"`
}

// geminiShellTool is the Gemini CLI's shell tool.
const geminiShellTool = "run_shell_command"

// place is where a message's current copy is: the line at off, n bytes
// long; sub >= 0 for the sub-th message of a messages array on that line.
type place struct {
	off int64
	n   int
	sub int
}

// geminiIndex is the first pass's result: the messages in order, each
// where its current copy is.
type geminiIndex struct {
	order []place
	ids   []string
	pos   map[string]int
}

func (x *geminiIndex) put(id string, p place) {
	if i, ok := x.pos[id]; ok {
		x.order[i] = p
		return
	}
	x.pos[id] = len(x.order)
	x.order = append(x.order, p)
	x.ids = append(x.ids, id)
}

func (x *geminiIndex) rewind(id string) {
	i, ok := x.pos[id]
	if !ok {
		i = 0
	}
	for _, gone := range x.ids[i:] {
		delete(x.pos, gone)
	}
	x.order, x.ids = x.order[:i], x.ids[:i]
}

// putAll replaces the messages with those of a messages array on a line.
func (x *geminiIndex) putAll(raw json.RawMessage, off int64, n int) {
	var msgs []struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return
	}
	x.rewind("")
	for i, m := range msgs {
		if m.ID != nil {
			x.put(*m.ID, place{off, n, i})
		}
	}
}

func (s *Session) geminiMeta(r *geminiRecord) {
	if r.SessionID != "" && s.ID == "" {
		s.ID = r.SessionID
	}
	if t := parseTime(r.StartTime); !t.IsZero() && s.Start.IsZero() {
		s.Start = t
	}
	if t := parseTime(r.LastUpdated); t.After(s.Last) {
		s.Last = t
	}
}

func readGeminiLines(ctx context.Context, path string, s *Session, fn func(*Session, *Record) error) error {
	r, closeR, err := open(path)
	if err != nil {
		return err
	}
	defer closeR()
	f, ok := r.(*os.File)
	if !ok {
		return fmt.Errorf("read session %s: %w", path, ErrNotRegular)
	}
	x := &geminiIndex{pos: map[string]int{}}
	err = lines(ctx, r, func(b []byte, off int64) error {
		var rec geminiRecord
		if json.Unmarshal(b, &rec) != nil {
			return nil
		}
		switch {
		case rec.Rewind != nil:
			x.rewind(*rec.Rewind)
		case rec.ID != nil:
			x.put(*rec.ID, place{off, len(b), -1})
		case len(rec.Set) > 0 && rec.Set[0] == '{':
			var set geminiRecord
			if json.Unmarshal(rec.Set, &set) != nil {
				return nil
			}
			s.geminiMeta(&set)
			if len(set.Messages) > 0 && set.Messages[0] == '[' {
				x.putAll(set.Messages, off, len(b))
			}
		case rec.SessionID != "" && rec.ProjectHash != "":
			s.geminiMeta(&rec)
			if len(rec.Messages) > 0 && rec.Messages[0] == '[' {
				x.putAll(rec.Messages, off, len(b))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read session %s: %w", path, err)
	}
	// Second pass: each message's current copy, in order. Consecutive
	// messages of one messages array share a line, read once.
	var buf []byte
	var arr []json.RawMessage
	var arrAt int64 = -1
	for i, p := range x.order {
		if i&255 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var raw []byte
		if p.sub < 0 || p.off != arrAt {
			if cap(buf) < p.n {
				buf = make([]byte, p.n)
			}
			buf = buf[:p.n]
			if _, err := f.ReadAt(buf, p.off); err != nil && err != io.EOF {
				return fmt.Errorf("read session %s: %w", path, err)
			}
			raw = buf
		}
		if p.sub >= 0 {
			if p.off != arrAt {
				arr, arrAt = messagesOf(raw), p.off
			}
			if p.sub >= len(arr) {
				continue
			}
			raw = arr[p.sub]
		}
		var m geminiMessage
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if err := geminiRecords(s, &m, p.off, fn); err != nil {
			return err
		}
	}
	return nil
}

// messagesOf returns the messages array of a $set or metadata line.
func messagesOf(line []byte) []json.RawMessage {
	var rec struct {
		Set *struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"$set"`
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return nil
	}
	if rec.Set != nil && rec.Set.Messages != nil {
		return rec.Set.Messages
	}
	return rec.Messages
}

// readGeminiJSON reads an older whole-file session, its messages one at a
// time.
func readGeminiJSON(ctx context.Context, path string, s *Session, fn func(*Session, *Record) error) error {
	r, closeR, err := open(path)
	if err != nil {
		return err
	}
	defer closeR()
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not a session object: nothing to read
	}
	var meta geminiRecord
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		switch key {
		case "sessionId", "startTime", "lastUpdated":
			var v string
			if dec.Decode(&v) != nil {
				return nil
			}
			switch key {
			case "sessionId":
				meta.SessionID = v
			case "startTime":
				meta.StartTime = v
			default:
				meta.LastUpdated = v
			}
			s.geminiMeta(&meta)
		case "messages":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return nil
			}
			for n := 0; dec.More(); n++ {
				if n&255 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				var m geminiMessage
				if err := dec.Decode(&m); err != nil {
					return nil
				}
				if err := geminiRecords(s, &m, dec.InputOffset(), fn); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
		}
	}
	return nil
}

// geminiRecords hands one message's records to fn: its request or answer,
// its shell commands, its usage.
func geminiRecords(s *Session, m *geminiMessage, off int64, fn func(*Session, *Record) error) error {
	ts := parseTime(m.Timestamp)
	if ts.After(s.Last) {
		s.Last = ts
	}
	base := Record{Time: ts, Offset: off, Exit: -1, Model: m.Model, ID: m.ID}
	text := partsText(m.Content)
	switch m.Type {
	case "user":
		// The CLI's own opening context is not the person's request, nor
		// is what a SessionStart hook put before it (baton's briefing).
		text = strings.TrimSpace(text)
		if rest, ok := strings.CutPrefix(text, "<hook_context>"); ok {
			if i := strings.LastIndex(rest, "</hook_context>"); i >= 0 {
				text = strings.TrimSpace(rest[i+len("</hook_context>"):])
			}
		}
		if text == "" || strings.HasPrefix(text, "<session_context>") {
			return nil
		}
		r := base
		r.Kind, r.Text = Request, text
		return fn(s, &r)
	case "gemini":
	default:
		return nil
	}
	if strings.TrimSpace(text) != "" {
		r := base
		r.Kind, r.Text = Answer, text
		if err := fn(s, &r); err != nil {
			return err
		}
	}
	for _, tc := range m.ToolCalls {
		if tc.Name != geminiShellTool || strings.TrimSpace(tc.Args.Command) == "" {
			continue
		}
		out := toolOutput(tc.Result)
		r := base
		r.Kind, r.Text = Command, tc.Args.Command
		r.Exit = geminiExit(out, tc.Status)
		r.Output = textcut.Bytes(geminiOutput(out), MaxOutput)
		r.Failed = r.Exit > 0 || tc.Status == "error"
		if err := fn(s, &r); err != nil {
			return err
		}
	}
	if t := m.Tokens; t != nil {
		in := t.Input + t.Tool
		cached := min(t.Cached, in)
		r := base
		r.Kind = Usage
		r.Tokens = Tokens{Input: in - cached, Cached: cached, Output: t.Output + t.Thoughts, Reasoning: t.Thoughts}
		if !r.Tokens.Zero() {
			return fn(s, &r)
		}
	}
	return nil
}

// partsText is a content's text: a string, or its text parts joined.
func partsText(raw json.RawMessage) string { return joinParts(raw, false, "") }

// toolOutput is what a tool call returned to the model: a string, or the
// output of its function responses (and any text parts), a line each.
func toolOutput(raw json.RawMessage) string { return joinParts(raw, true, "\n") }

// joinParts reads a string, or a list of parts whose texts (and, with
// responses, function responses' outputs) it joins with sep.
func joinParts(raw json.RawMessage, responses bool, sep string) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []geminiPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		switch {
		case responses && p.FunctionResponse != nil:
			out = append(out, p.FunctionResponse.Response.Output)
		case p.Text != nil && (responses || *p.Text != ""):
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, sep)
}

// geminiExitLine is how the shell tool reports a failing status (compiled
// on first use, as exitLine).
var geminiExitLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: (-?\d+)`) })

// geminiExit reads the exit status the shell tool wrote: only a non-zero
// one is written, so a successful call is 0.
func geminiExit(out, status string) int {
	if m := geminiExitLine().FindStringSubmatch(out); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	if status == "success" {
		return 0
	}
	return -1
}

// geminiOutput is the command's own output inside what the shell tool
// returned ("Output: …" up to the status lines), or all of it.
func geminiOutput(out string) string {
	out = strings.TrimPrefix(strings.TrimSpace(out), "<untrusted_context>")
	out = strings.TrimSuffix(out, "</untrusted_context>")
	out = strings.TrimSpace(out)
	if rest, ok := strings.CutPrefix(out, "Output: "); ok {
		for _, tail := range []string{"\nError: ", "\nExit Code: ", "\nSignal: ", "\nBackground PIDs: ", "\nProcess Group PGID: "} {
			if i := strings.Index(rest, tail); i >= 0 {
				rest = rest[:i]
			}
		}
		return rest
	}
	return out
}
