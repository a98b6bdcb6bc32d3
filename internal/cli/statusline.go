package cli

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/statusline"
	"github.com/baton-cli/baton/internal/usage"
)

// StatuslineOptions are the inputs of `baton statusline`.
type StatuslineOptions struct {
	Factory *Factory
	// Refresh writes the status file instead of printing the line.
	Refresh bool
	Lang    string
}

// NewCmdStatusline builds `baton statusline`.
func NewCmdStatusline(f *Factory, runF func(context.Context, *StatuslineOptions) error) *cobra.Command {
	opts := &StatuslineOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "statusline",
		Short: "Print the status line Claude Code shows, from the session's JSON on stdin",
		Long: "Claude Code's statusLine setting runs this with the session's JSON on stdin every few\n" +
			"seconds; it prints one line: the model, the context used, the session's and today's cost,\n" +
			"the time left in the active 5-hour block, the worktree's task, its open loops (failing\n" +
			"commands, the announced next step), the proposed decisions awaiting review, and a mark\n" +
			"when the session is not being recorded. It reads only small files baton keeps; baton-hook\n" +
			"statusline is the same and starts faster. `baton init --statusline` sets it up.\n\n" +
			"--refresh writes the file with the costs and the count of decisions (the hook runs it in\n" +
			"the background when that file is older than 30 seconds). COLUMNS sets the width, NO_COLOR\n" +
			"turns colour off.",
		Example: "  echo '{\"session_id\":\"…\",\"cwd\":\"'$PWD'\"}' | baton statusline\n  baton statusline --refresh",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Refresh {
				return statuslineRefresh(cmd.Context(), opts)
			}
			statusline.Run(f, opts.Lang)
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.Refresh, "refresh", false, "write the status file of this repository's state folder")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// statuslineRefresh writes the state folder's status file: today's cost and
// the active block over every project's transcripts changed lately, the
// cost of today's sessions, and the proposed decisions awaiting review.
func statuslineRefresh(ctx context.Context, opts *StatuslineOptions) error {
	f := opts.Factory
	w, cfg, _, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}
	now := f.Now()
	// Mark the file fresh first, so hooks meanwhile start no second job.
	_ = os.Chtimes(statusline.Path(w.state), now, now)
	prices, err := loadPrices(f, w.root)
	if err != nil {
		return err
	}
	files, err := usage.Files(claudecode.ProjectsDirs(f.Getenv("HOME"), f.Getenv("CLAUDE_CONFIG_DIR"))...)
	if err != nil {
		return err
	}
	cur, err := usage.ScanCurrent(ctx, usage.Recent(files, now), usage.Options{Loc: time.Local, Prices: prices, Now: now})
	if err != nil {
		return err
	}
	st := &statusline.Status{Written: now, Day: cur.Day, TodayUSD: cur.TodayUSD, Sessions: cur.Sessions}
	if b := cur.Block; b != nil {
		st.Block = &statusline.Block{End: b.Block.End, CostUSD: b.CostUSD}
		if br := b.Block.BurnRate; br != nil {
			st.Block.CostPerHour = br.CostPerHour
		}
	}
	if rf, err := recall.FilesFor(w.state, cfg.ContextRoute()); err == nil {
		if pending, err := recall.Pending(rf); err == nil {
			st.Pending = len(pending)
		}
	}
	return statusline.WriteStatus(w.state, st)
}
