package agentlog

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/agentlog/codextest"
)

// writeCodexHistory writes a Codex rollout file of about size bytes laid
// out as the 0.169.0 CLI writes one: per turn the person's message (as a
// response item and an item_completed event), a shell call, its
// CommandExecution event and output of a few KiB, a token count, the
// agent's message, and now and then a world_state line.
func writeCodexHistory(tb testing.TB, path string, size int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	line := func(ts time.Time, typ string, payload any) {
		b := codextest.Line(ts, typ, payload)
		w.Write(b)
		w.WriteByte('\n')
		n += int64(len(b) + 1)
	}
	t0 := time.Date(2025, 9, 10, 8, 0, 0, 0, time.UTC)
	line(t0, "session_meta", map[string]any{"id": "bench", "timestamp": t0.Format(time.RFC3339), "cwd": "/work/repo",
		"base_instructions": map[string]string{"text": strings.Repeat("You are a coding agent. ", 600)},
		"git":               map[string]string{"branch": "main", "commit_hash": "0123456789abcdef"}})
	words := strings.Fields("the build fails because the queue retries a job whose lease expired and the worker never sees it again so we add a check")
	text := func(i, nw int) string {
		var b strings.Builder
		for j := range nw {
			b.WriteString(words[(i+j*7)%len(words)])
			b.WriteByte(' ')
		}
		return b.String()
	}
	for i := 0; n < size; i++ {
		ts := t0.Add(time.Duration(i) * time.Second)
		prompt := text(i, 40)
		if i%20 == 0 {
			line(ts, "world_state", map[string]any{"full": true, "state": map[string]string{"skills": strings.Repeat("skill ", 1500)}})
		}
		line(ts, "turn_context", map[string]any{"cwd": "/work/repo", "model": "gpt-5-codex"})
		line(ts, "response_item", map[string]any{"type": "message", "role": "user", "content": []map[string]string{{"type": "input_text", "text": prompt}}})
		line(ts, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "UserMessage", "id": fmt.Sprint("u", i), "content": []map[string]string{{"type": "text", "text": prompt}}}})
		call := fmt.Sprint("call_", i)
		line(ts, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"go test ./internal/queue/"}`, "call_id": call})
		out := text(i, 600)
		line(ts, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": call, "command": []string{"/bin/bash", "-lc", "go test ./internal/queue/"}, "status": "failed", "exit_code": 1, "aggregated_output": out}})
		line(ts, "response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": "Process exited with code 1\nOutput:\n" + out})
		u := map[string]int{"input_tokens": 12000 + i, "cached_input_tokens": 9000, "output_tokens": 400, "reasoning_output_tokens": 120, "total_tokens": 12400 + i}
		line(ts, "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": u, "total_token_usage": u}})
		answer := text(i+3, 150)
		line(ts, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]string{{"type": "output_text", "text": answer}}})
		line(ts, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "AgentMessage", "id": fmt.Sprint("m", i), "content": []map[string]string{{"type": "Text", "text": answer}}}})
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

var (
	benchHistoryOnce sync.Once
	benchHistory     string
)

// codexHistory200MB is a 200 MB history, written once per test binary run.
func codexHistory200MB(b *testing.B) string {
	benchHistoryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agentlog-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchHistory = filepath.Join(dir, "rollout-bench.jsonl")
		writeCodexHistory(b, benchHistory, 200<<20)
	})
	return benchHistory
}

// BenchmarkReadCodex200MB reads a 200 MB Codex history and reports its
// speed, the records read, and the memory the Go runtime took from the
// system (sys-MiB, which bounds the heap's peak).
func BenchmarkReadCodex200MB(b *testing.B) {
	path := codexHistory200MB(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ResetTimer()
	var recs int
	for range b.N {
		recs = 0
		_, err := Read(context.Background(), File{Agent: Codex, Path: path}, func(*Session, *Record) error {
			recs++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(recs), "records")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MiB")
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
}
