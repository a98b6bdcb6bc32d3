package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// harness is one repository as the worker sees it: a fake GitHub, a real
// bare git remote on disk and a clone of it, and a home and data folder.
type harness struct {
	gh *githubtest.Server
	// api is the REST base the worker and the agent use: a proxy in front
	// of the fake GitHub that, like GitHub, refuses a pull request whose
	// head branch was never pushed to the remote.
	api    string
	bare   string
	clone  string
	home   string
	data   string
	prompt string
	// gitEnv is the environment of every git and agent process.
	gitEnv []string
	cfg    *config.Config
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{
		gh:     githubtest.New(t),
		bare:   filepath.Join(root, "remote.git"),
		clone:  filepath.Join(root, "clone"),
		home:   filepath.Join(root, "home"),
		data:   filepath.Join(root, "home", ".local", "share", "baton", "worker"),
		prompt: filepath.Join(root, "home", ".config", "baton", "prompts"),
	}
	if err := os.MkdirAll(h.home, 0o700); err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(h.proxy(t))
	t.Cleanup(proxy.Close)
	h.api = proxy.URL + "/"
	h.gitEnv = []string{
		"HOME=" + h.home,
		"PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(root, "gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GITHUB_API_URL=" + h.api,
		"GITHUB_GRAPHQL_URL=" + proxy.URL + "/graphql",
		"GH_TOKEN=" + h.gh.Token,
		"GH_REPO=" + h.gh.Owner + "/" + h.gh.Repo,
	}
	// The remote and its clone are copied from a template made once per
	// test process: git commands cost a lot on a loaded machine.
	tmpl, err := repoTemplate()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, os.DirFS(tmpl)); err != nil {
		t.Fatalf("copy repository template: %v", err)
	}
	gitConfig := filepath.Join(h.clone, ".git", "config")
	b, err := os.ReadFile(gitConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gitConfig, bytes.ReplaceAll(b, []byte(tmpl), []byte(root)), 0o644); err != nil {
		t.Fatal(err)
	}

	h.cfg = &config.Config{Worker: config.Worker{
		Repositories: []config.WorkerRepo{{Repo: h.gh.Owner + "/" + h.gh.Repo, Path: h.clone}},
	}}
	return h
}

// repoTemplateDir is where repoTemplate makes its folder; TestMain removes
// it.
func repoTemplateDir() string {
	return filepath.Join(os.TempDir(), "baton-worker-repo-"+strconv.Itoa(os.Getpid()))
}

// repoTemplate is a folder holding remote.git, a bare repository with one
// commit on main, and clone, a clone of it, made at most once per test
// process.
var repoTemplate = sync.OnceValues(func() (string, error) {
	root := repoTemplateDir()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	bare, clone := filepath.Join(root, "remote.git"), filepath.Join(root, "clone")
	steps := []struct {
		dir  string
		args []string
	}{
		{root, []string{"init", "-q", "--bare", "-b", "main", bare}},
		{root, []string{"clone", "-q", bare, clone}},
		{clone, []string{"add", "README.md"}},
		{clone, []string{"commit", "-q", "-m", "Start"}},
		{clone, []string{"push", "-q", "origin", "HEAD:main"}},
	}
	for i, st := range steps {
		if i == 2 {
			if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("widgets\n"), 0o644); err != nil {
				return "", err
			}
		}
		cmd := exec.Command("git", st.args...)
		cmd.Dir, cmd.Env = st.dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("git %v: %v: %s", st.args, err, out)
		}
	}
	return root, nil
})

// proxy forwards to the fake GitHub, answering a pull request for a head
// branch the bare remote lacks as GitHub does: 422 "head invalid".
func (h *harness) proxy(t testing.TB) http.Handler {
	target, err := url.Parse(h.gh.URL)
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	rp := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pulls") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var in struct{ Head string }
			_ = json.Unmarshal(body, &in)
			if _, branch, ok := strings.Cut(in.Head, ":"); ok {
				in.Head = branch
			}
			if in.Head == "" || !h.remoteHas(in.Head) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				io.WriteString(w, `{"message":"Validation Failed","errors":[{"resource":"PullRequest","field":"head","code":"invalid"}],"documentation_url":"https://docs.github.com/rest/pulls/pulls#create-a-pull-request","status":"422"}`)
				return
			}
		}
		rp.ServeHTTP(w, r)
	})
}

// remoteHas reports whether the bare remote has branch.
func (h *harness) remoteHas(branch string) bool {
	cmd := exec.Command("git", "--git-dir", h.bare, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Env = h.gitEnv
	return cmd.Run() == nil
}

func (h *harness) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = h.gitEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// client returns a GitHub client for the fake, with tiny retry waits.
func (h *harness) client(context.Context, config.WorkerRepo) (*github.Client, error) {
	return github.New(github.Config{
		APIURL:     h.api,
		GraphQLURL: strings.TrimSuffix(h.api, "/") + "/graphql",
		Token:      h.gh.Token,
		Owner:      h.gh.Owner,
		Repo:       h.gh.Repo,
		UserAgent:  "baton/test",
		Retry:      github.Retry{BaseDelay: time.Millisecond, MaxWait: time.Second, Timeout: 10 * time.Second},
	})
}

// options returns Options for a worker on the harness, running the fake
// agent with the given actions for its first run and its resume.
func (h *harness) options(t testing.TB, first, resume string) Options {
	t.Helper()
	cfg := *h.cfg
	cfg.Worker.Agent = config.WorkerAgentSetup{
		Command: testBinary(t),
		Env: map[string]string{
			"BATON_TEST_AGENT":  "1",
			"BATON_TEST_FIRST":  first,
			"BATON_TEST_RESUME": resume,
			"BATON_TEST_LOG":    h.agentLog(),
			"BATON_TEST_PIDS":   filepath.Join(h.home, "pids"),
		},
	}
	return Options{
		Config:       &cfg,
		Lang:         i18n.EN,
		DataDir:      h.data,
		PromptDir:    h.prompt,
		Home:         h.home,
		Environ:      h.gitEnv,
		Host:         "test-host",
		PID:          os.Getpid(),
		Client:       h.client,
		Reaper:       testBinary(t),
		KillDelay:    time.Second,
		RecheckDelay: time.Millisecond,
		RetryDelay:   time.Millisecond,
	}
}

func (h *harness) agentLog() string { return filepath.Join(h.home, "agent.jsonl") }

func newWorker(t testing.TB, opts Options) *Worker {
	t.Helper()
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// addIssue adds an eligible issue (trigger label, written by the owner).
func (h *harness) addIssue(title, body string, labels ...string) int {
	return h.gh.AddIssue(githubtest.Issue{Title: title, Body: body, Labels: append([]string{config.DefaultWorkerTrigger}, labels...), AuthorAssociation: "OWNER"})
}

func (h *harness) labels(t testing.TB, n int) []string {
	t.Helper()
	is, ok := h.gh.Issue(n)
	if !ok {
		t.Fatalf("no issue #%d", n)
	}
	return is.Labels
}

// wantLabels checks that issue n has every label of want and none of
// unwanted.
func (h *harness) wantLabels(t testing.TB, n int, want []string, unwanted []string) {
	t.Helper()
	got := h.labels(t, n)
	for _, l := range want {
		if !slices.Contains(got, l) {
			t.Errorf("labels of #%d = %v; want %q among them", n, got, l)
		}
	}
	for _, l := range unwanted {
		if slices.Contains(got, l) {
			t.Errorf("labels of #%d = %v; want no %q", n, got, l)
		}
	}
}

// workerComments returns the comments the worker left on issue n.
func (h *harness) workerComments(n int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range h.gh.Comments(n) {
		if strings.Contains(c.Body, "baton:") {
			out = append(out, c)
		}
	}
	return out
}

// claimComments returns the claim comments on issue n.
func (h *harness) claimComments(n int) []githubtest.Comment {
	var out []githubtest.Comment
	for _, c := range h.gh.Comments(n) {
		if _, _, ok := parseClaim(c.Body); ok {
			out = append(out, c)
		}
	}
	return out
}

// cycle runs one cycle and fails t on a cycle error.
func cycle(t testing.TB, w *Worker) *CycleResult {
	t.Helper()
	res, err := w.Cycle(t.Context(), nil)
	if err != nil {
		t.Fatalf("Cycle: %v", err)
	}
	for _, e := range res.Errors {
		t.Errorf("cycle error: %s", e)
	}
	return res
}

// onlyRun returns the one run of a cycle.
func onlyRun(t testing.TB, res *CycleResult) *Record {
	t.Helper()
	if len(res.Runs) != 1 {
		t.Fatalf("cycle ran %d issues (skipped %v); want 1", len(res.Runs), res.Skipped)
	}
	return res.Runs[0]
}

var (
	doneLabels   = []string{config.DefaultWorkerDone}
	failedLabels = []string{config.DefaultWorkerFailed}
	activeLabels = []string{config.DefaultWorkerTrigger, config.DefaultWorkerInProgress}
)
