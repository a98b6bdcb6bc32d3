package usage

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/baton-cli/baton/internal/agentlog"
)

// The files the real CLIs wrote for one failing command and one answer:
// two responses of 1200 input tokens (1000 of them cached) and 50 output
// tokens each (Codex: 20 of them reasoning; Gemini: 20 thinking tokens on
// top). ccusage 20.0.24 reports the same for the Codex file (input 400,
// cache read 2000, output 100, total 2500).
func TestScanAgentRecorded(t *testing.T) {
	tests := []struct {
		name  string
		file  agentlog.File
		model string
		want  Tokens
	}{
		{"codex", agentlog.File{Agent: agentlog.Codex, Path: "codex-0.169.0.jsonl"}, "gpt-5-codex", Tokens{Input: 400, Output: 100, CacheRead: 2000}},
		{"gemini", agentlog.File{Agent: agentlog.Gemini, Path: "gemini-0.61.0.jsonl"}, "gemini-3.1-pro-preview", Tokens{Input: 400, Output: 140, CacheRead: 2000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.file.Path = filepath.Join("..", "agentlog", "testdata", tt.file.Path)
			rep, err := ScanAgent(context.Background(), []agentlog.File{tt.file, {Agent: tt.file.Agent, Path: filepath.Join(t.TempDir(), "gone.jsonl")}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rows) != 1 {
				t.Fatalf("rows = %+v; want one day", rep.Rows)
			}
			r := rep.Rows[0]
			if r.Key != "2026-12-02" || r.Tokens != tt.want || rep.Total != tt.want || rep.Responses != 2 {
				t.Errorf("row %s %+v, total %+v, %d responses; want 2026-12-02 %+v, 2 responses", r.Key, r.Tokens, rep.Total, rep.Responses, tt.want)
			}
			if want := []ModelUsage{{Model: tt.model, Tokens: tt.want}}; !reflect.DeepEqual(r.Models, want) {
				t.Errorf("models = %+v; want %+v", r.Models, want)
			}
		})
	}
}

func TestScanAgentBySession(t *testing.T) {
	dir := t.TempDir()
	line := func(ts, payload string) string {
		return `{"timestamp":"` + ts + `","type":"event_msg","payload":` + payload + "}\n"
	}
	tc := `{"type":"token_count","info":{"last_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1}}}`
	files := []agentlog.File{}
	for _, s := range []string{"a", "b"} {
		p := filepath.Join(dir, "rollout-"+s+".jsonl")
		data := `{"timestamp":"2025-09-10T10:00:00Z","type":"session_meta","payload":{"id":"` + s + `","cwd":"/r"}}` + "\n" +
			line("2025-09-10T10:00:01Z", tc) + line("2025-09-11T10:00:01Z", tc)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, agentlog.File{Agent: agentlog.Codex, Path: p})
	}
	rep, err := ScanAgent(context.Background(), files, Options{By: Session})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rep.Rows {
		keys = append(keys, r.Key)
		if want := (Tokens{Input: 12, Output: 6, CacheRead: 8}); r.Tokens != want {
			t.Errorf("session %s: %+v; want %+v", r.Key, r.Tokens, want)
		}
	}
	if !reflect.DeepEqual(keys, []string{"a", "b"}) {
		t.Errorf("sessions = %q; want a, b", keys)
	}
}
