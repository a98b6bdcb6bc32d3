package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/hookcmd"
)

// NewCmdHook builds `baton hook [event]`, the command Claude Code runs for
// every hook event. The work is package hookcmd's, shared with the
// baton-hook program.
func NewCmdHook(f *Factory, runF func(context.Context, *hookcmd.Options) error) *cobra.Command {
	return &cobra.Command{
		Use:   "hook [event]",
		Short: "Record a Claude Code hook event (run by Claude Code, reads JSON on stdin)",
		Long: "Claude Code runs `baton hook` for each hook event with the event's JSON on stdin.\n" +
			"It appends a record to the journal and, at session start, prints the context to inject.\n" +
			"It never blocks the agent: problems (and arguments it does not understand) go to baton.log and it exits 0.\n" +
			"baton-hook, installed beside baton, does the same and starts faster; `baton init` uses it when it is on PATH.",
		// Unknown flags must not become a usage error: its exit status, 2,
		// would tell Claude Code to block the agent. hookcmd reads the
		// arguments, as baton-hook does.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, help := hookcmd.ParseArgs(args)
			if help {
				return cmd.Help()
			}
			if runF != nil {
				return runF(cmd.Context(), &opts)
			}
			hookcmd.Run(cmd.Context(), f, opts)
			return nil
		},
	}
}
