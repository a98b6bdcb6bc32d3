package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/baton-cli/baton/internal/tracker/github"
	"github.com/baton-cli/baton/internal/tracker/local"
)

var msgTrackerNeedsRepo = i18n.Msg{
	JA: "ローカルの issue は git リポジトリの状態フォルダに保存されます。リポジトリの中で実行してください",
	EN: "local issues live in a git repository's state folder: run this inside a repository",
}

// openTracker opens the issue tracker of the repository whose worktree is
// root: the one tracker.kind names, or for auto (the default) the one
// chooseTracker picks. Call closeFn when done with it.
func openTracker(ctx context.Context, f *Factory, root string) (t tracker.Tracker, closeFn func() error, err error) {
	cfg, err := f.Config(root)
	if err != nil {
		return nil, nil, err
	}
	choice, err := chooseTracker(ctx, f, root, cfg)
	if err != nil {
		return nil, nil, err
	}
	if choice.kind == config.TrackerKindGitHub {
		c, err := github.New(choice.github)
		if err != nil {
			return nil, nil, err
		}
		return c, func() error { return nil }, nil
	}
	if root == "" {
		return nil, nil, errors.New(msgTrackerNeedsRepo.In(cfg.Language(f.Getenv)))
	}
	repo, err := gitrepo.Find(root)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", msgTrackerNeedsRepo.In(cfg.Language(f.Getenv)), err)
	}
	author := f.Getenv("USER")
	if author == "" {
		author = f.Getenv("USERNAME")
	}
	lt, err := local.Open(ctx, local.Path(state.For(repo).Root), local.Options{Author: author, Now: f.Now})
	if err != nil {
		return nil, nil, err
	}
	return lt, lt.Close, nil
}

// trackerChoice is the tracker a repository uses and why.
type trackerChoice struct {
	kind string // local or github
	// why and whyArgs say what made the choice.
	why     i18n.Msg
	whyArgs []any
	// github is the client's configuration when kind is github.
	github github.Config
	// localOnly is set when no GitHub repository is in sight: the local
	// tracker was asked for, or nothing names a repository.
	localOnly bool
}

// reason says in lang what made the choice.
func (c trackerChoice) reason(lang i18n.Lang) string { return c.why.Format(lang, c.whyArgs...) }

var (
	msgTrackerAsked     = i18n.Msg{JA: "tracker.kind が %s です", EN: "tracker.kind is %s"}
	msgTrackerAutoHub   = i18n.Msg{JA: "自動: %s が GitHub のリポジトリ %s を指し、トークンが %s にあります", EN: "auto: %s names the GitHub repository %s and a token is in %s"}
	msgTrackerAutoNoHub = i18n.Msg{JA: "自動: GitHub のリポジトリが見つかりません（%v）", EN: "auto: %v"}
	msgTrackerAutoHost  = i18n.Msg{JA: "自動: origin のリポジトリは %s にあり、GitHub ではありません（GitHub Enterprise なら tracker.kind: github）", EN: "auto: the origin remote is on %s, not GitHub (for GitHub Enterprise set tracker.kind: github)"}
	msgTrackerAutoLocal = i18n.Msg{JA: "自動: GitHub のリポジトリの指定がありません（GH_REPO も origin リモートもなし）", EN: "auto: nothing names a GitHub repository (no GH_REPO, no origin remote)"}
	msgTrackerAutoToken = i18n.Msg{JA: "自動: %s は GitHub のリポジトリですが、トークンがありません（GH_TOKEN、GITHUB_TOKEN、`gh auth token` のどれも空）", EN: "auto: %s is on GitHub but no token was found (GH_TOKEN, GITHUB_TOKEN and `gh auth token` gave none)"}
)

// chooseTracker decides which tracker the repository at root uses: the one
// tracker.kind names, or for auto GitHub when GH_REPO, tracker.github.repo
// or the origin remote names a GitHub repository and a token is found
// (GH_TOKEN, GITHUB_TOKEN, `gh auth token`), else the local one. An explicit
// github that cannot be set up is an error; auto falls back and says why.
func chooseTracker(ctx context.Context, f *Factory, root string, cfg *config.Config) (trackerChoice, error) {
	kind := cfg.TrackerKind()
	if kind == config.TrackerKindLocal {
		return trackerChoice{kind: kind, why: msgTrackerAsked, whyArgs: []any{kind}, localOnly: true}, nil
	}
	gc, err := gitHubConfig(ctx, f, root, cfg)
	if kind == config.TrackerKindGitHub {
		if err != nil {
			return trackerChoice{}, err
		}
		return trackerChoice{kind: kind, why: msgTrackerAsked, whyArgs: []any{kind}, github: gc}, nil
	}
	var te *tracker.Error
	noToken := errors.As(err, &te) && te.Kind == tracker.KindAuth
	local := func(why i18n.Msg, args ...any) (trackerChoice, error) {
		return trackerChoice{kind: config.TrackerKindLocal, why: why, whyArgs: args}, nil
	}
	switch {
	case errors.Is(err, github.ErrNoRepo):
		c, err := local(msgTrackerAutoLocal)
		c.localOnly = true
		return c, err
	case err != nil && !noToken:
		return local(msgTrackerAutoNoHub, err)
	case gc.RepoFrom == "origin" && gc.Host != "github.com" && f.Getenv("GITHUB_API_URL") == "":
		return local(msgTrackerAutoHost, gc.Host)
	case noToken:
		return local(msgTrackerAutoToken, gc.Owner+"/"+gc.Repo)
	}
	from := gc.RepoFrom
	if from == "GH_REPO" && f.Getenv("GH_REPO") == "" {
		from = "tracker.github.repo"
	}
	return trackerChoice{kind: config.TrackerKindGitHub, github: gc,
		why: msgTrackerAutoHub, whyArgs: []any{from, gc.Owner + "/" + gc.Repo, gc.TokenFrom}}, nil
}

// gitHubConfig builds the GitHub client's configuration for root from the
// environment and the tracker settings; GH_REPO wins over
// tracker.github.repo, which wins over the origin remote.
func gitHubConfig(ctx context.Context, f *Factory, root string, cfg *config.Config) (github.Config, error) {
	getenv := f.Getenv
	if repo := cfg.Tracker.GitHub.Repo; repo != "" && f.Getenv("GH_REPO") == "" {
		getenv = func(k string) string {
			if k == "GH_REPO" {
				return repo
			}
			return f.Getenv(k)
		}
	}
	gc, err := github.Resolve(ctx, github.Env{Getenv: getenv, Dir: root})
	if err != nil {
		return gc, err
	}
	gc.UserAgent = "baton/" + strings.ReplaceAll(Version(), " ", "-")
	gc.Retry = github.Retry{
		Attempts: cfg.TrackerRetryAttempts(),
		MaxWait:  cfg.TrackerRetryMaxWait(),
		Timeout:  cfg.TrackerTimeout(),
	}
	return gc, nil
}

// trackerFailure tells a person what went wrong with the tracker: the
// redacted, shortened error, then what to do about it, in lang. It returns
// errSilent for the command to return. The local tracker's "not found" needs
// no hint (it has no repository or token to check); GitHub's does.
func trackerFailure(f *Factory, lang i18n.Lang, err error) error {
	fmt.Fprintf(f.IO.ErrOut, "baton: %s\n", tracker.Summary(err))
	var te *tracker.Error
	if errors.As(err, &te) && te.Kind != tracker.KindUnknown && (te.Kind != tracker.KindNotFound || te.Status != 0) {
		fmt.Fprintln(f.IO.ErrOut, tracker.Hint(te.Kind, lang))
	}
	return errSilent
}
