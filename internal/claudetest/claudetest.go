package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/modelserver"
)

// Version is the Claude Code release the tests are written against.
const Version = "2.1.328"

// RunTimeout bounds one Run of the CLI. One scripted run takes about a
// second here; the margin is for a loaded machine.
const RunTimeout = 2 * time.Minute

// Binary returns the path of the Claude Code CLI to test against:
// $BATON_CLAUDE_BIN when set, else
// ${BATON_TEST_CACHE:-$HOME/.cache/baton-test}/claude-code/node_modules/.bin/claude.
// When it is missing the test is skipped with the command that installs it,
// or fails when CI=true, where a skipped end-to-end test would hide that the
// install step is broken.
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("BATON_CLAUDE_BIN"); bin != "" {
		return requireFile(t, bin, "BATON_CLAUDE_BIN="+bin+" does not name an executable file")
	}
	cache := os.Getenv("BATON_TEST_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			missing(t, "no home directory to find the test cache in and BATON_TEST_CACHE is not set")
		}
		cache = filepath.Join(home, ".cache", "baton-test")
	}
	prefix := filepath.Join(cache, "claude-code")
	bin := filepath.Join(prefix, "node_modules", ".bin", "claude")
	return requireFile(t, bin, "Claude Code "+Version+" is not installed at "+bin+
		"; install it with: npm install --prefix "+prefix+" @anthropic-ai/claude-code@"+Version+
		" (the project's test command does this), or set BATON_CLAUDE_BIN")
}

func requireFile(t testing.TB, path, why string) string {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		missing(t, why)
	}
	return path
}

// missing skips t, or fails it on CI.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// An Env is a hermetic place to run the CLI: a fresh home directory, a
// fresh working directory, and a scripted model server.
type Env struct {
	// Bin is the CLI binary.
	Bin string
	// Home is the HOME the CLI runs with (a temporary directory); its
	// ~/.claude holds transcripts, settings and memory.
	Home string
	// Dir is the working directory of the CLI (a temporary directory).
	Dir string
	// Server answers the CLI's model requests.
	Server *modelserver.Server
	// Path lists directories put before the inherited PATH, e.g. the one
	// BuildBaton returns.
	Path []string
	// Extra lists more KEY=VALUE environment entries; they override the
	// defaults.
	Extra []string
}

// New returns an Env running Binary(t) against server, with fresh
// temporary Home and Dir. It skips or fails t as Binary does.
func New(t testing.TB, server *modelserver.Server) *Env {
	t.Helper()
	bin := Binary(t)
	e := &Env{
		Bin:    bin,
		Home:   t.TempDir(),
		Dir:    t.TempDir(),
		Server: server,
	}
	if err := os.Mkdir(filepath.Join(e.Home, "tmp"), 0o700); err != nil {
		t.Fatalf("create TMPDIR: %v", err)
	}
	// Registered after the temporary folders, so it runs before they are
	// removed: what the CLI left running (baton's detached jobs, the CLI's
	// own helpers) must be gone first, or it writes into a folder being
	// removed.
	t.Cleanup(func() { waitForLeftovers(t, "HOME="+e.Home, LeftoverWait) })
	return e
}

// LeftoverWait bounds how long a test's end waits for processes of its
// Env to exit before they are killed.
const LeftoverWait = 30 * time.Second

// waitForLeftovers waits until no process has env (an exact KEY=VALUE
// entry) in its environment, polling /proc, and kills those still there
// after wait. "None" must be seen on two polls in a row: a process in the
// middle of an exec shows an empty environment for a moment (the kernel
// has given it its new memory but not yet written the environment there),
// so one poll can miss it.
func waitForLeftovers(t testing.TB, env string, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for none := 0; ; {
		pids := processesWithEnv(env)
		if len(pids) == 0 {
			if none++; none == 2 {
				return
			}
			time.Sleep(leftoverPoll)
			continue
		}
		none = 0
		if time.Now().After(deadline) {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Logf("killed processes still running %v after the test: %v", wait, pids)
			return
		}
		time.Sleep(leftoverPoll)
	}
}

// leftoverPoll is how often waitForLeftovers looks at /proc.
const leftoverPoll = 50 * time.Millisecond

// processesWithEnv returns the processes whose environment holds env. It
// reads /proc and returns nothing where there is none. A process that is
// exec'ing can be missing from one answer (see waitForLeftovers).
func processesWithEnv(env string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(env + "\x00")
	var pids []int
	for _, de := range entries {
		pid, err := strconv.Atoi(de.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", de.Name(), "environ"))
		if err != nil {
			continue
		}
		if bytes.HasPrefix(b, want) || bytes.Contains(b, append([]byte{0}, want...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Environ returns the complete environment the CLI runs with. Nothing is
// inherited but PATH, so the developer's own ~/.claude, API keys and
// settings never leak in.
func (e *Env) Environ() []string {
	path := os.Getenv("PATH")
	if len(e.Path) > 0 {
		path = strings.Join(e.Path, string(os.PathListSeparator)) + string(os.PathListSeparator) + path
	}
	env := []string{
		"HOME=" + e.Home,
		"PATH=" + path,
		"TMPDIR=" + filepath.Join(e.Home, "tmp"),
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"ANTHROPIC_BASE_URL=" + e.Server.URL,
		"ANTHROPIC_API_KEY=sk-ant-test",
		// No update checks, telemetry, error reports or other calls
		// beyond the model server.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
	return append(env, e.Extra...)
}

// Command returns the CLI with args, run in Dir with Environ, in a process
// group of its own. Cancelling ctx kills the group: the CLI and the tools
// and hooks it started.
func (e *Env) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = e.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Run runs the CLI with args to completion within RunTimeout and returns
// its output. It fails t, showing both outputs, when the CLI cannot start,
// exits non-zero or times out.
func (e *Env) Run(t testing.TB, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), RunTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := e.Command(ctx, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		t.Fatalf("claude %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// A Result is the summary the CLI prints with --output-format json.
type Result struct {
	SessionID string `json:"session_id"`
	Result    string `json:"result"`
	IsError   bool   `json:"is_error"`
	NumTurns  int    `json:"num_turns"`
	Subtype   string `json:"subtype"`
}

// RunJSON runs the CLI with args and --output-format json, as Run does, and
// decodes the result it prints.
func (e *Env) RunJSON(t testing.TB, args ...string) Result {
	t.Helper()
	stdout, stderr := e.Run(t, append(args, "--output-format", "json")...)
	var r Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("decode claude's json result: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return r
}
