package slacktest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// post calls the server as Slack's clients do: a form POST.
func post(t *testing.T, s *Server, method string, form url.Values) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(s.URL+method, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	return resp, body
}

func TestRepliesWireFormat(t *testing.T) {
	s := New(t)
	ts := s.AddThread("C1", Message{User: "U1", Text: "start"}, Message{User: "U2", Text: "a"}, Message{BotID: "B1", Text: "b"})

	resp, body := post(t, s, "conversations.replies", url.Values{"token": {Token}, "channel": {"C1"}, "ts": {ts}, "limit": {"2"}})
	if resp.StatusCode != 200 || body["ok"] != true || body["has_more"] != true {
		t.Fatalf("first page: status %d body %v; want 200, ok, has_more", resp.StatusCode, body)
	}
	msgs := body["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["ts"] != ts || msgs[0].(map[string]any)["reply_count"] != float64(2) {
		t.Fatalf("first page messages %v; want the parent with reply_count 2 and one reply", msgs)
	}
	cursor := body["response_metadata"].(map[string]any)["next_cursor"].(string)
	if cursor == "" {
		t.Fatal("no next_cursor while has_more")
	}

	_, body = post(t, s, "conversations.replies", url.Values{"token": {Token}, "channel": {"C1"}, "ts": {ts}, "limit": {"2"}, "cursor": {cursor}})
	msgs = body["messages"].([]any)
	if body["has_more"] != false || len(msgs) != 1 || msgs[0].(map[string]any)["bot_id"] != "B1" {
		t.Fatalf("second page %v; want the last (bot) message and no more", body)
	}

	_, body = post(t, s, "conversations.replies", url.Values{"token": {Token}, "channel": {"C1"}, "ts": {ts}, "cursor": {"garbage"}})
	if body["ok"] != false || body["error"] != "invalid_cursor" {
		t.Errorf("bad cursor: %v; want invalid_cursor", body)
	}
}

func TestErrorsAndRateLimit(t *testing.T) {
	s := New(t)
	ts := s.AddThread("C1", Message{Text: "x"})
	tests := []struct {
		name       string
		form       url.Values
		limit      time.Duration
		wantStatus int
		wantError  string
	}{
		{name: "no token", form: url.Values{"channel": {"C1"}, "ts": {ts}}, wantStatus: 200, wantError: "not_authed"},
		{name: "wrong token", form: url.Values{"token": {"xoxb-no"}, "channel": {"C1"}, "ts": {ts}}, wantStatus: 200, wantError: "invalid_auth"},
		{name: "unknown channel", form: url.Values{"token": {Token}, "channel": {"C2"}, "ts": {ts}}, wantStatus: 200, wantError: "channel_not_found"},
		{name: "unknown thread", form: url.Values{"token": {Token}, "channel": {"C1"}, "ts": {"1.1"}}, wantStatus: 200, wantError: "thread_not_found"},
		{name: "rate limited", form: url.Values{"token": {Token}, "channel": {"C1"}, "ts": {ts}}, limit: 1500 * time.Millisecond, wantStatus: 429, wantError: "ratelimited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.limit > 0 {
				s.RateLimit(1, tt.limit)
			}
			resp, body := post(t, s, "conversations.replies", tt.form)
			if resp.StatusCode != tt.wantStatus || body["ok"] != false || body["error"] != tt.wantError {
				t.Fatalf("status %d body %v; want %d and error %q", resp.StatusCode, body, tt.wantStatus, tt.wantError)
			}
			if tt.limit > 0 && resp.Header.Get("Retry-After") != "2" {
				t.Errorf("Retry-After %q; want 2 (1.5 s rounded up)", resp.Header.Get("Retry-After"))
			}
		})
	}
}
