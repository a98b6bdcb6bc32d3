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

// openTracker opens the issue tracker configured for the repository whose
// worktree is root: the local tracker (<state>/tracker.db) unless
// tracker.kind is github. Call closeFn when done with it.
func openTracker(ctx context.Context, f *Factory, root string) (t tracker.Tracker, closeFn func() error, err error) {
	cfg, err := f.Config(root)
	if err != nil {
		return nil, nil, err
	}
	if cfg.TrackerKind() == config.TrackerKindGitHub {
		c, err := gitHubTracker(ctx, f, root, cfg)
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

// gitHubTracker builds the GitHub client for root from the environment and
// the tracker settings; GH_REPO wins over tracker.github.repo, which wins
// over the origin remote.
func gitHubTracker(ctx context.Context, f *Factory, root string, cfg *config.Config) (*github.Client, error) {
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
		return nil, err
	}
	gc.UserAgent = "baton/" + strings.ReplaceAll(Version(), " ", "-")
	gc.Retry = github.Retry{
		Attempts: cfg.TrackerRetryAttempts(),
		MaxWait:  cfg.TrackerRetryMaxWait(),
		Timeout:  cfg.TrackerTimeout(),
	}
	return github.New(gc)
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
