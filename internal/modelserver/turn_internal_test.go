package modelserver

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		turn    Turn
		wantErr string // "" for a valid turn
	}{
		{name: "text", turn: Text("hi")},
		{name: "tool use", turn: ToolUse("Bash", map[string]string{"command": "ls"})},
		{name: "tool use with struct input", turn: ToolUse("Read", struct {
			Path string `json:"file_path"`
		}{"/x"})},
		{name: "fault", turn: Overloaded()},
		{name: "zero turn", turn: Turn{}},
		{name: "tool use without name", turn: ToolUse("", map[string]string{}), wantErr: "without a name"},
		{name: "tool input not an object", turn: ToolUse("Bash", "ls"), wantErr: "not a JSON object"},
		{name: "tool input nil", turn: ToolUse("Bash", nil), wantErr: "not a JSON object"},
		{name: "tool input unmarshalable", turn: ToolUse("Bash", map[string]any{"c": make(chan int)}), wantErr: "marshal tool input"},
		{name: "unknown block", turn: Blocks(Block{Type: "thinking"}), wantErr: "unknown block type"},
		{name: "fault with success status", turn: Fail(Fault{Status: 200, Type: "x"}), wantErr: "not an HTTP error"},
		{name: "nested func", turn: Func(func(*Request) Turn { return Text("x") }), wantErr: "Func turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.turn.validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validate() = %v; want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("validate() = %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		wantChunks int
	}{
		{name: "empty", in: "", wantChunks: 1},
		{name: "short", in: "hello", wantChunks: 1},
		{name: "exactly one chunk", in: strings.Repeat("a", chunkSize), wantChunks: 1},
		{name: "one byte over", in: strings.Repeat("a", chunkSize+1), wantChunks: 2},
		{name: "multibyte across a boundary", in: strings.Repeat("a", chunkSize-1) + "ü" + strings.Repeat("日本", 10), wantChunks: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := chunks(tt.in)
			if len(got) != tt.wantChunks {
				t.Errorf("chunks(%q) gave %d pieces %q; want %d", tt.in, len(got), got, tt.wantChunks)
			}
			if strings.Join(got, "") != tt.in {
				t.Errorf("joined chunks = %q; want %q", strings.Join(got, ""), tt.in)
			}
			for _, c := range got {
				if !utf8.ValidString(c) {
					t.Errorf("chunk %q splits a character", c)
				}
			}
		})
	}
}
