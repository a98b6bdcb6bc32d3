package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/journal"
)

// FuzzPayloadRecord feeds arbitrary bytes to the hook's payload handling,
// from parsing to the journal line: a payload is either refused as
// ErrPayload or becomes one record whose free text is cut to MaxText
// characters and that comes back from the journal as it was written, on
// one line.
func FuzzPayloadRecord(f *testing.F) {
	for _, s := range []struct{ payload, arg string }{
		{`{"session_id":"s1","cwd":"/r","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_response":{"stdout":"ok"}}`, ""},
		{`{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"false"},"error":"Exit code 1\nboom\nmore"}`, ""},
		{`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"the db password is Tr0ub4dor&3xyzQ"}`, ""},
		{`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","transcript_path":"/dev/null"}`, ""},
		{`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"TaskCreate","tool_input":{"subject":"x"},"tool_response":{"task":{"id":"7"}}}`, ""},
		{`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":[1,2]}`, ""},
		{`{"session_id":"s1","hook_event_name":"TaskCreated","task_id":"1","task_subject":"s","task_description":"d"}`, ""},
		{`{"session_id":"$(touch PWNED)","hook_event_name":"Stop","last_assistant_message":"done"}`, ""},
		{"{\"hook_event_name\":\"Notification\",\"message\":\"a\xffb\\u2028c\"}", ""},
		{`{"session_id":"s"}`, "SessionEnd"},
		{`hello`, ""},
		{`[1,2]`, "Stop"},
	} {
		f.Add([]byte(s.payload), s.arg)
	}
	now := time.Date(2026, 5, 13, 1, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte, arg string) {
		p, err := Parse(bytes.NewReader(data), arg)
		if err != nil {
			if !errors.Is(err, ErrPayload) {
				t.Fatalf("Parse error %v is not ErrPayload", err)
			}
			return
		}
		if p.Event == "" {
			t.Fatal("Parse answered a payload without an event")
		}
		rec := p.Record(Where{Cwd: "/r", Worktree: "/r", Branch: "main"}, now)
		for name, text := range map[string]string{"prompt": rec.Prompt, "message": rec.Message, "cmd": rec.Cmd, "error": rec.Error} {
			if n := utf8.RuneCountInString(text); n > MaxText {
				t.Errorf("%s holds %d characters; want at most %d", name, n, MaxText)
			}
		}

		dir := t.TempDir()
		j := journal.Open(dir, journal.Options{})
		if err := j.Append(rec); err != nil {
			t.Fatalf("Append: %v", err)
		}
		var back []journal.Record
		if _, err := j.Scan(context.Background(), 0, func(r journal.Record, _ journal.Offset) error {
			back = append(back, r)
			return nil
		}); err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if len(back) != 1 {
			t.Fatalf("the journal holds %d records; want 1", len(back))
		}
		// JSON carries invalid UTF-8 as U+FFFD: compare what the record
		// reads as once written.
		var written journal.Record
		b, _ := json.Marshal(rec)
		if err := json.Unmarshal(b, &written); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(back[0])
		want, _ := json.Marshal(written)
		if !bytes.Equal(got, want) {
			t.Errorf("read back %s; want %s", got, want)
		}
	})
}
