package tracker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
)

// Kind is what sort of failure a tracker met, for choosing a hint, a JSON
// error kind or whether trying later can help.
type Kind string

// The kinds of failure.
const (
	// KindAuth: no credentials, or credentials the tracker refused (401,
	// "Bad credentials", 403 that is not a rate limit).
	KindAuth Kind = "auth"
	// KindRateLimit: the tracker asks to slow down (429, 403 with
	// X-RateLimit-Remaining: 0, secondary rate limits).
	KindRateLimit Kind = "rate-limit"
	// KindNetwork: the tracker could not be reached or did not answer in
	// time (DNS, connection refused or reset, timeouts).
	KindNetwork Kind = "network"
	// KindNotFound: the issue, comment or repository does not exist, or the
	// credentials cannot see it.
	KindNotFound Kind = "not-found"
	// KindUnknown: anything else, including server errors and answers that
	// could not be read.
	KindUnknown Kind = "unknown"
)

// Error is a classified tracker failure.
type Error struct {
	Kind Kind
	// Status is the HTTP status of the answer, 0 when there was none.
	Status int
	// Op says what was being done, e.g. "list comments of #12".
	Op  string
	Err error
	// RetryAfter is how long the tracker asked to wait, for rate limits
	// whose answer said so.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Err != nil {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter.Round(time.Second))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf classifies any error: a *Error (anywhere in the chain) gives its
// Kind; timeouts, DNS failures, refused or reset connections and connections
// closed before an answer give KindNetwork; anything else KindUnknown. A nil
// error has no kind ("").
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var te *Error
	if errors.As(err, &te) {
		return te.Kind
	}
	if isNetwork(err) {
		return KindNetwork
	}
	return KindUnknown
}

// isNetwork reports whether err says the other side could not be reached or
// went away.
func isNetwork(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if inChain(err, isNetError) {
		return true
	}
	for _, errno := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ETIMEDOUT} {
		if errors.Is(err, errno) {
			return true
		}
	}
	// A connection closed before the answer arrived: only inside a
	// transport error, since a bare EOF also comes from decoding a
	// truncated document, which is not a network failure.
	var ue *url.Error
	if errors.As(err, &ue) && (errors.Is(ue.Err, io.EOF) || errors.Is(ue.Err, io.ErrUnexpectedEOF)) {
		return true
	}
	return false
}

// netError has the methods of the standard library's network errors
// (net.Error: a DNS failure, a refused dial, a timeout). Package net is not
// imported for the name: the hook links this package, and net makes a
// program link the C library, which costs every start.
type netError interface {
	error
	Timeout() bool
	Temporary() bool
}

// isNetError reports whether err itself, not what it wraps, is a network
// error. A *url.Error has the same methods but only passes on those of the
// error it wraps, which the chain reaches next; a syscall.Errno has them
// whatever it says (a missing file, a refused permission).
func isNetError(err error) bool {
	switch err.(type) {
	case *url.Error:
		return false
	case syscall.Errno:
		// Every errno has the methods; the network ones are listed apart.
		return false
	}
	_, ok := err.(netError)
	return ok
}

// inChain reports whether match holds for err or any error it wraps.
func inChain(err error, match func(error) bool) bool {
	for err != nil {
		if match(err) {
			return true
		}
		if multi, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range multi.Unwrap() {
				if inChain(e, match) {
					return true
				}
			}
			return false
		}
		err = errors.Unwrap(err)
	}
	return false
}

// hint is the advice for each kind.
func hint(kind Kind) i18n.Msg {
	switch kind {
	case KindAuth:
		return i18n.Msg{
			JA: "GitHub の認証に失敗しました。`gh auth status` を実行して認証状態を確認し、必要なら `gh auth login` を実行するか、issue を読み書きできるトークンを GH_TOKEN（または GITHUB_TOKEN）に設定してください。",
			EN: "GitHub did not accept the credentials. Run `gh auth status` to check them; if needed, run `gh auth login` or set GH_TOKEN (or GITHUB_TOKEN) to a token that can read and write issues.",
		}
	case KindRateLimit:
		return i18n.Msg{
			JA: "GitHub のレート制限に達しました。メッセージにある時間だけ待ってから、もう一度実行してください。",
			EN: "GitHub's rate limit was reached. Wait for the time the message gives, then run the command again.",
		}
	case KindNetwork:
		return i18n.Msg{
			JA: "トラッカーに接続できませんでした。ネットワーク接続・プロキシ・GITHUB_API_URL を確認して、もう一度実行してください。",
			EN: "Could not reach the tracker. Check the network connection, any proxy and GITHUB_API_URL, then try again.",
		}
	case KindNotFound:
		return i18n.Msg{
			JA: "issue またはリポジトリが見つかりません。issue 番号と GH_REPO（または origin リモート）、トークンがそのリポジトリを見られるかを確認してください。",
			EN: "The issue or repository was not found. Check the issue number, GH_REPO (or the origin remote) and that the token can see the repository.",
		}
	default:
		return i18n.Msg{
			JA: "予期しない失敗です。もう一度実行し、続くようなら `baton doctor` で確認してください。",
			EN: "Unexpected failure. Try again; if it keeps failing, check with `baton doctor`.",
		}
	}
}

// Hint tells a person what to do about a failure of kind, in lang. An
// unknown kind gets the hint of KindUnknown.
func Hint(kind Kind, lang i18n.Lang) string {
	return hint(kind).In(lang)
}

// MaxSummary is the most characters Summary returns.
const MaxSummary = 200

// Summary is the text of err that may reach a person or a file: secrets
// redacted, runs of white space (newlines included) made one space, and at
// most MaxSummary characters, the cut marked with "…".
func Summary(err error) string {
	if err == nil {
		return ""
	}
	s := strings.Join(strings.Fields(redact.Redact(err.Error())), " ")
	if utf8.RuneCountInString(s) <= MaxSummary {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxSummary-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
