package config

import (
	"strings"
	"testing"
	"time"
)

func TestTrackerSettings(t *testing.T) {
	tests := []struct {
		name                     string
		user, repo               string
		wantKind, wantRepo       string
		wantAttempts             int
		wantMaxWait, wantTimeout time.Duration
	}{
		{name: "defaults", wantKind: "auto", wantAttempts: 3, wantMaxWait: 30 * time.Second, wantTimeout: 30 * time.Second},
		{name: "auto asked for", user: "tracker:\n  kind: auto\n", wantKind: "auto", wantAttempts: 3, wantMaxWait: 30 * time.Second, wantTimeout: 30 * time.Second},
		{
			name:     "github with retries tuned",
			user:     "tracker:\n  kind: github\n  github:\n    repo: acme/widgets\n    retry: {attempts: 5, max_wait_seconds: 120, timeout_seconds: 10}\n",
			wantKind: "github", wantRepo: "acme/widgets", wantAttempts: 5, wantMaxWait: 2 * time.Minute, wantTimeout: 10 * time.Second,
		},
		{
			name:     "repository file overrides the kind only",
			user:     "tracker:\n  kind: github\n  github:\n    retry: {attempts: 1}\n",
			repo:     "tracker:\n  kind: local\n",
			wantKind: "local", wantAttempts: 1, wantMaxWait: 30 * time.Second, wantTimeout: 30 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := Load(write(t, dir, "user.yaml", tt.user), write(t, dir, "repo.yaml", tt.repo))
			if err != nil {
				t.Fatal(err)
			}
			if c.TrackerKind() != tt.wantKind || c.Tracker.GitHub.Repo != tt.wantRepo || c.TrackerRetryAttempts() != tt.wantAttempts ||
				c.TrackerRetryMaxWait() != tt.wantMaxWait || c.TrackerTimeout() != tt.wantTimeout {
				t.Errorf("kind %q repo %q attempts %d wait %s timeout %s; want %q %q %d %s %s",
					c.TrackerKind(), c.Tracker.GitHub.Repo, c.TrackerRetryAttempts(), c.TrackerRetryMaxWait(), c.TrackerTimeout(),
					tt.wantKind, tt.wantRepo, tt.wantAttempts, tt.wantMaxWait, tt.wantTimeout)
			}
		})
	}
}

func TestTrackerSettingsInvalid(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"unknown kind", "tracker:\n  kind: jira\n", "tracker.kind"},
		{"repository without owner", "tracker:\n  github:\n    repo: widgets\n", "tracker.github.repo"},
		{"repository with an empty part", "tracker:\n  github:\n    repo: acme//widgets\n", "tracker.github.repo"},
		{"too many attempts", "tracker:\n  github:\n    retry: {attempts: 11}\n", "tracker.github.retry.attempts"},
		{"negative wait", "tracker:\n  github:\n    retry: {max_wait_seconds: -1}\n", "tracker.github.retry.max_wait_seconds"},
		{"long timeout", "tracker:\n  github:\n    retry: {timeout_seconds: 601}\n", "tracker.github.retry.timeout_seconds"},
		{"unknown key", "tracker:\n  github:\n    token: x\n", `unknown key "tracker.github.token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, t.TempDir(), "c.yaml", tt.body))
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q; want it to mention %q", err, tt.want)
			}
		})
	}
}
