package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/share"
	"github.com/baton-cli/baton/internal/teammem"
)

// SyncOptions are the inputs of `baton sync`.
type SyncOptions struct {
	Factory *Factory
	Retract []string
	NoPush  bool
	// Background is set for the job a session's end starts: it syncs only
	// a repository synced before, at most every memory.sync_minutes, and
	// prints nothing but errors.
	Background bool
	JSON       bool
	Lang       string
}

// NewCmdSync builds `baton sync`.
func NewCmdSync(f *Factory, runF func(context.Context, *SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Share approved decisions (and summaries, branch state) through the repository's remote",
		Long: "Fetches the shared memory from the ref " + teammem.Ref + " of the repository's origin, merges it\n" +
			"with this clone's and pushes what is new, with your own git credentials. It never touches the\n" +
			"working tree, the index or a branch. What is shared: the approved decisions, plus the recent\n" +
			"summaries and this worktree's task and open loops when memory.kinds names summaries and branch.\n" +
			"An entry that would carry a secret is not pushed, and the sync says which. memory.share: false\n" +
			"turns sharing off. --retract <id> hides a shared entry everywhere after the next syncs (ids are in\n" +
			"`baton context show`). After you ran it once in a repository, it also runs in the background\n" +
			"when a session ends, at most every memory.sync_minutes.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return syncRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Retract, "retract", nil, "hide the shared entry with this id (or its first 8+ characters) everywhere (repeatable)")
	fl.BoolVar(&opts.NoPush, "no-push", false, "fetch and merge only")
	fl.BoolVar(&opts.Background, "background", false, "run as the job a session's end starts")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	_ = fl.MarkHidden("background")
	return cmd
}

var (
	msgSyncOff      = i18n.Msg{JA: "このリポジトリでは共有がオフです（memory.share: false）。何も送っていません", EN: "sharing is off for this repository (memory.share: false); nothing was sent"}
	msgSyncNoRepo   = i18n.Msg{JA: "git リポジトリの中ではありません", EN: "not inside a git repository"}
	msgSyncNoRemote = i18n.Msg{JA: "このリポジトリには origin リモートがないので共有できません", EN: "this repository has no origin remote to share through"}
	msgSyncDone     = i18n.Msg{JA: "共有メモリを origin と同期しました: 受け取り %d 件%s、送信 %d 件%s（全 %d 件）", EN: "synced the shared memory with origin: %d came%s, %d went%s (%d in all)"}
	msgSyncNoPush   = i18n.Msg{JA: "（--no-push のため送信していません）", EN: " (not pushed: --no-push)"}
	msgSyncRetries  = i18n.Msg{JA: "他の人の push と重なったため %d 回取り込み直しました。", EN: "another push came first %d time(s); merged and pushed again."}
	msgSyncRefused  = i18n.Msg{JA: "秘密情報を含むため送らなかったもの（%d 件）:", EN: "held back because they would carry a secret (%d):"}
	msgSyncFix      = i18n.Msg{JA: "元の記録から秘密を取り除くと、次の同期で送られます。", EN: "remove the secret from where it was recorded and the next sync sends it."}
	msgSyncNoMatch  = i18n.Msg{JA: "id %q の共有エントリは見つかりません（`baton context show` で一覧できます）", EN: "no shared entry has id %q (`baton context show` lists them)"}
	msgSyncAmbig    = i18n.Msg{JA: "id %q に当てはまるエントリが複数あります。もっと長く指定してください", EN: "id %q matches more than one entry; give more of it"}
	msgSyncShortID  = i18n.Msg{JA: "id %q が短すぎます（8 文字以上）", EN: "id %q is too short (8 characters or more)"}
	msgSyncRetract  = i18n.Msg{JA: "取り消しました: %s", EN: "retracted: %s"}
)

// syncResult is what --json prints.
type syncResult struct {
	Came    []teammem.Entry `json:"came"`
	Went    []teammem.Entry `json:"went"`
	Refused []string        `json:"refused"`
	Pushed  bool            `json:"pushed"`
	Retries int             `json:"retries"`
	Entries int             `json:"entries"`
}

func syncRun(ctx context.Context, opts *SyncOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openRepo(f, opts.Lang)
	if err != nil {
		return err
	}
	if !cfg.MemoryShare() {
		if opts.Background {
			return nil
		}
		return errors.New(msgSyncOff.In(lang))
	}
	// The view and status files go into the state folder, kept out of git.
	if err := w.createState(); err != nil {
		return err
	}
	o := syncOptions(f, w, cfg)
	o.Push = !opts.NoPush
	if opts.Background && !backgroundDue(ctx, o, cfg) {
		return nil
	}
	if len(opts.Retract) > 0 {
		ch, lines, err := retractions(ctx, o, opts.Retract, lang)
		if err != nil {
			return err
		}
		o.Change = ch
		defer func() {
			if !opts.JSON && !opts.Background {
				for _, l := range lines {
					fmt.Fprintln(f.IO.Out, msgSyncRetract.Format(lang, l))
				}
			}
		}()
	}
	res, err := share.Sync(ctx, o)
	if errors.Is(err, share.ErrNoRemote) {
		return errors.New(msgSyncNoRemote.In(lang))
	}
	if err != nil {
		return err
	}
	// The recall file the prompt hook reads holds teammates' decisions too.
	rebuildRecallFile(ctx, f, w, cfg, lang)
	if opts.Background {
		return nil
	}
	var refused []string
	for _, r := range res.Refused {
		refused = append(refused, r.Entry.Kind+" "+r.Entry.Slug+" ("+strings.Join(r.Kinds, ", ")+")")
	}
	if opts.JSON {
		b, err := json.MarshalIndent(syncResult{Came: orNone(res.Came), Went: orNone(res.Went), Refused: orNone(refused), Pushed: res.Pushed, Retries: res.Retries, Entries: len(res.Entries)}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(f.IO.Out, string(b))
		return err
	}
	push := ""
	if opts.NoPush {
		push = msgSyncNoPush.In(lang)
	}
	fmt.Fprintln(f.IO.Out, msgSyncDone.Format(lang, len(res.Came), kindCounts(res.Came, lang), len(res.Went), kindCounts(res.Went, lang)+push, len(res.Entries)))
	if res.Retries > 0 {
		fmt.Fprintln(f.IO.Out, msgSyncRetries.Format(lang, res.Retries))
	}
	if len(res.Refused) > 0 {
		st, _ := teammem.DirOf(w.state).ReadStatus()
		fmt.Fprintln(f.IO.Out, msgSyncRefused.Format(lang, len(res.Refused)))
		for _, l := range st.Refused {
			fmt.Fprintln(f.IO.Out, "- "+l)
		}
		fmt.Fprintln(f.IO.Out, msgSyncFix.In(lang))
	}
	return nil
}

func orNone[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// openRepo is openWorkspace for the commands of the shared memory, which
// need a git repository.
func openRepo(f *Factory, langFlag string) (workspace, *config.Config, i18n.Lang, error) {
	w, cfg, lang, err := openWorkspace(f, langFlag)
	if err == nil && w.repo == nil {
		err = errors.New(msgSyncNoRepo.In(lang))
	}
	return w, cfg, lang, err
}

// syncOptions are the share options of the workspace.
func syncOptions(f *Factory, w workspace, cfg *config.Config) share.Options {
	return share.Options{
		State: w.state, Repo: *w.repo, Config: cfg, Env: f.Environ(), DataDir: dataDir(f), Now: f.Now(),
		Brief: resumeOptions(w, cfg, f),
	}
}

// backgroundDue reports whether a background sync should run: the
// repository was synced before (its ref is here) and not within
// memory.sync_minutes.
func backgroundDue(ctx context.Context, o share.Options, cfg *config.Config) bool {
	g := teammem.Git{Dir: o.Repo.Worktree, Env: o.Env}
	if !g.HasRef(ctx) {
		return false
	}
	st, err := teammem.DirOf(o.State).ReadStatus()
	if err != nil {
		return true
	}
	return o.Now.Sub(st.At) >= time.Duration(cfg.MemorySyncMinutes())*time.Minute
}

var msgKind = map[string]i18n.Msg{
	teammem.KindDecision: {JA: "決定 %d", EN: "%d decision(s)"},
	teammem.KindRetract:  {JA: "取り消し %d", EN: "%d retraction(s)"},
	teammem.KindSummary:  {JA: "要約 %d", EN: "%d summary(ies)"},
	teammem.KindBranch:   {JA: "ブランチの状況 %d", EN: "%d branch state(s)"},
	teammem.KindHandoff:  {JA: "引き継ぎ %d", EN: "%d handoff(s)"},
	teammem.KindPickup:   {JA: "引き取り %d", EN: "%d pickup(s)"},
}

// kindCounts is " (2 decisions, 1 retraction)", "" for none.
func kindCounts(es []teammem.Entry, lang i18n.Lang) string {
	n := map[string]int{}
	var order []string
	for _, e := range es {
		if n[e.Kind] == 0 {
			order = append(order, e.Kind)
		}
		n[e.Kind]++
	}
	if len(order) == 0 {
		return ""
	}
	slices.Sort(order)
	var parts []string
	for _, k := range order {
		parts = append(parts, msgKind[k].Format(lang, n[k]))
	}
	if lang == i18n.JA {
		return "（" + strings.Join(parts, "、") + "）"
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// retractions finds the entries the ids name, in this clone's copy of the
// memory, and returns their retractions.
func retractions(ctx context.Context, o share.Options, ids []string, lang i18n.Lang) (teammem.Change, []string, error) {
	var ch teammem.Change
	st, err := share.Open(ctx, o)
	if err != nil {
		return ch, nil, err
	}
	es, err := st.Entries(ctx)
	if err != nil {
		return ch, nil, err
	}
	visible, _ := teammem.Visible(es)
	var lines []string
	for _, id := range ids {
		if len(id) < 8 {
			return ch, nil, flagError{errors.New(msgSyncShortID.Format(lang, id))}
		}
		var found []teammem.Entry
		for _, e := range visible {
			if strings.HasPrefix(e.ID, strings.ToLower(id)) {
				found = append(found, e)
			}
		}
		switch len(found) {
		case 0:
			return ch, nil, errors.New(msgSyncNoMatch.Format(lang, id))
		case 1:
		default:
			return ch, nil, errors.New(msgSyncAmbig.Format(lang, id))
		}
		ch.Entries = append(ch.Entries, teammem.Entry{Kind: teammem.KindRetract, TS: o.Now.UTC().Truncate(time.Second), Target: found[0].ID})
		lines = append(lines, teammem.ShortID(found[0].ID)+" "+teammem.Describe(found[0]))
	}
	return ch, lines, nil
}
