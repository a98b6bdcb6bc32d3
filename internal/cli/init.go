package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
)

// InitOptions are the inputs of `baton init`.
type InitOptions struct {
	Factory   *Factory
	Shared    bool
	User      bool
	Uninstall bool
	Command   string
	Lang      string
	// MCP registers `baton mcp` as the project's MCP server (the default
	// in a repository; with User only when asked); NoMCP leaves it out.
	MCP, NoMCP bool
	// StatusLine sets baton's status line too (with Uninstall: removes only
	// it); Force replaces a status line of the person's own, which is kept
	// to be put back by --uninstall.
	StatusLine, Force bool
	// Agent wires another agent's CLI instead of Claude Code: gemini or
	// codex.
	Agent string
}

// NewCmdInit builds `baton init`, which wires Claude Code's hooks to baton.
func NewCmdInit(f *Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Install baton's hooks into Claude Code's settings for this repository",
		Long: "Installs baton's hook for every Claude Code hook event: baton-hook when it is on PATH\n" +
			"(it starts faster; `go install ./cmd/...` installs it beside baton), else `baton hook`. By default it writes\n" +
			".claude/settings.local.json (this machine only); --shared writes .claude/settings.json\n" +
			"(committed, for the whole team, with a command that picks baton-hook or baton hook on each\n" +
			"machine); --user writes ~/.claude/settings.json (every project).\n" +
			"In a repository it also registers `baton mcp` as the MCP server baton in .mcp.json and\n" +
			"approves it by name in .claude/settings.local.json, so the pull tools briefings name exist\n" +
			"(--no-mcp skips it; a .mcp.json git tracks is changed only with --shared). Files written for\n" +
			"this machine only are added to .git/info/exclude.\n" +
			"Other settings and hooks are kept. Running it twice changes nothing; --uninstall removes\n" +
			"exactly what it added.\n" +
			"--statusline also sets Claude Code's status line to `baton-hook statusline` (or `baton\n" +
			"statusline`). A status line of your own is never replaced without --force, and then it is\n" +
			"kept: --uninstall puts it back.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Shared && opts.User {
				return flagError{errors.New("--shared and --user cannot be used together")}
			}
			if opts.MCP && opts.NoMCP {
				return flagError{errors.New("--mcp and --no-mcp cannot be used together")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Shared, "shared", false, "write .claude/settings.json (shared with the team) instead of settings.local.json")
	cmd.Flags().BoolVar(&opts.User, "user", false, "write ~/.claude/settings.json (all projects)")
	cmd.Flags().BoolVar(&opts.Uninstall, "uninstall", false, "remove the hooks baton added")
	cmd.Flags().StringVar(&opts.Command, "command", "", "hook command to install (default baton-hook when on PATH, else \"baton hook\")")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	cmd.Flags().BoolVar(&opts.MCP, "mcp", false, "register baton mcp in the repository's .mcp.json also with --user (the default otherwise)")
	cmd.Flags().BoolVar(&opts.NoMCP, "no-mcp", false, "do not register baton mcp (with --uninstall: leave it registered)")
	cmd.Flags().BoolVar(&opts.StatusLine, "statusline", false, "set baton's status line too (with --uninstall: remove only it)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "with --statusline, replace a status line of your own (--uninstall puts it back)")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "wire baton's briefing into another agent's CLI instead: gemini (this repository's .gemini/settings.json) or codex (~/.codex/hooks.json)")
	return cmd
}

var (
	msgInitAdded     = i18n.Msg{JA: "baton のフック（%s）を %s に追加しました: %v", EN: "Added baton's hooks (%s) to %s: %v"}
	msgInitRemoved   = i18n.Msg{JA: "%s から baton のフックを外しました: %v", EN: "Removed baton's hooks from %s: %v"}
	msgInitUnchanged = i18n.Msg{JA: "%s は既に最新です（変更なし）", EN: "%s is already up to date (no change)"}
	msgInitNone      = i18n.Msg{JA: "%s に baton のフックはありません（変更なし）", EN: "%s has no baton hooks (no change)"}
	msgExcludeAdded  = i18n.Msg{JA: "%s を .git/info/exclude に追加しました", EN: "Added %s to .git/info/exclude"}
	msgExcludeGone   = i18n.Msg{JA: "%s を .git/info/exclude から外しました", EN: "Removed %s from .git/info/exclude"}
	msgExcludeKept   = i18n.Msg{JA: "%s には記録が残っているため、.git/info/exclude の行はそのままにしました", EN: "Kept %s in .git/info/exclude because it still holds records"}
	msgInitNext      = i18n.Msg{JA: "次: Claude Code を起動すると、作業が .claude/session-state/auto.jsonl に記録されます。`baton doctor` で確認できます。", EN: "Next: start Claude Code; its activity is recorded in .claude/session-state/auto.jsonl. Check with `baton doctor`."}
	msgNeedRepo      = i18n.Msg{JA: "git リポジトリの中で実行してください（--user ならどこでも可）: %v", EN: "run this inside a git repository (or use --user): %v"}
)

// hookCommand is the command init installs: the one asked for, else
// baton-hook when lookPath finds it (it starts faster), else `baton hook`.
// Settings shared with the team get the plugin's command, which picks
// between the two on each machine: a teammate may have only baton.
func hookCommand(asked string, shared bool, lookPath func(string) (string, error)) string {
	switch {
	case asked != "":
		return asked
	case shared:
		return claudecode.PluginHookCommand
	}
	if _, err := lookPath(claudecode.HookProgram); err == nil {
		return claudecode.HookProgram
	}
	return claudecode.DefaultHookCommand
}

func initRun(ctx context.Context, opts *InitOptions) error {
	f := opts.Factory
	repo, repoErr := f.Repo()
	lang, err := commandLang(f, opts.Lang, repo.Worktree)
	if err != nil {
		return err
	}
	if opts.Agent != "" {
		return initAgentRun(ctx, opts, repo, repoErr, lang)
	}
	if repoErr != nil && !opts.User {
		return errors.New(msgNeedRepo.Format(lang, repoErr))
	}
	local, shared, user := claudecode.SettingsPaths(f.Getenv("HOME"), repo.Worktree)
	path := local
	switch {
	case opts.Shared:
		path = shared
	case opts.User:
		path = user
	}

	out := f.IO.Out
	command := hookCommand(opts.Command, opts.Shared, exec.LookPath)
	// Where a status line of the person's own is kept while baton's
	// replaces it: the user's folder, or the repository's state folder.
	saveRoot, save := "", filepath.Join(filepath.Dir(path), ".baton-statusline-saved.json")
	if !opts.User && repoErr == nil {
		sd := state.For(repo)
		saveRoot, save = sd.Base(), filepath.Join(sd.Root, "statusline-saved-"+filepath.Base(path))
	}
	if opts.StatusLine && opts.Uninstall {
		return uninstallStatusLine(ctx, f, path, saveRoot, save, lang)
	}
	// The status line first: refused, it leaves every file as it was.
	if opts.StatusLine && !opts.Uninstall {
		if err := installStatusLine(ctx, f, path, saveRoot, save, opts.Shared, opts.Force, lang); err != nil {
			return err
		}
	}
	if opts.MCP || !opts.NoMCP && !opts.User {
		if err := initMCP(ctx, f, repo, repoErr, opts.Shared, opts.Uninstall, lang); err != nil {
			return err
		}
	}
	if opts.Uninstall {
		if err := uninstallStatusLine(ctx, f, path, saveRoot, save, lang); err != nil {
			return err
		}
		ch, err := claudecode.UninstallHooks(ctx, path, command)
		if err != nil {
			return err
		}
		if len(ch.Removed) > 0 {
			fmt.Fprintln(out, msgInitRemoved.Format(lang, path, ch.Removed))
		} else {
			fmt.Fprintln(out, msgInitNone.Format(lang, path))
		}
		if repoErr != nil {
			return nil
		}
		if _, err := claudecode.RemoveIfEmpty(local); err != nil {
			return err
		}
		if err := removeExclude(f, repo, localExclude, lang); err != nil {
			return err
		}
		return uninstallExclude(f, repo, lang)
	}

	ch, err := claudecode.InstallHooks(ctx, path, command)
	if err != nil {
		return err
	}
	if len(ch.Added) > 0 {
		fmt.Fprintln(out, msgInitAdded.Format(lang, command, path, ch.Added))
	} else {
		fmt.Fprintln(out, msgInitUnchanged.Format(lang, path))
	}
	if repoErr == nil {
		if err := addExclude(f, repo, state.ExcludePattern, lang); err != nil {
			return err
		}
		if _, err := os.Stat(local); err == nil {
			if err := addExclude(f, repo, localExclude, lang); err != nil {
				return err
			}
		}
		if _, status, detail := stateTrustCheck(ctx, state.For(repo), &repo, lang); status != checkOK {
			fmt.Fprintln(out, detail)
		}
	}
	fmt.Fprintln(out, msgInitNext.In(lang))
	return nil
}

var (
	msgStatusLineSet  = i18n.Msg{JA: "ステータスライン（%s）を %s に設定しました", EN: "Set the status line (%s) in %s"}
	msgStatusLineKept = i18n.Msg{JA: "%s の置き換えたステータスラインは %s に保存しました（--uninstall で戻ります）", EN: "Saved the status line it replaced in %s to %s (--uninstall puts it back)"}
	msgStatusLineOwn  = i18n.Msg{JA: "%s には独自のステータスラインがあるため変更しません。置き換えるには --force を付けてください（元の設定は --uninstall で戻ります）", EN: "%s has a status line of its own; left as it is. Add --force to replace it (--uninstall puts it back)"}
	msgStatusLineGone = i18n.Msg{JA: "%s から baton のステータスラインを外しました", EN: "Removed baton's status line from %s"}
)

// installStatusLine sets baton's status line in the settings file path.
func installStatusLine(ctx context.Context, f *Factory, path, saveRoot, save string, shared, force bool, lang i18n.Lang) error {
	command := claudecode.StatusLineDefault
	switch {
	case shared:
		command = claudecode.StatusLineShared
	default:
		if _, err := exec.LookPath(claudecode.HookProgram); err == nil {
			command = claudecode.StatusLineProgram
		}
	}
	_, hadSaved := os.Stat(save)
	ch, err := claudecode.InstallStatusLine(ctx, path, saveRoot, save, command, force)
	if errors.Is(err, claudecode.ErrOwnStatusLine) {
		return errors.New(msgStatusLineOwn.Format(lang, path))
	}
	if err != nil {
		return err
	}
	if len(ch.Added) > 0 {
		fmt.Fprintln(f.IO.Out, msgStatusLineSet.Format(lang, command, path))
		if _, err := os.Stat(save); err == nil && hadSaved != nil {
			fmt.Fprintln(f.IO.Out, msgStatusLineKept.Format(lang, path, save))
		}
	}
	return nil
}

// uninstallStatusLine removes baton's status line from path, putting back
// the one it replaced.
func uninstallStatusLine(ctx context.Context, f *Factory, path, saveRoot, save string, lang i18n.Lang) error {
	ch, err := claudecode.UninstallStatusLine(ctx, path, saveRoot, save)
	if err != nil {
		return err
	}
	if len(ch.Removed) > 0 {
		fmt.Fprintln(f.IO.Out, msgStatusLineGone.Format(lang, path))
	}
	return nil
}

var (
	msgInitAgent      = i18n.Msg{JA: "--agent %q は使えません: gemini か codex です", EN: "--agent %q is not gemini or codex"}
	msgInitAgentAdded = i18n.Msg{JA: "%s の SessionStart フックに baton の状況説明（%s）を追加しました: %s", EN: "Added baton's briefing (%s) to %s's SessionStart hook: %s"}
	msgInitGeminiNext = i18n.Msg{
		JA: "Gemini CLI はこのフォルダを信頼（trusted folder）していればプロジェクトのフックを実行し、初回に新しいフックとして警告を表示します。状況説明は最初の依頼の前に <hook_context> として渡ります。",
		EN: "The Gemini CLI runs a project's hooks once the folder is trusted, warning about a new hook the first time; the briefing reaches the model before the first request, in <hook_context>.",
	}
	msgInitCodexNext = i18n.Msg{
		JA: "Codex CLI 0.169 のフックは既定で無効です: ~/.codex/config.toml の [features] に hooks = true を加え（または codex --enable hooks）、次に codex を起動したときにこのフックを確認して信頼してください（自動化では codex exec --enable hooks --dangerously-bypass-hook-trust）。このフックはどのフォルダの Codex セッションでも動き、baton の記録がない所では何も出力しません。",
		EN: "Hooks are off by default in the Codex CLI 0.169: add hooks = true under [features] in ~/.codex/config.toml (or run codex --enable hooks), then review and trust this hook when codex next starts (in automation: codex exec --enable hooks --dangerously-bypass-hook-trust). The hook runs for Codex sessions in every folder and prints nothing where baton has recorded nothing.",
	}
)

// agentHookCommand is what another agent's SessionStart hook runs.
const agentHookCommand = "baton context build --hook"

// initAgentRun wires baton's briefing into another agent's CLI, whose
// SessionStart hooks read the same JSON as Claude Code's: the Gemini CLI's
// project settings (kept out of git when git does not track them), the
// Codex CLI's user hooks.json (its project hooks need the project trusted
// first).
func initAgentRun(ctx context.Context, opts *InitOptions, repo gitrepo.Repo, repoErr error, lang i18n.Lang) error {
	f := opts.Factory
	a, err := agentlog.ParseAgent(opts.Agent)
	if err != nil || a == agentlog.Claude {
		return flagError{errors.New(msgInitAgent.Format(lang, opts.Agent))}
	}
	command := agentHookCommand
	if opts.Command != "" {
		command = opts.Command
	}
	var path, exclude string
	next := msgInitCodexNext
	switch a {
	case agentlog.Gemini:
		if repoErr != nil {
			return errors.New(msgNeedRepo.Format(lang, repoErr))
		}
		path, exclude, next = filepath.Join(repo.Worktree, ".gemini", "settings.json"), "/.gemini/settings.json", msgInitGeminiNext
	case agentlog.Codex:
		path = filepath.Join(agentlog.DirsFrom(f.Getenv).Codex, "hooks.json")
	}
	out := f.IO.Out
	if opts.Uninstall {
		ch, err := claudecode.UninstallHooks(ctx, path, command)
		if err != nil {
			return err
		}
		if len(ch.Removed) == 0 {
			fmt.Fprintln(out, msgInitNone.Format(lang, path))
			return nil
		}
		fmt.Fprintln(out, msgInitRemoved.Format(lang, path, ch.Removed))
		if exclude != "" {
			if _, err := claudecode.RemoveIfEmpty(path); err != nil {
				return err
			}
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return removeExclude(f, repo, exclude, lang)
			}
		}
		return nil
	}
	ch, err := claudecode.InstallHooksFor(ctx, path, command, []string{"SessionStart"})
	if err != nil {
		return err
	}
	if len(ch.Added) == 0 {
		fmt.Fprintln(out, msgInitUnchanged.Format(lang, path))
	} else {
		fmt.Fprintln(out, msgInitAgentAdded.Format(lang, command, agentNames[a], path))
	}
	if exclude != "" {
		if tracked, err := repo.Tracked(ctx, path); err == nil && !tracked {
			if err := addExclude(f, repo, exclude, lang); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(out, next.In(lang))
	return nil
}

// localExclude is the line of info/exclude that keeps the person's own
// settings file out of git.
const localExclude = "/.claude/settings.local.json"

// addExclude adds pattern to the repository's info/exclude, saying so when
// it was not there.
func addExclude(f *Factory, repo gitrepo.Repo, pattern string, lang i18n.Lang) error {
	added, err := repo.AddExclude(pattern)
	if err != nil {
		return err
	}
	if added {
		fmt.Fprintln(f.IO.Out, msgExcludeAdded.Format(lang, pattern))
	}
	return nil
}

// removeExclude takes pattern out of the repository's info/exclude,
// saying so when it was there.
func removeExclude(f *Factory, repo gitrepo.Repo, pattern string, lang i18n.Lang) error {
	removed, err := repo.RemoveExclude(pattern)
	if err != nil {
		return err
	}
	if removed {
		fmt.Fprintln(f.IO.Out, msgExcludeGone.Format(lang, pattern))
	}
	return nil
}

// uninstallExclude takes the exclude line back unless the state folder still
// holds files: un-ignoring them would put the journal one `git add .` away
// from a commit.
func uninstallExclude(f *Factory, repo gitrepo.Repo, lang i18n.Lang) error {
	dir := state.For(repo).Root
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		fmt.Fprintln(f.IO.Out, msgExcludeKept.Format(lang, filepath.Join(repo.Main, state.RelDir)))
		return nil
	}
	return removeExclude(f, repo, state.ExcludePattern, lang)
}

// commandLang picks the message language: the --lang flag, else the config,
// else the locale.
func commandLang(f *Factory, flag, root string) (i18n.Lang, error) {
	if flag != "" {
		return flagLang(flag, nil, f.Getenv) // a flag needs no config: init works on a broken one
	}
	cfg, err := f.Config(root)
	if err != nil {
		return "", err
	}
	return cfg.Language(f.Getenv), nil
}
