package githubtest

import (
	"net"
	"net/http"
	"strconv"
	"time"
)

// Fault is how a request fails. The fields combine: a Delay, then either a
// connection reset, a malformed body, or an error answer with Status,
// Message and Header. A Fault with only a Delay answers normally after it.
type Fault struct {
	// Status is the HTTP status of the error answer; its body is GitHub's
	// JSON error document.
	Status int
	// Message is the body's "message"; empty: GitHub's usual one for Status.
	Message string
	// DocumentationURL is the body's "documentation_url"; empty: GitHub's
	// REST documentation root.
	DocumentationURL string
	// Header is set on the answer, over the server's own (X-RateLimit-*).
	Header http.Header
	// Delay holds the answer back this long, or until the client gives up
	// or the server closes.
	Delay time.Duration
	// Reset closes the TCP connection with a reset, with no answer.
	Reset bool
	// Malformed answers 200 with a JSON document cut off in the middle.
	Malformed bool
	// PassFirst lets this many matching requests through before the fault
	// starts (set it with After).
	PassFirst int

	left int // requests still to fail; < 0: forever
}

// After returns f set to let the first n matching requests through, e.g.
// MalformedBody().After(1) breaks the second page of a list.
func (f Fault) After(n int) Fault {
	f.PassFirst = n
	return f
}

// BadCredentials answers 401 {"message":"Bad credentials"}.
func BadCredentials() Fault {
	return Fault{Status: http.StatusUnauthorized, Message: "Bad credentials"}
}

// Forbidden answers 403 without rate-limit signs: a token that lacks a
// permission.
func Forbidden() Fault {
	return Fault{Status: http.StatusForbidden, Message: "Resource not accessible by personal access token"}
}

// RateLimited answers 403 with X-RateLimit-Remaining: 0 and
// X-RateLimit-Reset at reset: the primary rate limit is used up.
func RateLimited(reset time.Time) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "API rate limit exceeded for user ID 1.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit",
		Header: http.Header{
			"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Used":      {strconv.Itoa(RateLimit)},
			"X-Ratelimit-Reset":     {strconv.FormatInt(reset.Unix(), 10)},
		},
	}
}

// SecondaryRateLimit answers 403 with Retry-After (whole seconds) and
// GitHub's secondary rate limit message.
func SecondaryRateLimit(retryAfter time.Duration) Fault {
	return Fault{
		Status:           http.StatusForbidden,
		Message:          "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		DocumentationURL: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
		Header:           http.Header{"Retry-After": {seconds(retryAfter)}},
	}
}

// TooManyRequests answers 429 with Retry-After (whole seconds).
func TooManyRequests(retryAfter time.Duration) Fault {
	return Fault{
		Status:  http.StatusTooManyRequests,
		Message: "API rate limit exceeded",
		Header:  http.Header{"Retry-After": {seconds(retryAfter)}},
	}
}

// ServerError answers status (500, 502, 503, …) with GitHub's error body.
func ServerError(status int) Fault { return Fault{Status: status} }

// Slow answers normally after d, unless the client gives up first.
func Slow(d time.Duration) Fault { return Fault{Delay: d} }

// ResetConnection resets the TCP connection without answering.
func ResetConnection() Fault { return Fault{Reset: true} }

// MalformedBody answers 200 with a JSON document cut off in the middle.
func MalformedBody() Fault { return Fault{Malformed: true} }

func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// takeFault returns the fault for a request to route, if one is due, and
// counts it. The caller holds s.mu.
func (s *Server) takeFault(route Route) *Fault {
	for _, key := range []Route{route, RouteAny} {
		queue := s.faults[key]
		if len(queue) == 0 {
			continue
		}
		f := queue[0]
		if f.PassFirst > 0 {
			f.PassFirst--
			return nil
		}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				s.faults[key] = queue[1:]
			}
		}
		c := *f
		return &c
	}
	return nil
}

// apply carries out f and reports whether it answered the request.
func (s *Server) apply(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return true
		case <-s.done:
			return true
		}
	}
	switch {
	case f.Reset:
		resetConnection(w)
		return true
	case f.Malformed:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`[{"id": 1, "body": "the answer stops here`))
		return true
	case f.Status != 0:
		for k, v := range f.Header {
			w.Header()[http.CanonicalHeaderKey(k)] = v
		}
		writeError(w, f.Status, f.Message, f.DocumentationURL)
		return true
	}
	return false
}

// resetConnection takes the connection over and closes it so that the peer
// sees a reset rather than an orderly close.
func resetConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("githubtest: connection cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
