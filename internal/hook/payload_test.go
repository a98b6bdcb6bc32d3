package hook

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		arg     string
		want    string // event
		wantErr bool
	}{
		{"post tool use", `{"session_id":"s1","cwd":"/r","hook_event_name":"PostToolUse","tool_name":"Bash"}`, "", PostToolUse, false},
		{"arg agrees", `{"hook_event_name":"Stop"}`, "Stop", Stop, false},
		{"arg fills a missing name", `{"session_id":"s"}`, "Stop", Stop, false},
		{"the payload wins over the arg", `{"hook_event_name":"Stop"}`, "SessionEnd", Stop, false},
		{"empty", ``, "", "", true},
		{"not json", `hello`, "", "", true},
		{"wrong shape: array", `[1,2]`, "", "", true},
		{"wrong field type", `{"hook_event_name":5}`, "", "", true},
		{"no event anywhere", `{"session_id":"s"}`, "", "", true},
		{"invalid utf-8 kept parseable", "{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"a\xffb\"}", "", UserPromptSubmit, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tt.in), tt.arg)
			if tt.wantErr {
				if !errors.Is(err, ErrPayload) {
					t.Fatalf("Parse error = %v; want ErrPayload", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Event != tt.want {
				t.Errorf("event = %q; want %q", p.Event, tt.want)
			}
		})
	}
}

func TestParseHuge(t *testing.T) {
	// A 10 MB tool response parses: only its size matters, not its content.
	var b bytes.Buffer
	b.WriteString(`{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/r/big.txt"},"tool_response":"`)
	b.WriteString(strings.Repeat("x", 10<<20))
	b.WriteString(`"}`)
	p, err := Parse(&b, "")
	if err != nil {
		t.Fatal(err)
	}
	if rec := p.Record(Where{}, time.Now()); rec.File != "/r/big.txt" {
		t.Errorf("file = %q; want /r/big.txt", rec.File)
	}

	over := repeatByte('x', MaxPayload+1)
	if _, err := Parse(bytes.NewReader(over), "Stop"); !errors.Is(err, ErrPayload) {
		t.Errorf("Parse of %d bytes = %v; want ErrPayload", len(over), err)
	}
}

func repeatByte(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }

func TestRecord(t *testing.T) {
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.FixedZone("JST", 9*3600))
	w := Where{Cwd: "/r/sub", Worktree: "/r", Branch: "main"}
	long := strings.Repeat("あ", 600)
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, rec recordView)
	}{
		{"bash uses description", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run tests"}}`,
			func(t *testing.T, r recordView) { r.want(t, "Bash", "", "Run tests") }},
		{"bash without description uses command", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}`,
			func(t *testing.T, r recordView) { r.want(t, "Bash", "", "ls -la") }},
		{"edit file path", `{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/r/a.go","old_string":"x"}}`,
			func(t *testing.T, r recordView) { r.want(t, "Edit", "/r/a.go", "") }},
		{"notebook path", `{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/r/n.ipynb"}}`,
			func(t *testing.T, r recordView) { r.want(t, "NotebookEdit", "/r/n.ipynb", "") }},
		{"secret in command redacted", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345' https://x"}}`,
			func(t *testing.T, r recordView) {
				if strings.Contains(r.Desc, "abcdefghijklmnop") || !strings.Contains(r.Desc, "[REDACTED:") {
					t.Errorf("desc = %q; want the token redacted", r.Desc)
				}
			}},
		{"prompt excerpt capped", `{"hook_event_name":"UserPromptSubmit","prompt":"` + long + `"}`,
			func(t *testing.T, r recordView) {
				if n := len([]rune(r.Prompt)); n != MaxText {
					t.Errorf("prompt has %d characters; want %d", n, MaxText)
				}
				if !strings.HasSuffix(r.Prompt, "…") {
					t.Errorf("cut prompt does not end with …")
				}
			}},
		{"session start source", `{"hook_event_name":"SessionStart","source":"compact","transcript_path":"/nope.jsonl"}`,
			func(t *testing.T, r recordView) {
				if r.Source != "compact" || r.Transcript != "/nope.jsonl" {
					t.Errorf("source %q transcript %q", r.Source, r.Transcript)
				}
			}},
		{"pre compact trigger", `{"hook_event_name":"PreCompact","trigger":"manual"}`,
			func(t *testing.T, r recordView) {
				if r.Trigger != "manual" {
					t.Errorf("trigger = %q; want manual", r.Trigger)
				}
			}},
		{"bash failure: exit status and first error lines", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run tests"},"tool_use_id":"toolu_1","error":"Exit code 3\nout\nboom: bad thing\nsecond","is_interrupt":false,"duration_ms":51}`,
			func(t *testing.T, r recordView) {
				r.want(t, "Bash", "", "Run tests")
				r.wantRun(t, "go test ./...", intp(3), "out\nboom: bad thing\nsecond")
			}},
		{"failure error cut to its first lines", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"error":"Exit code 2\n1\n2\n3\n4\n5\n6\n7"}`,
			func(t *testing.T, r recordView) { r.wantRun(t, "make", intp(2), "1\n2\n3\n4\n5\n…") }},
		{"failure of another tool has no exit status", `{"hook_event_name":"PostToolUseFailure","tool_name":"Edit","tool_input":{"file_path":"/r/a.go"},"error":"String to replace not found in file."}`,
			func(t *testing.T, r recordView) {
				r.want(t, "Edit", "/r/a.go", "")
				r.wantRun(t, "", nil, "String to replace not found in file.")
			}},
		{"secret in a failure redacted", `{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345' https://x"},"error":"Exit code 22\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz012345 refused"}`,
			func(t *testing.T, r recordView) {
				for _, s := range []string{r.Cmd, r.Error} {
					if strings.Contains(s, "abcdefghijklmnop") || !strings.Contains(s, "[REDACTED:") {
						t.Errorf("%q; want the token redacted", s)
					}
				}
			}},
		{"bash success exits 0", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo fine"},"tool_response":{"stdout":"fine","stderr":"","interrupted":false,"isImage":false}}`,
			func(t *testing.T, r recordView) { r.wantRun(t, "echo fine", intp(0), "") }},
		{"interrupted bash: exit unknown", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"sleep 9"},"tool_response":{"stdout":"","interrupted":true}}`,
			func(t *testing.T, r recordView) { r.wantRun(t, "sleep 9", nil, "") }},
		{"background bash: exit unknown", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make serve"},"tool_response":{"backgroundTaskId":"b1"}}`,
			func(t *testing.T, r recordView) { r.wantRun(t, "make serve", nil, "") }},
		{"pre tool use bash: command, no exit", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go vet ./..."}}`,
			func(t *testing.T, r recordView) { r.wantRun(t, "go vet ./...", nil, "") }},
		{"string tool response parses", `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/r/a"},"tool_response":"text"}`,
			func(t *testing.T, r recordView) {
				r.want(t, "Read", "/r/a", "")
				r.wantRun(t, "", nil, "")
			}},
		{"stop failure", `{"hook_event_name":"StopFailure","error":"server_error","last_assistant_message":"API Error: 500 Internal server error."}`,
			func(t *testing.T, r recordView) {
				if r.Error != "server_error" || r.Message != "API Error: 500 Internal server error." {
					t.Errorf("error %q message %q", r.Error, r.Message)
				}
			}},
		{"post compact trigger", `{"hook_event_name":"PostCompact","trigger":"auto","compact_summary":"<summary>x</summary>"}`,
			func(t *testing.T, r recordView) {
				if r.Trigger != "auto" || r.Message != "" {
					t.Errorf("trigger %q message %q; want auto and no summary kept", r.Trigger, r.Message)
				}
			}},
		{"subagent start", `{"hook_event_name":"SubagentStart","agent_id":"a0c3","agent_type":"general-purpose"}`,
			func(t *testing.T, r recordView) { r.want(t, "", "", "general-purpose") }},
		{"task created", `{"hook_event_name":"TaskCreated","task_id":"1","task_subject":"write tokenizer","task_description":"the tokenizer"}`,
			func(t *testing.T, r recordView) {
				r.want(t, "", "", "write tokenizer")
				if r.TaskID != "1" || r.Message != "the tokenizer" {
					t.Errorf("task id %q message %q", r.TaskID, r.Message)
				}
			}},
		{"task update tool", `{"hook_event_name":"PostToolUse","tool_name":"TaskUpdate","tool_input":{"taskId":"1","status":"in_progress"},"tool_response":{}}`,
			func(t *testing.T, r recordView) {
				if r.Tool != "TaskUpdate" || r.TaskID != "1" || r.TaskStatus != "in_progress" {
					t.Errorf("tool %q task %q status %q", r.Tool, r.TaskID, r.TaskStatus)
				}
			}},
		{"task create tool: the id from the response", `{"hook_event_name":"PostToolUse","tool_name":"TaskCreate","tool_input":{"subject":"write tokenizer","description":"the tokenizer"},"tool_response":{"task":{"id":"1","subject":"write tokenizer","description":"the tokenizer"}}}`,
			func(t *testing.T, r recordView) {
				r.want(t, "TaskCreate", "", "write tokenizer")
				if r.TaskID != "1" {
					t.Errorf("task id %q; want 1", r.TaskID)
				}
			}},
		{"permission denied", `{"hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"reason":"denied by policy"}`,
			func(t *testing.T, r recordView) {
				r.want(t, "Bash", "", "rm -rf /")
				r.wantRun(t, "rm -rf /", nil, "")
				if r.Reason != "denied by policy" {
					t.Errorf("reason %q", r.Reason)
				}
			}},
		{"cwd changed", `{"hook_event_name":"CwdChanged","cwd":"/r","old_cwd":"/r","new_cwd":"/tmp"}`,
			func(t *testing.T, r recordView) { r.want(t, "", "", "/tmp") }},
		{"worktree create", `{"hook_event_name":"WorktreeCreate","name":"wt1"}`,
			func(t *testing.T, r recordView) { r.want(t, "", "", "wt1") }},
		{"session end reason", `{"hook_event_name":"SessionEnd","reason":"clear"}`,
			func(t *testing.T, r recordView) {
				if r.Reason != "clear" {
					t.Errorf("reason = %q; want clear", r.Reason)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tt.in), "")
			if err != nil {
				t.Fatal(err)
			}
			rec := p.Record(w, now)
			if !rec.TS.Equal(now) || rec.TS.Location() != time.UTC {
				t.Errorf("ts = %v; want %v in UTC", rec.TS, now)
			}
			if rec.Worktree != "/r" || rec.Branch != "main" || rec.Cwd != "/r/sub" || rec.Event != p.Event {
				t.Errorf("where = %q %q %q event %q", rec.Worktree, rec.Branch, rec.Cwd, rec.Event)
			}
			tt.check(t, recordView{rec})
		})
	}
}
