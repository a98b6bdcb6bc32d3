package security_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
)

// Secrets in prose: prompts that name a password, a key or a login in
// passing, or hold a command with its secret inside a sentence, must not
// reach the journal; and a transcript written with ": " between keys and
// values must not bring the secrets of its tool inputs into index.db,
// `baton search` or `session-closer read-transcript`.

// promptSecrets are the prompts of the security review, each with the
// secret it holds.
var promptSecrets = []struct{ prompt, secret string }{
	{"I ran curl -u admin:Adm1nPa55word against jenkins", "Adm1nPa55word"},
	{"the db password is Tr0ub4dor&3xyzQ", "Tr0ub4dor&3xyzQ"},
	{"login: admin / P@ssw0rd!2024", "P@ssw0rd!2024"},
	{"run: mysql -u root -pMyS3cretPw99 shop", "MyS3cretPw99"},
	{"The API key is 8f14e45fceea167a5a36dedd4bea2543 for the staging env", "8f14e45fceea167a5a36dedd4bea2543"},
	{"パスワードは Tr0ub4dor&3xyzQ です", "Tr0ub4dor&3xyzQ"},
	{"then sshpass -p Depl0y!Now ssh deploy@10.0.0.5 restarted it", "Depl0y!Now"},
	{"it works with PGPASSWORD=pgS3cret2026 psql -h db -U app", "pgS3cret2026"},
	{"log in with --password=Sup3rS3cretPw on the CLI", "Sup3rS3cretPw"},
	{"export GITHUB_TOKEN=ghp_q8Zr2LmX7vKp3NcY9wTb4HsJ6dFa1GeU5oRi and retry", "ghp_q8Zr2LmX7vKp3NcY9wTb4HsJ6dFa1GeU5oRi"},
}

func TestPromptSecretsStayOutOfTheJournal(t *testing.T) {
	home, repo := t.TempDir(), gitRepo(t)
	for _, p := range promptSecrets {
		payload, err := json.Marshal(map[string]any{
			"session_id": "s-prose", "hook_event_name": "UserPromptSubmit", "cwd": repo,
			"transcript_path": filepath.Join(home, "t.jsonl"), "prompt": p.prompt,
		})
		if err != nil {
			t.Fatal(err)
		}
		runBaton(t, repo, home, payload, "hook")
	}
	state := filepath.Join(repo, ".claude", "session-state")
	journal, err := os.ReadFile(filepath.Join(state, "auto.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(journal, []byte(`"event":"UserPromptSubmit"`)); got != len(promptSecrets) {
		t.Fatalf("the journal holds %d prompt records; want %d:\n%s", got, len(promptSecrets), journal)
	}
	leaks := 0
	for name, b := range filesUnder(t, state, home) {
		for _, p := range promptSecrets {
			if containsSecret(b, p.secret) {
				leaks++
				t.Errorf("%s holds %q from the prompt %q", name, p.secret, p.prompt)
			}
		}
	}
	t.Logf("%d prompts with secrets: %d leaks", len(promptSecrets), leaks)
}

// transcriptSecrets go into the tool inputs and results of a transcript.
var transcriptSecrets = []struct{ command, secret string }{
	{"curl -u admin:Adm1nPa55word https://jenkins.example.com/api/json", "Adm1nPa55word"},
	{"mysql -u root -pMyS3cretPw99 shop -e 'select 1'", "MyS3cretPw99"},
	{"sshpass -p Depl0y!Now ssh deploy@10.0.0.5 uptime", "Depl0y!Now"},
	{"docker login -u ci -p Reg1stry#Pass registry.example.com", "Reg1stry#Pass"},
	{"redis-cli -h cache -a R3d1sAuth99 ping", "R3d1sAuth99"},
	{"echo 'パスワードは Kanri!Pass9 です' > note.txt", "Kanri!Pass9"},
}

func TestSpacedTranscriptSecretsStayOutOfIndexAndReaders(t *testing.T) {
	home, repo := t.TempDir(), gitRepo(t)
	dir := claudecode.TranscriptDir(home, repo)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "s-spaced.jsonl")
	if err := os.WriteFile(transcript, spacedTranscript(t, repo), 0o600); err != nil {
		t.Fatal(err)
	}

	// baton search catches the index up from the transcript and finds the
	// commands by a word of theirs.
	out := runBaton(t, repo, home, nil, "search", "jenkins", "--json")
	if !bytes.Contains(out, []byte(`"kind": "transcript"`)) {
		t.Fatalf("baton search jenkins found no transcript message:\n%s", out)
	}
	leaks := 0
	check := func(where string, b []byte) {
		t.Helper()
		for _, s := range transcriptSecrets {
			if containsSecret(b, s.secret) {
				leaks++
				t.Errorf("%s holds %q", where, s.secret)
			}
		}
	}
	check("baton search", out)
	for _, q := range []string{"mysql", "sshpass", "registry", "redis", "note"} {
		check("baton search "+q, runBaton(t, repo, home, nil, "search", q))
	}

	// The index itself, its write-ahead log included.
	state := filepath.Join(repo, ".claude", "session-state")
	found := false
	for name, b := range filesUnder(t, state) {
		if strings.HasPrefix(filepath.Base(name), "index.db") {
			found = true
			check(name, b)
		}
	}
	if !found {
		t.Fatalf("no index.db under %s", state)
	}

	// session-closer read-transcript hands the raw lines to the skill.
	req, err := json.Marshal(map[string]any{
		"schema_version": 1, "subcommand": "read-transcript", "session_id": "s-spaced",
		"project_dir": repo, "transcript_path": transcript, "offset": 0,
	})
	if err != nil {
		t.Fatal(err)
	}
	out = runBaton(t, repo, home, req, "session-closer")
	var resp struct {
		OK     bool `json:"ok"`
		Result struct {
			Content string `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || !resp.OK || !strings.Contains(resp.Result.Content, "jenkins") {
		t.Fatalf("read-transcript answered %s (%v); want ok and the transcript's lines", out, err)
	}
	check("read-transcript", []byte(resp.Result.Content))
	t.Logf("%d secrets in a transcript as json.dumps writes it: %d leaks into search, index.db and read-transcript", len(transcriptSecrets), leaks)
}

// spacedTranscript returns a Claude Code transcript written as Python's
// json.dumps writes JSON by default: a space after each ':' and ',', and
// each character beyond ASCII escaped (\u30d1…). It holds each command of
// transcriptSecrets run by Bash, and its output.
func spacedTranscript(t *testing.T, cwd string) []byte {
	t.Helper()
	q := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var e strings.Builder
		for _, r := range string(b) {
			if r < 0x80 {
				e.WriteRune(r)
			} else {
				fmt.Fprintf(&e, `\u%04x`, r)
			}
		}
		return e.String()
	}
	var b bytes.Buffer
	at := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC)
	line := func(typ, content string) {
		fmt.Fprintf(&b, `{"type": %q, "uuid": "u-%d", "sessionId": "s-spaced", "cwd": %s, "timestamp": %q, "message": {"role": %q, "content": %s}}`+"\n",
			typ, b.Len(), q(cwd), at.Format(time.RFC3339Nano), typ, content)
		at = at.Add(time.Minute)
	}
	line("user", q("check the services on staging"))
	for i, s := range transcriptSecrets {
		id := fmt.Sprintf("toolu_0%d", i)
		line("assistant", fmt.Sprintf(`[{"type": "tool_use", "id": %q, "name": "Bash", "input": {"command": %s, "description": "Check it"}}]`, id, q(s.command)))
		line("user", fmt.Sprintf(`[{"type": "tool_result", "tool_use_id": %q, "content": %s}]`, id, q("$ "+s.command+"\nok")))
	}
	return b.Bytes()
}

// containsSecret reports whether b holds secret as it is or escaped as
// JSON writes it.
func containsSecret(b []byte, secret string) bool {
	q, _ := json.Marshal(secret)
	return bytes.Contains(b, []byte(secret)) || bytes.Contains(b, q[1:len(q)-1])
}

// runBaton runs the real baton with args in dir for a user whose home is
// home, stdin as its input, and returns its output; it fails t when baton
// fails.
func runBaton(t *testing.T, dir, home string, stdin []byte, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepWait)
	defer cancel()
	cmd := batonCmd(t, ctx, dir, home, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("baton %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// filesUnder returns the contents of the regular files under the folders,
// by path.
func filesUnder(t *testing.T, dirs ...string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			files[p] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}
