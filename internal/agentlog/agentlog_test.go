package agentlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// got is a record as the tests compare it.
type got struct {
	Kind   Kind
	Text   string
	Exit   int
	Failed bool
	Model  string
	Tokens Tokens
}

func readAll(t *testing.T, f File) (*Session, []got) {
	t.Helper()
	var out []got
	s, err := Read(context.Background(), f, func(_ *Session, r *Record) error {
		g := got{Kind: r.Kind, Model: r.Model, Tokens: r.Tokens}
		switch r.Kind {
		case Request, Answer:
			g.Text = r.Text
		case Command:
			g.Text, g.Exit, g.Failed = r.Text+" => "+strings.TrimSpace(r.Output), r.Exit, r.Failed
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatalf("Read(%s): %v", f.Path, err)
	}
	return s, out
}

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func zst(t *testing.T, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return enc.EncodeAll(data, nil)
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The file the Codex CLI 0.169.0 wrote for `codex exec` running one failing
// command and answering (recorded offline, long instructions shortened).
var wantCodex169 = []got{
	{Kind: Request, Text: "list the missing folder", Model: "gpt-5-codex"},
	{Kind: Command, Text: "ls /nonexistent-dir => ls: cannot access '/nonexistent-dir': No such file or directory", Exit: 2, Failed: true, Model: "gpt-5-codex"},
	{Kind: Usage, Model: "gpt-5-codex", Tokens: Tokens{Input: 200, Cached: 1000, Output: 50, Reasoning: 20}},
	{Kind: Answer, Text: "The folder does not exist.", Model: "gpt-5-codex"},
	{Kind: Usage, Model: "gpt-5-codex", Tokens: Tokens{Input: 200, Cached: 1000, Output: 50, Reasoning: 20}},
}

func TestReadCodexRecorded(t *testing.T) {
	dir := t.TempDir()
	data := fixture(t, "codex-0.169.0.jsonl")
	plain := writeFile(t, filepath.Join(dir, "plain.jsonl"), data)
	packed := writeFile(t, filepath.Join(dir, "packed.jsonl.zst"), string(zst(t, []byte(data))))
	for _, path := range []string{plain, packed} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, recs := readAll(t, File{Agent: Codex, Path: path})
			if !reflect.DeepEqual(recs, wantCodex169) {
				t.Errorf("records:\ngot  %+v\nwant %+v", recs, wantCodex169)
			}
			if s.ID != "01a234d7-a04d-7fa1-95d7-9b6d479efe36" || s.Cwd != "/work/repo" || s.Branch != "feature/x" || !strings.HasPrefix(s.Commit, "0123456789") {
				t.Errorf("session = %+v", s)
			}
			if got, want := s.Start.Format("15:04:05.000"), "03:41:16.249"; got != want {
				t.Errorf("start = %s; want %s", got, want)
			}
			if got, want := s.Last.Format("15:04:05.000"), "03:41:17.010"; got != want {
				t.Errorf("last = %s; want %s", got, want)
			}
		})
	}
}

// rollLine writes one rollout line.
func rollLine(ts, typ, payload string) string {
	return fmt.Sprintf(`{"timestamp":"2025-09-10T10:%s.000Z","type":%q,"payload":%s}`, ts, typ, payload) + "\n"
}

// Older CLIs: user_message/agent_message events, shell function calls with
// JSON-wrapped outputs, local shell calls, exec_command_end, token counts
// with only totals or no info.
func TestReadCodexOlder(t *testing.T) {
	data := rollLine("00:00", "session_meta", `{"id":"old-1","timestamp":"2025-09-10T10:00:00Z","cwd":"/r","git":{"branch":"main","commit_hash":"abc"}}`) +
		rollLine("00:01", "turn_context", `{"cwd":"/r","model":"gpt-5"}`) +
		rollLine("00:02", "event_msg", `{"type":"user_message","message":"run the tests","images":[]}`) +
		rollLine("00:02", "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"run the tests"}]}`) +
		rollLine("00:03", "response_item", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"]}","call_id":"c1"}`) +
		rollLine("00:04", "response_item", `{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"FAIL x\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.5}}"}`) +
		rollLine("00:05", "event_msg", `{"type":"token_count","info":null}`) +
		rollLine("00:05", "event_msg", `{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10,"reasoning_output_tokens":4,"total_tokens":110}}}`) +
		rollLine("00:06", "response_item", `{"type":"local_shell_call","call_id":"c2","status":"completed","action":{"type":"exec","command":["git","status"]}}`) +
		rollLine("00:07", "response_item", `{"type":"function_call_output","call_id":"c2","output":"Exit code: 0\nclean"}`) +
		rollLine("00:08", "response_item", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"c3"}`) +
		rollLine("00:09", "event_msg", `{"type":"exec_command_end","call_id":"c3","command":["make"],"exit_code":2,"aggregated_output":"no rule"}`) +
		rollLine("00:09", "response_item", `{"type":"function_call_output","call_id":"c3","output":"{\"output\":\"no rule\",\"metadata\":{\"exit_code\":2}}"}`) +
		rollLine("00:10", "turn_context", `{"cwd":"/r","model":"gpt-5-codex"}`) +
		rollLine("00:11", "event_msg", `{"type":"token_count","info":{"total_token_usage":{"input_tokens":250,"cached_input_tokens":100,"output_tokens":30,"reasoning_output_tokens":10,"total_tokens":280}}}`) +
		rollLine("00:12", "event_msg", `{"type":"agent_message","message":"The tests fail in x."}`) +
		rollLine("00:13", "compacted", `{"message":"summary"}`) +
		rollLine("00:14", "future_type", `{"anything":1}`) +
		"not json at all\n" +
		`{"timestamp":"2025-09-10T10:00:15Z","type":"event_msg","payload":{"type":"agent_message","message":"torn` // no newline: a line being written, malformed
	path := writeFile(t, filepath.Join(t.TempDir(), "rollout-old.jsonl"), data)
	s, recs := readAll(t, File{Agent: Codex, Path: path})
	want := []got{
		{Kind: Request, Text: "run the tests", Model: "gpt-5"},
		{Kind: Command, Text: "go test ./... => FAIL x", Exit: 1, Failed: true, Model: "gpt-5"},
		{Kind: Usage, Model: "gpt-5", Tokens: Tokens{Input: 60, Cached: 40, Output: 10, Reasoning: 4}},
		{Kind: Command, Text: "git status => Exit code: 0\nclean", Exit: 0, Model: "gpt-5"},
		{Kind: Command, Text: "make => no rule", Exit: 2, Failed: true, Model: "gpt-5"},
		{Kind: Usage, Model: "gpt-5-codex", Tokens: Tokens{Input: 90, Cached: 60, Output: 20, Reasoning: 6}},
		{Kind: Answer, Text: "The tests fail in x.", Model: "gpt-5-codex"},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records:\ngot  %+v\nwant %+v", recs, want)
	}
	if s.ID != "old-1" || s.Branch != "main" || s.Commit != "abc" || s.Cwd != "/r" {
		t.Errorf("session = %+v", s)
	}
}

func TestReadCodexLongLineSkipped(t *testing.T) {
	long := rollLine("00:01", "event_msg", `{"type":"user_message","message":"`+strings.Repeat("x", MaxLine)+`"}`)
	data := rollLine("00:00", "session_meta", `{"id":"s","cwd":"/r"}`) + long +
		rollLine("00:02", "event_msg", `{"type":"user_message","message":"after"}`)
	path := writeFile(t, filepath.Join(t.TempDir(), "rollout-long.jsonl"), data)
	_, recs := readAll(t, File{Agent: Codex, Path: path})
	if len(recs) != 1 || recs[0].Text != "after" {
		t.Errorf("got %d records, the first %d bytes long; want one, \"after\"", len(recs), len(recs[0].Text))
	}
}

func TestReadCodexTornZstd(t *testing.T) {
	data := fixture(t, "codex-0.169.0.jsonl")
	packed := zst(t, []byte(data))
	path := writeFile(t, filepath.Join(t.TempDir(), "rollout-torn.jsonl.zst"), string(packed[:len(packed)-7]))
	if _, err := Read(context.Background(), File{Agent: Codex, Path: path}, nil); err != nil {
		t.Errorf("Read of a torn stream: %v; want it read as far as it goes", err)
	}
}

func TestCodexFiles(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{
		"sessions/2025/09/10/rollout-a.jsonl",
		"sessions/2025/09/10/rollout-a.jsonl.zst", // the plain copy wins
		"sessions/2025/09/11/rollout-b.jsonl.zst",
		"archived_sessions/rollout-c.jsonl",
		"sessions/2025/09/11/notes.txt",
		"sessions/2025/09/11/other.jsonl",
	} {
		writeFile(t, filepath.Join(home, p), "")
	}
	files, err := CodexFiles(home)
	if err != nil {
		t.Fatal(err)
	}
	var gotPaths []string
	for _, f := range files {
		gotPaths = append(gotPaths, strings.TrimPrefix(f.Path, home+"/"))
	}
	want := []string{"archived_sessions/rollout-c.jsonl", "sessions/2025/09/10/rollout-a.jsonl", "sessions/2025/09/11/rollout-b.jsonl.zst"}
	if !reflect.DeepEqual(gotPaths, want) {
		t.Errorf("CodexFiles = %q; want %q", gotPaths, want)
	}
	if files, err := CodexFiles(filepath.Join(home, "missing")); err != nil || len(files) != 0 {
		t.Errorf("CodexFiles(missing) = %v, %v; want none, no error", files, err)
	}
}

// The file the Gemini CLI 0.61.0 wrote for `gemini -p` running one failing
// command and answering (recorded offline): the tool call's message written
// twice under one id, the opening context in a $set.
func TestReadGeminiRecorded(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "session-x.jsonl"), fixture(t, "gemini-0.61.0.jsonl"))
	s, recs := readAll(t, File{Agent: Gemini, Path: path, Cwd: "/work/repo"})
	m := "gemini-3.1-pro-preview"
	use := Tokens{Input: 200, Cached: 1000, Output: 70, Reasoning: 20}
	want := []got{
		{Kind: Request, Text: "list the missing folder"},
		{Kind: Command, Text: "ls /nonexistent-dir => ls: cannot access '/nonexistent-dir': No such file or directory", Exit: 2, Failed: true, Model: m},
		{Kind: Usage, Model: m, Tokens: use},
		{Kind: Answer, Text: "The folder does not exist.", Model: m},
		{Kind: Usage, Model: m, Tokens: use},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records:\ngot  %+v\nwant %+v", recs, want)
	}
	if s.ID != "2762a387-e404-4b94-bb79-62d5e8eb42ad" || s.Cwd != "/work/repo" || s.Start.IsZero() || s.Last.Before(s.Start) {
		t.Errorf("session = %+v", s)
	}
}

func geminiMsg(id, typ, content string) string {
	return fmt.Sprintf(`{"id":%q,"timestamp":"2025-09-10T10:00:00Z","type":%q,"content":%s}`, id, typ, content) + "\n"
}

func TestReadGeminiPatches(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"a repeated id replaces the earlier copy in its place",
			geminiMsg("a", "user", `"first"`) + geminiMsg("b", "gemini", `"answer"`) + geminiMsg("a", "user", `"first, edited"`),
			[]string{"user:first, edited", "assistant:answer"}},
		{"$rewindTo drops the message and everything after it",
			geminiMsg("a", "user", `"one"`) + geminiMsg("b", "gemini", `"two"`) + geminiMsg("c", "user", `"three"`) +
				`{"$rewindTo":"b"}` + "\n" + geminiMsg("d", "gemini", `"four"`),
			[]string{"user:one", "assistant:four"}},
		{"$rewindTo an unknown id drops everything",
			geminiMsg("a", "user", `"one"`) + `{"$rewindTo":"zzz"}` + "\n" + geminiMsg("b", "user", `"two"`),
			[]string{"user:two"}},
		{"$set messages replace all before",
			geminiMsg("a", "user", `"old"`) + `{"$set":{"messages":[{"id":"x","type":"user","content":[{"text":"from set"}]},{"id":"y","type":"gemini","content":"set answer"}]}}` + "\n" +
				geminiMsg("z", "user", `"after"`),
			[]string{"user:from set", "assistant:set answer", "user:after"}},
		{"a message of a $set replaced later",
			`{"$set":{"messages":[{"id":"x","type":"user","content":"v1"}]}}` + "\n" + geminiMsg("x", "user", `"v2"`),
			[]string{"user:v2"}},
		{"a SessionStart hook's context before the prompt is not the request",
			geminiMsg("a", "user", `[{"text":"<hook_context>## baton: where this worktree stands</hook_context>\n\nfix the build"}]`),
			[]string{"user:fix the build"}},
		{"unknown and malformed lines, info messages",
			"{oops\n" + `{"$future":1}` + "\n" + geminiMsg("i", "info", `"note"`) + geminiMsg("a", "user", `[{"text":"hi"},{"text":" there"}]`),
			[]string{"user:hi there"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := `{"sessionId":"s1","projectHash":"h","startTime":"2025-09-10T10:00:00Z","lastUpdated":"2025-09-10T10:00:00Z","kind":"main"}` + "\n"
			path := writeFile(t, filepath.Join(t.TempDir(), "session-t.jsonl"), meta+tt.data)
			_, recs := readAll(t, File{Agent: Gemini, Path: path})
			var texts []string
			for _, r := range recs {
				texts = append(texts, r.Kind.String()+":"+r.Text)
			}
			if !reflect.DeepEqual(texts, tt.want) {
				t.Errorf("got %q; want %q", texts, tt.want)
			}
		})
	}
}

func TestReadGeminiJSON(t *testing.T) {
	data := `{"sessionId":"old","projectHash":"h","startTime":"2025-08-01T09:00:00Z","lastUpdated":"2025-08-01T09:05:00Z",` +
		`"messages":[{"id":"1","timestamp":"2025-08-01T09:00:01Z","type":"user","content":"fix the build"},` +
		`{"id":"2","timestamp":"2025-08-01T09:00:05Z","type":"gemini","content":"Done.","model":"gemini-2.5-pro",` +
		`"toolCalls":[{"id":"t","name":"run_shell_command","args":{"command":"make"},"status":"success","result":[{"functionResponse":{"id":"t","name":"run_shell_command","response":{"output":"Output: ok"}}}]}],` +
		`"tokens":{"input":10,"output":3,"cached":4,"thoughts":2,"tool":1,"total":16}}]}`
	path := writeFile(t, filepath.Join(t.TempDir(), "session-old.json"), data)
	s, recs := readAll(t, File{Agent: Gemini, Path: path})
	want := []got{
		{Kind: Request, Text: "fix the build"},
		{Kind: Answer, Text: "Done.", Model: "gemini-2.5-pro"},
		{Kind: Command, Text: "make => ok", Exit: 0, Model: "gemini-2.5-pro"},
		{Kind: Usage, Model: "gemini-2.5-pro", Tokens: Tokens{Input: 7, Cached: 4, Output: 5, Reasoning: 2}},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("records:\ngot  %+v\nwant %+v", recs, want)
	}
	if s.ID != "old" || s.Last.Format("15:04") != "09:05" {
		t.Errorf("session = %+v", s)
	}
}

func TestGeminiFiles(t *testing.T) {
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("/work/old"))
	hashed := hex.EncodeToString(sum[:])
	writeFile(t, filepath.Join(dir, "projects.json"), `{"projects":{"/work/repo":"repo","/work/evil":"../../etc"}}`)
	writeFile(t, filepath.Join(dir, "tmp/sub/chats/session-2025-09-10T10-00-ffff.jsonl"), "")
	writeFile(t, filepath.Join(dir, "tmp/sub/.project_root"), "/work/repo/sub\n")
	for _, p := range []string{
		"tmp/repo/chats/session-2025-09-10T10-00-aaaa.jsonl",
		"tmp/repo/chats/session-2025-09-01T10-00-bbbb.json",
		"tmp/repo/chats/session-2025-09-01T10-00-bbbb.jsonl", // carried over: wins
		"tmp/repo/chats/session-2025-08-01T10-00-cccc.json",
		"tmp/repo/chats/notes.txt",
		"tmp/" + hashed + "/chats/session-2025-07-01T10-00-dddd.json",
		"tmp/other/chats/session-2025-09-10T10-00-eeee.jsonl",
	} {
		writeFile(t, filepath.Join(dir, p), "")
	}
	writeFile(t, filepath.Join(dir, "tmp/other/.project_root"), "/work/other\n")
	list := func(projects []string) []string {
		files, err := GeminiFiles(dir, projects)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			out = append(out, strings.TrimPrefix(f.Path, dir+"/tmp/")+" @"+f.Cwd)
		}
		return out
	}
	if got, want := list([]string{"/work/repo", "/work/old", "/work/evil"}), []string{
		hashed + "/chats/session-2025-07-01T10-00-dddd.json @/work/old",
		"repo/chats/session-2025-08-01T10-00-cccc.json @/work/repo",
		"repo/chats/session-2025-09-01T10-00-bbbb.jsonl @/work/repo",
		"repo/chats/session-2025-09-10T10-00-aaaa.jsonl @/work/repo",
		"sub/chats/session-2025-09-10T10-00-ffff.jsonl @/work/repo/sub",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("projects' files:\ngot  %q\nwant %q", got, want)
	}
	all := list(nil)
	if len(all) != 6 || !strings.Contains(strings.Join(all, "\n"), "other/chats/session-2025-09-10T10-00-eeee.jsonl @/work/other") {
		t.Errorf("every project's files: %q", all)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		dir  string
		want bool
	}{
		{"/work/repo", true},
		{"/work/repo/sub/dir", true},
		{"/work/repo/", true},
		{"/work/repository", false},
		{"/work", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Within(tt.dir, []string{"/work/repo", "/other"}); got != tt.want {
			t.Errorf("Within(%q) = %v; want %v", tt.dir, got, tt.want)
		}
	}
}

func TestParseAgent(t *testing.T) {
	for _, s := range []string{"claude", "Codex", " gemini "} {
		if _, err := ParseAgent(s); err != nil {
			t.Errorf("ParseAgent(%q): %v", s, err)
		}
	}
	if _, err := ParseAgent("cursor"); err == nil {
		t.Error("ParseAgent(cursor) gave no error")
	}
}

func TestFilesCodexByFolder(t *testing.T) {
	home := t.TempDir()
	meta := func(cwd string) string {
		return rollLine("00:00", "session_meta", fmt.Sprintf(`{"id":"x","cwd":%q}`, cwd)) + rollLine("00:01", "event_msg", `{"type":"user_message","message":"hi"}`)
	}
	writeFile(t, filepath.Join(home, "sessions/2025/09/10/rollout-in.jsonl"), meta("/work/repo"))
	writeFile(t, filepath.Join(home, "sessions/2025/09/10/rollout-below.jsonl"), meta("/work/repo/cmd"))
	writeFile(t, filepath.Join(home, "sessions/2025/09/10/rollout-out.jsonl"), meta("/work/repo2"))
	writeFile(t, filepath.Join(home, "archived_sessions/rollout-packed.jsonl.zst"), string(zst(t, []byte(meta("/work/repo")))))
	files, err := Files(context.Background(), Codex, Dirs{Codex: home}, []string{"/work/repo"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f.Path)+"@"+f.Cwd)
	}
	want := []string{"rollout-packed.jsonl.zst@/work/repo", "rollout-below.jsonl@/work/repo/cmd", "rollout-in.jsonl@/work/repo"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("Files = %q; want %q", names, want)
	}
}
