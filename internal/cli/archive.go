package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
)

// ArchiveOptions are the inputs of `baton archive`.
type ArchiveOptions struct {
	Factory *Factory
	JSON    bool
	// Quiet prints nothing unless something failed (the hook's detached
	// run).
	Quiet bool
	Lang  string
}

// NewCmdArchive builds `baton archive`.
func NewCmdArchive(f *Factory, runF func(context.Context, *ArchiveOptions) error) *cobra.Command {
	opts := &ArchiveOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Keep compressed copies of this repository's Claude Code transcripts",
		Long: "Copies the transcripts of every worktree into the state folder's archive/transcripts/\n" +
			"(<project key>/<session>.jsonl.gz), so that Claude Code's cleanup of old transcripts\n" +
			"(30 days by default) loses nothing; search and usage read the copies. Only new or changed\n" +
			"transcripts are copied, each replaced atomically. It also runs at every session end, in the\n" +
			"background, unless the config says `archive.transcripts: false`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return archiveRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVar(&opts.Quiet, "quiet", false, "print nothing unless a transcript could not be copied")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgArchived     = i18n.Msg{JA: "%d 件のトランスクリプト（%s）を %s に保存しました。変更なし %d 件", EN: "Archived %d transcripts (%s) in %s; %d unchanged"}
	msgArchiveFaild = i18n.Msg{JA: "保存できませんでした: %s", EN: "could not archive %s"}
)

func archiveRun(ctx context.Context, opts *ArchiveOptions) error {
	f := opts.Factory
	w, err := findWorkspace(f)
	if err != nil {
		return err
	}
	lang, err := commandLang(f, opts.Lang, w.root)
	if err != nil {
		return err
	}
	dest := index.ArchiveDir(w.state)
	res, err := index.ArchiveTranscripts(ctx, workspaceTranscriptDirs(f, w, f.Getenv("HOME")), w.state.Base(), dest)
	if err != nil {
		return err
	}
	for _, fail := range res.Failed {
		fmt.Fprintln(f.IO.ErrOut, "baton: "+msgArchiveFaild.Format(lang, fail))
	}
	switch {
	case opts.JSON:
		if res.Copied == nil {
			res.Copied = []string{}
		}
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	case !opts.Quiet:
		fmt.Fprintln(f.IO.Out, msgArchived.Format(lang, len(res.Copied), mib(res.Bytes), displayRel(dest, w.root), res.Unchanged))
	}
	if len(res.Failed) > 0 {
		return errSilent
	}
	return nil
}
