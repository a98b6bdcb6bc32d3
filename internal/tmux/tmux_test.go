package tmux_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/tmux"
)

// readerEnv makes the test binary, started in a pane, append every line it
// reads from the terminal to the file the variable names.
const readerEnv = "BATON_TMUX_TEST_READER"

func TestMain(m *testing.M) {
	if out := os.Getenv(readerEnv); out != "" {
		os.Exit(reader(out))
	}
	os.Exit(m.Run())
}

func reader(out string) int {
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 1
	}
	defer f.Close()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Fprintln(f, sc.Text())
	}
	return 0
}

// server starts a tmux server on a private socket, killed when the test ends.
func server(t *testing.T) tmux.Client {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	c := tmux.Client{Socket: fmt.Sprintf("baton-tmux-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	t.Cleanup(func() { c.KillServer(context.Background()) })
	return c
}

// waitFile polls until path holds want lines (a deadline, no fixed sleep).
func waitLines(t *testing.T, path string, want int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		lines := strings.SplitAfter(string(b), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) >= want {
			for i := range lines {
				lines[i] = strings.TrimSuffix(lines[i], "\n")
			}
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %q; want %d lines", path, b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSendTextDeliversIntact(t *testing.T) {
	c := server(t)
	// With a pause, Enter goes when the terminal shows the text: an hour's
	// pause that were waited out would fail the test by its deadline.
	for _, delay := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("pause %v", delay), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			sendIntact(ctx, t, c, delay)
		})
	}
}

func sendIntact(ctx context.Context, t *testing.T, c tmux.Client, delay time.Duration) {
	dir := t.TempDir()
	out := filepath.Join(dir, "received.txt")
	pane, err := c.NewSession(ctx, strings.ReplaceAll(t.Name(), "/", "-"), 200, 50, tmux.Spawn{
		Dir:     dir,
		Command: []string{os.Args[0]},
		Env:     []string{readerEnv + "=" + out},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pane, "%") {
		t.Fatalf("NewSession pane = %q; want a pane id like %%0", pane)
	}
	marker := filepath.Join(dir, "pwned")
	tests := []struct {
		name, text, want string
	}{
		{"plain", "hello world", "hello world"},
		{"quotes", `it's "quoted" and 'single'`, `it's "quoted" and 'single'`},
		{"shell syntax", "a; touch " + marker + " && $(touch " + marker + ") `touch " + marker + "` | cat > x", "a; touch " + marker + " && $(touch " + marker + ") `touch " + marker + "` | cat > x"},
		{"non-ASCII", "日本語のテキスト — ünïcödé 🎉", "日本語のテキスト — ünïcödé 🎉"},
		{"newlines become spaces", "line one\nline two\r\nline three", "line one line two line three"},
		{"control characters dropped", "a\x1b[31mred\x03\x15b", "a[31mredb"},
		{"leading dash", "-t %0 not an option", "-t %0 not an option"},
		{"tmux key name", "Enter", "Enter"},
		{"trailing semicolon", "ends with;", "ends with;"},
		{"trailing escaped semicolon", `ends with\;`, `ends with\;`},
		{"only a semicolon", ";", ";"},
		{"same text again", "hello world", "hello world"},
		{"longer than the pane is wide", strings.Repeat("a long line ", 40), strings.Repeat("a long line ", 40)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.SendText(ctx, pane, tt.text, delay); err != nil {
				t.Fatal(err)
			}
			lines := waitLines(t, out, i+1)
			if got := lines[i]; got != tt.want {
				t.Errorf("pane received %q; want %q", got, tt.want)
			}
		})
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists: text reached a shell", marker)
	}
}

func TestSplitListCaptureKill(t *testing.T) {
	ctx := t.Context()
	c := server(t)
	first, err := c.NewSession(ctx, "s", 120, 40, tmux.Spawn{Command: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	right, err := c.SplitWindow(ctx, first, true, tmux.Spawn{Command: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	below, err := c.SplitWindow(ctx, right, false, tmux.Spawn{Command: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	live, err := c.ListPanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{first, right, below} {
		if !live[p] {
			t.Errorf("ListPanes = %v; want it to hold %s", live, p)
		}
	}
	if len(live) != 3 {
		t.Errorf("ListPanes holds %d panes; want 3", len(live))
	}

	if err := c.SendText(ctx, right, "echo back ünï", 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, err := c.CapturePane(ctx, right)
		if err != nil {
			t.Fatal(err)
		}
		// cat prints the line once more after the terminal's echo.
		if strings.Count(text, "echo back ünï") == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane shows %q; want the line twice (echo and cat)", text)
		}
		time.Sleep(10 * time.Millisecond)
	}

	if err := c.KillPane(ctx, below); err != nil {
		t.Fatal(err)
	}
	live, err = c.ListPanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if live[below] || !live[first] {
		t.Errorf("after KillPane(%s): ListPanes = %v", below, live)
	}
	err = c.SendText(ctx, below, "x", 0)
	var te *tmux.Error
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "can't find pane") {
		t.Errorf("SendText to a killed pane: err = %v; want a *tmux.Error saying the pane is gone", err)
	}
}

func TestNoServer(t *testing.T) {
	c := server(t)
	_, err := c.ListPanes(t.Context())
	if !tmux.IsNoServer(err) {
		t.Errorf("ListPanes with no server: err = %v; want IsNoServer", err)
	}
	if tmux.IsNoServer(errors.New("other")) {
		t.Error("IsNoServer(plain error) = true; want false")
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"crlf is one space", "a\r\nb", "a b"},
		{"lone cr", "a\rb", "a b"},
		{"tab", "a\tb", "a b"},
		{"delete and C1 dropped", "a\x7fb\u0085c", "abc"},
		{"non-ASCII kept", "日本\u00a0x", "日本\u00a0x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tmux.OneLine(tt.in); got != tt.want {
				t.Errorf("OneLine(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// BenchmarkSendText measures typing one debate-sized instruction into a pane
// and pressing Enter (two tmux client calls), without the pause between them.
func BenchmarkSendText(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux not installed")
	}
	ctx := context.Background()
	c := tmux.Client{Socket: fmt.Sprintf("baton-tmux-bench-%d-%d", os.Getpid(), time.Now().UnixNano())}
	defer c.KillServer(ctx)
	pane, err := c.NewSession(ctx, "b", 200, 50, tmux.Spawn{Command: []string{"cat"}})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Round 2 of the debate is complete; read the files and append round 3. ", 8)
	b.ResetTimer()
	for range b.N {
		if err := c.SendText(ctx, pane, text, 0); err != nil {
			b.Fatal(err)
		}
	}
}
