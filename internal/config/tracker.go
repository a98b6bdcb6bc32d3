package config

import (
	"fmt"
	"strings"
	"time"
)

// Tracker kinds.
const (
	// TrackerKindLocal keeps issues in the repository's state folder.
	TrackerKindLocal = "local"
	// TrackerKindGitHub uses the repository's GitHub issues.
	TrackerKindGitHub = "github"
	// TrackerKindAuto, the default, is github when the repository is on
	// GitHub and a token is found, else local.
	TrackerKindAuto = "auto"
)

// Tracker configures the issue tracker of `baton issue` and of the
// decisions posted from sessions.
type Tracker struct {
	// Kind is auto (the default: github when GH_REPO or the origin remote
	// names a GitHub repository and a token is found, else local), local
	// (issues in the state folder, no network) or github.
	Kind   string        `yaml:"kind"`
	GitHub TrackerGitHub `yaml:"github"`
}

// TrackerGitHub configures the GitHub tracker. Where it points (API URL,
// token) comes from the environment: GITHUB_API_URL, GH_TOKEN, ….
type TrackerGitHub struct {
	// Repo is the repository, owner/name or host/owner/name; empty: GH_REPO,
	// else the origin remote.
	Repo  string       `yaml:"repo"`
	Retry TrackerRetry `yaml:"retry"`
}

// TrackerRetry bounds the retries of transient GitHub failures. Zero values
// mean the default.
type TrackerRetry struct {
	// Attempts is the most tries of one request, the first included (1–10,
	// default 3; 1 turns retries off).
	Attempts int `yaml:"attempts"`
	// MaxWaitSeconds caps the total wait between the tries of one request
	// (1–600, default 30).
	MaxWaitSeconds int `yaml:"max_wait_seconds"`
	// TimeoutSeconds bounds each try (1–600, default 30).
	TimeoutSeconds int `yaml:"timeout_seconds"`
}

// TrackerKind returns which tracker is asked for: auto, local or github.
// Which one auto comes to depends on the repository and the environment.
func (c *Config) TrackerKind() string {
	if c.Tracker.Kind != "" {
		return c.Tracker.Kind
	}
	return TrackerKindAuto
}

// TrackerRetryAttempts returns the most tries of one GitHub request.
func (c *Config) TrackerRetryAttempts() int {
	if n := c.Tracker.GitHub.Retry.Attempts; n > 0 {
		return n
	}
	return 3
}

// TrackerRetryMaxWait returns the total wait allowed between the tries of
// one GitHub request.
func (c *Config) TrackerRetryMaxWait() time.Duration {
	if s := c.Tracker.GitHub.Retry.MaxWaitSeconds; s > 0 {
		return time.Duration(s) * time.Second
	}
	return 30 * time.Second
}

// TrackerTimeout returns the time allowed for one try of a GitHub request.
func (c *Config) TrackerTimeout() time.Duration {
	if s := c.Tracker.GitHub.Retry.TimeoutSeconds; s > 0 {
		return time.Duration(s) * time.Second
	}
	return 30 * time.Second
}

func (t Tracker) validate() error {
	r := t.GitHub.Retry
	switch {
	case t.Kind != "" && t.Kind != TrackerKindAuto && t.Kind != TrackerKindLocal && t.Kind != TrackerKindGitHub:
		return fmt.Errorf("config: tracker.kind %q must be auto, local or github", t.Kind)
	case t.GitHub.Repo != "" && !repoShaped(t.GitHub.Repo):
		return fmt.Errorf("config: tracker.github.repo %q must be owner/name or host/owner/name", t.GitHub.Repo)
	case r.Attempts < 0 || r.Attempts > 10:
		return fmt.Errorf("config: tracker.github.retry.attempts %d must be between 1 and 10", r.Attempts)
	case r.MaxWaitSeconds < 0 || r.MaxWaitSeconds > 600:
		return fmt.Errorf("config: tracker.github.retry.max_wait_seconds %d must be between 1 and 600", r.MaxWaitSeconds)
	case r.TimeoutSeconds < 0 || r.TimeoutSeconds > 600:
		return fmt.Errorf("config: tracker.github.retry.timeout_seconds %d must be between 1 and 600", r.TimeoutSeconds)
	}
	return nil
}

// repoShaped reports whether s has two or three non-empty parts separated
// by slashes.
func repoShaped(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, p := range parts {
		if strings.TrimSpace(p) == "" || p == "." || p == ".." {
			return false
		}
	}
	return true
}
