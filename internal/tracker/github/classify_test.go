package github

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/tracker"
)

func TestClassify(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	reset := strconv.FormatInt(now.Add(time.Minute).Unix(), 10)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	const secondaryMsg = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
	tests := []struct {
		name     string
		status   int
		header   http.Header
		body     string
		wantKind tracker.Kind
		wantWait time.Duration
	}{
		{"401 bad credentials", 401, nil, `{"message":"Bad credentials"}`, tracker.KindAuth, 0},
		{"401 without body", 401, nil, ``, tracker.KindAuth, 0},
		{"bad credentials message on another status", 400, nil, `{"message":"Bad credentials"}`, tracker.KindAuth, 0},
		{"403 without rate-limit headers", 403, hdr("X-RateLimit-Remaining", "4999"), `{"message":"Resource not accessible by integration"}`, tracker.KindAuth, 0},
		{"403 with nothing at all", 403, nil, ``, tracker.KindAuth, 0},
		{"403 primary limit used up", 403, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset), `{"message":"API rate limit exceeded"}`, tracker.KindRateLimit, time.Minute + time.Second},
		{"403 primary limit, reset passed", 403, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(now.Add(-time.Hour).Unix(), 10)), ``, tracker.KindRateLimit, time.Second},
		{"403 primary limit with Retry-After", 403, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset, "Retry-After", "5"), ``, tracker.KindRateLimit, 5 * time.Second},
		{"403 secondary with Retry-After", 403, hdr("Retry-After", "30"), secondaryMsg, tracker.KindRateLimit, 30 * time.Second},
		{"403 Retry-After alone", 403, hdr("Retry-After", "7"), `{"message":"slow down"}`, tracker.KindRateLimit, 7 * time.Second},
		{"403 secondary message alone", 403, nil, `{"message":"You have exceeded a secondary rate limit."}`, tracker.KindRateLimit, 0},
		{"403 secondary documentation only", 403, nil, `{"message":"x","documentation_url":"https://docs.github.com/rest#secondary-rate-limits"}`, tracker.KindRateLimit, 0},
		{"403 abuse documentation", 403, nil, `{"message":"x","documentation_url":"https://developer.github.com/v3/#abuse-rate-limits"}`, tracker.KindRateLimit, 0},
		{"403 secondary in a body that is not JSON", 403, nil, `secondary rate limit hit`, tracker.KindRateLimit, 0},
		{"429 with Retry-After", 429, hdr("Retry-After", "2"), `{"message":"API rate limit exceeded"}`, tracker.KindRateLimit, 2 * time.Second},
		{"429 with Retry-After date", 429, hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), ``, tracker.KindRateLimit, 90 * time.Second},
		{"429 with reset", 429, hdr("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset), ``, tracker.KindRateLimit, time.Minute + time.Second},
		{"429 bare", 429, nil, ``, tracker.KindRateLimit, 0},
		{"429 with bad Retry-After", 429, hdr("Retry-After", "soon"), ``, tracker.KindRateLimit, 0},
		{"404", 404, nil, `{"message":"Not Found"}`, tracker.KindNotFound, 0},
		{"410", 410, nil, `{"message":"Issues are disabled for this repo"}`, tracker.KindNotFound, 0},
		{"422", 422, nil, `{"message":"Validation Failed"}`, tracker.KindUnknown, 0},
		{"500", 500, nil, `{"message":"Server Error"}`, tracker.KindUnknown, 0},
		{"502 with Retry-After", 502, hdr("Retry-After", "3"), ``, tracker.KindUnknown, 0},
		{"503", 503, nil, `<html>`, tracker.KindUnknown, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			kind, wait := classify(tt.status, h, []byte(tt.body), now)
			if kind != tt.wantKind || wait != tt.wantWait {
				t.Errorf("classify(%d, %v) = %q, %s; want %q, %s", tt.status, h, kind, wait, tt.wantKind, tt.wantWait)
			}
		})
	}
}

func TestParseRemote(t *testing.T) {
	tests := []struct {
		remote, host, owner, name string
		ok                        bool
	}{
		{"git@github.com:acme/widgets.git", "github.com", "acme", "widgets", true},
		{"git@github.com:acme/widgets", "github.com", "acme", "widgets", true},
		{"github.com:acme/widgets.git", "github.com", "acme", "widgets", true},
		{"https://github.com/acme/widgets.git", "github.com", "acme", "widgets", true},
		{"https://github.com/acme/widgets/", "github.com", "acme", "widgets", true},
		{"https://user:pw@GitHub.com/acme/my.repo.git", "github.com", "acme", "my.repo", true},
		{"ssh://git@github.example.com:2222/team/svc.git", "github.example.com", "team", "svc", true},
		{"git://github.com/acme/widgets.git", "github.com", "acme", "widgets", true},
		{"http://127.0.0.1:8080/acme/widgets", "127.0.0.1", "acme", "widgets", true},
		{"/srv/git/widgets.git", "", "", "", false},
		{"../widgets", "", "", "", false},
		{"https://github.com/acme", "", "", "", false},
		{"https://github.com/acme/widgets/tree/main", "", "", "", false},
		{"git@github.com:acme/wid gets.git", "", "", "", false},
		{"", "", "", "", false},
		{"file:///srv/acme/widgets.git", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.remote, func(t *testing.T) {
			host, owner, name, err := ParseRemote(tt.remote)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseRemote(%q) error = %v; want ok %v", tt.remote, err, tt.ok)
			}
			if host != tt.host || owner != tt.owner || name != tt.name {
				t.Errorf("ParseRemote(%q) = %q, %q, %q; want %q, %q, %q", tt.remote, host, owner, name, tt.host, tt.owner, tt.name)
			}
		})
	}
}

func TestParseRepo(t *testing.T) {
	tests := []struct {
		in, host, owner, name string
		ok                    bool
	}{
		{"acme/widgets", "", "acme", "widgets", true},
		{"GHE.example.com/team/svc", "ghe.example.com", "team", "svc", true},
		{"acme", "", "", "", false},
		{"acme/", "", "", "", false},
		{"a/b/c/d", "", "", "", false},
		{"acme/../x", "", "", "", false},
		{"/acme/widgets", "", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			host, owner, name, err := ParseRepo(tt.in)
			if (err == nil) != tt.ok || host != tt.host || owner != tt.owner || name != tt.name {
				t.Errorf("ParseRepo(%q) = %q, %q, %q, %v; want %q, %q, %q, ok %v", tt.in, host, owner, name, err, tt.host, tt.owner, tt.name, tt.ok)
			}
		})
	}
}

func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{"git@github.com:acme/widgets.git", "https://github.com/a/b", "ssh://h:1/a/b.git", "x:y", "://", "a@b:c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		host, owner, name, err := ParseRemote(remote)
		if err != nil {
			return
		}
		if host == "" || !validName(owner) || !validName(name) {
			t.Errorf("ParseRemote(%q) = %q, %q, %q without error; want a host and valid names", remote, host, owner, name)
		}
	})
}
