package hookcmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHookProgramLinksLightPackages guards what baton-hook links: every
// linked package initialises at each start, and package net (through cgo
// name resolution) makes the program load the C library. Any of these on the
// hook's path would cost every tool call a few milliseconds.
func TestHookProgramLinksLightPackages(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/baton-cli/baton/cmd/baton-hook").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	heavy := []string{
		"net", "net/http", "os/user", "runtime/cgo", "encoding/gob", "database/sql",
		"github.com/spf13/cobra",
		"modernc.org/", "github.com/anthropics/", "github.com/openai/", "github.com/slack-go/",
		"github.com/google/go-github/", "github.com/modelcontextprotocol/", "github.com/chromedp/",
		// Terminal forms and their styling initialise for milliseconds.
		"github.com/charmbracelet/", "github.com/muesli/termenv", "github.com/yuin/goldmark",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, h := range heavy {
			if pkg == h || strings.HasSuffix(h, "/") && strings.HasPrefix(pkg, h) {
				t.Errorf("baton-hook links %s", pkg)
			}
		}
	}
}
