package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchPieces returns pieces of the text baton sees: source code, shell
// sessions, JSON tool output and prose in English and Japanese.
func benchPieces() []string {
	return []string{
		`func (j *Journal) Append(ctx context.Context, rec Record) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("append %s: %w", j.path, err)
	}
	return nil
}
`,
		`type Config struct {
	Token    string        ` + "`yaml:\"token\"`" + `
	Timeout  time.Duration ` + "`yaml:\"timeout\"`" + `
	MaxTokens int          ` + "`yaml:\"max_tokens\"`" + `
}

cfg := Config{Token: token, Timeout: 30 * time.Second, MaxTokens: 4096}
for i, b := range buf[:n] { if b == '=' || b == ':' { count++ } ; _ = i }
`,
		`$ git status --short
 M internal/journal/append.go
?? internal/redact/
$ go test ./internal/... -count=1
ok  	github.com/baton-cli/baton/internal/journal	0.412s
ok  	github.com/baton-cli/baton/internal/config	0.031s
$ ls -la /home/user/src/baton
drwxr-xr-x  9 user user 4096 Jan  2 03:04 .
-rw-r--r--  1 user user  812 Jan  2 03:04 go.mod
`,
		`{"ts":"2026-01-02T03:04:05Z","event":"PostToolUse","tool":"Bash","session":"3f2a9c1e-7b4d-4e8a-9f0c-2d1b6a5e8c7f","cwd":"/home/user/src/baton","branch":"main","desc":"go test ./... -run TestAppend"}
{"ts":"2026-01-02T03:04:06Z","event":"PostToolUse","tool":"Edit","file":"internal/journal/append.go","desc":"add lock around write","tool_input":{"old_string":"f.Write(line)","new_string":"j.mu.Lock()\n\tf.Write(line)"}}
`,
		`{"total_count": 2, "items": [{"id": 1842, "number": 17, "title": "Resume briefing loses the last decision", "state": "open", "labels": [{"name": "bug"}, {"name": "baton:worker"}], "comments": 3, "created_at": "2026-01-01T10:00:00Z", "body": "Steps: run baton resume after compact; expected the decision from issue #12."}]}
`,
		`The resume briefing tells the next session where the previous one left off: the task in progress, what was finished, and the next step. When the hand-kept state file is older than the journal, baton builds the briefing from the newest journal records instead, so a crash or a compaction never loses more than the last tool call.
`,
		`セッションが途中で終わっても、次のセッションは前回の続きから始められます。baton は各フックの記録をジャーナルに追記し、再開時に「いまやってること」と「次の一手」をまとめて渡します。設定ファイルは ~/.config/baton/config.yaml にあります。
`,
		`diff --git a/internal/hook/run.go b/internal/hook/run.go
@@ -41,7 +41,9 @@ func Run(ctx context.Context, in io.Reader, out io.Writer) error {
-	rec.Desc = p.ToolInput.Command
+	rec.Desc = redact.Redact(p.ToolInput.Command)
+	rec.Prompt = excerpt(redact.Redact(p.Prompt), 200)
`,
		`<div class="card"><a href="https://github.com/baton-cli/baton/issues/17?tab=comments">#17</a> <span data-state="open">open</span></div>
SELECT id, ts, tool FROM records WHERE session = ? AND ts >= ? ORDER BY ts DESC LIMIT 50;
`,
	}
}

// mixedText returns about size bytes of benchPieces in a fixed random order
// with a secret of each kind now and then (about one per 16 KB).
func mixedText(size int) string {
	f := newFakes()
	pieces := benchPieces()
	secrets := []string{
		"export GITHUB_TOKEN=" + f.ghp + "\n",
		"ANTHROPIC_API_KEY=" + f.anthropic + "\n",
		`{"headers":{"Authorization":"Bearer ` + f.bearerHex + `"}}` + "\n",
		"aws_access_key_id = " + f.akia + "\n",
		"password: hunter2\n",
		f.pemRSA + "\n",
		"slack: " + f.slackBot + "\n",
		"id_token=" + f.jwt + "\n",
	}
	g := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	next := 0
	for b.Len() < size {
		b.WriteString(pieces[g.IntN(len(pieces))])
		if b.Len() >= next {
			b.WriteString(secrets[g.IntN(len(secrets))])
			next += 16 << 10
		}
	}
	return b.String()
}

func BenchmarkRedact(b *testing.B) {
	record := `{"ts":"2026-01-02T03:04:05Z","event":"PostToolUse","tool":"Bash","session":"3f2a9c1e-7b4d-4e8a-9f0c","cwd":"/home/user/src/baton","branch":"main","desc":"go test ./internal/journal -run TestAppend"}`
	for _, bc := range []struct {
		name string
		in   string
	}{
		{"mixed-1MB", mixedText(1 << 20)},
		// Every line crowded with gitleaks' keywords: the worst case for the
		// rules, held down by their budget.
		{"crafted-keywords-1MB", craftedKeywords(1 << 20)},
		{fmt.Sprintf("hook-record-%dB", len(record)), record},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				Redact(bc.in)
			}
		})
	}
}

// TestMixedTextHasSecrets keeps the benchmark honest: its text must hold
// secrets to replace and be mostly text to keep.
func TestMixedTextHasSecrets(t *testing.T) {
	in := mixedText(1 << 20)
	got := Redact(in)
	n := strings.Count(got, marker)
	if n < 32 {
		t.Errorf("Redact(mixedText) made %d replacements; want at least 32", n)
	}
	if len(got) < len(in)*9/10 {
		t.Errorf("Redact(mixedText) kept %d of %d bytes; want at least 90%%", len(got), len(in))
	}
}

// craftedKeywords returns about size bytes of lines that hold every keyword
// of gitleaks' rules.
func craftedKeywords(size int) string {
	var b strings.Builder
	for _, k := range gitleaksKeywords {
		b.WriteString(k.text + " = x ")
	}
	line := b.String() + "\n"
	return strings.Repeat(line, max(1, size/len(line)))
}
