package cli

import (
	"context"
	"fmt"
	"strings"

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
		Use:   "session-closer [subcommand]",
		Short: "Answer one session-closer JSON request (stdin) with one JSON response (stdout)",
		Long: "The session-closer skill's back end, a drop-in for claude-issueops' bin/session_closer.py.\n" +
			"Reads one JSON request with schema_version 1 and a subcommand (read-transcript, extract,\n" +
			"resolve-issue, filter-dedup, post-decisions, commit-state, summary, escalate, save-pending)\n" +
			"and writes one JSON response. A subcommand given as an argument must be the request's (or\n" +
			"stands for it when the request names none). It always exits 0; every failure, a wrong\n" +
			"argument included, is {\"ok\": false, \"error\": {\"kind\": …}}.",
		// Arguments are checked here, so that a mistake is answered in JSON
		// like any other.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			env := sessioncloser.Env{
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
			}
			var positional []string
			for _, a := range args {
				switch {
				case a == "-h" || a == "--help":
					return cmd.Help()
				case strings.HasPrefix(a, "-") && env.ArgError == nil:
					env.ArgError = fmt.Errorf("unknown flag %q: session-closer takes no flags, the request comes on stdin", a)
				case !strings.HasPrefix(a, "-"):
					positional = append(positional, a)
				}
			}
			if env.ArgError == nil && len(positional) > 1 {
				env.ArgError = fmt.Errorf("session-closer takes at most one argument, the subcommand; got %q", positional)
			}
			if len(positional) == 1 {
				env.Subcommand = positional[0]
			}
			return sessioncloser.Run(cmd.Context(), f.IO.In, f.IO.Out, env)
		},
	}
}
