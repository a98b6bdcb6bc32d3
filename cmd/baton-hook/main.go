// Command baton-hook is `baton hook` as a program of its own. Claude Code
// runs it for every hook event, so it links only what the hook needs and
// starts in a fraction of baton's time.
package main

import (
	"context"
	"os"

	"github.com/baton-cli/baton/internal/hookcmd"
)

func main() {
	os.Exit(hookcmd.Main(context.Background(), os.Args[1:], hookcmd.System()))
}
