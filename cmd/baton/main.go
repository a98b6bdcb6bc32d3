// Command baton keeps an AI coding agent's work and context from getting lost.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/baton-cli/baton/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.System())
	stop()
	os.Exit(code)
}
