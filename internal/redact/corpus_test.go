package redact

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The corpus tests measure Redact on realistic text: lines that carry a
// secret (testdata/secrets.txt, filled with fake values, and
// testdata/prose-secrets.txt, prose that names a secret in passing) must
// lose it, written alone, in a journal record and in a transcript line
// with either JSON spacing; and ordinary lines (testdata/ordinary.txt,
// lines generated from the templates below, and testdata/prose-ordinary.txt,
// prose about passwords, keys and logins that holds none) must stay as they
// are.

const (
	minSecretLines        = 200
	minOrdinaryLines      = 1000
	minProseSecretLines   = 60
	minProseOrdinaryLines = 200
	maxAlteredShare       = 0.01
)

// readCorpus returns the lines of a testdata file, without comments and
// blank lines.
func readCorpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "# ") && l != "#" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// fakeValues makes fake secrets of each kind used in testdata/secrets.txt.
type fakeValues struct{ g *rand.Rand }

func (f fakeValues) rnd(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[f.g.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	hexDigits  = "0123456789abcdef"
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	letters    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// mixed returns n bytes of alphabet holding an upper-case letter, a
// lower-case letter and a digit, as generated secrets do.
func (f fakeValues) mixed(alphabet string, n int) string {
	for {
		v := f.rnd(alphabet, n)
		if strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(v, digits) {
			return v
		}
	}
}

func (f fakeValues) value(kind string) string {
	switch kind {
	case "pw", "pw2":
		return f.rnd(letters, 1) + f.mixed(alnum+"!%^*_+.-", 13)
	case "urlpw":
		return f.mixed(alnum, 16)
	case "hex20", "hex32", "hex37", "hex40", "hex64":
		var n int
		fmt.Sscanf(kind, "hex%d", &n)
		return f.rnd(hexDigits, n)
	case "alnum24", "alnum28", "alnum32", "alnum40", "alnum43", "rand32", "rand40", "sess":
		n := 32
		fmt.Sscanf(strings.TrimLeft(kind, "alnumrandsess"), "%d", &n)
		return f.mixed(alnum, n)
	case "b64_44", "b64_60", "b64_88", "b64_300":
		var n int
		fmt.Sscanf(kind, "b64_%d", &n)
		return base64.StdEncoding.EncodeToString([]byte(f.rnd(alnum+"!#%&()*+,-./:;<>?@[]^_{|}~", n*3/4)))
	case "b64url43", "b64url68", "b64url80":
		var n int
		fmt.Sscanf(kind, "b64url%d", &n)
		return f.mixed(b64url, n)
	case "digits18":
		return f.rnd("123456789", 1) + f.rnd(digits, 17)
	case "uuid":
		return f.rnd(hexDigits, 8) + "-" + f.rnd(hexDigits, 4) + "-4" + f.rnd(hexDigits, 3) + "-a" + f.rnd(hexDigits, 3) + "-" + f.rnd(hexDigits, 12)
	case "ghp", "gho", "ghs":
		return kind + "_" + f.mixed(alnum, 36)
	case "github_pat":
		return "github_pat_11" + f.rnd(upperAlnum, 20) + "_" + f.mixed(alnum, 59)
	case "glpat":
		return "glpat-" + f.mixed(b64url, 20)
	case "openai":
		return "sk-proj-" + f.mixed(b64url, 74) + "T3BlbkFJ" + f.mixed(b64url, 74)
	case "anthropic":
		return "sk-ant-api03-" + f.mixed(b64url, 93) + "AA"
	case "aws_id":
		return "AKIA" + f.rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	case "aws_secret":
		return f.mixed(alnum+"+/", 40)
	case "stripe":
		return "sk_live_" + f.mixed(alnum, 24)
	case "stripe_test":
		return "sk_test_" + f.mixed(alnum, 24)
	case "sendgrid":
		return "SG." + f.mixed(b64url, 22) + "." + f.mixed(b64url, 43)
	case "slack_bot":
		return "xoxb-" + f.rnd(digits, 12) + "-" + f.rnd(digits, 13) + "-" + f.mixed(alnum, 24)
	case "slack_app":
		return "xapp-1-A" + f.rnd(upperAlnum, 10) + "-" + f.rnd(digits, 13) + "-" + f.rnd(hexDigits, 64)
	case "slackhook":
		return "T" + f.rnd(upperAlnum, 8) + "/B" + f.rnd(upperAlnum, 8) + "/" + f.mixed(alnum, 24)
	case "npm":
		return "npm_" + f.mixed(alnum, 36)
	case "hf":
		return "hf_" + f.rnd(letters, 34)
	case "dop":
		return "dop_v1_" + f.rnd(hexDigits, 64)
	case "vault":
		return "hvs." + f.mixed(b64url, 95)
	case "doppler":
		return "dp.pt." + f.mixed(alnum, 43)
	case "pulumi":
		return "pul-" + f.rnd(hexDigits, 40)
	case "linear":
		return "lin_api_" + f.mixed(alnum, 40)
	case "postman":
		return "PMAK-" + f.rnd(hexDigits, 24) + "-" + f.rnd(hexDigits, 34)
	case "mailgun":
		return "key-" + f.rnd(hexDigits, 32)
	case "telegram":
		return f.rnd("123456789", 1) + f.rnd(digits, 9) + ":AA" + f.rnd(lowerAlnum+"_-", 33)
	case "twilio":
		return "SK" + f.rnd(hexDigits, 32)
	case "shpat":
		return "shpat_" + f.rnd(hexDigits, 32)
	case "databricks":
		return "dapi" + f.rnd(hexDigits, 32)
	case "grafana":
		return "glsa_" + f.mixed(alnum, 32) + "_" + f.rnd(hexDigits, 8)
	case "newrelic":
		return "NRAK-" + f.rnd(upperAlnum, 27)
	case "age":
		return "AGE-SECRET-KEY-1" + f.rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
	case "azure":
		return f.rnd(alnum, 3) + f.rnd(digits, 1) + "Q~" + f.mixed(alnum+"_~.-", 34)
	case "google":
		return "AIza" + f.mixed(b64url, 35)
	case "pypi":
		return "pypi-AgEIcHlwaS5vcmc" + f.mixed(b64url, 70)
	case "basic":
		return base64.StdEncoding.EncodeToString([]byte("admin:" + f.mixed(alnum, 12)))
	case "bearer":
		return f.rnd(hexDigits, 40)
	case "jwt":
		enc := base64.RawURLEncoding.EncodeToString
		return enc([]byte(`{"alg":"RS256","kid":"`+f.rnd(hexDigits, 8)+`"}`)) + "." +
			enc([]byte(`{"sub":"`+f.rnd(digits, 10)+`","exp":1767225600}`)) + "." + f.mixed(b64url, 86)
	}
	panic("no fake value of kind " + kind)
}

var placeholderPattern = regexp.MustCompile(`\{([a-z0-9_]+)\}`)

// fill replaces the {kind} placeholders of a template with fake values and
// returns the line and the values.
func (f fakeValues) fill(tmpl string) (string, []string) {
	var secrets []string
	line := placeholderPattern.ReplaceAllStringFunc(tmpl, func(m string) string {
		v := f.value(m[1 : len(m)-1])
		secrets = append(secrets, v)
		return v
	})
	return line, secrets
}

// hookRecord wraps a line as the journal records a command.
func hookRecord(t *testing.T, line string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the journal writes them
	err := enc.Encode(map[string]any{
		"ts": "2026-01-02T03:04:05Z", "event": "PostToolUse", "tool": "Bash",
		"tool_input": map[string]string{"command": line, "description": "Run it"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// leaked returns the first part of a secret that is still in out: the whole
// value or its second half (a replacement that stopped short).
func leaked(out, secret string) string {
	parts := []string{secret}
	if len(secret) >= 16 {
		parts = append(parts, secret[len(secret)/2:])
	}
	for _, p := range parts {
		if strings.Contains(out, p) {
			return p
		}
		if q, _ := json.Marshal(p); strings.Contains(out, string(q[1:len(q)-1])) {
			return p
		}
	}
	return ""
}

func TestCorpusSecretsLeakNothing(t *testing.T) {
	templates := readCorpus(t, "testdata/secrets.txt")
	if len(templates) < minSecretLines {
		t.Fatalf("testdata/secrets.txt has %d lines; want at least %d", len(templates), minSecretLines)
	}
	f := fakeValues{rand.New(rand.NewPCG(7, 8))}
	leaks := 0
	for _, tmpl := range templates {
		line, secrets := f.fill(tmpl)
		if len(secrets) == 0 {
			t.Errorf("template %q has no {kind} placeholder", tmpl)
		}
		leaks += leaks1(t, line, secrets)
	}
	t.Logf("%d lines with secrets, each alone, in a hook record and in transcript lines: %d leaks", len(templates), leaks)
}

// leaks1 redacts line alone, in a hook record and in a transcript line with
// each JSON spacing, reports each secret left in the output and returns
// how many were.
func leaks1(t *testing.T, line string, secrets []string) int {
	t.Helper()
	leaks := 0
	for _, in := range []string{line, hookRecord(t, line), transcriptLine(t, line, false), transcriptLine(t, line, true)} {
		for _, out := range []string{Redact(in), string(JSONLines([]byte(in)))} {
			for _, s := range secrets {
				if p := leaked(out, s); p != "" {
					leaks++
					t.Errorf("Redact(%q) = %q; want no %q", in, out, p)
				}
			}
		}
	}
	return leaks
}

// transcriptLine wraps a line as a Claude Code transcript holds a command:
// a tool_use block whose input is the line. With spaced, the JSON has a
// space after each ':' and ',' between tokens, as other writers (Python's
// json.dumps) put them.
func transcriptLine(t *testing.T, line string, spaced bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(map[string]any{
		"type": "assistant", "timestamp": "2026-01-02T03:04:05Z",
		"message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Running it now."},
			map[string]any{"type": "tool_use", "id": "toolu_01", "name": "Bash",
				"input": map[string]string{"command": line, "description": "Run it"}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if spaced {
		out = spaceJSON(out)
	}
	return out
}

// spaceJSON puts a space after every ':' and ',' of compact JSON that is
// not inside a string.
func spaceJSON(s string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// Marks around the secret in a line of testdata/prose-secrets.txt.
const (
	openSecret  = "⟦"
	closeSecret = "⟧"
)

// unmark returns a line of testdata/prose-secrets.txt without its marks,
// and the secrets that were between them.
func unmark(t *testing.T, l string) (string, []string) {
	var b strings.Builder
	var secrets []string
	for {
		i := strings.Index(l, openSecret)
		if i < 0 {
			break
		}
		j := strings.Index(l[i:], closeSecret)
		if j < 0 {
			t.Fatalf("unclosed %s in %q", openSecret, l)
		}
		b.WriteString(l[:i])
		secret := l[i+len(openSecret) : i+j]
		b.WriteString(secret)
		secrets = append(secrets, secret)
		l = l[i+j+len(closeSecret):]
	}
	b.WriteString(l)
	return b.String(), secrets
}

func TestCorpusProseSecretsLeakNothing(t *testing.T) {
	lines := readCorpus(t, "testdata/prose-secrets.txt")
	if len(lines) < minProseSecretLines {
		t.Fatalf("testdata/prose-secrets.txt has %d lines; want at least %d", len(lines), minProseSecretLines)
	}
	leaks, leakyLines := 0, 0
	for _, l := range lines {
		line, secrets := unmark(t, l)
		if len(secrets) == 0 {
			t.Errorf("line %q marks no secret", l)
		}
		if n := leaks1(t, line, secrets); n > 0 {
			leaks += n
			leakyLines++
		}
	}
	t.Logf("%d prose lines with secrets, each alone, in a hook record and in transcript lines: %d leaks from %d lines", len(lines), leaks, leakyLines)
}

func TestCorpusProseOrdinaryLinesStay(t *testing.T) {
	lines := readCorpus(t, "testdata/prose-ordinary.txt")
	if len(lines) < minProseOrdinaryLines {
		t.Fatalf("testdata/prose-ordinary.txt has %d lines; want at least %d", len(lines), minProseOrdinaryLines)
	}
	altered := 0
	for _, l := range lines {
		for _, in := range []string{l, transcriptLine(t, l, true)} {
			if got := Redact(in); got != in {
				altered++
				t.Logf("altered: %q\n      -> %q", in, got)
				break
			}
		}
	}
	share := float64(altered) / float64(len(lines))
	t.Logf("%d ordinary prose lines, alone and in a transcript line: %d altered (%.2f%%)", len(lines), altered, 100*share)
	if share > maxAlteredShare {
		t.Errorf("Redact altered %d of %d ordinary prose lines (%.2f%%); want at most %.0f%%", altered, len(lines), 100*share, 100*maxAlteredShare)
	}
}

func TestCorpusOrdinaryLinesStay(t *testing.T) {
	lines := append(readCorpus(t, "testdata/ordinary.txt"), generatedOrdinary(rand.New(rand.NewPCG(9, 10)))...)
	if len(lines) < minOrdinaryLines {
		t.Fatalf("ordinary corpus has %d lines; want at least %d", len(lines), minOrdinaryLines)
	}
	altered := 0
	for _, l := range lines {
		if got := Redact(l); got != l {
			altered++
			t.Logf("altered: %q\n      -> %q", l, got)
		}
	}
	share := float64(altered) / float64(len(lines))
	t.Logf("%d ordinary lines: %d altered (%.2f%%)", len(lines), altered, 100*share)
	if share > maxAlteredShare {
		t.Errorf("Redact altered %d of %d ordinary lines (%.2f%%); want at most %.0f%%", altered, len(lines), 100*share, 100*maxAlteredShare)
	}
}

// generatedOrdinary returns lines of the shapes tool output takes, with
// random identifiers, hashes and numbers in them.
func generatedOrdinary(g *rand.Rand) []string {
	f := fakeValues{g}
	pick := func(xs ...string) string { return xs[g.IntN(len(xs))] }
	n := func(lo, hi int) int { return lo + g.IntN(hi-lo+1) }
	orgs := []string{"baton-cli", "golang", "kubernetes", "hashicorp", "spf13", "charmbracelet", "google", "aws", "stretchr", "rs"}
	repos := []string{"baton", "go", "client-go", "terraform", "cobra", "huh", "uuid", "aws-sdk-go-v2", "testify", "zerolog"}
	pkgs := []string{"journal", "redact", "resume", "hookcmd", "tracker/github", "debate", "recall", "web", "config", "usage"}
	subjects := []string{
		"journal: append under one lock", "redact: cover cookies", "fix flaky debate test", "bump golang.org/x/sys to v0.49.0",
		"resume: fall back to the journal when current.md is unreadable", "docs: explain the tracker default",
		"web: render the briefing as Markdown", "hook: never create folders from a payload path", "Merge pull request #" + fmt.Sprint(n(10, 999)) + " from org/feature",
		"tests: poll instead of sleeping", "ci: cache the module download", "refactor token refresh into one helper",
		"rotate the deploy key (no secret in this commit)", "add max_tokens to the summary request",
	}
	words := []string{"session", "journal", "briefing", "token", "password", "secret", "key", "hook", "record", "tracker", "comment", "prompt", "cache", "index", "debate", "round"}
	names := []string{"Parse", "Append", "Resume", "Redact", "Render", "Index", "Search", "Post", "Load", "Rotate"}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for range 80 {
		sha := f.rnd(hexDigits, 40)
		org, repo := pick(orgs...), pick(repos...)
		add("%s %s", sha[:7], pick(subjects...))
		add("commit %s", sha)
		add("Date:   Tue Jan %d %02d:%02d:%02d 2026 +0000", n(1, 28), n(0, 23), n(0, 59), n(0, 59))
		add("   %s..%s  main -> main", f.rnd(hexDigits, 7), f.rnd(hexDigits, 7))
		add("%s   postgres:16   \"docker-entrypoint.s…\"   %d hours ago   Up %d hours   0.0.0.0:5432->5432/tcp   db-%d", f.rnd(hexDigits, 12), n(1, 9), n(1, 9), n(1, 9))
		add("%s-%s-%s   1/1     Running   %d          %dh", pick("api", "web", "worker", "nginx-deployment"), f.rnd(hexDigits, 10), f.rnd("bcdfghjklmnpqrstvwxz2456789", 5), n(0, 3), n(1, 48))
		add("ok  \tgithub.com/%s/%s/internal/%s\t%d.%03ds", org, repo, pick(pkgs...), n(0, 3), n(0, 999))
		add("--- PASS: Test%s%s%d (0.%02ds)", pick(names...), pick("Concurrent", "Empty", "Large", "RFC3339", "UTF8", "HTTP2", "V2"), n(1, 9), n(0, 99))
		add("github.com/%s/%s v1.%d.%d h1:%s", org, repo, n(0, 30), n(0, 9), base64.StdEncoding.EncodeToString([]byte(f.rnd(alnum, 32))))
		add("github.com/%s/%s v1.%d.%d/go.mod h1:%s", org, repo, n(0, 30), n(0, 9), base64.StdEncoding.EncodeToString([]byte(f.rnd(alnum, 32))))
		add(`      "integrity": "sha512-%s",`, base64.StdEncoding.EncodeToString([]byte(f.rnd(alnum, 64))))
		add("https://github.com/%s/%s/pull/%d#discussion_r%d", org, repo, n(1, 9999), n(1000000000, 1999999999))
		add("https://github.com/%s/%s/actions/runs/%d/job/%d", org, repo, n(1000000000, 9999999999), n(10000000000, 99999999999))
		add("%s request_id=%s status=%s duration=%dms path=/api/v1/%s", "2026-01-02T03:04:05.123Z", f.value("uuid"), pick("200", "201", "204", "404"), n(1, 900), pick(words...))
		add("s3://assets-prod/%d/%02d/%02d/%s.json", 2026, n(1, 12), n(1, 28), f.value("uuid"))
		add("Digest: sha256:%s", f.rnd(hexDigits, 64))
		add("256 SHA256:%s ada@laptop (ED25519)", strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(f.rnd(alnum, 32))), "="))
		add("go: downloading github.com/%s/%s v0.%d.%d", org, repo, n(0, 40), n(0, 9))
		add("-rw-r--r--  1 ada staff  %d Jan %d %02d:%02d %s_%s.go", n(100, 99999), n(1, 28), n(0, 23), n(0, 59), pick(pkgs...), pick("test", "bench", "fuzz", "impl"))
		add("The %s %s was %s after %d %s.", pick(words...), pick("record", "file", "entry", "value"), pick("rotated", "written", "dropped", "kept", "redacted"), n(2, 90), pick("seconds", "minutes", "days", "calls"))
		add("%s: %s the %s before the next %s.", pick("Note", "Tip", "Warning"), pick("check", "rotate", "review", "update"), pick(words...), pick(words...))
		add("%s %d件の%sを処理しました（%dミリ秒）。", pick("ジャーナルから", "索引で", "フックが"), n(1, 500), pick("記録", "トークン", "コメント", "決定"), n(1, 99))
		add("func Test%s%s(t *testing.T) {", pick(names...), pick("Token", "Password", "Secret", "Key", "Cookie", "Empty", "Large"))
		add("\t%s := %s.%s(%s)", pick("tok", "pw", "key", "secret", "cookie"), pick("cfg", "opts", "store", "r"), pick("Token", "Password", "Key", "Secret", "Cookie"), pick("ctx", "name", "\"sid\"", ""))
		add("\tmax_tokens: %d\n", n(256, 8192))
		add("export %s=%s", pick("GOPATH", "EDITOR", "LANG", "TZ", "NODE_ENV", "RUST_LOG", "GOMAXPROCS"), pick("$HOME/go", "vim", "ja_JP.UTF-8", "UTC", "production", "debug", "2"))
		add(`{"type":"assistant","message":{"id":"msg_01%s","content":[{"type":"tool_use","id":"toolu_01%s","name":"Bash"}]},"requestId":"req_011C%s"}`, f.mixed(alnum, 22), f.mixed(alnum, 22), f.mixed(alnum, 20))
		add("$ %s", pick("git fetch origin", "git rebase main", "go build ./...", "docker compose logs -f api", "kubectl rollout status deploy/api", "make lint", "npm ci", "gh pr checks", "tmux attach -t work", "baton resume"))
	}
	return out
}
