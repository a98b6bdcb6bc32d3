// Package cli holds baton's commands. Each command group has a file with an
// Options struct, a NewCmdX constructor that only parses flags and an xRun
// function that does the work. Streams, environment and clock come in
// through a Factory (package cmdenv), so tests run commands against buffers.
package cli

import "github.com/baton-cli/baton/internal/cmdenv"

// Factory and IOStreams are cmdenv's: the hook's own program shares them.
type (
	Factory   = cmdenv.Factory
	IOStreams = cmdenv.IOStreams
)

// System returns the Factory of the real process.
func System() *Factory { return cmdenv.System() }
