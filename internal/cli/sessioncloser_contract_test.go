package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/baton-cli/baton/internal/githubtest"
)

var updateContract = flag.Bool("update", false, "rewrite the golden sections of testdata/session-closer/*.txtar")

// TestSessionCloserContract runs the requests of each case in
// testdata/session-closer through the real `baton session-closer` (and
// `baton decisions retry` where a case says so) against the fake GitHub,
// and compares the responses, the comments posted and the files written with
// the case's golden sections. The golden sections state the behaviour of
// claude-issueops' bin/session_closer.py (its source and tests), item by
// item of the compatibility contract, plus baton's listed additions; -update
// rewrites them from baton's output, to be read against the original before
// committing.
//
// A case is a txtar archive:
//
//	seed/env             KEY=VALUE lines added to the environment
//	seed/issues.json     issues to create ([{"title", "labels", "state"}]);
//	                     default: #1 open, labelled status:in-progress
//	seed/comment-N-K.md  a comment already on issue N
//	seed/project/PATH    a file already in the project folder
//	seed/mem/PATH        a file already in the memory folder
//	fault<N>             "<route> <count> <fault>" lines applied before step N
//	request<N>.json      step N: a request on stdin of `baton session-closer`
//	args<N>              its command-line arguments after session-closer
//	argv<N>              step N: another baton command line instead
//	response<N>.json     golden: the response, keys sorted
//	output<N>            golden: argv<N>'s exit code, stdout and stderr
//	comments.md          golden: every comment posted during the case
//	files/ROOT/PATH      golden: every file in the project folder (ROOT
//	                     project, lock files of the state folder left out)
//	                     and the memory folder (ROOT mem) at the end
//
// Requests and goldens name places with $PROJECT, $MEM, $HOME, $TESTDATA
// (a folder of $HOME's Claude Code projects folder holding a copy of
// testdata/session-closer/transcripts) and $GITHUB.
func TestSessionCloserContract(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cases, err := filepath.Glob(filepath.Join("testdata", "session-closer", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runContractCase(t, path)
		})
	}
}

type contractEnv struct {
	t                  *testing.T
	srv                *githubtest.Server
	project, home, mem string
	testdata           string
	env                map[string]string
	seeded             map[int]int // comments per issue before the case
	got                map[string][]byte
	replacer           *strings.Replacer
}

func runContractCase(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var order []string
	for _, f := range ar.Files {
		files[f.Name] = f.Data
		order = append(order, f.Name)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	e := &contractEnv{
		t: t, srv: githubtest.New(t),
		project: filepath.Join(root, "project"), home: home, mem: filepath.Join(root, "mem"),
		// The fixture transcripts are read where baton reads transcripts
		// from: a folder of Claude Code's projects folder.
		testdata: filepath.Join(home, ".claude", "projects", "testdata"),
		env:      map[string]string{"LANG": "en_US.UTF-8"},
		seeded:   map[int]int{},
		got:      map[string][]byte{},
	}
	e.env["HOME"] = e.home
	e.env["XDG_CONFIG_HOME"] = filepath.Join(e.home, ".config")
	e.env["XDG_STATE_HOME"] = filepath.Join(e.home, ".local", "state")
	for _, d := range []string{e.project, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(e.testdata, "transcripts"), os.DirFS(filepath.Join("testdata", "session-closer", "transcripts"))); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", "-b", "main", e.project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(e.project, ".baton.yaml"), []byte("tracker:\n  kind: github\n  github:\n    retry: {attempts: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The config file is baton's, not part of what the contract writes.
	e.replacer = strings.NewReplacer("$PROJECT", e.project, "$MEM", e.mem, "$HOME", e.home, "$TESTDATA", e.testdata)
	e.seed(files)

	for n := 1; ; n++ {
		req, isReq := files[fmt.Sprintf("request%d.json", n)]
		argv, isArgv := files[fmt.Sprintf("argv%d", n)]
		if !isReq && !isArgv {
			if n == 1 {
				t.Fatal("no request1.json or argv1")
			}
			break
		}
		e.faults(files[fmt.Sprintf("fault%d", n)])
		if isReq {
			args := append([]string{"session-closer"}, strings.Fields(string(files[fmt.Sprintf("args%d", n)]))...)
			code, stdout, stderr := e.run(args, e.replacer.Replace(string(req)))
			if code != 0 || stderr != "" {
				t.Errorf("step %d: exit %d, stderr %q; want 0 and nothing", n, code, stderr)
			}
			e.got[fmt.Sprintf("response%d.json", n)] = e.normalizeResponse(n, stdout)
		} else {
			code, stdout, stderr := e.run(strings.Fields(e.replacer.Replace(string(argv))), "")
			e.got[fmt.Sprintf("output%d", n)] = []byte(e.normalize(fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)))
		}
	}
	e.got["comments.md"] = e.comments()
	e.collectFiles("project", e.project)
	e.collectFiles("mem", e.mem)

	if *updateContract {
		var keep []txtar.File
		for _, name := range order {
			if !isGolden(name) {
				keep = append(keep, txtar.File{Name: name, Data: files[name]})
			}
		}
		var golden []string
		for name := range e.got {
			golden = append(golden, name)
		}
		slices.SortFunc(golden, goldenOrder)
		for _, name := range golden {
			keep = append(keep, txtar.File{Name: name, Data: e.got[name]})
		}
		ar.Files = keep
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, got := range e.got {
		want, ok := files[name]
		if !ok {
			t.Errorf("%s: not in the case's goldens; got:\n%s", name, got)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, got, want)
		}
	}
	for _, name := range order {
		if isGolden(name) {
			if _, ok := e.got[name]; !ok {
				t.Errorf("%s: golden, but nothing of that name was produced", name)
			}
		}
	}
}

func isGolden(name string) bool {
	return strings.HasPrefix(name, "response") || strings.HasPrefix(name, "output") || name == "comments.md" || strings.HasPrefix(name, "files/")
}

// goldenOrder puts responses and outputs first, in step order, then the
// comments, then the files.
func goldenOrder(a, b string) int {
	rank := func(s string) (int, int) {
		switch {
		case strings.HasPrefix(s, "response"), strings.HasPrefix(s, "output"):
			n, _ := strconv.Atoi(strings.TrimLeft(strings.TrimSuffix(s, ".json"), "responsetu"))
			return 0, n
		case s == "comments.md":
			return 1, 0
		}
		return 2, 0
	}
	ra, na := rank(a)
	rb, nb := rank(b)
	if ra != rb {
		return ra - rb
	}
	if na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

func (e *contractEnv) seed(files map[string][]byte) {
	t := e.t
	if env, ok := files["seed/env"]; ok {
		for _, line := range strings.Split(strings.TrimSpace(string(env)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				e.env[k] = v
			}
		}
	}
	issues := []githubtest.Issue{{Title: "work", Labels: []string{"status:in-progress"}}}
	if b, ok := files["seed/issues.json"]; ok {
		issues = nil
		var list []struct {
			Title  string   `json:"title"`
			Labels []string `json:"labels"`
			State  string   `json:"state"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("seed/issues.json: %v", err)
		}
		for _, is := range list {
			issues = append(issues, githubtest.Issue{Title: is.Title, Labels: is.Labels, State: is.State})
		}
	}
	for _, is := range issues {
		e.srv.AddIssue(is)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		data := files[name]
		switch {
		case strings.HasPrefix(name, "seed/comment-"):
			var issue, k int
			if _, err := fmt.Sscanf(name, "seed/comment-%d-%d.md", &issue, &k); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			e.srv.AddComment(githubtest.Comment{Issue: issue, Body: string(data)})
			e.seeded[issue]++
		case strings.HasPrefix(name, "seed/project/"), strings.HasPrefix(name, "seed/mem/"):
			dst := filepath.Join(e.project, strings.TrimPrefix(name, "seed/project/"))
			if strings.HasPrefix(name, "seed/mem/") {
				dst = filepath.Join(e.mem, strings.TrimPrefix(name, "seed/mem/"))
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, []byte(e.replacer.Replace(string(data))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (e *contractEnv) faults(spec []byte) {
	routes := map[string]githubtest.Route{
		"list-issues": githubtest.RouteListIssues, "list-comments": githubtest.RouteListComments,
		"create-comment": githubtest.RouteCreateComment, "any": githubtest.RouteAny,
	}
	faults := map[string]githubtest.Fault{
		"bad-credentials": githubtest.BadCredentials(), "server-error": githubtest.ServerError(502),
	}
	for _, line := range strings.Split(strings.TrimSpace(string(spec)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		route, okR := routes[f[0]]
		fault, okF := faults[f[2]]
		if len(f) != 3 || err != nil || !okR || !okF {
			e.t.Fatalf("bad fault line %q", line)
		}
		e.srv.Fail(route, n, fault)
	}
}

func (e *contractEnv) run(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	f := &Factory{
		IO: &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut},
		Getenv: func(k string) string {
			if v, ok := e.env[k]; ok {
				return v
			}
			return e.srv.Getenv(k)
		},
		Environ:    os.Environ,
		Now:        func() time.Time { return time.Date(2026, 4, 26, 5, 30, 0, 0, time.UTC) },
		Getwd:      func() (string, error) { return e.project, nil },
		Executable: os.Executable,
	}
	code = Main(context.Background(), args, f)
	e.srv.ClearFaults()
	return code, out.String(), errOut.String()
}

var githubURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// normalize names the case's places by their placeholders.
func (e *contractEnv) normalize(s string) string {
	s = strings.NewReplacer(e.testdata, "$TESTDATA", e.project, "$PROJECT", e.mem, "$MEM", e.home, "$HOME").Replace(s)
	return githubURL.ReplaceAllString(s, "$$GITHUB")
}

// normalizeResponse checks that out is exactly one JSON object on one line
// and returns it indented, keys sorted.
func (e *contractEnv) normalizeResponse(step int, out string) []byte {
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		e.t.Errorf("step %d: response is not one line: %q", step, out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		e.t.Fatalf("step %d: response is not a JSON object: %v: %q", step, err, out)
	}
	if strings.Contains(out, `\u003c`) {
		e.t.Errorf("step %d: response escapes < as \\u003c: %q", step, out)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return []byte(e.normalize(b.String()))
}

// comments are the comments posted during the case, issue by issue.
func (e *contractEnv) comments() []byte {
	var b strings.Builder
	for issue := 1; issue <= 20; issue++ {
		cs := e.srv.Comments(issue)
		for _, c := range cs[min(e.seeded[issue], len(cs)):] {
			fmt.Fprintf(&b, "=== issue #%d ===\n%s\n", issue, e.normalize(c.Body))
		}
	}
	if b.Len() == 0 {
		return []byte("(none)\n")
	}
	return []byte(b.String())
}

// collectFiles records every file under dir as files/<root>/<path>, except
// git's folder, baton's configuration and baton's own lock files in the state
// folder (the original has none: they are baton's).
func (e *contractEnv) collectFiles(root, dir string) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if root == "project" && (rel == ".baton.yaml" || strings.HasPrefix(rel, ".claude/session-state/") && (strings.HasSuffix(rel, ".lock") || strings.HasPrefix(rel, ".claude/session-state/locks/"))) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			e.t.Fatal(err)
		}
		data := []byte(e.normalize(string(b)))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			// txtar keeps a section's last newline: mark its absence.
			data = append(data, []byte("\n[no newline at end of file]\n")...)
		}
		e.got["files/"+root+"/"+filepath.ToSlash(rel)] = data
		return nil
	})
}
