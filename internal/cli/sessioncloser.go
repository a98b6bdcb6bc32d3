package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/sessioncloser"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker"
)

// NewCmdSessionCloser builds `baton session-closer`, the JSON contract the
// session-closer skill drives: one request on stdin, one response on stdout.
func NewCmdSessionCloser(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "session-closer",
		Short: "Answer one session-closer JSON request (stdin) with one JSON response (stdout)",
		Long: "The session-closer skill's back end. Reads one JSON request with schema_version 1 and a\n" +
			"subcommand (read-transcript, extract, resolve-issue, filter-dedup, post-decisions,\n" +
			"commit-state, summary, escalate, save-pending) and writes one JSON response. It always\n" +
			"exits 0; failures are {\"ok\": false, \"error\": {\"kind\": …}}.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return sessioncloser.Run(cmd.Context(), f.IO.In, f.IO.Out, sessioncloser.Env{
				Getenv: f.Getenv,
				Getwd:  f.Getwd,
				Now:    f.Now,
				Config: f.Config,
				Tracker: func(ctx context.Context, dir string) (tracker.Tracker, func() error, error) {
					return openTracker(ctx, f, dir)
				},
				Extractor: func(cfg *config.Config, dir state.Dir) (decision.Extractor, *decision.Budget) {
					return decisionExtractor(f, cfg, dir)
				},
			})
		},
	}
}
