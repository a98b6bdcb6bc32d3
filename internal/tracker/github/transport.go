package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/tracker"
)

// maxAnswer is the largest answer body read; GitHub's pages are far
// smaller.
const maxAnswer = 32 << 20

// errTooLarge means an answer passed maxAnswer.
var errTooLarge = errors.New("answer larger than 32 MiB")

// authTransport adds the token to requests for the API's own hosts only, so
// a redirect elsewhere never carries it.
type authTransport struct {
	base  http.RoundTripper
	token string
	hosts []string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for _, h := range t.hosts {
		if strings.EqualFold(req.URL.Host, h) {
			req = req.Clone(req.Context())
			req.Header.Set("Authorization", "Bearer "+t.token)
			break
		}
	}
	return t.base.RoundTrip(req)
}

// userAgentTransport names baton in every request.
type userAgentTransport struct {
	base      http.RoundTripper
	userAgent string
}

func (t *userAgentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.userAgent)
	return t.base.RoundTrip(req)
}

// retrySafeKey marks a request context whose POST may be sent twice.
type retrySafeKey struct{}

// retrySafe marks ctx's requests as safe to repeat even though their method
// is POST: adding labels, creating a label, a GraphQL query.
func retrySafe(ctx context.Context) context.Context {
	return context.WithValue(ctx, retrySafeKey{}, true)
}

// repeatable reports whether sending req twice does no harm.
func repeatable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return req.Context().Value(retrySafeKey{}) != nil
}

// retryTransport tries a request again after transient failures, within
// Retry's bounds. Each try has its own timeout and reads the whole answer,
// so a connection that breaks in the middle of a body is a failed try, not
// a truncated document.
//
// Rate-limit answers (429, 403 secondary limits, 403 with no requests left)
// are retried for every method: GitHub did not act on the request. Server
// errors, timeouts and broken connections are retried only for requests that
// can be repeated safely (GET, PUT, DELETE, and POSTs marked retrySafe): a
// comment or pull request that GitHub may already have created is not sent
// again, since a duplicate is worse than a reported failure. A connection
// that was refused is retried for every method.
type retryTransport struct {
	base  http.RoundTripper
	retry Retry
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		resp, err := t.try(req)
		if attempt >= t.retry.Attempts {
			return resp, err
		}
		wait, ok := t.retryable(req, resp, err, attempt)
		if !ok || waited+wait > t.retry.MaxWait {
			return resp, err
		}
		next, rerr := rewind(req)
		if rerr != nil {
			return resp, err
		}
		if serr := t.sleep(req.Context(), wait); serr != nil {
			return resp, err
		}
		waited += wait
		req = next
	}
}

// try sends req once, bounded by the try timeout, and reads the answer.
func (t *retryTransport) try(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.retry.Timeout)
	defer cancel()
	timedOut := func(err error) error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			return fmt.Errorf("no answer within %s: %w", t.retry.Timeout, context.DeadlineExceeded)
		}
		return err
	}
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		return nil, timedOut(err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", timedOut(err))
	}
	if len(body) > maxAnswer {
		return nil, errTooLarge
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Request = req
	return resp, nil
}

// retryable decides whether a try's outcome is worth another try, and after
// how long.
func (t *retryTransport) retryable(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	backoff := t.retry.BaseDelay << (attempt - 1)
	if err != nil {
		if req.Context().Err() != nil || errors.Is(err, errTooLarge) {
			return 0, false
		}
		return backoff, repeatable(req) || refused(err)
	}
	body, _ := peek(resp)
	kind, wait := classify(resp.StatusCode, resp.Header, body, t.now())
	switch {
	case kind == tracker.KindRateLimit:
		if wait == 0 {
			wait = backoff
		}
		return wait, true
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		if wait == 0 {
			wait = backoff
		}
		return wait, repeatable(req)
	}
	return 0, false
}

// refused reports whether the connection was never made, so the server
// cannot have seen the request.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// rewind returns a copy of req ready to be sent again.
func rewind(req *http.Request) (*http.Request, error) {
	next := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return next, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("request body cannot be sent twice")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	next.Body = body
	return next, nil
}

// peek returns the buffered body of resp without consuming it.
func peek(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

// classify reads a GitHub error answer: its kind and, for rate limits, how
// long GitHub asks to wait (0 when it does not say).
//
//	401, or "Bad credentials"                              auth
//	429                                                    rate-limit (Retry-After, else X-RateLimit-Reset when none are left)
//	403 with X-RateLimit-Remaining: 0                      rate-limit (until X-RateLimit-Reset, or Retry-After)
//	403 with Retry-After, or a secondary rate limit message rate-limit (Retry-After)
//	other 403                                              auth
//	404, 410                                               not-found
//	anything else                                          unknown
func classify(status int, h http.Header, body []byte, now time.Time) (tracker.Kind, time.Duration) {
	var doc struct {
		Message          string `json:"message"`
		DocumentationURL string `json:"documentation_url"`
	}
	_ = json.Unmarshal(body, &doc)
	retryAfter, hasRetryAfter := parseRetryAfter(h.Get("Retry-After"), now)
	exhausted := h.Get("X-RateLimit-Remaining") == "0"
	untilReset := func() time.Duration {
		reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil {
			return 0
		}
		return max(time.Unix(reset, 0).Sub(now), 0) + time.Second
	}
	secondary := strings.Contains(strings.ToLower(doc.Message), "secondary rate limit") ||
		strings.Contains(doc.DocumentationURL, "secondary-rate-limits") ||
		strings.Contains(doc.DocumentationURL, "abuse-rate-limits") ||
		(doc.Message == "" && strings.Contains(strings.ToLower(string(body)), "secondary rate limit"))
	switch {
	case status == http.StatusUnauthorized || strings.EqualFold(doc.Message, "Bad credentials"):
		return tracker.KindAuth, 0
	case status == http.StatusTooManyRequests, status == http.StatusForbidden && (exhausted || hasRetryAfter || secondary):
		switch {
		case hasRetryAfter:
			return tracker.KindRateLimit, retryAfter
		case exhausted:
			return tracker.KindRateLimit, untilReset()
		}
		return tracker.KindRateLimit, 0
	case status == http.StatusForbidden:
		return tracker.KindAuth, 0
	case status == http.StatusNotFound, status == http.StatusGone:
		return tracker.KindNotFound, 0
	}
	return tracker.KindUnknown, 0
}

// parseRetryAfter reads a Retry-After value: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
