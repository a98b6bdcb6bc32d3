package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
)

// TrustOptions are the inputs of `baton trust`.
type TrustOptions struct {
	Factory *Factory
	Revoke  bool
	List    bool
	JSON    bool
	Lang    string
}

// NewCmdTrust builds `baton trust`.
func NewCmdTrust(f *Factory, runF func(context.Context, *TrustOptions) error) *cobra.Command {
	opts := &TrustOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Let this repository's .baton.yaml name programs and services",
		Long: "A repository's .baton.yaml may not choose the programs baton runs or the services it\n" +
			"connects to (" + strings.Join(config.GuardedKeys(), ", ") + ")\n" +
			"until you trust it: read the file, then run `baton trust` in the repository. It records\n" +
			"the repository's folder and the SHA-256 of its .baton.yaml in your own config; when the\n" +
			"file changes, those settings are ignored again until you trust it again. --revoke\n" +
			"forgets the repository; --list shows the trusted ones and whether their files changed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return trustRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "stop trusting this repository's .baton.yaml")
	cmd.Flags().BoolVar(&opts.List, "list", false, "list the trusted repositories")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgTrustNoFile    = i18n.Msg{JA: "%s がありません。信頼するものはありません", EN: "there is no %s: nothing to trust"}
	msgTrustBroken    = i18n.Msg{JA: "%s を読めないので信頼できません: %v", EN: "cannot trust %s, it does not load: %v"}
	msgTrustDone      = i18n.Msg{JA: "%s を信頼しました（sha256 %s）。", EN: "trusted %s (sha256 %s)."}
	msgTrustAlready   = i18n.Msg{JA: "%s はこの内容のまま信頼済みです（sha256 %s）。", EN: "%s is already trusted as it is (sha256 %s)."}
	msgTrustApplies   = i18n.Msg{JA: "次の設定が使われるようになります: %s", EN: "these settings now apply: %s"}
	msgTrustNothing   = i18n.Msg{JA: "このファイルにはプログラムやサービスを選ぶ設定はありません", EN: "the file sets nothing that picks a program or a service"}
	msgTrustAgain     = i18n.Msg{JA: "ファイルが変わると、もう一度 `baton trust` するまでそれらの設定は無視されます。", EN: "if the file changes, those settings are ignored until you run `baton trust` again."}
	msgTrustRevoked   = i18n.Msg{JA: "%s の信頼を取り消しました", EN: "%s is no longer trusted"}
	msgTrustNotListed = i18n.Msg{JA: "%s は信頼されていませんでした", EN: "%s was not trusted"}
	msgTrustNone      = i18n.Msg{JA: "信頼しているリポジトリはありません", EN: "no repository is trusted"}
	msgTrustFlags     = i18n.Msg{JA: "--revoke と --list は同時に使えません", EN: "--revoke and --list cannot be used together"}
	msgTrustOK        = i18n.Msg{JA: "信頼済み", EN: "trusted"}
	msgTrustChanged   = i18n.Msg{JA: "変更あり（もう一度 `baton trust` が必要です）", EN: "changed (needs `baton trust` again)"}
	msgTrustGone      = i18n.Msg{JA: ".baton.yaml がありません", EN: "no .baton.yaml"}
)

// trustMissing is the state of a trusted repository whose file is gone.
const trustMissing = "missing"

// trustEntry is one trusted repository as --list and --json show it.
type trustEntry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	State  string `json:"state"`
}

func trustRun(opts *TrustOptions) error {
	f := opts.Factory
	user := config.UserPath(f.Getenv)
	own, err := config.Load(user)
	if err != nil {
		return err
	}
	lang, err := flagLang(opts.Lang, own, f.Getenv)
	if err != nil {
		return err
	}
	if opts.Revoke && opts.List {
		return flagError{errors.New(msgTrustFlags.In(lang))}
	}
	if opts.List {
		return trustList(f, own, lang, opts.JSON)
	}
	repo, err := f.Repo()
	if err != nil {
		return err
	}
	root := repo.Worktree
	file := filepath.Join(root, config.RepoFile)
	if opts.Revoke {
		changed, err := config.Revoke(user, root)
		if err != nil {
			return err
		}
		if opts.JSON {
			return printJSON(f, map[string]any{"path": root, "revoked": changed})
		}
		msg := msgTrustNotListed
		if changed {
			msg = msgTrustRevoked
		}
		fmt.Fprintln(f.IO.Out, msg.Format(lang, file))
		return nil
	}

	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New(msgTrustNoFile.Format(lang, file))
	}
	if err != nil {
		return err
	}
	// The settings it would bring, as the hooks would load it now.
	cfg, err := config.LoadRepo(user, root)
	if err != nil {
		return errors.New(msgTrustBroken.Format(lang, file, err))
	}
	var keys []string
	for _, s := range cfg.Repo.Ignored {
		if !s.UserOnly {
			keys = append(keys, fmt.Sprintf("%s (%s:%d)", s.Key, config.RepoFile, s.Line))
		}
	}
	sum := config.Sum(b)
	changed, err := config.Trust(user, root, sum)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f, map[string]any{"path": root, "sha256": sum, "changed": changed, "applies": keys})
	}
	msg := msgTrustAlready
	if changed {
		msg = msgTrustDone
	}
	fmt.Fprintln(f.IO.Out, msg.Format(lang, file, sum[:12]))
	switch {
	case len(keys) > 0:
		fmt.Fprintln(f.IO.Out, msgTrustApplies.Format(lang, strings.Join(keys, ", ")))
	case cfg.Repo.Trust != config.RepoTrusted:
		fmt.Fprintln(f.IO.Out, msgTrustNothing.In(lang))
	}
	fmt.Fprintln(f.IO.Out, msgTrustAgain.In(lang))
	return nil
}

// trustList shows the trusted repositories and whether their file is still
// the one trusted.
func trustList(f *Factory, own *config.Config, lang i18n.Lang, asJSON bool) error {
	entries := []trustEntry{}
	for _, t := range own.Trusted {
		e := trustEntry{Path: t.Path, SHA256: t.SHA256, State: trustMissing}
		if b, err := os.ReadFile(filepath.Join(t.Path, config.RepoFile)); err == nil {
			e.State = string(own.TrustOf(t.Path, b))
		}
		entries = append(entries, e)
	}
	if asJSON {
		return printJSON(f, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(f.IO.Out, msgTrustNone.In(lang))
	}
	for _, e := range entries {
		msg := msgTrustGone
		switch e.State {
		case string(config.RepoTrusted):
			msg = msgTrustOK
		case string(config.RepoChanged):
			msg = msgTrustChanged
		}
		fmt.Fprintf(f.IO.Out, "%s  %s\n", e.Path, msg.In(lang))
	}
	return nil
}
