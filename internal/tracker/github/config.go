package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/tracker"
)

// DefaultAPIURL is GitHub's REST API base.
const DefaultAPIURL = "https://api.github.com/"

// Config is everything a Client needs. Resolve fills it from the
// environment; tests can build one directly.
type Config struct {
	// APIURL is the REST API base; a trailing slash is added when missing.
	APIURL string
	// GraphQLURL is the GraphQL endpoint; empty: <APIURL>/graphql, or
	// https://<host>/api/graphql for a GitHub Enterprise /api/v3/ base.
	GraphQLURL string
	// Token authenticates every request.
	Token string
	// Owner and Repo name the repository.
	Owner, Repo string
	// UserAgent is sent with every request, e.g. "baton/1.2.0".
	UserAgent string
	// Retry bounds the retries of transient failures.
	Retry Retry
	// Transport carries the requests; nil: a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Sleep waits between retries; nil: a timer that stops with ctx. Tests
	// put a recorder here.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for X-RateLimit-Reset; nil: time.Now.
	Now func() time.Time

	// Where Resolve found things, for a person: RepoFrom is "GH_REPO" or
	// "origin", Host the repository's host ("" when GH_REPO gave none), and
	// TokenFrom "GH_TOKEN", "GITHUB_TOKEN" or "gh auth token".
	RepoFrom, Host, TokenFrom string
}

// Retry bounds how transient failures are retried.
type Retry struct {
	// Attempts is the most tries of one request, the first included;
	// 0: DefaultAttempts. 1 turns retries off.
	Attempts int
	// MaxWait caps the total time spent waiting between the tries of one
	// request; a wait that would pass it is not made. 0: DefaultMaxWait.
	MaxWait time.Duration
	// BaseDelay is the first wait when the answer names none; it doubles
	// with each retry. 0: DefaultBaseDelay.
	BaseDelay time.Duration
	// Timeout bounds each try, from sending to the end of the answer's
	// body. 0: DefaultTimeout.
	Timeout time.Duration
}

// Retry defaults.
const (
	DefaultAttempts  = 3
	DefaultMaxWait   = 30 * time.Second
	DefaultBaseDelay = time.Second
	DefaultTimeout   = 30 * time.Second
)

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = DefaultAttempts
	}
	if r.MaxWait <= 0 {
		r.MaxWait = DefaultMaxWait
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = DefaultBaseDelay
	}
	if r.Timeout <= 0 {
		r.Timeout = DefaultTimeout
	}
	return r
}

// Env is what Resolve reads: the process's environment and, for the origin
// remote and `gh auth token`, programs it runs.
type Env struct {
	// Getenv looks up environment variables.
	Getenv func(string) string
	// Dir is a folder of the repository, for its origin remote; empty:
	// GH_REPO must name the repository.
	Dir string
	// Output runs a program in dir and returns its standard output; nil:
	// os/exec.
	Output func(ctx context.Context, dir, name string, args ...string) ([]byte, error)
}

// Resolve builds a Config from the environment:
//
//   - API base GITHUB_API_URL (default https://api.github.com/, or
//     https://<host>/api/v3/ when the repository is on another host);
//     GraphQL GITHUB_GRAPHQL_URL (default derived from the API base).
//   - Token GH_TOKEN, else GITHUB_TOKEN, else the output of `gh auth token`.
//   - Repository GH_REPO ("owner/name" or "host/owner/name"), else the
//     origin remote of env.Dir (git@host:owner/name.git,
//     https://host/owner/name(.git), ssh://git@host/owner/name.git).
//
// A missing token is a *tracker.Error of KindAuth, so its hint says how to
// set one; the Config returned with it names the repository found.
func Resolve(ctx context.Context, env Env) (Config, error) {
	if env.Output == nil {
		env.Output = runOutput
	}
	var cfg Config
	host, owner, name, err := resolveRepo(ctx, env)
	if err != nil {
		return Config{}, err
	}
	cfg.Owner, cfg.Repo, cfg.Host = owner, name, host
	cfg.RepoFrom = "origin"
	if env.Getenv("GH_REPO") != "" {
		cfg.RepoFrom = "GH_REPO"
	}

	cfg.APIURL = env.Getenv("GITHUB_API_URL")
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
		if host != "" && host != "github.com" {
			cfg.APIURL = "https://" + host + "/api/v3/"
		}
	}
	cfg.GraphQLURL = env.Getenv("GITHUB_GRAPHQL_URL")

	cfg.Token, cfg.TokenFrom = strings.TrimSpace(env.Getenv("GH_TOKEN")), "GH_TOKEN"
	if cfg.Token == "" {
		cfg.Token, cfg.TokenFrom = strings.TrimSpace(env.Getenv("GITHUB_TOKEN")), "GITHUB_TOKEN"
	}
	if cfg.Token == "" {
		cfg.TokenFrom = "gh auth token"
		args := []string{"auth", "token"}
		if host != "" && host != "github.com" {
			args = append(args, "--hostname", host)
		}
		out, err := env.Output(ctx, env.Dir, "gh", args...)
		cfg.Token = strings.TrimSpace(string(out))
		if err != nil || cfg.Token == "" {
			cause := errors.New("no token in GH_TOKEN or GITHUB_TOKEN, and `gh auth token` gave none")
			if err != nil {
				cause = fmt.Errorf("no token in GH_TOKEN or GITHUB_TOKEN, and `gh auth token` failed: %w", err)
			}
			// The repository found is kept, so a caller can say which
			// one lacks a token.
			cfg.Token, cfg.TokenFrom = "", ""
			return cfg, &tracker.Error{Kind: tracker.KindAuth, Op: "find a GitHub token", Err: cause}
		}
	}
	return cfg, nil
}

// ErrNoRepo means nothing names a repository: GH_REPO is not set and the
// worktree has no origin remote.
var ErrNoRepo = errors.New("no GitHub repository")

// resolveRepo finds the repository from GH_REPO or the origin remote.
func resolveRepo(ctx context.Context, env Env) (host, owner, name string, err error) {
	if v := env.Getenv("GH_REPO"); v != "" {
		host, owner, name, err = ParseRepo(v)
		if err != nil {
			return "", "", "", fmt.Errorf("GH_REPO: %w", err)
		}
		return host, owner, name, nil
	}
	if env.Dir == "" {
		return "", "", "", fmt.Errorf("%w: set GH_REPO to owner/name", ErrNoRepo)
	}
	out, err := env.Output(ctx, env.Dir, "git", "remote", "get-url", "origin")
	if err != nil {
		return "", "", "", fmt.Errorf("%w: set GH_REPO to owner/name, or add an origin remote: %w", ErrNoRepo, err)
	}
	host, owner, name, err = ParseRemote(strings.TrimSpace(string(out)))
	if err != nil {
		return "", "", "", fmt.Errorf("origin remote: %w", err)
	}
	return host, owner, name, nil
}

// ParseRepo reads "owner/name" or "host/owner/name" (host "" for the
// first form).
func ParseRepo(s string) (host, owner, name string, err error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	switch len(parts) {
	case 2:
		owner, name = parts[0], parts[1]
	case 3:
		host, owner, name = strings.ToLower(parts[0]), parts[1], parts[2]
	default:
		return "", "", "", fmt.Errorf("%q is not owner/name or host/owner/name", s)
	}
	if !validName(owner) || !validName(name) || (len(parts) == 3 && host == "") {
		return "", "", "", fmt.Errorf("%q is not owner/name or host/owner/name", s)
	}
	return host, owner, name, nil
}

// ParseRemote reads a git remote URL of a GitHub repository:
// git@host:owner/name(.git), ssh://[user@]host[:port]/owner/name(.git),
// https://[user@]host/owner/name(.git) (http and git:// too).
func ParseRemote(remote string) (host, owner, name string, err error) {
	bad := fmt.Errorf("%q is not a GitHub remote (host/owner/name)", remote)
	var path string
	if i := strings.Index(remote, "://"); i >= 0 {
		u, err := url.Parse(remote)
		if err != nil || u.Hostname() == "" {
			return "", "", "", bad
		}
		host, path = u.Hostname(), u.Path
	} else {
		// scp-like syntax: [user@]host:path
		hostPart, p, ok := strings.Cut(remote, ":")
		if !ok || strings.Contains(hostPart, "/") {
			return "", "", "", bad
		}
		if _, h, ok := strings.Cut(hostPart, "@"); ok {
			hostPart = h
		}
		host, path = hostPart, p
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if host == "" || len(parts) != 2 || !validName(parts[0]) || !validName(parts[1]) {
		return "", "", "", bad
	}
	return strings.ToLower(host), parts[0], parts[1], nil
}

// validName accepts the characters GitHub allows in owner and repository
// names.
func validName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// runOutput runs a program without a shell and returns its standard output.
func runOutput(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return out, fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return out, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
