// Package slacktest is a fake Slack Web API for tests: an httptest server
// speaking Slack's real wire format for the calls baton makes
// (conversations.replies), with threads kept in memory and rate limits on
// demand.
//
//	srv := slacktest.New(t)
//	ts := srv.AddThread("C0123ABCD", slacktest.Message{User: "U1", Text: "shall we ship?"}, …)
//	cmd.Env = append(cmd.Env, srv.Env()...) // SLACK_API_URL, SLACK_BOT_TOKEN
//	srv.RateLimit(1, 2*time.Second)         // the next call gets 429 with Retry-After: 2
//
// Wire format, as Slack answers: every method is POST /api/<method> with a
// form body (or GET with a query); the token comes as "Authorization:
// Bearer …" or a token field. Answers are HTTP 200 with {"ok":true,…} or
// {"ok":false,"error":"<code>"} (not_authed, invalid_auth,
// channel_not_found, thread_not_found, invalid_cursor); a rate limit is
// HTTP 429 with Retry-After in seconds and {"ok":false,"error":"ratelimited"}.
// conversations.replies returns the thread's first message then its
// replies, oldest first, limit per page (default 1000 as on Slack, at most
// 1000), with "has_more" and "response_metadata":{"next_cursor":…} while
// more remain; cursors are opaque base64 strings.
package slacktest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Token is the bot token the server accepts.
const Token = "xoxb-1111111111-2222222222-abcdefghijklmnopqrstuvwx"

// A Message is one message of a seeded thread.
type Message struct {
	User  string
	BotID string
	Text  string
	// TS is the message's timestamp; empty gets the next one.
	TS string
}

// A Request is one call the server received.
type Request struct {
	Method string
	Form   url.Values
	// Status is the HTTP status answered.
	Status int
}

// Server is the fake Slack.
type Server struct {
	// URL is the Web API base, for SLACK_API_URL (ends with "/api/").
	URL string

	mu       sync.Mutex
	threads  map[string][]Message // channel + "/" + thread ts
	next     int64
	limited  int
	retry    time.Duration
	requests []Request
}

// New starts a fake Slack, closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{threads: map[string][]Message{}, next: 1778246185}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL + "/api/"
	return s
}

// Env returns the environment entries that point baton at the server.
func (s *Server) Env() []string {
	return []string{"SLACK_API_URL=" + s.URL, "SLACK_BOT_TOKEN=" + Token}
}

// AddThread seeds a thread in channel: the first message starts it, the
// rest are its replies. It returns the thread's ts.
func (s *Server) AddThread(channel string, msgs ...Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ts string
	for i := range msgs {
		if msgs[i].TS == "" {
			s.next++
			msgs[i].TS = fmt.Sprintf("%d.%06d", s.next, s.next%1000000)
		}
		if i == 0 {
			ts = msgs[i].TS
		}
	}
	s.threads[channel+"/"+ts] = append([]Message(nil), msgs...)
	return ts
}

// RateLimit makes the next n calls answer 429 with Retry-After (whole
// seconds, rounded up; at least 1).
func (s *Server) RateLimit(n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited, s.retry = n, retryAfter
}

// Requests returns the calls received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.answer(w, r, http.StatusBadRequest, map[string]any{"ok": false, "error": "invalid_form_data"})
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok || (r.Method != http.MethodPost && r.Method != http.MethodGet) {
		s.answer(w, r, http.StatusNotFound, map[string]any{"ok": false, "error": "unknown_method"})
		return
	}
	s.mu.Lock()
	if s.limited > 0 {
		s.limited--
		secs := int((s.retry + time.Second - 1) / time.Second)
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		s.answer(w, r, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
		return
	}
	s.mu.Unlock()

	token := r.Form.Get("token")
	if h := r.Header.Get("Authorization"); h != "" {
		token = strings.TrimPrefix(h, "Bearer ")
	}
	switch {
	case token == "":
		s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "not_authed"})
		return
	case token != Token:
		s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	switch method {
	case "conversations.replies":
		s.replies(w, r)
	case "auth.test":
		s.answer(w, r, http.StatusOK, map[string]any{"ok": true, "url": "https://acme.slack.com/", "team": "Acme", "user": "baton", "team_id": "T0001", "user_id": "U0BATON", "bot_id": "B0BATON"})
	default:
		s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "unknown_method"})
	}
}

func (s *Server) replies(w http.ResponseWriter, r *http.Request) {
	channel, ts := r.Form.Get("channel"), r.Form.Get("ts")
	s.mu.Lock()
	known := false
	for key := range s.threads {
		if strings.HasPrefix(key, channel+"/") {
			known = true
			break
		}
	}
	msgs, found := s.threads[channel+"/"+ts]
	msgs = append([]Message(nil), msgs...)
	s.mu.Unlock()
	switch {
	case channel == "" || !known:
		s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
		return
	case ts == "" || !found:
		s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "thread_not_found"})
		return
	}
	limit := 1000
	if l := r.Form.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "invalid_limit"})
			return
		}
		limit = min(n, 1000)
	}
	start := 0
	if c := r.Form.Get("cursor"); c != "" {
		start = decodeCursor(c, msgs)
		if start < 0 {
			s.answer(w, r, http.StatusOK, map[string]any{"ok": false, "error": "invalid_cursor"})
			return
		}
	}
	end := min(start+limit, len(msgs))
	page := make([]map[string]any, 0, end-start)
	for _, m := range msgs[start:end] {
		obj := map[string]any{"type": "message", "ts": m.TS, "thread_ts": ts, "text": m.Text}
		if m.User != "" {
			obj["user"] = m.User
		}
		if m.BotID != "" {
			obj["bot_id"], obj["subtype"] = m.BotID, "bot_message"
		}
		if m.TS == ts {
			obj["reply_count"] = len(msgs) - 1
		} else {
			obj["parent_user_id"] = msgs[0].User
		}
		page = append(page, obj)
	}
	body := map[string]any{"ok": true, "messages": page, "has_more": end < len(msgs)}
	if end < len(msgs) {
		body["response_metadata"] = map[string]any{"next_cursor": base64.StdEncoding.EncodeToString([]byte("next_ts:" + msgs[end].TS))}
	} else {
		body["response_metadata"] = map[string]any{"next_cursor": ""}
	}
	s.answer(w, r, http.StatusOK, body)
}

// decodeCursor returns the index of the message a cursor points at, or -1.
func decodeCursor(c string, msgs []Message) int {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return -1
	}
	ts, ok := strings.CutPrefix(string(b), "next_ts:")
	if !ok {
		return -1
	}
	for i, m := range msgs {
		if m.TS == ts {
			return i
		}
	}
	return -1
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, status int, body any) {
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: strings.TrimPrefix(r.URL.Path, "/api/"), Form: r.Form, Status: status})
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}
