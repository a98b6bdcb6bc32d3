package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/mcpserver"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/tracker"
)

// DoctorOptions are the inputs of `baton doctor`.
type DoctorOptions struct {
	Factory *Factory
	JSON    bool
	Lang    string
}

// NewCmdDoctor builds `baton doctor`.
func NewCmdDoctor(f *Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that baton and Claude Code are set up, and explain what is not",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// Check outcomes. A failed required check makes doctor exit non-zero; a
// warning is about an optional part.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
)

type check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

var (
	msgDrBatonPath     = i18n.Msg{JA: "PATH 上の baton: %s", EN: "baton on PATH: %s"}
	msgDrBatonMissing  = i18n.Msg{JA: "PATH に baton がありません。フックとその後片付けの処理が baton を呼ぶので、`go install ./cmd/...` で入れ、$(go env GOPATH)/bin を PATH に加えてください", EN: "baton is not on PATH; the hooks and the jobs they start run it, so install it with `go install ./cmd/...` and add $(go env GOPATH)/bin to PATH"}
	msgDrHookProg      = i18n.Msg{JA: "PATH 上の baton-hook: %s", EN: "baton-hook on PATH: %s"}
	msgDrHookProgNone  = i18n.Msg{JA: "PATH に baton-hook がありません（任意）。フックは起動の遅い `baton hook` で動きます。`go install ./cmd/...` で baton と一緒に入ります", EN: "baton-hook is not on PATH (optional); hooks run the slower-starting `baton hook` instead. `go install ./cmd/...` installs it beside baton"}
	msgDrClaude        = i18n.Msg{JA: "Claude Code: %s (%s)", EN: "Claude Code: %s (%s)"}
	msgDrClaudeNone    = i18n.Msg{JA: "Claude Code (%s) が見つかりません: npm install -g @anthropic-ai/claude-code", EN: "Claude Code (%s) not found: npm install -g @anthropic-ai/claude-code"}
	msgDrHooks         = i18n.Msg{JA: "フック導入済み: %s", EN: "hooks installed in %s"}
	msgDrHooksPart     = i18n.Msg{JA: "%s のフックが一部だけです（%d/%d、ないもの: %s）。`baton init` で揃えてください", EN: "%s has only some of baton's hooks (%d/%d, missing %s); run `baton init` to complete them"}
	msgDrHooksPlugin   = i18n.Msg{JA: "baton プラグインが有効です（%s）", EN: "the baton plugin is enabled (%s)"}
	msgDrHooksNone     = i18n.Msg{JA: "baton のフックがどこにもありません。`baton init` を実行するか、プラグインを入れてください", EN: "baton's hooks are not installed anywhere; run `baton init` or install the plugin"}
	msgDrState         = i18n.Msg{JA: "状態フォルダに書き込めます: %s", EN: "state folder is writable: %s"}
	msgDrStateBad      = i18n.Msg{JA: "状態フォルダに書き込めません: %v", EN: "state folder is not writable: %v"}
	msgDrNoRepo        = i18n.Msg{JA: "git リポジトリの外です（記録はプロジェクトフォルダに残ります）", EN: "not inside a git repository (records go to the project folder)"}
	msgDrLogClean      = i18n.Msg{JA: "baton.log に直近 24 時間のエラーはありません", EN: "no errors in baton.log in the last 24 hours"}
	msgDrLogErrors     = i18n.Msg{JA: "baton.log に直近 24 時間で %d 件の問題があります。最新: %s", EN: "baton.log has %d problem(s) in the last 24 hours; newest: %s"}
	msgDrConfig        = i18n.Msg{JA: "設定ファイルを読めました", EN: "configuration loads"}
	msgDrGitHub        = i18n.Msg{JA: "GitHub の認証情報があります（%s）", EN: "GitHub credentials found (%s)"}
	msgDrGitHubNone    = i18n.Msg{JA: "GitHub の認証情報がありません（任意）。GH_TOKEN を設定するか `gh auth login` を実行すると課題に投稿できます", EN: "no GitHub credentials (optional); set GH_TOKEN or run `gh auth login` to post to issues"}
	msgDrTrackerLocal  = i18n.Msg{JA: "課題はローカルの tracker.db に記録します", EN: "issues go to the local tracker (tracker.db)"}
	msgDrTrackerGitHub = i18n.Msg{JA: "課題は GitHub の %s に投稿します", EN: "issues go to GitHub, %s"}
	msgDrTrackerBad    = i18n.Msg{JA: "GitHub の課題を使えません: %s", EN: "GitHub issues cannot be used: %s"}
	msgDrTmux          = i18n.Msg{JA: "tmux: %s", EN: "tmux: %s"}
	msgDrTmuxNone      = i18n.Msg{JA: "tmux がありません（任意、ディベートの tmux 表示に使います）", EN: "tmux not found (optional; used to show debates in panes)"}
	msgDrSummaryOK     = i18n.Msg{JA: "問題ありません。", EN: "All required checks passed."}
	msgDrSummaryBad    = i18n.Msg{JA: "必須の確認に失敗しました。", EN: "Some required checks failed."}
)

func doctorRun(ctx context.Context, opts *DoctorOptions) error {
	f := opts.Factory
	repo, repoErr := f.Repo()
	root := repo.Worktree
	cfg, cfgErr := f.Config(root)
	if cfgErr != nil {
		cfg = &config.Config{}
	}
	lang := cfg.Language(f.Getenv)
	if opts.Lang != "" {
		l, err := i18n.Parse(opts.Lang)
		if err != nil {
			return flagError{err}
		}
		lang = l
	}

	var checks []check
	add := func(name, status, detail string) { checks = append(checks, check{name, status, detail}) }

	if p, err := exec.LookPath("baton"); err == nil {
		add("baton", checkOK, msgDrBatonPath.Format(lang, p))
	} else {
		add("baton", checkFail, msgDrBatonMissing.In(lang))
	}

	if p, err := exec.LookPath(claudecode.HookProgram); err == nil {
		add("baton-hook", checkOK, msgDrHookProg.Format(lang, p))
	} else {
		add("baton-hook", checkWarn, msgDrHookProgNone.In(lang))
	}

	if cfgErr != nil {
		add("config", checkFail, cfgErr.Error())
	} else {
		add("config", checkOK, msgDrConfig.In(lang))
		for _, c := range repoConfigChecks(f, cfg, lang) {
			add(c.Name, c.Status, c.Detail)
		}
	}

	agent := cfg.AgentCommand()
	if p, err := exec.LookPath(agent); err == nil {
		add("claude", checkOK, msgDrClaude.Format(lang, p, agentVersion(ctx, p)))
	} else {
		add("claude", checkFail, msgDrClaudeNone.Format(lang, agent))
	}

	add(hooksCheck(ctx, f, root, lang))

	var dir state.Dir
	if repoErr == nil {
		dir = state.For(repo)
	} else {
		wd, _ := f.Getwd()
		dir = state.At(wd)
		add("repository", checkWarn, msgDrNoRepo.In(lang))
	}
	var repoPtr *gitrepo.Repo
	if repoErr == nil {
		repoPtr = &repo
	}
	if name, status, detail := stateTrustCheck(ctx, dir, repoPtr, lang); status != checkOK {
		add(name, status, detail)
	}
	if err := probeWritable(dir, repoPtr); err != nil {
		add("state", checkFail, msgDrStateBad.Format(lang, err))
	} else {
		add("state", checkOK, msgDrState.Format(lang, dir.Root))
	}

	add(logCheck(f, dir, lang))
	if repoErr == nil {
		add(archiveCheck(ctx, f, repo, dir, cfg, lang))
		add(memoryCheck(ctx, f, repo, dir, cfg, lang))
	}

	tc, tcErr := chooseTracker(ctx, f, root, cfg)
	switch {
	case f.Getenv("GH_TOKEN") != "":
		add("github", checkOK, msgDrGitHub.Format(lang, "GH_TOKEN"))
	case f.Getenv("GITHUB_TOKEN") != "":
		add("github", checkOK, msgDrGitHub.Format(lang, "GITHUB_TOKEN"))
	case tcErr == nil && tc.localOnly:
		// A local-only set-up needs no GitHub credentials.
	default:
		if p, err := exec.LookPath("gh"); err == nil {
			add("github", checkOK, msgDrGitHub.Format(lang, p))
		} else {
			add("github", checkWarn, msgDrGitHubNone.In(lang))
		}
	}
	add(trackerCheck(tc, tcErr, lang))
	add(mcpCheck(f, root, lang))
	if len(cfg.Worker.Repositories) > 0 {
		for _, c := range workerChecks(ctx, f, cfg, lang) {
			add(c.Name, c.Status, c.Detail)
		}
	}
	if p, err := exec.LookPath("tmux"); err == nil {
		add("tmux", checkOK, msgDrTmux.Format(lang, p))
	} else {
		add("tmux", checkWarn, msgDrTmuxNone.In(lang))
	}

	ok := true
	for _, c := range checks {
		if c.Status == checkFail {
			ok = false
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			OK     bool    `json:"ok"`
			Checks []check `json:"checks"`
		}{ok, checks}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			fmt.Fprintf(f.IO.Out, "%s %-10s %s\n", mark(c.Status), c.Name, c.Detail)
		}
		if ok {
			fmt.Fprintln(f.IO.Out, msgDrSummaryOK.In(lang))
		} else {
			fmt.Fprintln(f.IO.Out, msgDrSummaryBad.In(lang))
		}
	}
	if !ok {
		return errSilent
	}
	return nil
}

var (
	msgDrArchive      = i18n.Msg{JA: "トランスクリプトはセッション終了ごとに %s に保存されます（Claude Code は %d 日より古いものを削除します）", EN: "transcripts are archived at every session end in %s (Claude Code deletes those older than %d days)"}
	msgDrArchiveOff   = i18n.Msg{JA: "archive.transcripts がオフです。Claude Code は %d 日より古いトランスクリプトを削除し、baton の検索・使用量・決定の取り込みからも消えます。オンにするか `baton archive` を実行してください", EN: "archive.transcripts is off: Claude Code deletes transcripts older than %d days, and search, usage and decision capture lose them; turn it on or run `baton archive`"}
	msgDrArchiveStale = i18n.Msg{JA: "%d 件のトランスクリプト（最古 %s）が保存されないまま、Claude Code の削除（%d 日）が近づいています。`baton archive` を実行してください", EN: "%d transcripts (the oldest from %s) are not archived and near Claude Code's cleanup (%d days): run `baton archive`"}
	msgDrArchiveNone  = i18n.Msg{JA: "Claude Code の cleanupPeriodDays が %d です（%s）。トランスクリプトはすぐに削除されます", EN: "Claude Code's cleanupPeriodDays is %d (%s): transcripts are deleted almost at once"}
)

var (
	msgDrMemoryOff      = i18n.Msg{JA: "共有はオフです（memory.share: false）", EN: "sharing is off (memory.share: false)"}
	msgDrMemoryNone     = i18n.Msg{JA: "まだ同期していません。`baton sync` で %s を origin の %s で共有します", EN: "not synced yet: `baton sync` shares %s on %s of origin"}
	msgDrMemoryRemote   = i18n.Msg{JA: "origin リモートがないので共有できません", EN: "no origin remote to share through"}
	msgDrMemory         = i18n.Msg{JA: "%[2]s に %[1]d 件（コミット %[3]s）。最後の同期 %[4]s: 受け取り %[5]d 件、送信 %[6]d 件。共有するもの: %[7]s", EN: "%d entries on %s (commit %s); last sync %s: %d came, %d went; shares %s"}
	msgDrMemoryFailed   = i18n.Msg{JA: "最後の同期（%s）が失敗しました: %s", EN: "the last sync (%s) failed: %s"}
	msgDrMemoryHandoffs = i18n.Msg{JA: "まだ引き取られていない引き継ぎ: %s（`baton pickup <id>`）", EN: "handoffs not picked up yet: %s (`baton pickup <id>`)"}
	msgDrMemoryHeld     = i18n.Msg{JA: "最後の同期（%s）で秘密情報を含む %d 件を送りませんでした: %s", EN: "the last sync (%s) held back %d entries that would carry a secret: %s"}
)

// memoryCheck tells the state of the shared memory: off, not synced yet,
// the ref's entries and the last sync, or what the last sync refused or
// why it failed.
func memoryCheck(ctx context.Context, f *Factory, repo gitrepo.Repo, dir state.Dir, cfg *config.Config, lang i18n.Lang) (string, string, string) {
	if !cfg.MemoryShare() {
		return "memory", checkOK, msgDrMemoryOff.In(lang)
	}
	g := teammem.Git{Dir: repo.Worktree, Env: f.Environ()}
	if !g.HasRemote(ctx) {
		return "memory", checkOK, msgDrMemoryRemote.In(lang)
	}
	kinds := strings.Join(cfg.MemoryKinds(), ", ")
	st, err := teammem.DirOf(dir).ReadStatus()
	switch {
	case err != nil:
		return "memory", checkWarn, err.Error()
	case st.At.IsZero():
		return "memory", checkOK, msgDrMemoryNone.Format(lang, kinds, teammem.Ref)
	}
	at := st.At.In(f.Now().Location()).Format("2006-01-02 15:04")
	switch {
	case st.Error != "":
		return "memory", checkWarn, msgDrMemoryFailed.Format(lang, at, st.Error)
	case len(st.Refused) > 0:
		return "memory", checkWarn, msgDrMemoryHeld.Format(lang, at, len(st.Refused), strings.Join(st.Refused, "; "))
	}
	tip, _ := g.Run(ctx, "rev-parse", "--short", "--verify", "--quiet", teammem.Ref)
	detail := msgDrMemory.Format(lang, st.Entries, teammem.Ref, tip, at, st.Came, st.Went, kinds)
	if v, err := teammem.DirOf(dir).ReadView(); err == nil && len(v.Handoffs) > 0 {
		var ids []string
		for _, h := range v.Handoffs {
			ids = append(ids, teammem.ShortID(h.ID)+" ("+h.Branch+", "+h.Author+")")
		}
		detail += "; " + msgDrMemoryHandoffs.Format(lang, strings.Join(ids, ", "))
	}
	return "memory", checkOK, detail
}

// archiveWarnAhead is how long before Claude Code's cleanup a transcript
// with no copy in the archive is worth a warning.
const archiveWarnAhead = 7 * 24 * time.Hour

// archiveCheck tells whether Claude Code's cleanup of old transcripts
// (cleanupPeriodDays) would delete something baton keeps no copy of.
func archiveCheck(ctx context.Context, f *Factory, repo gitrepo.Repo, dir state.Dir, cfg *config.Config, lang i18n.Lang) (string, string, string) {
	home := f.Getenv("HOME")
	days, from := claudecode.CleanupPeriodDays(home, repo.Worktree)
	if days <= 0 {
		return "archive", checkWarn, msgDrArchiveNone.Format(lang, days, from)
	}
	if !cfg.ArchiveTranscripts() {
		return "archive", checkWarn, msgDrArchiveOff.Format(lang, days)
	}
	dest := index.ArchiveDir(dir)
	cutoff := f.Now().Add(-time.Duration(days)*24*time.Hour + archiveWarnAhead)
	n, oldest, err := index.Unarchived(ctx, index.TranscriptDirs(home, index.Worktrees(repo)), dest, cutoff)
	switch {
	case err != nil:
		return "archive", checkWarn, err.Error()
	case n > 0:
		return "archive", checkWarn, msgDrArchiveStale.Format(lang, n, oldest.Local().Format("2006-01-02"), days)
	}
	return "archive", checkOK, msgDrArchive.Format(lang, displayRel(dest, repo.Worktree), days)
}

func mark(status string) string {
	switch status {
	case checkOK:
		return "✓"
	case checkWarn:
		return "!"
	}
	return "✗"
}

// agentVersion asks the agent CLI for its version, bounded in time.
func agentVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return "version unknown: " + err.Error()
	}
	return strings.TrimSpace(string(out))
}

// hooksCheck finds where baton's hooks are installed: any settings file with
// all of them, or the plugin, passes.
func hooksCheck(ctx context.Context, f *Factory, root string, lang i18n.Lang) (string, string, string) {
	local, shared, user := claudecode.SettingsPaths(f.Getenv("HOME"), root)
	paths := []string{user}
	if root != "" {
		paths = []string{local, shared, user}
	}
	var partial []string
	for _, p := range paths {
		events, err := claudecode.HooksInstalled(ctx, p, claudecode.DefaultHookCommand)
		if err != nil || len(events) == 0 {
			continue
		}
		all := claudecode.HookEvents()
		missing := slices.DeleteFunc(slices.Clone(all), func(e string) bool { return slices.Contains(events, e) })
		if len(missing) == 0 {
			return "hooks", checkOK, msgDrHooks.Format(lang, p)
		}
		partial = append(partial, msgDrHooksPart.Format(lang, p, len(all)-len(missing), len(all), strings.Join(missing, ", ")))
	}
	for _, p := range paths {
		if name := enabledPlugin(p); name != "" {
			return "hooks", checkOK, msgDrHooksPlugin.Format(lang, name)
		}
	}
	if len(partial) > 0 {
		// The journal is kept; only some events go unrecorded.
		return "hooks", checkWarn, strings.Join(partial, "; ")
	}
	return "hooks", checkFail, msgDrHooksNone.In(lang)
}

var (
	msgDrMCP        = i18n.Msg{JA: "MCP サーバー baton（baton mcp）が %s に登録され、承認されています。ブリーフィングが案内する mcp__baton__… ツールが使えます", EN: "the MCP server baton (baton mcp) is registered in %s and approved: the mcp__baton__… tools briefings name are there"}
	msgDrMCPOff     = i18n.Msg{JA: "MCP サーバー baton が %s に登録されていません。ブリーフィングは MCP ツールの代わりに baton のコマンドを案内します。`baton init` で登録できます", EN: "the MCP server baton is not registered in %s: briefings name baton's commands instead of its MCP tools; `baton init` registers it"}
	msgDrMCPPending = i18n.Msg{JA: "MCP サーバー baton は %s にありますが、設定で承認されていません（enabledMcpjsonServers）。ブリーフィングは baton のコマンドを案内します。`baton init` で承認できます", EN: "the MCP server baton is in %s but no settings file approves it (enabledMcpjsonServers): briefings name baton's commands instead; `baton init` approves it"}
)

// mcpCheck says whether the pull tools every briefing names exist: the
// worktree's .mcp.json registers baton mcp and a settings file approves
// it, as recall.PullsFor decides for the briefing.
func mcpCheck(f *Factory, root string, lang i18n.Lang) (string, string, string) {
	if root == "" {
		return "mcp", checkWarn, msgDrMCPOff.Format(lang, claudecode.MCPConfigFile)
	}
	path := filepath.Join(root, claudecode.MCPConfigFile)
	switch {
	case claudecode.MCPServerEnabled(f.Getenv("HOME"), root, mcpserver.Name):
		return "mcp", checkOK, msgDrMCP.Format(lang, displayRel(path, root))
	case claudecode.MCPServerDefined(path, mcpserver.Name):
		return "mcp", checkWarn, msgDrMCPPending.Format(lang, displayRel(path, root))
	}
	return "mcp", checkWarn, msgDrMCPOff.Format(lang, displayRel(path, root))
}

// trackerCheck says which issue tracker decisions and `baton issue` use, and
// why. A tracker.kind: github that cannot be set up is a warning: only the
// commands that post need it.
func trackerCheck(c trackerChoice, err error, lang i18n.Lang) (string, string, string) {
	if err != nil {
		return "tracker", checkWarn, msgDrTrackerBad.Format(lang, tracker.Summary(err))
	}
	where := msgDrTrackerLocal.In(lang)
	if c.kind == config.TrackerKindGitHub {
		where = msgDrTrackerGitHub.Format(lang, c.github.Owner+"/"+c.github.Repo)
	}
	return "tracker", checkOK, where + " — " + c.reason(lang)
}

var (
	msgDrRepoTrusted  = i18n.Msg{JA: "%s はこの内容のまま信頼済みです。プログラムやサービスを選ぶ設定も使います", EN: "%s is trusted as it is; its settings that pick programs and services apply"}
	msgDrRepoIgnored  = i18n.Msg{JA: "%s の次の設定は無視しました: %s。プログラムやサービスを選ぶ設定で、%s。内容を確かめてから `baton trust` を実行すると使われます", EN: "ignored in %s: %s. They pick a program or a service baton would use, and %s; read the file, then run `baton trust` to use them"}
	msgDrRepoUntrusts = i18n.Msg{JA: "このファイルはまだ信頼されていません", EN: "you have not trusted this file"}
	msgDrRepoChanged  = i18n.Msg{JA: "信頼した後にファイルが変わりました", EN: "the file changed since you trusted it"}
	msgDrRepoUserOnly = i18n.Msg{JA: "%s の %s は無視しました。自分の設定ファイル（%s）にしか書けません", EN: "ignored %s in %s: it can be set only in your own config (%s)"}
	msgDrRepoLine     = i18n.Msg{JA: "%s（%d 行目）", EN: "%s (line %d)"}
)

// repoConfigChecks say which settings of the repository's .baton.yaml were
// not applied and why, or that the file is trusted.
func repoConfigChecks(f *Factory, cfg *config.Config, lang i18n.Lang) []check {
	r := cfg.Repo
	if r.Path == "" {
		return nil
	}
	var out []check
	var guarded []string
	for _, s := range r.Ignored {
		if s.UserOnly {
			out = append(out, check{"repo-config", checkWarn, msgDrRepoUserOnly.Format(lang, msgDrRepoLine.Format(lang, s.Key, s.Line), r.Path, config.UserPath(f.Getenv))})
			continue
		}
		guarded = append(guarded, msgDrRepoLine.Format(lang, s.Key, s.Line))
	}
	switch {
	case len(guarded) > 0:
		why := msgDrRepoUntrusts
		if r.Trust == config.RepoChanged {
			why = msgDrRepoChanged
		}
		out = append(out, check{"repo-config", checkWarn, msgDrRepoIgnored.Format(lang, r.Path, strings.Join(guarded, ", "), why.In(lang))})
	case r.Trust == config.RepoTrusted:
		out = append(out, check{"repo-config", checkOK, msgDrRepoTrusted.Format(lang, r.Path)})
	}
	return out
}

var (
	msgDrQueue         = i18n.Msg{JA: "ワーカーのキュー %s に接続でき、テーブルも最新です", EN: "the worker's queue %s answers and is migrated"}
	msgDrLabels        = i18n.Msg{JA: "ワーカーのラベルが %d 個のリポジトリにそろっています", EN: "the worker's labels exist in %d repositories"}
	msgDrLabelsMissing = i18n.Msg{JA: "ラベルがありません: %s。`baton worker setup` で作成してください", EN: "labels missing: %s; create them with `baton worker setup`"}
	msgDrLabelsBad     = i18n.Msg{JA: "ラベルを確認できません: %s", EN: "cannot check the labels: %s"}
)

// workerChecks checks the worker's queue connection and its labels.
func workerChecks(ctx context.Context, f *Factory, cfg *config.Config, lang i18n.Lang) []check {
	var out []check
	if q, err := openQueue(ctx, f, cfg, lang); err != nil {
		out = append(out, check{"queue", checkFail, err.Error()})
	} else {
		out = append(out, check{"queue", checkOK, msgDrQueue.Format(lang, q.Where())})
		q.Close()
	}
	w, err := buildWorker(&WorkerOptions{Factory: f}, cfg, lang, nil, nil)
	if err != nil {
		return append(out, check{"labels", checkWarn, msgDrLabelsBad.Format(lang, err)})
	}
	states, err := w.Labels(ctx, false)
	if err != nil {
		return append(out, check{"labels", checkWarn, msgDrLabelsBad.Format(lang, tracker.Summary(err))})
	}
	var missing []string
	for _, s := range states {
		if !s.Existed {
			missing = append(missing, s.Repo+" "+s.Label)
		}
	}
	if len(missing) > 0 {
		return append(out, check{"labels", checkWarn, msgDrLabelsMissing.Format(lang, strings.Join(missing, ", "))})
	}
	return append(out, check{"labels", checkOK, msgDrLabels.Format(lang, len(cfg.Worker.Repositories))})
}

// enabledPlugin returns the name of an enabled baton plugin in a settings file.
func enabledPlugin(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var s struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if json.Unmarshal(b, &s) != nil {
		return ""
	}
	for name, on := range s.EnabledPlugins {
		if on && (name == "baton" || strings.HasPrefix(name, "baton@")) {
			return name
		}
	}
	return ""
}

// probeWritable creates the state folder if needed, kept out of git as
// the hooks keep it (so that doctor in a fresh clone leaves git status
// clean), and writes and removes a file in it, never through a link (see
// package safepath).
func probeWritable(dir state.Dir, repo *gitrepo.Repo) error {
	if _, err := dir.Create(repo); err != nil {
		return err
	}
	name := filepath.Join(dir.Root, ".doctor-"+strconv.Itoa(os.Getpid()))
	f, err := safepath.OpenFile(dir.Base(), name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(name)
}

var (
	msgStateTracked = i18n.Msg{
		JA: "git が状態フォルダ %s の中のファイルを追跡しています。リポジトリと一緒に届いたもので、baton は信用しません。`git rm -r --cached %s` で追跡をやめ、中身を確かめてください",
		EN: "git tracks files in the state folder %s: they came with the repository and baton does not trust them. Stop tracking them with `git rm -r --cached %s` and check what they hold",
	}
	msgStateLinks = i18n.Msg{
		JA: "状態フォルダへの道筋か中にシンボリックリンクがあります: %s。baton はリンクを辿って読み書きしないので、取り除くまで記録されません",
		EN: "there are symbolic links on the way to or inside the state folder: %s. baton never reads or writes through a link, so nothing is recorded until they are removed",
	}
)

// stateTrustCheck reports a state folder that git tracks or that holds
// links (see state.Dir.Audit): a clone planted it. status is checkOK when
// neither.
func stateTrustCheck(ctx context.Context, dir state.Dir, repo *gitrepo.Repo, lang i18n.Lang) (name, status, detail string) {
	tracked, links, err := dir.Audit(ctx, repo)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if tracked {
		rel := state.RelDir
		problems = append(problems, msgStateTracked.Format(lang, dir.Root, rel))
	}
	if len(links) > 0 {
		problems = append(problems, msgStateLinks.Format(lang, strings.Join(links, ", ")))
	}
	if len(problems) == 0 {
		return "state-trust", checkOK, ""
	}
	return "state-trust", checkFail, strings.Join(problems, "; ")
}

// logCheck reports warnings and errors logged in the last day, from the state
// folder's log and the user-level one.
func logCheck(f *Factory, dir state.Dir, lang i18n.Lang) (string, string, string) {
	since := f.Now().Add(-24 * time.Hour)
	count, newest := 0, ""
	for i, p := range []string{dir.Log(), state.UserLog(f.Getenv)} {
		open := func() (*os.File, error) { return os.Open(p) }
		if i == 0 {
			// The state folder's log is never read through a link.
			open = func() (*os.File, error) { return safepath.Open(dir.Base(), p) }
		}
		n, last := recentProblems(open, since)
		count += n
		if last != "" {
			newest = filepath.Base(filepath.Dir(p)) + ": " + last
		}
	}
	if count == 0 {
		return "log", checkOK, msgDrLogClean.In(lang)
	}
	if len(newest) > 300 {
		newest = newest[:300] + "…"
	}
	return "log", checkWarn, msgDrLogErrors.Format(lang, count, newest)
}

// recentProblems counts the WARN and ERROR records of the log open opens,
// written since: JSON lines, or the key=value lines older versions wrote.
func recentProblems(open func() (*os.File, error), since time.Time) (int, string) {
	file, err := open()
	if err != nil {
		return 0, ""
	}
	defer file.Close()
	n, last := 0, ""
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct {
			Time  time.Time `json:"time"`
			Level string    `json:"level"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil {
			ts, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
			rec.Time, _ = time.Parse(time.RFC3339Nano, ts)
			switch {
			case strings.Contains(line, "level=WARN"):
				rec.Level = "WARN"
			case strings.Contains(line, "level=ERROR"):
				rec.Level = "ERROR"
			}
		}
		if rec.Level != "WARN" && rec.Level != "ERROR" || rec.Time.Before(since) {
			continue
		}
		n++
		last = line
	}
	return n, last
}
