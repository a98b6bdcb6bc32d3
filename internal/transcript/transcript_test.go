package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

const (
	userLine      = `{"parentUuid":null,"type":"user","message":{"role":"user","content":"hello there"},"uuid":"u1","timestamp":"2026-04-26T05:30:00.000Z"}`
	assistantLine = `{"parentUuid":"u1","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Use a \"bin\" adapter.\nDone."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"type":"assistant","uuid":"a1","timestamp":"2026-04-26T05:30:01.000Z"}`
	resultLine    = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.go"},{"type":"image"}],"is_error":true}]},"uuid":"u2"}`
	attachment    = `{"type":"attachment","attachment":{"type":"user","text":"not a message"},"uuid":"x"}`
	blob          = `{"type":"api-request-blob","message":{"role":"user","content":"not a line of the conversation"}}`
	malformed     = `{"type":"user","message":{"role":"user","content":"torn`
)

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type got struct {
	msgs []*Message
	end  int64
	err  error
}

func readAll(t *testing.T, path string, from int64) got {
	t.Helper()
	var g got
	g.end, g.err = Read(context.Background(), path, from, func(m *Message) error {
		g.msgs = append(g.msgs, m)
		return nil
	})
	return g
}

func uuids(ms []*Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.UUID)
	}
	return out
}

func TestRead(t *testing.T) {
	full := strings.Join([]string{userLine, attachment, assistantLine, blob, malformed, "", "not json", resultLine}, "\n") + "\n"
	offsetOf := func(line string) int64 { return int64(strings.Index(full, line)) }
	tests := []struct {
		name    string
		content string
		from    int64
		want    []string
		wantEnd int64
	}{
		{name: "whole file", content: full, want: []string{"u1", "a1", "u2"}, wantEnd: int64(len(full))},
		{name: "from a line start", content: full, from: offsetOf(assistantLine), want: []string{"a1", "u2"}, wantEnd: int64(len(full))},
		{name: "from inside a line", content: full, from: offsetOf(assistantLine) + 5, want: []string{"u2"}, wantEnd: int64(len(full))},
		{name: "at the end", content: full, from: int64(len(full)), wantEnd: int64(len(full))},
		{name: "partial last line left for later", content: userLine + "\n" + assistantLine, want: []string{"u1"}, wantEnd: int64(len(userLine) + 1)},
		{name: "only a partial line", content: userLine, wantEnd: 0},
		{name: "inside the partial last line", content: userLine + "\n" + assistantLine, from: int64(len(userLine) + 3), wantEnd: int64(len(userLine) + 3)},
		{name: "empty file", content: "", wantEnd: 0},
		{name: "crlf lines", content: userLine + "\r\n" + resultLine + "\r\n", want: []string{"u1", "u2"}, wantEnd: int64(len(userLine) + len(resultLine) + 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := readAll(t, write(t, tt.content), tt.from)
			if g.err != nil {
				t.Fatalf("Read: %v", g.err)
			}
			if got := uuids(g.msgs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages: got %v; want %v", got, tt.want)
			}
			if g.end != tt.wantEnd {
				t.Errorf("end: got %d; want %d", g.end, tt.wantEnd)
			}
		})
	}
}

func TestReadDecodesBlocks(t *testing.T) {
	full := userLine + "\n" + assistantLine + "\n" + resultLine + "\n"
	g := readAll(t, write(t, full), 0)
	if g.err != nil || len(g.msgs) != 3 {
		t.Fatalf("got %d messages, err %v; want 3, nil", len(g.msgs), g.err)
	}
	want := []*Message{
		{Role: User, UUID: "u1", Blocks: []Block{{Type: TextBlock, Text: "hello there"}}, Offset: 0, End: int64(len(userLine) + 1)},
		{Role: Assistant, UUID: "a1", Blocks: []Block{
			{Type: TextBlock, Text: "Use a \"bin\" adapter.\nDone."},
			{Type: ToolUseBlock, Name: "Bash", ID: "toolu_1", Input: `{"command":"ls"}`},
		}, Offset: int64(len(userLine) + 1), End: int64(len(userLine) + len(assistantLine) + 2)},
		{Role: User, UUID: "u2", Blocks: []Block{{Type: ToolResultBlock, ID: "toolu_1", Text: "a.go", IsError: true}}, Offset: int64(len(userLine) + len(assistantLine) + 2), End: int64(len(full))},
	}
	for i, m := range g.msgs {
		m.Timestamp = m.Timestamp.UTC()
		w := want[i]
		w.Timestamp = m.Timestamp
		if !reflect.DeepEqual(m, w) {
			t.Errorf("message %d: got %+v; want %+v", i, m, w)
		}
	}
	if ts := g.msgs[0].Timestamp.Format("2006-01-02T15:04:05Z"); ts != "2026-04-26T05:30:00Z" {
		t.Errorf("timestamp: got %s; want 2026-04-26T05:30:00Z", ts)
	}
	if got, want := g.msgs[1].Text(), "Use a \"bin\" adapter.\nDone."; got != want {
		t.Errorf("Text: got %q; want %q", got, want)
	}
	var b strings.Builder
	for _, m := range g.msgs {
		m.Render(&b)
	}
	wantRender := "[user]\nhello there\n\n[assistant]\nUse a \"bin\" adapter.\nDone.\n\n[assistant: tool Bash]\n{\"command\":\"ls\"}\n\n[tool result]\na.go\n\n"
	if b.String() != wantRender {
		t.Errorf("Render: got %q; want %q", b.String(), wantRender)
	}
}

// fifo is a FIFO no one writes to: opening it to read waits for a writer
// unless the open does not block.
func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadErrors(t *testing.T) {
	path := write(t, userLine+"\n")
	tests := []struct {
		name string
		path string
		from int64
		want error
	}{
		{name: "missing file", path: filepath.Join(t.TempDir(), "none.jsonl"), want: fs.ErrNotExist},
		{name: "FIFO", path: fifo(t), want: ErrNotRegular},
		{name: "folder", path: t.TempDir(), want: ErrNotRegular},
		{name: "device", path: os.DevNull, want: ErrNotRegular},
		{name: "offset past the end", path: path, from: int64(len(userLine) + 2), want: ErrOffset},
		{name: "negative offset", path: path, from: -1, want: ErrOffset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := readAll(t, tt.path, tt.from)
			if !errors.Is(g.err, tt.want) {
				t.Errorf("err: got %v; want %v", g.err, tt.want)
			}
			if g.end != tt.from {
				t.Errorf("end: got %d; want %d (unchanged)", g.end, tt.from)
			}
		})
	}
}

func TestReadStopAndFail(t *testing.T) {
	full := userLine + "\n" + assistantLine + "\n" + resultLine + "\n"
	path := write(t, full)
	afterFirst := int64(len(userLine) + 1)

	end, err := Read(context.Background(), path, 0, func(m *Message) error { return ErrStop })
	if err != nil || end != afterFirst {
		t.Errorf("stop: got %d, %v; want %d, nil", end, err, afterFirst)
	}

	boom := errors.New("boom")
	end, err = Read(context.Background(), path, 0, func(m *Message) error {
		if m.UUID == "a1" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || end != afterFirst {
		t.Errorf("fail: got %d, %v; want %d, boom", end, err, afterFirst)
	}
}

func TestReadLongLines(t *testing.T) {
	// A line longer than the starting buffer is read whole; a line longer
	// than MaxLine is skipped, and so is a partial one at the end.
	const buf, maxLine = 64, 1024
	long := `{"type":"assistant","uuid":"long","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 3*buf) + `"}]}}`
	huge := `{"type":"user","uuid":"huge","message":{"role":"user","content":"` + strings.Repeat("y", 3*maxLine) + `"}}`
	tests := []struct {
		name    string
		content string
		want    []string
		wantEnd int64
	}{
		{name: "longer than the buffer", content: long + "\n" + userLine + "\n", want: []string{"long", "u1"}, wantEnd: int64(len(long) + len(userLine) + 2)},
		{name: "longer than MaxLine", content: huge + "\n" + userLine + "\n", want: []string{"u1"}, wantEnd: int64(len(huge) + len(userLine) + 2)},
		{name: "partial line longer than the buffer", content: userLine + "\n" + long, want: []string{"u1"}, wantEnd: int64(len(userLine) + 1)},
		{name: "partial line longer than MaxLine", content: userLine + "\n" + huge, want: []string{"u1"}, wantEnd: int64(len(userLine) + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g got
			g.end, g.err = read(context.Background(), write(t, tt.content), 0, buf, maxLine, func(m *Message) error {
				g.msgs = append(g.msgs, m)
				return nil
			})
			if g.err != nil {
				t.Fatal(g.err)
			}
			if got := uuids(g.msgs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("messages: got %v; want %v", got, tt.want)
			}
			if g.end != tt.wantEnd {
				t.Errorf("end: got %d; want %d", g.end, tt.wantEnd)
			}
		})
	}
}

func TestReadGrowingFile(t *testing.T) {
	// A line written in two pieces is read once, after its newline lands.
	path := write(t, userLine+"\n"+assistantLine[:40])
	g := readAll(t, path, 0)
	if len(g.msgs) != 1 || g.end != int64(len(userLine)+1) {
		t.Fatalf("first read: got %v end %d; want [u1] end %d", uuids(g.msgs), g.end, len(userLine)+1)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(assistantLine[40:] + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g2 := readAll(t, path, g.end)
	if got := uuids(g2.msgs); !reflect.DeepEqual(got, []string{"a1"}) {
		t.Errorf("second read: got %v; want [a1]", got)
	}
}

func TestReadCancelled(t *testing.T) {
	var b strings.Builder
	for range 5000 {
		b.WriteString(userLine + "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	end, err := Read(ctx, write(t, b.String()), 0, func(*Message) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err: got %v; want context.Canceled", err)
	}
	if end%int64(len(userLine)+1) != 0 {
		t.Errorf("end %d is not a line start", end)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(userLine+"\n"+assistantLine+"\n"), int64(3))
	f.Add([]byte(malformed+"\n"+resultLine), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, from int64) {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if from < 0 || from > int64(len(data)) {
			from = 0
		}
		end, err := read(context.Background(), p, from, 16, 64, func(m *Message) error {
			if m.Offset < from || m.End > int64(len(data)) || data[m.End-1] != '\n' {
				t.Fatalf("message range %d-%d outside %d-%d or not ending a line", m.Offset, m.End, from, len(data))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if end < from || end > int64(len(data)) || (end > from && data[end-1] != '\n') {
			t.Fatalf("end %d: not a line start after %d", end, from)
		}
	})
}

func TestParseAgainstEncodingJSON(t *testing.T) {
	tests := []struct {
		name string
		line string
		ok   bool
	}{
		{name: "escapes", line: `{"type":"user","message":{"role":"user","content":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 \ud800x"}}`, ok: true},
		{name: "escaped quote before the end", line: `{"type":"user","message":{"role":"user","content":"ends with \\"}}`, ok: true},
		{name: "nested values skipped", line: `{"a":[1,-2.5e3,true,false,null,{"b":[]}],"type":"assistant","message":{"content":[{"type":"text","text":"x"}],"usage":{"n":1}}}`, ok: true},
		{name: "torn then another line", line: `{"type":"user","message":{"role":"user","content":"tor{"type":"user","message":{"content":"x"}}`},
		{name: "trailing garbage", line: `{"type":"user","message":{"content":"x"}} x`},
		{name: "bad escape", line: `{"type":"user","message":{"content":"\x"}}`},
		{name: "short unicode escape", line: `{"type":"user","message":{"content":"\u12"}}`},
		{name: "missing colon", line: `{"type" "user","message":{"content":"x"}}`},
		{name: "not an object", line: `["user"]`},
		{name: "message not an object", line: `{"type":"user","message":"user"}`},
		{name: "escaped key", line: `{"ty\u0070e":"user","message":{"content":"x"}}`, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := parse([]byte(tt.line))
			if ok != tt.ok {
				t.Fatalf("ok: got %v; want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			var want struct {
				Message struct {
					Content json.RawMessage
				}
			}
			if err := json.Unmarshal([]byte(tt.line), &want); err != nil {
				t.Fatal(err)
			}
			var text string
			if json.Unmarshal(want.Message.Content, &text) != nil {
				var blocks []struct{ Text string }
				json.Unmarshal(want.Message.Content, &blocks)
				text = blocks[0].Text
			}
			if len(m.Blocks) == 0 || m.Blocks[0].Text != text {
				t.Errorf("text: got %+v; want %q", m.Blocks, text)
			}
		})
	}
}

func hasControl(b []byte) bool {
	return bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != ' ' })
}

func FuzzParse(f *testing.F) {
	for _, l := range []string{userLine, assistantLine, resultLine, attachment, malformed, `{"type":"user","message":{"content":"\ud83d\ude00\u00e9\\\""}}`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := parse(line)
		var fields map[string]json.RawMessage
		err := json.Unmarshal(line, &fields)
		var v struct {
			Type    string
			Message json.RawMessage
		}
		json.Unmarshal(fields["type"], &v.Type)
		v.Message = fields["message"]
		if ok && err != nil && !hasControl(line) {
			// The one leniency: control characters inside strings.
			t.Fatalf("accepted invalid JSON %q: %v", line, err)
		}
		if ok && err == nil && v.Type != m.Role {
			t.Fatalf("role %q; encoding/json says type %q", m.Role, v.Type)
		}
		isMsg := err == nil && (v.Type == User || v.Type == Assistant) && bytes.HasPrefix(bytes.TrimSpace(v.Message), []byte("{"))
		if isMsg && !ok && !bytes.Contains(line, []byte(`\u`)) {
			// Escaped keys or types spelled with \u are not looked for
			// by the cheap pre-check; everything else must be read.
			t.Fatalf("rejected a valid %s line %q", v.Type, line)
		}
	})
}

// ReadRaw, like Read, opens regular files only, without waiting on a FIFO.
func TestReadRawRefusesSpecialFiles(t *testing.T) {
	for _, path := range []string{fifo(t), t.TempDir(), os.DevNull} {
		if _, _, _, err := ReadRaw(path, 0, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRaw(%s): %v; want ErrNotRegular", path, err)
		}
	}
}

func TestReadRaw(t *testing.T) {
	long := strings.Repeat("x", 100)
	data := "line one\n" + long + "\nthree\npartial"
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		from     int64
		limit    int
		want     string
		wantEnd  int64
		wantMore bool
	}{
		{"all complete lines, not the partial one", 0, 0, data[:len(data)-len("partial")], int64(len(data) - len("partial")), false},
		{"up to the limit, whole lines", 0, 20, "line one\n", 9, true},
		{"a line longer than the limit comes whole", 9, 10, long + "\n", int64(9 + len(long) + 1), true},
		{"from inside a line: the bytes as they are", 5, 0, "one\n" + long + "\nthree\n", int64(len(data) - len("partial")), false},
		{"only a partial line left", int64(len(data) - len("partial")), 0, "", int64(len(data) - len("partial")), false},
		{"past the end", 10000, 0, "", 10000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, end, more, err := ReadRaw(path, tt.from, tt.limit)
			if err != nil || string(got) != tt.want || end != tt.wantEnd || more != tt.wantMore {
				t.Errorf("ReadRaw(%d, %d) = %q, %d, %v, %v; want %q, %d, %v", tt.from, tt.limit, got, end, more, err, tt.want, tt.wantEnd, tt.wantMore)
			}
		})
	}
	if _, _, _, err := ReadRaw(filepath.Join(t.TempDir(), "gone"), 0, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v; want fs.ErrNotExist", err)
	}
}
