package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// NewCmdVersion prints baton's version and the Go version it was built with.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print baton's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "baton %s (%s, %s/%s)\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// Version is the module version baton was built as (a tag for `go install
// …@vX`), or "devel" with the commit when built from a checkout.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel " + s.Value[:12]
		}
	}
	return "devel"
}
