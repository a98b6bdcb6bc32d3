package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/worker"
)

// serveEnv is a fresh repository with one journal record, and a Factory
// over it.
type serveEnv struct {
	dir, home   string
	out, errOut bytes.Buffer
	f           *Factory
}

func newServeEnv(t *testing.T) *serveEnv {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	e := &serveEnv{dir: t.TempDir(), home: t.TempDir()}
	if out, err := exec.Command("git", "init", "-q", "-b", "main", e.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	j := journal.Open(state.At(e.dir).Root, journal.Options{})
	if err := j.Append(journal.Record{Event: "PostToolUse", Tool: "Edit", File: "served.go", Session: "s-1", Worktree: e.dir, Branch: "main"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config"), "XDG_DATA_HOME": filepath.Join(e.home, ".local", "share"), "LANG": "en_US.UTF-8"}
	e.f = &Factory{
		IO:         &IOStreams{In: strings.NewReader(""), Out: &e.out, ErrOut: &e.errOut},
		Getenv:     func(k string) string { return env[k] },
		Environ:    os.Environ,
		Now:        time.Now,
		Getwd:      func() (string, error) { return e.dir, nil },
		Executable: os.Executable,
	}
	return e
}

// start runs serveRun until the test ends and returns the URL it printed
// and a function that stops it and returns its error.
func (e *serveEnv) start(t *testing.T, opts *ServeOptions) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	opts.Factory = e.f
	opts.Ready = func(u string) { ready <- u }
	go func() { done <- serveRun(ctx, opts) }()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop within 30s of its context's end")
			return nil
		}
	})
	select {
	case u := <-ready:
		t.Cleanup(func() { stop() })
		return u, stop
	case err := <-done:
		cancel()
		t.Fatalf("serve ended before listening: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("serve did not listen within 30s")
	}
	return "", nil
}

func fetch(t *testing.T, c *http.Client, u string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestServeLoopback(t *testing.T) {
	e := newServeEnv(t)
	u, stop := e.start(t, &ServeOptions{Addr: "127.0.0.1:0"})
	if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.Contains(u, "token") {
		t.Fatalf("url %q; want a loopback one without a token", u)
	}
	code, body := fetch(t, http.DefaultClient, u)
	if code != http.StatusOK || !strings.Contains(body, e.dir) {
		t.Fatalf("GET %s: %d; want 200 naming the worktree %s\n%s", u, code, e.dir, body)
	}
	if code, _ := fetch(t, http.DefaultClient, u+"decisions", "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("foreign origin: %d; want 403", code)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v; want nil after its context ended", err)
	}
	if got := e.out.String(); !strings.Contains(got, "Dashboard: "+u) {
		t.Errorf("stdout %q; want the address", got)
	}
	if got := e.errOut.String(); !strings.Contains(got, "Dashboard stopped.") {
		t.Errorf("stderr %q; want the stop notice", got)
	}
}

func TestServeRemote(t *testing.T) {
	t.Run("refused without --allow-remote", func(t *testing.T) {
		e := newServeEnv(t)
		code := Main(context.Background(), []string{"serve", "--addr", "0.0.0.0:0"}, e.f)
		if code != ExitUsage {
			t.Fatalf("exit %d; want %d", code, ExitUsage)
		}
		if got := e.errOut.String(); !strings.Contains(got, "--allow-remote") || !strings.Contains(got, "not a loopback address") {
			t.Errorf("stderr %q; want the reason and the flag", got)
		}
		if e.out.Len() != 0 {
			t.Errorf("stdout %q; want nothing: it must not listen", e.out.String())
		}
	})
	t.Run("generated token required", func(t *testing.T) {
		e := newServeEnv(t)
		u, stop := e.start(t, &ServeOptions{Addr: "0.0.0.0:0", AllowRemote: true})
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		token := pu.Query().Get("token")
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(token) {
			t.Fatalf("url %q; want a generated 64-hex token", u)
		}
		// The host name may not resolve here: reach the wildcard address
		// through loopback, which is one of its own names.
		pu.Host = "127.0.0.1:" + pu.Port()
		bare := *pu
		bare.RawQuery = ""
		if code, _ := fetch(t, http.DefaultClient, bare.String()); code != http.StatusUnauthorized {
			t.Errorf("without token: %d; want 401", code)
		}
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		browser := &http.Client{Jar: jar}
		code, body := fetch(t, browser, pu.String())
		if code != http.StatusOK || !strings.Contains(body, e.dir) {
			t.Fatalf("with token: %d; want 200 with the page", code)
		}
		if code, _ := fetch(t, browser, bare.String()+"runs"); code != http.StatusOK {
			t.Errorf("with the cookie the token set: %d; want 200", code)
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if got := e.out.String(); !strings.Contains(got, "needs the token") {
			t.Errorf("stdout %q; want the token note", got)
		}
	})
}

func TestServeOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the opener is xdg-open on Linux only")
	}
	e := newServeEnv(t)
	bin := t.TempDir()
	got := filepath.Join(bin, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + got + ".tmp && mv " + got + ".tmp " + got + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	u, stop := e.start(t, &ServeOptions{Addr: "127.0.0.1:0", Open: true})
	deadline := time.Now().Add(30 * time.Second)
	var b []byte
	for {
		var err error
		if b, err = os.ReadFile(got); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.TrimSpace(string(b)) != u {
		t.Errorf("xdg-open got %q; want the one argument %q", b, u)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestSharedQueueOpensOnce: the dashboard's queue views share one queue
// (one pool): it is opened once, on the first view; an open that failed
// is tried again on the next.
func TestSharedQueueOpensOnce(t *testing.T) {
	opened, fail := 0, true
	sq := &sharedQueue{open: func(ctx context.Context) (*worker.Queue, error) {
		opened++
		if fail {
			return nil, errors.New("database down")
		}
		return worker.OpenQueueReady(ctx, "", t.TempDir(), i18n.EN)
	}}
	defer sq.Close()
	if _, err := sq.get(t.Context()); err == nil {
		t.Fatal("get succeeded while the queue cannot be opened")
	}
	fail = false
	var got []*worker.Queue
	for range 3 {
		q, err := sq.get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Status(t.Context(), 10); err != nil {
			t.Fatal(err)
		}
		got = append(got, q)
	}
	if opened != 2 || got[0] != got[1] || got[1] != got[2] {
		t.Errorf("opened %d times, queues %p %p %p; want one queue for every view after the failed open", opened, got[0], got[1], got[2])
	}
}
