package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
)

// DecisionsOptions are the inputs of `baton decisions capture|close`.
type DecisionsOptions struct {
	Factory    *Factory
	Close      bool
	Session    string
	Transcript string
	Issue      int
	Yes        bool
	Select     []string
	Scopes     []string
	OnFailure  string
	JSON       bool
	Lang       string
}

// NewCmdDecisions builds `baton decisions` and its subcommands.
func NewCmdDecisions(f *Factory, runF func(context.Context, *DecisionsOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "decisions",
		Short: "Capture the decisions of agent sessions and record them on their issue",
		Long: "Finds the decisions made in a Claude Code session, asks which to keep, posts one comment per\n" +
			"decision to the linked issue (GitHub or the local tracker), saves what could not be posted\n" +
			"and, when closing a session, posts its summary and promotes cross-issue decisions to the\n" +
			"agent's memory.",
	}
	cmd.AddCommand(
		newCmdDecisionsCapture(f, runF, false),
		newCmdDecisionsCapture(f, runF, true),
		newCmdDecisionsList(f),
		newCmdDecisionsRetry(f),
		newCmdDecisionsShow(f),
	)
	return cmd
}

func newCmdDecisionsCapture(f *Factory, runF func(context.Context, *DecisionsOptions) error, closeMode bool) *cobra.Command {
	opts := &DecisionsOptions{Factory: f, Close: closeMode}
	use, short := "capture", "Capture the session's new decisions and post them to its issue"
	if closeMode {
		use, short = "close", "Capture the session's decisions, post its summary and promote cross-issue decisions"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + ".\n\n" +
			"At a terminal it lists the candidates, asks which to approve, which are cross-issue, and what\n" +
			"to do when posting fails. Without a terminal, say it with flags: --yes or --select to approve,\n" +
			"--scope to mark cross-issue decisions, --on-failure for failures (default save).\n" +
			"The session is --session, else the latest one the journal recorded in this worktree.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.OnFailure != "" && !slices.Contains([]string{"save", "discard", "abort"}, opts.OnFailure) {
				return flagError{fmt.Errorf("--on-failure must be save, discard or abort")}
			}
			if opts.Yes && len(opts.Select) > 0 {
				return flagError{errors.New("--yes and --select cannot be used together")}
			}
			if _, err := parseScopes(opts.Scopes); err != nil {
				return flagError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return decisionsRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Session, "session", "", "session id (default: the latest session of this worktree)")
	fl.StringVar(&opts.Transcript, "transcript", "", "transcript file (default: found from the session)")
	fl.IntVar(&opts.Issue, "issue", 0, "post to this issue instead of resolving it")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "approve every candidate without asking")
	fl.StringSliceVar(&opts.Select, "select", nil, "approve only these slugs (comma-separated)")
	fl.StringArrayVar(&opts.Scopes, "scope", nil, "set a decision's scope: slug=issue or slug=cross-issue (repeatable)")
	fl.StringVar(&opts.OnFailure, "on-failure", "", "when posting fails: save (default), discard or abort")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgNeedFlags = i18n.Msg{
		JA: "端末がないため確認できません。--yes（すべて承認）か --select slug,…（選んで承認）を付けてください。--scope slug=cross-issue、--on-failure save|discard|abort、--json も使えます",
		EN: "no terminal to ask on: pass --yes (approve all) or --select slug,… (approve some); --scope slug=cross-issue, --on-failure save|discard|abort and --json are available too",
	}
	msgNoSession = i18n.Msg{
		JA: "対象のセッションが見つかりません。--session ID を指定してください",
		EN: "no session found to capture: pass --session ID",
	}
	msgTranscriptMissing = i18n.Msg{
		JA: "transcript がありません: %s（状態は変更していません）",
		EN: "transcript not found: %s (state left unchanged)",
	}
	msgNoIssue = i18n.Msg{
		JA: "投稿先の issue を決められません: %v\n`--issue N` を付けるか、issue に %s ラベルを付けるか、ブランチ名を feat/<番号>-… にしてください",
		EN: "cannot tell which issue to post to: %v\npass `--issue N`, label the issue %s, or name the branch feat/<number>-…",
	}
	msgExtractorParse = i18n.Msg{
		JA: "抽出結果を読めませんでした（状態は変更していません）。もう一度実行してください: %v",
		EN: "could not read the extractor's answer (state left unchanged); run it again: %v",
	}
	msgNoNew      = i18n.Msg{JA: "新しい決定は検出されませんでした。", EN: "No new decisions found."}
	msgRejected   = i18n.Msg{JA: "すべての候補が却下されました。", EN: "All candidates were rejected."}
	msgAborted    = i18n.Msg{JA: "中断しました。投稿できた決定だけを記録しました。", EN: "Aborted; only the decisions that were posted are recorded."}
	msgFailed     = i18n.Msg{JA: "投稿に失敗: %s: %s", EN: "failed to post %s: %s"}
	msgPendingOK  = i18n.Msg{JA: "未投稿の %d 件を保存しました。`baton decisions retry --session %s` で再投稿できます。", EN: "Saved %d unposted decision(s); post them later with `baton decisions retry --session %s`."}
	msgWarning    = i18n.Msg{JA: "警告: %s", EN: "warning: %s"}
	msgApprove    = i18n.Msg{JA: "投稿する決定を選んでください", EN: "Choose the decisions to post"}
	msgCross      = i18n.Msg{JA: "cross-issue（プロジェクト全体に効く）決定を選んでください", EN: "Mark the cross-issue decisions (they apply to the whole project)"}
	msgWhichIssue = i18n.Msg{JA: "どの issue に投稿しますか?", EN: "Which issue should the decisions go to?"}
	msgOnFailure  = i18n.Msg{JA: "%d 件の投稿に失敗しました。どうしますか?", EN: "%d decision(s) could not be posted. What now?"}
)

// decisionsEnv is what every decisions command works in.
type decisionsEnv struct {
	repo gitrepo.Repo
	dir  state.Dir
	cfg  *config.Config
	lang i18n.Lang
}

func newDecisionsEnv(f *Factory, langFlag string) (*decisionsEnv, error) {
	repo, repoErr := f.Repo()
	lang, err := commandLang(f, langFlag, repo.Worktree)
	if err != nil {
		return nil, err
	}
	if repoErr != nil {
		return nil, errors.New(msgNeedRepo.Format(lang, repoErr))
	}
	cfg, err := f.Config(repo.Worktree)
	if err != nil {
		return nil, err
	}
	return &decisionsEnv{repo: repo, dir: state.For(repo), cfg: cfg, lang: lang}, nil
}

func decisionsRun(ctx context.Context, opts *DecisionsOptions) error {
	f := opts.Factory
	env, err := newDecisionsEnv(f, opts.Lang)
	if err != nil {
		return err
	}
	lang := env.lang
	interactive := f.IO.IsTerminal && isTerminal(f.IO.In) && !opts.JSON
	flagged := opts.Yes || len(opts.Select) > 0
	if !flagged && !interactive {
		return flagError{errors.New(msgNeedFlags.In(lang))}
	}
	session, transcript, err := findSession(ctx, f, env, opts.Session, opts.Transcript)
	if err != nil {
		return err
	}
	trk, closeTrk, err := openTracker(ctx, f, env.repo.Worktree)
	if err != nil {
		return trackerFailure(f, lang, err)
	}
	defer closeTrk()

	scopes, _ := parseScopes(opts.Scopes)
	var ui decision.UI
	if flagged {
		ui = &flagUI{yes: opts.Yes, selected: opts.Select, scopes: scopes, onFailure: decision.Choice(cmp.Or(opts.OnFailure, string(decision.ChoiceSave)))}
	} else {
		ui = &formUI{f: f, lang: lang, scopes: scopes}
	}
	ex, budget := decisionExtractor(f, env.cfg, env.dir)
	flow := &decision.Flow{
		State:      env.dir,
		Session:    session,
		Transcript: transcript,
		Tracker:    trk,
		Extractor:  ex,
		Budget:     budget,
		Resolve: decision.ResolveOptions{
			Override: opts.Issue,
			Label:    env.cfg.DecisionsInProgressLabel(),
			Branch:   env.repo.Branch,
			Pattern:  env.cfg.DecisionsBranchPattern(),
		},
		Close:     opts.Close,
		MemoryDir: memoryDir(f, env),
		Lang:      lang,
		Now:       f.Now,
		UI:        ui,
	}
	if !opts.JSON {
		flow.Warn = func(w string) { fmt.Fprintln(f.IO.ErrOut, msgWarning.Format(lang, w)) }
	}
	out, err := flow.Run(ctx)
	if opts.JSON {
		return printCaptureJSON(f, out, err, lang)
	}
	switch {
	case errors.Is(err, decision.ErrTranscriptMissing):
		fmt.Fprintln(f.IO.ErrOut, msgTranscriptMissing.Format(lang, transcript))
		return errSilent
	case errors.Is(err, decision.ErrNoIssue):
		fmt.Fprintln(f.IO.ErrOut, msgNoIssue.Format(lang, strings.TrimPrefix(err.Error(), decision.ErrNoIssue.Error()+": "), env.cfg.DecisionsInProgressLabel()))
		return errSilent
	case errors.Is(err, decision.ErrExtractorParse):
		fmt.Fprintln(f.IO.ErrOut, msgExtractorParse.Format(lang, err))
		return errSilent
	case errors.Is(err, decision.ErrCancelled):
		fmt.Fprintln(f.IO.ErrOut, msgAborted.In(lang))
		return errSilent
	case err != nil && tracker.KindOf(err) != tracker.KindUnknown:
		return trackerFailure(f, lang, err)
	case err != nil:
		return err
	}
	for _, fl := range out.Failed {
		fmt.Fprintln(f.IO.ErrOut, msgFailed.Format(lang, fl.Slug, fl.Error))
		if fl.Hint != "" {
			fmt.Fprintln(f.IO.ErrOut, "  "+fl.Hint)
		}
	}
	switch out.Status {
	case decision.StatusNoCandidates, decision.StatusNothingToRead:
		fmt.Fprintln(f.IO.Out, msgNoNew.In(lang))
	case decision.StatusRejected:
		fmt.Fprintln(f.IO.Out, msgRejected.In(lang))
	case decision.StatusAborted:
		fmt.Fprintln(f.IO.Out, msgAborted.In(lang))
	}
	if len(out.Pending) > 0 {
		fmt.Fprintln(f.IO.Out, msgPendingOK.Format(lang, len(out.Pending), session))
	}
	fmt.Fprintln(f.IO.Out, out.Line(lang))
	if out.Status == decision.StatusAborted {
		return errSilent
	}
	return nil
}

// printCaptureJSON prints the outcome, or the failure in the session-closer
// contract's error shape, as one JSON object.
func printCaptureJSON(f *Factory, out *decision.Outcome, err error, lang i18n.Lang) error {
	type errOut struct {
		Kind          string `json:"kind"`
		Message       string `json:"message"`
		GHFailureKind string `json:"gh_failure_kind,omitempty"`
		Hint          string `json:"hint,omitempty"`
	}
	v := map[string]any{"ok": err == nil, "result": out}
	if out != nil {
		v["line"] = out.Line(lang)
	}
	if err != nil {
		e := errOut{Kind: "internal", Message: tracker.Summary(err)}
		switch {
		case errors.Is(err, decision.ErrTranscriptMissing):
			e.Kind = "transcript-missing"
		case errors.Is(err, decision.ErrNoIssue), out != nil && out.Ambiguous != nil:
			e.Kind = "issue-resolution"
		case errors.Is(err, decision.ErrExtractorParse):
			e.Kind = "extractor-parse"
		case tracker.KindOf(err) != tracker.KindUnknown:
			e.Kind, e.GHFailureKind, e.Hint = "gh-failure", decision.FailureKind(err), tracker.Hint(tracker.KindOf(err), lang)
		}
		v["error"] = e
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(f.IO.Out, string(b))
	if err != nil || (out != nil && out.Status == decision.StatusAborted) {
		return errSilent
	}
	return nil
}

// decisionExtractor builds the configured extractor and its budget.
func decisionExtractor(f *Factory, cfg *config.Config, dir state.Dir) (decision.Extractor, *decision.Budget) {
	budget := &decision.Budget{Path: decision.BudgetPath(dir.Root), Limit: cfg.DecisionsTokenBudget(), Now: f.Now}
	// The extractor names its model only for the APIs; the agent CLI uses
	// the user's own default.
	model := cfg.DecisionsModel()
	if cfg.DecisionsExtractor() == config.ExtractorClaude {
		model = ""
	}
	client := modelClient(f, cfg, cfg.DecisionsExtractor(), model, 0)
	if client == nil {
		return decision.Rules{}, nil
	}
	return decision.ModelExtractor{Client: client}, budget
}

// memoryDir is the configured memory folder, else Claude Code's for the
// worktree.
func memoryDir(f *Factory, env *decisionsEnv) string {
	if d := env.cfg.Decisions.MemoryDir; d != "" {
		if strings.HasPrefix(d, "~/") {
			d = filepath.Join(f.Getenv("HOME"), d[2:])
		}
		return d
	}
	return claudecode.MemoryDir(f.Getenv("HOME"), env.repo.Worktree)
}

// findSession returns the session to capture and its transcript: the given
// ones, else what the journal recorded last in this worktree, else the newest
// transcript in Claude Code's folder for the worktree.
func findSession(ctx context.Context, f *Factory, env *decisionsEnv, session, transcript string) (string, string, error) {
	if session != "" {
		if err := decision.CheckSessionID(session); err != nil {
			return "", "", flagError{err}
		}
	}
	if session != "" && transcript != "" {
		return session, transcript, nil
	}
	j := journal.Open(env.dir.Root, journal.Options{})
	recs, err := j.Tail(ctx, 1, journal.TailOptions{MaxBytes: 4 << 20, Match: func(r *journal.Record) bool {
		if r.Transcript == "" || r.Session == "" {
			return false
		}
		if session != "" {
			return r.Session == session
		}
		return r.Worktree == "" || r.Worktree == env.repo.Worktree
	}})
	if err == nil && len(recs) == 1 {
		return recs[0].Session, cmp.Or(transcript, recs[0].Transcript), nil
	}
	dir := claudecode.TranscriptDir(f.Getenv("HOME"), env.repo.Worktree)
	if session != "" {
		return session, cmp.Or(transcript, filepath.Join(dir, session+".jsonl")), nil
	}
	entries, _ := os.ReadDir(dir)
	var newest string
	var newestTime time.Time
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(newestTime) {
			newest, newestTime = e.Name(), fi.ModTime()
		}
	}
	if newest == "" {
		return "", "", errors.New(msgNoSession.In(env.lang))
	}
	return strings.TrimSuffix(newest, ".jsonl"), cmp.Or(transcript, filepath.Join(dir, newest)), nil
}

func parseScopes(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range list {
		slug, scope, ok := strings.Cut(s, "=")
		if !ok || !decision.ValidSlug(slug) || !decision.ValidScope(scope) {
			return nil, fmt.Errorf("--scope %q: want slug=issue or slug=cross-issue", s)
		}
		out[slug] = scope
	}
	return out, nil
}

func isTerminal(r io.Reader) bool {
	file, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagUI answers from the command's flags.
type flagUI struct {
	yes       bool
	selected  []string
	scopes    map[string]string
	onFailure decision.Choice
}

func (u *flagUI) ChooseIssue(_ context.Context, issues []int) (int, error) {
	return 0, fmt.Errorf("several issues are in progress (%v): pass --issue N: %w", issues, decision.ErrCancelled)
}

func (u *flagUI) Approve(_ context.Context, cands []decision.Candidate) ([]decision.UserDecision, error) {
	var out []decision.UserDecision
	for _, c := range cands {
		if !u.yes && !slices.Contains(u.selected, c.Slug) {
			continue
		}
		scope := c.ScopeHint
		if s, ok := u.scopes[c.Slug]; ok {
			scope = s
		}
		out = append(out, decision.UserDecision{Candidate: c, FinalScope: scope})
	}
	return out, nil
}

func (u *flagUI) OnFailure(context.Context, []decision.Failure) (decision.Choice, error) {
	return u.onFailure, nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// ---- list, retry, show ----

type decisionsListOptions struct {
	JSON bool
	Lang string
}

var (
	msgUnreviewedTitle = i18n.Msg{JA: "未確認のセッション:", EN: "Sessions with unreviewed transcript:"}
	msgSessionsTitle   = i18n.Msg{JA: "記録済みのセッション:", EN: "Captured sessions:"}
	msgNothing         = i18n.Msg{JA: "（なし）", EN: "(none)"}
	msgSessionLine     = i18n.Msg{JA: "- %s  最終実行 %s  取り込み %d 件  未投稿 %d 件", EN: "- %s  last run %s  captured %d  pending %d"}
	msgRetryLine       = i18n.Msg{JA: "%s → issue #%d: 投稿 %d 件、失敗 %d 件、重複 %d 件", EN: "%s → issue #%d: posted %d, failed %d, duplicates %d"}
	msgNoPending       = i18n.Msg{JA: "未投稿の決定はありません。", EN: "No pending decisions."}
)

// sessionSummary is one session in `decisions list`.
type sessionSummary struct {
	Session    string   `json:"session_id"`
	SkillRanAt string   `json:"skill_ran_at,omitempty"`
	Offset     int64    `json:"last_processed_offset"`
	Captured   []string `json:"captured_slugs"`
	Pending    int      `json:"pending"`
}

func newCmdDecisionsList(f *Factory) *cobra.Command {
	opts := &decisionsListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List captured sessions, pending decisions and sessions not yet reviewed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := newDecisionsEnv(f, opts.Lang)
			if err != nil {
				return err
			}
			sessions, err := listSessions(env.dir)
			if err != nil {
				return err
			}
			unrev, err := decision.FindUnreviewed(cmd.Context(), journal.Open(env.dir.Root, journal.Options{}), env.dir, 20, "")
			if err != nil {
				return err
			}
			if opts.JSON {
				return printJSON(f, map[string]any{"sessions": sessions, "unreviewed": nonNilSlice(unrev)})
			}
			fmt.Fprintln(f.IO.Out, msgSessionsTitle.In(env.lang))
			if len(sessions) == 0 {
				fmt.Fprintln(f.IO.Out, msgNothing.In(env.lang))
			}
			for _, s := range sessions {
				fmt.Fprintln(f.IO.Out, msgSessionLine.Format(env.lang, s.Session, cmp.Or(s.SkillRanAt, "-"), len(s.Captured), s.Pending))
			}
			fmt.Fprintln(f.IO.Out, msgUnreviewedTitle.In(env.lang))
			if len(unrev) == 0 {
				fmt.Fprintln(f.IO.Out, msgNothing.In(env.lang))
			}
			for _, u := range unrev {
				fmt.Fprintf(f.IO.Out, "- %s (%s, %d/%d bytes): baton decisions capture --session %s\n", u.Session, u.Event, u.Reviewed, u.Offset, u.Session)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// listSessions reads every sessions/<id>.json, newest run first.
func listSessions(dir state.Dir) ([]sessionSummary, error) {
	matches, err := filepath.Glob(filepath.Join(dir.Sessions(), "*.json"))
	if err != nil {
		return nil, err
	}
	out := []sessionSummary{}
	for _, m := range matches {
		id := strings.TrimSuffix(filepath.Base(m), ".json")
		if strings.HasSuffix(id, ".pending-decisions") || decision.CheckSessionID(id) != nil {
			continue
		}
		st, _, err := decision.LoadState(dir, id)
		if err != nil {
			continue
		}
		s := sessionSummary{Session: id, SkillRanAt: st.SkillRanAt, Offset: st.LastProcessedOffset, Captured: append([]string{}, st.CapturedSlugs...)}
		if pf, err := decision.LoadPending(dir, id); err == nil {
			for _, e := range pf.Entries {
				s.Pending += len(e.Decisions)
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SkillRanAt > out[j].SkillRanAt })
	return out, nil
}

type decisionsRetryOptions struct {
	Session string
	JSON    bool
	Lang    string
}

func newCmdDecisionsRetry(f *Factory) *cobra.Command {
	opts := &decisionsRetryOptions{}
	cmd := &cobra.Command{
		Use:   "retry",
		Short: "Post the decisions saved after a failure (all sessions, or --session)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			env, err := newDecisionsEnv(f, opts.Lang)
			if err != nil {
				return err
			}
			sessions := []string{opts.Session}
			if opts.Session == "" {
				if sessions, err = decision.PendingSessions(env.dir); err != nil {
					return err
				}
			} else if err := decision.CheckSessionID(opts.Session); err != nil {
				return flagError{err}
			}
			if len(sessions) == 0 {
				if opts.JSON {
					return printJSON(f, map[string]any{"results": []any{}})
				}
				fmt.Fprintln(f.IO.Out, msgNoPending.In(env.lang))
				return nil
			}
			trk, closeTrk, err := openTracker(ctx, f, env.repo.Worktree)
			if err != nil {
				return trackerFailure(f, env.lang, err)
			}
			defer closeTrk()
			var all []decision.RetryResult
			failed := false
			for _, s := range sessions {
				res, err := decision.Retry(ctx, env.dir, s, trk, env.lang, f.Now())
				all = append(all, res...)
				if err != nil {
					return err
				}
			}
			for _, r := range all {
				failed = failed || len(r.Failed) > 0
			}
			if opts.JSON {
				if err := printJSON(f, map[string]any{"results": all}); err != nil {
					return err
				}
			} else {
				for _, r := range all {
					for _, w := range r.Warnings {
						fmt.Fprintln(f.IO.ErrOut, msgWarning.Format(env.lang, w))
					}
					fmt.Fprintln(f.IO.Out, msgRetryLine.Format(env.lang, r.Session, r.Issue, len(r.Posted), len(r.Failed), len(r.Skipped)))
					for _, fl := range r.Failed {
						fmt.Fprintln(f.IO.ErrOut, msgFailed.Format(env.lang, fl.Slug, fl.Error))
						if fl.Hint != "" {
							fmt.Fprintln(f.IO.ErrOut, "  "+fl.Hint)
						}
					}
				}
			}
			if failed {
				return errSilent
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "retry only this session's pending decisions")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

func newCmdDecisionsShow(f *Factory) *cobra.Command {
	opts := &decisionsListOptions{}
	cmd := &cobra.Command{
		Use:   "show <session>",
		Short: "Show a session's capture state and pending decisions",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := decision.CheckSessionID(args[0]); err != nil {
				return flagError{err}
			}
			env, err := newDecisionsEnv(f, opts.Lang)
			if err != nil {
				return err
			}
			st, warning, err := decision.LoadState(env.dir, args[0])
			if err != nil {
				return err
			}
			if warning != "" {
				fmt.Fprintln(f.IO.ErrOut, msgWarning.Format(env.lang, warning))
			}
			pf, err := decision.LoadPending(env.dir, args[0])
			if err != nil {
				return err
			}
			if opts.JSON {
				return printJSON(f, map[string]any{"session_id": args[0], "state": st, "pending": pf})
			}
			fmt.Fprintf(f.IO.Out, "session: %s\nskill_ran_at: %s\nlast_processed_offset: %d\nissue: %s\ncaptured_slugs:\n", args[0], cmp.Or(st.SkillRanAt, "-"), st.LastProcessedOffset, issueText(st.Issue))
			for _, s := range st.CapturedSlugs {
				fmt.Fprintf(f.IO.Out, "  - %s\n", s)
			}
			fmt.Fprintln(f.IO.Out, "pending:")
			for _, e := range pf.Entries {
				for _, d := range e.Decisions {
					fmt.Fprintf(f.IO.Out, "  - %s (issue #%d, %s, saved %s): %s\n", d.Candidate.Slug, e.Issue, d.FinalScope, e.SavedAt, oneLine(d.Candidate.What, 80))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

func issueText(n int) string {
	if n == 0 {
		return "-"
	}
	return "#" + strconv.Itoa(n)
}

func printJSON(f *Factory, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f.IO.Out, string(b))
	return err
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
