package cli

import (
	"errors"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
)

func TestHookCommand(t *testing.T) {
	found := func(string) (string, error) { return "/usr/local/bin/baton-hook", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	tests := []struct {
		name     string
		asked    string
		shared   bool
		lookPath func(string) (string, error)
		want     string
	}{
		{name: "hook program on PATH", lookPath: found, want: "baton-hook"},
		{name: "only baton", lookPath: missing, want: "baton hook"},
		{name: "asked for wins", asked: "/opt/baton/bin/baton hook", lookPath: found, want: "/opt/baton/bin/baton hook"},
		{name: "shared settings pick on each machine", shared: true, lookPath: found, want: claudecode.PluginHookCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hookCommand(tt.asked, tt.shared, tt.lookPath); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}
