package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/mcpserver"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/slackapi"
	"github.com/baton-cli/baton/internal/tracker"
)

// MCPOptions are the inputs of `baton mcp`.
type MCPOptions struct {
	Factory *Factory
	Route   string
}

// NewCmdMCP builds `baton mcp`, the MCP server of the pull tools.
func NewCmdMCP(f *Factory, runF func(context.Context, *MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the context tools to an agent over MCP (stdio)",
		Long: "Runs a Model Context Protocol server on stdin and stdout with the tools session_log,\n" +
			"issue_body (the configured tracker), thread_history (Slack: SLACK_BOT_TOKEN, SLACK_API_URL),\n" +
			"decisions and search. Claude Code starts it from the repository's .mcp.json, which\n" +
			"`baton init --mcp` writes, or from --mcp-config. Depths are capped at context.max_depth.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Route, "route", "", "context route (default: context.route, else default)")
	return cmd
}

func mcpRun(ctx context.Context, opts *MCPOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, contextFlags{Route: opts.Route})
	if err != nil {
		return err
	}
	return mcpserver.Serve(ctx, newPuller(f, e), Version(), f.IO.In, f.IO.Out)
}

// newPuller serves pulls for the route of e: the tracker of tracker.kind,
// Slack when SLACK_BOT_TOKEN is set.
func newPuller(f *Factory, e *contextEnv) *recall.Puller {
	p := &recall.Puller{
		State: e.w.state, Route: e.files.Route, MaxDepth: e.cfg.ContextMaxDepth(), Lang: e.lang,
		SlackChannel: e.cfg.Context.SlackChannel,
		Tracker: func(ctx context.Context) (tracker.Tracker, func() error, error) {
			return openTracker(ctx, f, e.w.root)
		},
	}
	p.Index = func(ctx context.Context, query string, limit int) (string, error) {
		return searchIndex(ctx, f, e, query, limit)
	}
	if e.files.Route == recall.DefaultRoute {
		// What teammates shared is the repository's, not a chat route's.
		p.Shared = func() ([]recall.Decision, func(*recall.Decision) bool, error) {
			s, err := resume.ReadShared(e.w.state, e.lang, f.Now().Location())
			return s.Decisions, s.Hide, err
		}
	}
	if token := f.Getenv("SLACK_BOT_TOKEN"); token != "" {
		p.Slack = func() (recall.SlackReader, error) {
			return slackapi.New(slackapi.Config{Token: token, APIURL: f.Getenv("SLACK_API_URL")})
		}
	}
	return p
}

// searchIndex answers the search tool from index.db when it exists, caught
// up first within a bound (an interrupted catch-up keeps its progress, and
// the search sees what is there).
func searchIndex(ctx context.Context, f *Factory, e *contextEnv, query string, limit int) (string, error) {
	if _, err := os.Stat(e.w.state.Index()); err != nil {
		return "", recall.ErrNoIndex
	}
	ix, err := openIndex(ctx, f, e.w, e.cfg, e.lang)
	if err != nil {
		return "", err
	}
	defer func() { ix.Close() }()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	err = catchUpIndex(cctx, f, &ix, e.w, e.cfg, e.lang)
	cancel()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return "", err
	}
	res, err := ix.Search(ctx, index.Query{Text: query, Limit: min(limit, index.MaxLimit)})
	if err != nil {
		return "", err
	}
	if text := res.ForModel(f.Now().Location()); text != "" {
		return text, nil
	}
	return msgSearchNone.Format(e.lang, query), nil
}

var (
	msgMCPAdded     = i18n.Msg{JA: "%s に MCP サーバー baton（baton mcp）を登録しました", EN: "Registered the MCP server baton (baton mcp) in %s"}
	msgMCPUnchanged = i18n.Msg{JA: "%s の MCP サーバー baton は登録済みです（変更なし）", EN: "%s already registers the MCP server baton (no change)"}
	msgMCPRemoved   = i18n.Msg{JA: "%s から MCP サーバー baton を外しました", EN: "Removed the MCP server baton from %s"}
	msgMCPNone      = i18n.Msg{JA: "%s に MCP サーバー baton はありません（変更なし）", EN: "%s has no MCP server baton (no change)"}
	msgMCPNeedsRepo = i18n.Msg{JA: "--mcp はリポジトリの .mcp.json に書きます。git リポジトリの中で実行してください: %v", EN: "--mcp writes the repository's .mcp.json: run this inside a git repository: %v"}
	msgMCPApproved  = i18n.Msg{JA: "%s で MCP サーバー baton を承認しました（Claude Code が確認なしで起動します）", EN: "Approved the MCP server baton in %s (Claude Code starts it without asking)"}
	msgMCPTracked   = i18n.Msg{JA: "%s は git で管理されている（チームの）ファイルなので変更しませんでした。チームで使うなら `baton init --shared` で baton mcp を登録できます。それまでブリーフィングは MCP ツールの代わりに baton のコマンドを案内します。", EN: "%s is tracked by git (the team's file), so it was not changed; `baton init --shared` registers baton mcp for the team. Until then briefings name baton's commands instead of its MCP tools."}
)

// mcpExclude is the line of info/exclude that keeps a .mcp.json baton
// created for this machine out of git.
const mcpExclude = "/" + claudecode.MCPConfigFile

// initMCP registers `baton mcp` as the project's MCP server baton, so that
// the pull tools every briefing names exist: in the worktree's .mcp.json,
// approved by name in the person's own settings.local.json (Claude Code
// then starts it without asking, and only it). A .mcp.json that git tracks
// is the team's and is changed only with shared; one created here for this
// machine is kept out of git. With uninstall it takes out exactly that.
func initMCP(ctx context.Context, f *Factory, repo gitrepo.Repo, repoErr error, shared, uninstall bool, lang i18n.Lang) error {
	if repoErr != nil {
		return fmt.Errorf("%s", msgMCPNeedsRepo.Format(lang, repoErr))
	}
	out := f.IO.Out
	path := filepath.Join(repo.Worktree, claudecode.MCPConfigFile)
	local, _, _ := claudecode.SettingsPaths(f.Getenv("HOME"), repo.Worktree)
	ours, err := repo.Tracked(ctx, path)
	teams := !shared && err == nil && ours
	if uninstall {
		if ch, err := claudecode.UnapproveMCPServer(ctx, local, mcpserver.Name); err != nil {
			return err
		} else if len(ch.Removed) > 0 {
			fmt.Fprintln(out, msgMCPRemoved.Format(lang, local))
		}
		if teams {
			return nil
		}
		ch, err := claudecode.UninstallMCPServer(ctx, path, mcpserver.Name)
		if err != nil {
			return err
		}
		if len(ch.Removed) == 0 {
			fmt.Fprintln(out, msgMCPNone.Format(lang, path))
			return nil
		}
		fmt.Fprintln(out, msgMCPRemoved.Format(lang, path))
		if _, err := claudecode.RemoveIfEmpty(path); err != nil {
			return err
		}
		return removeExclude(f, repo, mcpExclude, lang)
	}
	if teams && !claudecode.MCPServerDefined(path, mcpserver.Name) {
		fmt.Fprintln(out, msgMCPTracked.Format(lang, path))
		return nil
	}
	ch, err := claudecode.InstallMCPServer(ctx, path, mcpserver.Name, "baton", []string{"mcp"})
	if err != nil {
		return err
	}
	if len(ch.Added) > 0 || ch.Created || !ch.Unchanged {
		fmt.Fprintln(out, msgMCPAdded.Format(lang, path))
	} else {
		fmt.Fprintln(out, msgMCPUnchanged.Format(lang, path))
	}
	if ch.Created && !shared {
		if err := addExclude(f, repo, mcpExclude, lang); err != nil {
			return err
		}
	}
	ach, err := claudecode.ApproveMCPServer(ctx, local, mcpserver.Name)
	if err != nil {
		return err
	}
	if len(ach.Added) > 0 {
		fmt.Fprintln(out, msgMCPApproved.Format(lang, local))
	}
	return nil
}
