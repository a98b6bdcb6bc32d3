// Package slackapi reads Slack threads for baton's on-demand context: the
// replies of a thread through conversations.replies, page by page, waiting
// out rate limits as Slack asks (HTTP 429 with Retry-After).
//
// It talks to Slack through github.com/slack-go/slack; where it points
// comes from the caller (SLACK_API_URL and SLACK_BOT_TOKEN in the commands),
// so tests point it at internal/slacktest. It posts nothing.
package slackapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/baton-cli/baton/internal/slackthread"
)

// DefaultAPIURL is Slack's Web API.
const DefaultAPIURL = "https://slack.com/api/"

// Retry defaults: a few attempts, and never a wait longer than a person
// would sit through.
const (
	DefaultAttempts = 3
	DefaultMaxWait  = 30 * time.Second
	// pageLimit is how many messages one page asks for (Slack suggests at
	// most 200).
	pageLimit = 200
	// maxPages bounds one read: 50 pages of 200 is far past any thread
	// worth reading whole.
	maxPages = 50
)

// Config is what a Client needs.
type Config struct {
	// Token is the bot token (xoxb-…).
	Token string
	// APIURL is the Web API base; empty is DefaultAPIURL.
	APIURL string
	// HTTPClient carries the requests; nil is a client with a 30 s timeout.
	HTTPClient *http.Client
	// Attempts is how many times a rate-limited or failed call is tried
	// (default DefaultAttempts); MaxWait caps one wait (default
	// DefaultMaxWait): a longer Retry-After fails the call instead.
	Attempts int
	MaxWait  time.Duration
	// Sleep waits between attempts; nil is a timer that stops with ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client reads threads.
type Client struct {
	api      *slack.Client
	attempts int
	maxWait  time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
}

// New builds a Client. A missing token is an error of KindAuth.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" {
		return nil, &Error{Kind: KindAuth, Op: "slack", Err: errors.New("SLACK_BOT_TOKEN is not set")}
	}
	base := cfg.APIURL
	if base == "" {
		base = DefaultAPIURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c := &Client{
		api:      slack.New(cfg.Token, slack.OptionAPIURL(base), slack.OptionHTTPClient(hc)),
		attempts: cfg.Attempts,
		maxWait:  cfg.MaxWait,
		sleep:    cfg.Sleep,
	}
	if c.attempts <= 0 {
		c.attempts = DefaultAttempts
	}
	if c.maxWait <= 0 {
		c.maxWait = DefaultMaxWait
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	return c, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Replies reads the thread ts of channel: every page, keeping the first
// message (it says what the thread is about) and the newest depth-1
// replies.
func (c *Client) Replies(ctx context.Context, channel, ts string, depth int) (*slackthread.Thread, error) {
	if depth < 1 {
		depth = 1
	}
	th := &slackthread.Thread{Channel: channel, TS: ts}
	var tail []slackthread.Message // ring of the newest replies
	cursor := ""
	for page := 0; page < maxPages; page++ {
		var msgs []slack.Message
		var more bool
		var next string
		err := c.retry(ctx, "conversations.replies", func() error {
			var err error
			msgs, more, next, err = c.api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{
				ChannelID: channel, Timestamp: ts, Cursor: cursor, Limit: pageLimit, Inclusive: true,
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			msg := slackthread.Message{TS: m.Timestamp, ThreadTS: m.ThreadTimestamp, User: m.User, BotID: m.BotID, Username: m.Username, Text: m.Text}
			th.Total++
			if th.Total == 1 {
				th.Messages = append(th.Messages, msg)
				continue
			}
			tail = append(tail, msg)
			if len(tail) > depth-1 {
				tail = tail[1:]
			}
		}
		if !more || next == "" {
			break
		}
		cursor = next
	}
	th.Messages = append(th.Messages, tail...)
	th.Omitted = th.Total - len(th.Messages)
	return th, nil
}

// retry runs call up to the attempts allowed, waiting out rate limits
// (Retry-After) and retrying server errors; it classifies the last error.
func (c *Client) retry(ctx context.Context, op string, call func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = call()
		if err == nil {
			return nil
		}
		wait, retryable := backoff(err, attempt)
		if !retryable || attempt >= c.attempts {
			break
		}
		if wait > c.maxWait {
			break
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return classify(op, serr)
		}
	}
	return classify(op, err)
}

// backoff says how long to wait before trying again after err.
func backoff(err error, attempt int) (time.Duration, bool) {
	var rl *slack.RateLimitedError
	if errors.As(err, &rl) {
		return rl.RetryAfter, true
	}
	var sc slack.StatusCodeError
	if errors.As(err, &sc) && (sc.Code >= 500 || sc.Code == http.StatusTooManyRequests) {
		return time.Duration(attempt) * time.Second, true
	}
	return 0, false
}

// Kind classifies a failure once, for the message a person sees.
type Kind string

// Failure kinds.
const (
	KindAuth      Kind = "auth"
	KindRateLimit Kind = "rate-limit"
	KindNotFound  Kind = "not-found"
	KindNetwork   Kind = "network"
	KindUnknown   Kind = "unknown"
)

// Error is a failed Slack call.
type Error struct {
	Kind Kind
	Op   string
	// Code is Slack's error code ("channel_not_found"), when it gave one.
	Code       string
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	msg := e.Op + ": " + string(e.Kind)
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(", retry after %s", e.RetryAfter)
	}
	if e.Err != nil && e.Code == "" {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func classify(op string, err error) error {
	e := &Error{Kind: KindUnknown, Op: op, Err: err}
	var rl *slack.RateLimitedError
	var se slack.SlackErrorResponse
	var sc slack.StatusCodeError
	switch {
	case errors.As(err, &rl):
		e.Kind, e.RetryAfter = KindRateLimit, rl.RetryAfter
	case errors.As(err, &se):
		e.Code = se.Err
		switch se.Err {
		case "not_authed", "invalid_auth", "account_inactive", "token_revoked", "token_expired", "missing_scope", "not_allowed_token_type":
			e.Kind = KindAuth
		case "channel_not_found", "thread_not_found", "not_in_channel":
			e.Kind = KindNotFound
		case "ratelimited":
			e.Kind = KindRateLimit
		}
	case errors.As(err, &sc):
		switch {
		case sc.Code == http.StatusUnauthorized || sc.Code == http.StatusForbidden:
			e.Kind = KindAuth
		case sc.Code == http.StatusNotFound:
			e.Kind = KindNotFound
		case sc.Code == http.StatusTooManyRequests:
			e.Kind = KindRateLimit
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.Kind = KindNetwork
	default:
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "no such host") {
			e.Kind = KindNetwork
		}
	}
	return e
}

// KindOf returns the kind of a failure from this package, else unknown.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}
