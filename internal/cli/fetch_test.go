package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/slacktest"
)

// TestFetchServices runs `baton fetch` against the fake Slack and the fake
// GitHub, pointed at them by the environment as a user would.
func TestFetchServices(t *testing.T) {
	gh := githubtest.New(t)
	n := gh.AddIssue(githubtest.Issue{Title: "Pricing", Body: "What do we charge?"})
	gh.AddComment(githubtest.Comment{Issue: n, Body: "10 USD a month", Author: "ceo"})
	sl := slacktest.New(t)
	ts := sl.AddThread("C0123ABCD", slacktest.Message{User: "UCEO", Text: "Shall we ship on Friday?"}, slacktest.Message{User: "UBOT", Text: "Yes, all tests pass."})
	sl.RateLimit(1, time.Second) // the first call waits a second, as Slack asks

	dir, home := t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, ".baton.yaml"), []byte("tracker:\n  kind: github\n  github:\n    retry: {attempts: 1}\ncontext:\n  slack_channel: C0123ABCD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "LANG": "en_US.UTF-8"}
	for _, kv := range sl.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	answer := "Let me look.\n<<FETCH>>{\"target\":\"thread_history\",\"thread_ts\":\"" + ts + "\",\"depth\":50}<</FETCH>>\n" +
		"<<FETCH>>{\"target\":\"issue_body\",\"issue\":" + "1" + "}<</FETCH>>"
	var out, errOut bytes.Buffer
	f := &Factory{
		IO: &IOStreams{In: strings.NewReader(answer), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return gh.Getenv(k)
		},
		Environ:    os.Environ,
		Now:        time.Now,
		Getwd:      func() (string, error) { return dir, nil },
		Executable: os.Executable,
	}
	if code := Main(context.Background(), []string{"fetch"}, f); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"[baton fetch 1/2: thread_history thread_ts=" + ts + " depth=50]",
		"# thread " + ts + " in C0123ABCD (2 messages)",
		"UCEO: Shall we ship on Friday?",
		"UBOT: Yes, all tests pass.",
		"[baton fetch 2/2: issue_body issue=1]",
		"# #1 Pricing [open]",
		"## ceo, ",
		"10 USD a month",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if reqs := sl.Requests(); len(reqs) != 2 || reqs[0].Status != 429 || reqs[1].Status != 200 {
		t.Errorf("Slack calls %+v; want a 429 then the answer", reqs)
	}
}
