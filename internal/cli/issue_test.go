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
)

// issueEnv runs baton in a fresh repository whose tracker is the fake
// GitHub srv.
type issueEnv struct {
	t    *testing.T
	srv  *githubtest.Server
	dir  string
	home string
}

func newIssueEnv(t *testing.T) *issueEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	e := &issueEnv{t: t, srv: githubtest.New(t), dir: t.TempDir(), home: t.TempDir()}
	if out, err := exec.Command("git", "init", "-q", e.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".baton.yaml"), []byte("tracker:\n  kind: github\n  github:\n    retry: {attempts: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *issueEnv) run(args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config"), "LANG": "en_US.UTF-8"}
	f := &Factory{
		IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return e.srv.Getenv(k)
		},
		Environ:    os.Environ,
		Now:        time.Now,
		Getwd:      func() (string, error) { return e.dir, nil },
		Executable: os.Executable,
	}
	code = Main(context.Background(), args, f)
	return code, out.String(), errOut.String()
}

func TestIssueCommandsOnGitHub(t *testing.T) {
	e := newIssueEnv(t)
	n := e.srv.AddIssue(githubtest.Issue{Title: "Add export", Body: "CSV please", Labels: []string{"ai/impl"}})
	e.srv.AddPullRequest(githubtest.PullRequest{Title: "a pull request", Head: "x"})
	e.srv.AddComment(githubtest.Comment{Issue: n, Author: "github-actions[bot]", AuthorAssociation: "NONE", Body: "Decision: use CSV"})

	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{"list leaves pull requests out", []string{"issue", "list"}, []string{"#1    open   Add export  [ai/impl]"}, []string{"a pull request"}},
		{"show with comments", []string{"issue", "show", "1"},
			[]string{"#1 Add export", "/acme/widgets/issues/1", "CSV please", "── comments (1) ──", "github-actions[bot] · ", "Decision: use CSV"}, nil},
		{"label", []string{"issue", "label", "1", "--add", "status:in-progress", "--remove", "ai/impl"}, []string{"Labels of #1: status:in-progress"}, nil},
		{"new", []string{"issue", "new", "--title", "From baton", "--label", "bug"}, []string{"Created issue #3: From baton", "/acme/widgets/issues/3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := e.run(tt.args...)
			if code != ExitOK {
				t.Fatalf("exit %d; want 0 (stderr %q)", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout = %q; want %q", out, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("stdout = %q; want no %q", out, w)
				}
			}
		})
	}
	if is, _ := e.srv.Issue(3); is.Title != "From baton" || len(is.Labels) != 1 {
		t.Errorf("issue on the fake = %+v; want the one created, labelled bug", is)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".claude", "session-state", "tracker.db")); err == nil {
		t.Error("the GitHub tracker created a local tracker.db")
	}
}

func TestIssueCommandFailuresOnGitHub(t *testing.T) {
	tests := []struct {
		name   string
		fault  githubtest.Fault
		args   []string
		want   []string
		absent string
	}{
		{"bad credentials", githubtest.BadCredentials(), []string{"issue", "show", "1"},
			[]string{"baton: get issue #1: 401 Bad credentials\n", "GH_TOKEN", "gh auth login"}, githubtest.DefaultToken},
		{"bad credentials in Japanese", githubtest.BadCredentials(), []string{"issue", "list", "--lang", "ja"},
			[]string{"401 Bad credentials", "GitHub の認証に失敗しました", "gh auth login"}, ""},
		{"rate limited", githubtest.RateLimited(time.Now().Add(30*time.Minute + 30*time.Second)), []string{"issue", "list"},
			[]string{"403 API rate limit exceeded", "(retry after 30m", "rate limit"}, ""},
		{"missing issue", githubtest.Fault{Status: 404}, []string{"issue", "show", "7"},
			[]string{"404 Not Found", "GH_REPO"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newIssueEnv(t)
			e.srv.AddIssue(githubtest.Issue{Title: "x"})
			e.srv.Fail(githubtest.RouteAny, -1, tt.fault)
			code, _, errOut := e.run(tt.args...)
			if code != ExitError {
				t.Fatalf("exit %d; want %d", code, ExitError)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr = %q; want %q", errOut, w)
				}
			}
			if tt.absent != "" && strings.Contains(errOut, tt.absent) {
				t.Errorf("stderr = %q; want no %q", errOut, tt.absent)
			}
		})
	}
}
