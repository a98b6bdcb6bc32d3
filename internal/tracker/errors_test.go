package tracker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestKindOf(t *testing.T) {
	var syntaxErr error = &json.SyntaxError{Offset: 3}
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, ""},
		{"tracker error", &Error{Kind: KindAuth, Status: 401}, KindAuth},
		{"wrapped tracker error", fmt.Errorf("post decision: %w", &Error{Kind: KindRateLimit}), KindRateLimit},
		{"deadline", context.DeadlineExceeded, KindNetwork},
		{"client timeout", &url.Error{Op: "Get", URL: "http://x", Err: timeoutErr{}}, KindNetwork},
		{"dns", &url.Error{Op: "Get", URL: "http://x", Err: &net.DNSError{Err: "no such host", Name: "x"}}, KindNetwork},
		{"refused", &url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}, KindNetwork},
		{"reset errno", fmt.Errorf("read body: %w", syscall.ECONNRESET), KindNetwork},
		{"dns in a joined error", errors.Join(errors.New("first"), fmt.Errorf("dial: %w", &net.DNSError{Err: "no such host", Name: "x"})), KindNetwork},
		{"missing file", &os.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, KindUnknown},
		{"permission", fmt.Errorf("start gh: %w", &os.PathError{Op: "fork/exec", Path: "/usr/bin/gh", Err: syscall.EACCES}), KindUnknown},
		{"transport error that is not the network", &url.Error{Op: "Get", URL: "http://x", Err: errors.New("unsupported protocol scheme")}, KindUnknown},
		{"closed before answer", &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, KindNetwork},
		{"truncated answer", &url.Error{Op: "Get", URL: "http://x", Err: io.ErrUnexpectedEOF}, KindNetwork},
		{"truncated document", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), KindUnknown},
		{"json syntax", syntaxErr, KindUnknown},
		{"canceled", context.Canceled, KindUnknown},
		{"canceled transport", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, KindUnknown},
		{"plain", errors.New("boom"), KindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := KindOf(tt.err); got != tt.want {
				t.Errorf("KindOf(%v) = %q; want %q", tt.err, got, tt.want)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"op and cause", &Error{Op: "get issue #3", Err: errors.New("404 Not Found")}, "get issue #3: 404 Not Found"},
		{"cause only", &Error{Err: errors.New("boom")}, "boom"},
		{"retry after", &Error{Op: "list comments of #3", Err: errors.New("403 API rate limit exceeded"), RetryAfter: 90*time.Second + 400*time.Millisecond},
			"list comments of #3: 403 API rate limit exceeded (retry after 1m30s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q; want %q", got, tt.want)
			}
		})
	}
	cause := errors.New("cause")
	if !errors.Is(&Error{Err: cause}, cause) {
		t.Error("errors.Is(&Error{Err: cause}, cause) = false; want true")
	}
}

func TestHint(t *testing.T) {
	kinds := []Kind{KindAuth, KindRateLimit, KindNetwork, KindNotFound, KindUnknown}
	seen := map[string]Kind{}
	for _, k := range kinds {
		for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
			h := Hint(k, lang)
			if h == "" {
				t.Errorf("Hint(%q, %q) is empty", k, lang)
			}
			if other, dup := seen[h]; dup {
				t.Errorf("Hint(%q, %q) = Hint(%q): %q", k, lang, other, h)
			}
			seen[h] = k
		}
	}
	for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
		h := Hint(KindAuth, lang)
		for _, want := range []string{"GH_TOKEN", "`gh auth status`", "`gh auth login`"} {
			if !strings.Contains(h, want) {
				t.Errorf("Hint(auth, %q) = %q; want it to mention %q", lang, h, want)
			}
		}
	}
	if got, want := Hint("teapot", i18n.EN), Hint(KindUnknown, i18n.EN); got != want {
		t.Errorf("Hint(teapot) = %q; want the unknown hint %q", got, want)
	}
}

func TestSummary(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	long := strings.Repeat("決定", 150)
	tests := []struct {
		name       string
		err        error
		want       string // exact, when set
		wantPrefix string
		absent     string
	}{
		{name: "nil", err: nil, want: ""},
		{name: "short", err: errors.New("get issue #3: 404 Not Found"), want: "get issue #3: 404 Not Found"},
		{name: "white space", err: errors.New("line one\n\tline two  "), want: "line one line two"},
		{name: "secret", err: fmt.Errorf("GET https://api.example/x?access_token=%s: 401", token), absent: token, wantPrefix: "GET https://api.example/x?access_token=[REDACTED"},
		{name: "long multibyte", err: errors.New(long), wantPrefix: strings.Repeat("決定", 99) + "決…"},
		{name: "secret at the cut", err: errors.New(strings.Repeat("x ", 95) + "token=" + token), absent: token[:12]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summary(tt.err)
			if n := utf8.RuneCountInString(got); n > MaxSummary {
				t.Errorf("Summary has %d characters; want at most %d", n, MaxSummary)
			}
			if tt.err == nil || tt.want != "" {
				if got != tt.want {
					t.Errorf("Summary = %q; want %q", got, tt.want)
				}
			}
			if tt.wantPrefix != "" && !strings.HasPrefix(got, tt.wantPrefix) {
				t.Errorf("Summary = %q; want prefix %q", got, tt.wantPrefix)
			}
			if tt.absent != "" && strings.Contains(got, tt.absent) {
				t.Errorf("Summary = %q; want no %q", got, tt.absent)
			}
		})
	}
	if got := Summary(errors.New(long)); utf8.RuneCountInString(got) != MaxSummary {
		t.Errorf("Summary of a long error has %d characters; want exactly %d", utf8.RuneCountInString(got), MaxSummary)
	}
}

func TestNormalizeState(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", "open", true}, {"open", "open", true}, {"closed", "closed", true}, {"all", "all", true}, {"merged", "merged", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizeState(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("NormalizeState(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
