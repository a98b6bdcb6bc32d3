// Command baton keeps an AI coding agent's work and context from getting lost.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/baton-cli/baton/internal/cli"
	"github.com/baton-cli/baton/internal/worker"
)

func main() {
	// An agent's reaper, started by the worker, is baton too.
	worker.ReaperMain()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
