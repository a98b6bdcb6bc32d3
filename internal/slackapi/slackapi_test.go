package slackapi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/slackapi"
	"github.com/baton-cli/baton/internal/slacktest"
)

const channel = "C0123ABCD"

// sleeps records the waits a client asked for instead of waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return nil
}

func client(t *testing.T, srv *slacktest.Server, token string, sl *sleeps) *slackapi.Client {
	t.Helper()
	c, err := slackapi.New(slackapi.Config{Token: token, APIURL: srv.URL, Sleep: sl.sleep, MaxWait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func thread(n int) []slacktest.Message {
	msgs := make([]slacktest.Message, n)
	for i := range msgs {
		msgs[i] = slacktest.Message{User: fmt.Sprintf("U%d", i%3), Text: fmt.Sprintf("message %d", i)}
	}
	return msgs
}

func TestRepliesPaginates(t *testing.T) {
	tests := []struct {
		name          string
		messages      int
		depth         int
		wantPages     int
		wantFirstText string
		wantLastText  string
		wantKept      int
	}{
		{name: "short thread whole", messages: 5, depth: 50, wantPages: 1, wantFirstText: "message 0", wantLastText: "message 4", wantKept: 5},
		{name: "long thread keeps the start and the newest replies", messages: 450, depth: 50, wantPages: 3, wantFirstText: "message 0", wantLastText: "message 449", wantKept: 50},
		{name: "depth one is the first message", messages: 30, depth: 1, wantPages: 1, wantFirstText: "message 0", wantLastText: "message 0", wantKept: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := slacktest.New(t)
			ts := srv.AddThread(channel, thread(tt.messages)...)
			th, err := client(t, srv, slacktest.Token, &sleeps{}).Replies(context.Background(), channel, ts, tt.depth)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(th.Messages); got != tt.wantKept {
				t.Fatalf("kept %d messages; want %d", got, tt.wantKept)
			}
			if th.Total != tt.messages || th.Omitted != tt.messages-tt.wantKept {
				t.Errorf("total %d omitted %d; want %d and %d", th.Total, th.Omitted, tt.messages, tt.messages-tt.wantKept)
			}
			if th.Messages[0].Text != tt.wantFirstText || th.Messages[len(th.Messages)-1].Text != tt.wantLastText {
				t.Errorf("first %q last %q; want %q and %q", th.Messages[0].Text, th.Messages[len(th.Messages)-1].Text, tt.wantFirstText, tt.wantLastText)
			}
			for i := 2; i < len(th.Messages); i++ {
				if th.Messages[i].TS <= th.Messages[i-1].TS {
					t.Fatalf("messages out of order at %d: %s after %s", i, th.Messages[i].TS, th.Messages[i-1].TS)
				}
			}
			if got := len(srv.Requests()); got != tt.wantPages {
				t.Errorf("%d requests; want %d pages", got, tt.wantPages)
			}
			for _, r := range srv.Requests() {
				if r.Form.Get("channel") != channel || r.Form.Get("ts") != ts || r.Form.Get("limit") != "200" {
					t.Errorf("request form %v; want channel, ts and limit 200", r.Form)
				}
			}
		})
	}
}

func TestRepliesRateLimit(t *testing.T) {
	tests := []struct {
		name       string
		limited    int
		retryAfter time.Duration
		wantErr    slackapi.Kind
		wantSleeps []time.Duration
	}{
		{name: "one 429 is waited out", limited: 1, retryAfter: 2 * time.Second, wantSleeps: []time.Duration{2 * time.Second}},
		{name: "two 429s are waited out", limited: 2, retryAfter: time.Second, wantSleeps: []time.Duration{time.Second, time.Second}},
		{name: "past the attempts it fails", limited: 3, retryAfter: time.Second, wantErr: slackapi.KindRateLimit, wantSleeps: []time.Duration{time.Second, time.Second}},
		{name: "a wait past the cap is not taken", limited: 1, retryAfter: time.Minute, wantErr: slackapi.KindRateLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := slacktest.New(t)
			ts := srv.AddThread(channel, thread(3)...)
			srv.RateLimit(tt.limited, tt.retryAfter)
			sl := &sleeps{}
			th, err := client(t, srv, slacktest.Token, sl).Replies(context.Background(), channel, ts, 50)
			if got := slackapi.KindOf(err); (err != nil || tt.wantErr != "") && got != tt.wantErr {
				t.Fatalf("error %v (kind %q); want kind %q", err, got, tt.wantErr)
			}
			if tt.wantErr == "" && len(th.Messages) != 3 {
				t.Errorf("got %d messages; want 3", len(th.Messages))
			}
			if fmt.Sprint(sl.got) != fmt.Sprint(tt.wantSleeps) {
				t.Errorf("waits %v; want %v", sl.got, tt.wantSleeps)
			}
		})
	}
}

func TestRepliesErrors(t *testing.T) {
	tests := []struct {
		name           string
		token, channel string
		ts             string
		wantKind       slackapi.Kind
		wantCode       string
	}{
		{name: "bad token", token: "xoxb-wrong", channel: channel, wantKind: slackapi.KindAuth, wantCode: "invalid_auth"},
		{name: "unknown channel", token: slacktest.Token, channel: "C9999", wantKind: slackapi.KindNotFound, wantCode: "channel_not_found"},
		{name: "unknown thread", token: slacktest.Token, channel: channel, ts: "1.000001", wantKind: slackapi.KindNotFound, wantCode: "thread_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := slacktest.New(t)
			ts := srv.AddThread(channel, thread(2)...)
			if tt.ts != "" {
				ts = tt.ts
			}
			_, err := client(t, srv, tt.token, &sleeps{}).Replies(context.Background(), tt.channel, ts, 10)
			var e *slackapi.Error
			if !errors.As(err, &e) || e.Kind != tt.wantKind || e.Code != tt.wantCode {
				t.Fatalf("error %v; want kind %q code %q", err, tt.wantKind, tt.wantCode)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("%d requests; want 1 (no retry of a definite answer)", len(srv.Requests()))
			}
		})
	}
}

func TestNewWithoutToken(t *testing.T) {
	_, err := slackapi.New(slackapi.Config{})
	if slackapi.KindOf(err) != slackapi.KindAuth {
		t.Errorf("New without a token: %v; want an auth error", err)
	}
}
