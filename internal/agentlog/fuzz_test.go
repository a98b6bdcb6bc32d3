package agentlog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds arbitrary files to both readers: they must not panic, and
// every record they hand over has a kind.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"codex-0.169.0.jsonl", "gemini-0.61.0.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"$rewindTo":"x"}` + "\n" + `{"id":"x","type":"user","content":"a"}` + "\n"))
	f.Add([]byte(`{"sessionId":"s","projectHash":"h","messages":[{"id":"1","type":"gemini","content":"x","toolCalls":[{"name":"run_shell_command","args":{"command":"ls"},"result":"Exit Code: 3"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, file := range []File{
			{Agent: Codex, Path: filepath.Join(dir, "rollout-f.jsonl")},
			{Agent: Gemini, Path: filepath.Join(dir, "session-f.jsonl")},
			{Agent: Gemini, Path: filepath.Join(dir, "session-f.json")},
		} {
			if err := os.WriteFile(file.Path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(context.Background(), file, func(_ *Session, r *Record) error {
				if r.Kind < Request || r.Kind > Usage {
					t.Errorf("record of kind %d", r.Kind)
				}
				return nil
			})
			if err != nil {
				t.Errorf("Read(%s): %v", filepath.Base(file.Path), err)
			}
		}
	})
}
