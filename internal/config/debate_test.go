package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDebateSettings(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		wantDir       string
		wantRounds    int
		wantTransport string
		wantTimeout   time.Duration
		wantDelay     time.Duration
		wantArgs      []string
	}{
		{
			name:    "defaults",
			wantDir: "/home/u/.local/share/baton/dialogues", wantRounds: 3, wantTransport: "tmux",
			wantTimeout: 60 * time.Second, wantDelay: 300 * time.Millisecond,
			wantArgs: []string{"--permission-mode", "acceptEdits"},
		},
		{
			name:    "everything set",
			body:    "debate:\n  dir: ~/debates\n  rounds: 5\n  transport: headless\n  register_timeout: 90s\n  enter_delay: 50ms\n  tmux_socket: debates\n  headless_args: [--allowedTools, Edit]\n",
			wantDir: "/home/u/debates", wantRounds: 5, wantTransport: "headless",
			wantTimeout: 90 * time.Second, wantDelay: 50 * time.Millisecond,
			wantArgs: []string{"--allowedTools", "Edit"},
		},
		{
			name:    "no Enter pause",
			body:    "debate:\n  enter_delay: 0\n",
			wantDir: "/home/u/.local/share/baton/dialogues", wantRounds: 3, wantTransport: "tmux",
			wantTimeout: 60 * time.Second, wantDelay: 0,
			wantArgs: []string{"--permission-mode", "acceptEdits"},
		},
		{
			name:    "Enter pause left empty",
			body:    "debate:\n  enter_delay:\n",
			wantDir: "/home/u/.local/share/baton/dialogues", wantRounds: 3, wantTransport: "tmux",
			wantTimeout: 60 * time.Second, wantDelay: 300 * time.Millisecond,
			wantArgs: []string{"--permission-mode", "acceptEdits"},
		},
		{
			name:    "absolute dir, empty args",
			body:    "debate:\n  dir: /srv/dialogues\n  headless_args: []\n",
			wantDir: "/srv/dialogues", wantRounds: 3, wantTransport: "tmux",
			wantTimeout: 60 * time.Second, wantDelay: 300 * time.Millisecond,
			wantArgs: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(write(t, t.TempDir(), "c.yaml", tt.body))
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": "/home/u"}
			if got := c.DebateDir(func(k string) string { return env[k] }); got != filepath.FromSlash(tt.wantDir) {
				t.Errorf("DebateDir = %q; want %q", got, tt.wantDir)
			}
			wantOld := ""
			if !strings.Contains(tt.body, "dir:") {
				wantOld = "/home/u/.claude/dialogues"
			}
			if got := c.DebateOldDir(func(k string) string { return env[k] }); got != wantOld {
				t.Errorf("DebateOldDir = %q; want %q", got, wantOld)
			}
			env["XDG_DATA_HOME"] = "/data"
			if got, want := c.DebateDir(func(k string) string { return env[k] }), strings.Replace(tt.wantDir, "/home/u/.local/share", "/data", 1); got != want {
				t.Errorf("DebateDir with XDG_DATA_HOME = %q; want %q", got, want)
			}
			if got := c.DebateRounds(); got != tt.wantRounds {
				t.Errorf("DebateRounds = %d; want %d", got, tt.wantRounds)
			}
			if got := c.DebateTransport(); got != tt.wantTransport {
				t.Errorf("DebateTransport = %q; want %q", got, tt.wantTransport)
			}
			if got := c.DebateRegisterTimeout(); got != tt.wantTimeout {
				t.Errorf("DebateRegisterTimeout = %v; want %v", got, tt.wantTimeout)
			}
			if got := c.DebateEnterDelay(); got != tt.wantDelay {
				t.Errorf("DebateEnterDelay = %v; want %v", got, tt.wantDelay)
			}
			if got := c.DebateHeadlessArgs(); !slices.Equal(got, tt.wantArgs) {
				t.Errorf("DebateHeadlessArgs = %q; want %q", got, tt.wantArgs)
			}
		})
	}
}

func TestDebateInvalid(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"too many rounds", "debate:\n  rounds: 51\n", "debate.rounds"},
		{"negative rounds", "debate:\n  rounds: -1\n", "debate.rounds"},
		{"unknown transport", "debate:\n  transport: ssh\n", `debate.transport "ssh"`},
		{"negative timeout", "debate:\n  register_timeout: -1s\n", "debate.register_timeout"},
		{"negative delay", "debate:\n  enter_delay: -1ms\n", "debate.enter_delay"},
		{"delay without a unit", "debate:\n  enter_delay: 300\n", `line 2: invalid duration "300"`},
		{"socket path", "debate:\n  tmux_socket: /tmp/x\n", "debate.tmux_socket"},
		{"unknown key", "debate:\n  roundz: 2\n", `unknown key "debate.roundz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, t.TempDir(), "c.yaml", tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error = %v; want one mentioning %q", err, tt.want)
			}
		})
	}
}
