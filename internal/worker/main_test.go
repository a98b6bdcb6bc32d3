package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the agent CLI (the helper
// process pattern): with BATON_TEST_AGENT set it runs the actions that
// BATON_TEST_FIRST (first run) or BATON_TEST_RESUME (a run with --continue)
// list, comma-separated, instead of the tests.
func TestMain(m *testing.M) {
	ReaperMain()
	if os.Getenv("BATON_TEST_AGENT") != "" {
		os.Exit(fakeAgent())
	}
	code := m.Run()
	os.RemoveAll(repoTemplateDir())
	os.Exit(code)
}

// invocation is what the fake agent logs about each of its runs.
type invocation struct {
	Args   []string `json:"args"`
	Prompt string   `json:"prompt"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
}

// fakeAgent runs the actions of one agent run:
//
//	log          append the invocation to $BATON_TEST_LOG
//	result=TEXT  print a JSON result with TEXT (query-escaped: + for a space)
//	echo         print a JSON result holding the prompt
//	iserror      print a JSON result with is_error true
//	exit=N       exit with status N
//	commit       commit a file in the working directory
//	pr           commit, push the branch and open a pull request on $GITHUB_API_URL
//	pid          append the agent's pid to $BATON_TEST_PIDS
//	nap=D        sleep for the duration D
//	mark=WORD    append "WORD <unix nanoseconds> <working directory>" to
//	             $BATON_TEST_MARKS
//	wait=PATH    wait until PATH exists
//	ignoreterm   ignore SIGTERM from now on
//	sleep        start a child in the same process group (its pid appended to
//	             $BATON_TEST_PIDS), then block forever
func fakeAgent() int {
	prompt, _ := io.ReadAll(os.Stdin)
	actions := os.Getenv("BATON_TEST_FIRST")
	if slices.Contains(os.Args[1:], "--continue") {
		actions = os.Getenv("BATON_TEST_RESUME")
	}
	dir, _ := os.Getwd()
	for _, act := range strings.Split(actions, ",") {
		name, arg, _ := strings.Cut(act, "=")
		switch name {
		case "":
		case "log":
			b, _ := json.Marshal(invocation{Args: os.Args[1:], Prompt: string(prompt), Dir: dir, Env: os.Environ()})
			f, err := os.OpenFile(os.Getenv("BATON_TEST_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 70
			}
			f.Write(append(b, '\n'))
			f.Close()
		case "result":
			text, _ := url.QueryUnescape(arg)
			printResult(text, false)
		case "echo":
			printResult(string(prompt), false)
		case "iserror":
			printResult("the model refused", true)
		case "exit":
			n, _ := strconv.Atoi(arg)
			return n
		case "commit":
			if err := fakeCommit(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 71
			}
		case "pr":
			if err := fakeCommit(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 71
			}
			if err := fakePR(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 72
			}
		case "nap":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "mark":
			f, _ := os.OpenFile(os.Getenv("BATON_TEST_MARKS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			fmt.Fprintf(f, "%s %d %s\n", arg, time.Now().UnixNano(), dir)
			f.Close()
		case "pid":
			f, _ := os.OpenFile(os.Getenv("BATON_TEST_PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
		case "wait":
			for {
				if _, err := os.Stat(arg); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		case "ignoreterm":
			signal.Ignore(syscall.SIGTERM)
		case "sleep":
			child := exec.Command("sleep", "600")
			if err := child.Start(); err != nil {
				return 73
			}
			f, _ := os.OpenFile(os.Getenv("BATON_TEST_PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			fmt.Fprintf(f, "%d\n%d\n", os.Getpid(), child.Process.Pid)
			f.Close()
			select {}
		default:
			fmt.Fprintln(os.Stderr, "unknown action", act)
			return 64
		}
	}
	return 0
}

func printResult(text string, isError bool) {
	b, _ := json.Marshal(map[string]any{
		"type": "result", "subtype": "success", "is_error": isError, "num_turns": 1,
		"session_id": "fake-session", "result": text,
	})
	os.Stdout.Write(append(b, '\n'))
}

func fakeCommit() error {
	// Appended: an agent continuing a branch that has the change already
	// still has one to commit.
	f, err := os.OpenFile("change.txt", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString("changed by the agent\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"add", "change.txt"}, {"commit", "-q", "-m", "Change for the issue"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
	}
	return nil
}

// branchIssue reads the issue number from a baton/<n>-<time> branch.
var branchIssue = regexp.MustCompile(`^baton/(\d+)-`)

func fakePR() error {
	out, err := exec.Command("git", "branch", "--show-current").Output()
	if err != nil {
		return err
	}
	branch := strings.TrimSpace(string(out))
	if out, err := exec.Command("git", "push", "-q", "origin", "HEAD").CombinedOutput(); err != nil {
		return fmt.Errorf("push: %v: %s", err, out)
	}
	m := branchIssue.FindStringSubmatch(branch)
	if m == nil {
		return fmt.Errorf("branch %q is not baton/<n>-…", branch)
	}
	body, _ := json.Marshal(map[string]string{"title": "Change", "head": branch, "base": "main", "body": "Closes #" + m[1]})
	req, _ := http.NewRequest(http.MethodPost, os.Getenv("GITHUB_API_URL")+"repos/"+os.Getenv("GH_REPO")+"/pulls", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+os.Getenv("GH_TOKEN"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("create pull request: %s: %s", resp.Status, b)
	}
	return nil
}

// readInvocations returns what the fake agent logged.
func readInvocations(t testing.TB, path string) []invocation {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []invocation
	for line := range strings.Lines(string(b)) {
		var inv invocation
		if err := json.Unmarshal([]byte(line), &inv); err != nil {
			t.Fatalf("agent log line %q: %v", line, err)
		}
		out = append(out, inv)
	}
	return out
}

// testBinary is the path of this test binary, the fake agent.
func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(exe)
}
