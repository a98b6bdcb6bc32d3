package security_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudetest"
)

// stepWait bounds each wait for an answer of a real baton process on a
// loaded machine.
const stepWait = time.Minute

// batonCmd is the real baton binary with args, run in dir with a home of
// its own and nothing else of the developer's environment.
func batonCmd(t *testing.T, ctx context.Context, dir, home string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, filepath.Join(claudetest.BuildBaton(t), "baton"), args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// gitRepo is a fresh repository for baton to run in.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// The attack: one malformed line ended `baton mcp` (12 of 22 raw protocol
// inputs), and Claude Code lost baton's tools for the rest of the session.
// Each input here is followed by a valid tools/list that the same process
// must answer; a malformed one must first get its JSON-RPC error.
func TestMCPServerSurvivesMalformedInput(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	inputs := []struct {
		name     string
		line     string
		wantCode int64 // 0: no error answer expected
	}{
		{"not JSON", "hello", -32700},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/li`, -32700},
		{"two values", `{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}`, -32700},
		{"trailing bytes", `{"jsonrpc":"2.0","id":2,"method":"ping"}}`, -32700},
		{"empty object", `{}`, -32600},
		{"bare number", `42`, -32600},
		{"bare string", `"tools/list"`, -32600},
		{"null", `null`, -32600},
		{"true", `true`, -32600},
		{"empty batch", `[]`, -32600},
		{"batch of invalid", `[1,2,3]`, -32600},
		{"batch of requests", `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, -32600},
		{"no version tag", `{"id":5,"method":"tools/list"}`, -32600},
		{"version 1.0", `{"jsonrpc":"1.0","id":6,"method":"tools/list"}`, -32600},
		{"method a number", `{"jsonrpc":"2.0","id":7,"method":7}`, -32600},
		{"neither method nor id", `{"jsonrpc":"2.0","result":{}}`, -32600},
		{"nested 2000 deep", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"x":` + deep(2000) + `}}`, -32600},
		{"nested 100000 deep", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":` + deep(100000) + `}`, -32700},
		{"50 MB line", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"x":"` + strings.Repeat("A", 50<<20) + `"}}`, -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":11,"method":"no/such"}`, -32601},
		{"params a number", `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":5}`, -32602},
		{"NUL bytes", "\x00\x00\x00", -32700},
		{"response to nothing", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0},
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cmd := batonCmd(t, ctx, gitRepo(t), t.TempDir(), "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("write to baton mcp: %v (it exited?)\nstderr: %s", err, stderr.String())
		}
	}
	// until reads answers up to the one whose id is id, and returns those
	// before it and that one.
	until := func(id string) (before []string, answer string) {
		t.Helper()
		timeout := time.After(stepWait)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("baton mcp closed its output before answering %s\nstderr: %s", id, stderr.String())
				}
				var m struct{ ID json.RawMessage }
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("answer %.200q is not JSON: %v", line, err)
				}
				if string(m.ID) == id {
					return before, line
				}
				before = append(before, line)
			case <-timeout:
				t.Fatalf("no answer to %s within %v", id, stepWait)
			}
		}
	}

	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"security-test","version":"1"}}}`)
	until(`"init"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	answered := 0
	for i, in := range inputs {
		id := fmt.Sprintf(`"after-%d"`, i)
		send(in.line)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		before, _ := until(id)
		answered++
		// A request with a valid id is handled by the server like any
		// other, concurrently: its error may come after the answer to
		// the tools/list sent behind it.
		if rid := requestID(in.line); rid != "" && in.wantCode != 0 && len(before) == 0 {
			late, answer := until(rid)
			before = append(before, append(late, answer)...)
		}
		if in.wantCode == 0 {
			if len(before) != 0 {
				t.Errorf("%s: answered %.300q; want nothing", in.name, before)
			}
			continue
		}
		if len(before) != 1 {
			t.Errorf("%s: answers %.300q; want one error", in.name, before)
			continue
		}
		var a struct {
			Error *struct{ Code int64 }
		}
		if err := json.Unmarshal([]byte(before[0]), &a); err != nil || a.Error == nil || a.Error.Code != in.wantCode {
			t.Errorf("%s: answer %.300s; want error %d", in.name, before[0], in.wantCode)
		}
	}
	t.Logf("%d of %d malformed inputs followed by an answered tools/list", answered, len(inputs))

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("baton mcp exited with %v after its input closed; want 0\nstderr: %s", err, stderr.String())
	}
}

// The attack: `session-closer read-transcript` read any path it was given
// (/etc/shadow came back verbatim) and hung on a FIFO for over ten
// minutes, ignoring SIGTERM. A model steered by planted text chooses that
// path. Each request here goes to a real baton process, which must answer
// within stepWait, refuse what is not a transcript, and exit 0.
func TestSessionCloserReadsOnlyTranscripts(t *testing.T) {
	home, repo, outside := t.TempDir(), gitRepo(t), t.TempDir()
	shadow := filepath.Join(outside, "shadow")
	secret := "root:$6$Zq1zQ0pY$planted-hash:19000:0:99999:7:::"
	if err := os.WriteFile(shadow, []byte(`{"type":"user","message":{"role":"user","content":"`+secret+`"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	projects := filepath.Join(home, ".claude", "projects", "-repo")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(projects, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shadow, filepath.Join(projects, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(projects, "linked")); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(projects, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"type":"user","message":{"role":"user","content":"a real transcript"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		path string
		want string // in the response
	}{
		{"a file outside", shadow, "in neither Claude Code's projects folders"},
		{"dot-dot out of the projects folder", filepath.Join(projects, "..", "..", "..", "..", filepath.Base(outside), "shadow"), "in neither"},
		{"a link inside to a file outside", filepath.Join(projects, "link.jsonl"), "in neither"},
		{"a linked folder inside", filepath.Join(projects, "linked", "shadow"), "in neither"},
		{"a FIFO inside", fifo, "is a FIFO"},
		{"/etc/shadow itself", "/etc/shadow", "in neither"},
		{"a transcript", good, "a real transcript"},
	}
	for _, tt := range tests {
		for _, sub := range []string{"read-transcript", "extract"} {
			t.Run(tt.name+"/"+sub, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(t.Context(), stepWait)
				defer cancel()
				cmd := batonCmd(t, ctx, repo, home, "session-closer")
				req, _ := json.Marshal(map[string]any{"schema_version": 1, "subcommand": sub, "session_id": "s1", "project_dir": repo, "transcript_path": tt.path, "offset": 0})
				cmd.Stdin = strings.NewReader(string(req))
				out, err := cmd.Output()
				if ctx.Err() != nil {
					t.Fatalf("no answer within %v", stepWait)
				}
				if err != nil {
					t.Fatalf("baton session-closer: %v; want exit 0", err)
				}
				if strings.Contains(string(out), "planted-hash") {
					t.Fatalf("answer %s holds the file outside", out)
				}
				want := tt.want
				if sub == "extract" && want == "a real transcript" {
					want = `"ok":true` // extract answers candidates, not the text
				}
				if !strings.Contains(string(out), want) {
					t.Errorf("answer %s; want %q", out, want)
				}
			})
		}
	}
}

// requestID is the id of line when it is a well-formed request (a method
// name and a number or string id, in JSON-RPC 2.0), else "".
func requestID(line string) string {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.JSONRPC != "2.0" || len(m.Method) == 0 || m.Method[0] != '"' || len(m.ID) == 0 {
		return ""
	}
	if c := m.ID[0]; c == '"' || c == '-' || c >= '0' && c <= '9' {
		return string(m.ID)
	}
	return ""
}
