package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// errSilent reports failure through the exit code only: the command has
// already said what went wrong.
var errSilent = errors.New("silent failure")

// flagError wraps a usage mistake, which exits ExitUsage.
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }
func (e flagError) Unwrap() error { return e.err }

// NewCmdRoot builds the baton command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "baton",
		Short: "Keep an AI coding agent's work and context from getting lost",
		Long: "baton records what your coding agent does, tells it where you left off at every start,\n" +
			"and keeps decisions and context across sessions, crashes, compactions and hand-offs.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError{err} })

	root.AddCommand(
		NewCmdHook(f, nil),
		NewCmdInit(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdTrust(f, nil),
		NewCmdResume(f, nil),
		NewCmdSave(f, nil),
		NewCmdDebate(f, nil),
		NewCmdWorker(f, nil),
		NewCmdIssue(f),
		NewCmdServe(f, nil),
		NewCmdDecisions(f, nil),
		NewCmdSessionCloser(f),
		NewCmdSearch(f, nil),
		NewCmdUsage(f, nil),
		NewCmdStatusline(f, nil),
		NewCmdReindex(f, nil),
		NewCmdArchive(f, nil),
		NewCmdContext(f),
		NewCmdMCP(f, nil),
		NewCmdFetch(f, nil),
		NewCmdSync(f, nil),
		NewCmdHandoff(f, nil),
		NewCmdPickup(f, nil),
		NewCmdVersion(f),
	)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command group (a command that only
// holds others) fail on a word that names none of them, as the root does:
// by itself cobra prints the group's help and exits 0, so a mistyped
// `baton context reject` looked like it had worked.
func refuseUnknownSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		refuseUnknownSubcommands(c)
	}
	if cmd.HasParent() && cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())
			}
			return nil
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}

// Main runs baton with args and returns the process exit code. It is the one
// place where an error becomes an exit code.
func Main(ctx context.Context, args []string, f *Factory) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var fe flagError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errSilent):
		return ExitError
	case errors.As(err, &fe) || isCobraUsage(err):
		fmt.Fprintf(f.IO.ErrOut, "baton: %v\n", err)
		fmt.Fprintln(f.IO.ErrOut, "Run 'baton --help' for usage.")
		return ExitUsage
	default:
		fmt.Fprintf(f.IO.ErrOut, "baton: %v\n", err)
		return ExitError
	}
}

// isCobraUsage recognises the argument errors cobra returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "requires at most", "unknown flag", "unknown shorthand flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
