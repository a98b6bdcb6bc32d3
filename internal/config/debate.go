package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Debate configures `baton debate`.
type Debate struct {
	// Dir is the folder of debate session files (default
	// ${XDG_DATA_HOME:-~/.local/share}/baton/dialogues; debates in the old
	// default ~/.claude/dialogues are still found); a leading ~/ means the
	// home folder.
	Dir string `yaml:"dir"`
	// Rounds is how many rounds each side writes when start is not told
	// (default 3).
	Rounds int `yaml:"rounds"`
	// Transport is how instructions reach the agents: "tmux" (default),
	// panes in tmux, or "headless", agent CLI runs without tmux.
	Transport string `yaml:"transport"`
	// RegisterTimeout bounds how long start waits for the agents in the new
	// panes to report to the pane registry (default 60s).
	RegisterTimeout time.Duration `yaml:"register_timeout"`
	// TmuxSocket, when set, runs debates on the tmux server with this
	// socket name (tmux -L) instead of the current or default one.
	TmuxSocket string `yaml:"tmux_socket"`
	// EnterDelay is the longest pause between typing an instruction into a
	// pane and pressing Enter: Enter goes as soon as the text shows in the
	// pane and 100ms have passed (or this delay, when shorter); default
	// 300ms. 0 sends Enter with the text, for programs that read whole
	// lines; nil means unset.
	EnterDelay *Pause `yaml:"enter_delay"`
	// HeadlessArgs are added to every headless agent run after "-p"
	// (default: --permission-mode acceptEdits, so the agent may edit its
	// round file).
	HeadlessArgs []string `yaml:"headless_args"`
}

// A Pause is a duration written as Go writes one ("300ms", "1s") or as a
// bare 0.
type Pause time.Duration

// UnmarshalYAML parses a Pause.
func (p *Pause) UnmarshalYAML(n *yaml.Node) error {
	if n.Value == "0" {
		*p = 0
		return nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: invalid duration %q (want e.g. 50ms, or 0)", n.Line, n.Value)
	}
	*p = Pause(d)
	return nil
}

// Debate defaults and limits.
const (
	DefaultDebateRounds          = 3
	DefaultDebateTransport       = "tmux"
	DefaultDebateRegisterTimeout = 60 * time.Second
	DefaultDebateEnterDelay      = 300 * time.Millisecond
	// MaxDebateRounds bounds the rounds of one debate.
	MaxDebateRounds = 50
)

// DebateDir returns the folder of debate files: debate.dir, else
// ${XDG_DATA_HOME:-~/.local/share}/baton/dialogues. The default is outside
// ~/.claude, whose files Claude Code 2.1.328 treats as sensitive: a write
// there asks the person whatever the allow rules say (its sensitive-file
// rule covers every path through .claude, .git, .vscode, .idea, .husky,
// .cargo, .devcontainer, .yarn, .mvn and .config/git).
func (c *Config) DebateDir(getenv func(string) string) string {
	home := getenv("HOME")
	d := c.Debate.Dir
	switch {
	case d == "":
		data := getenv("XDG_DATA_HOME")
		if !filepath.IsAbs(data) {
			data = filepath.Join(home, ".local", "share")
		}
		return filepath.Join(data, "baton", "dialogues")
	case d == "~":
		return home
	case strings.HasPrefix(d, "~/"):
		return filepath.Join(home, d[2:])
	}
	return d
}

// DebateOldDir returns the folder debates were kept in before
// (~/.claude/dialogues, the original tool's), whose debates are still found
// when debate.dir is not set; "" when it is.
func (c *Config) DebateOldDir(getenv func(string) string) string {
	if c.Debate.Dir != "" {
		return ""
	}
	return filepath.Join(getenv("HOME"), ".claude", "dialogues")
}

// DebateRounds returns the default number of rounds each side writes.
func (c *Config) DebateRounds() int {
	if c.Debate.Rounds > 0 {
		return c.Debate.Rounds
	}
	return DefaultDebateRounds
}

// DebateTransport returns the default transport name.
func (c *Config) DebateTransport() string {
	if c.Debate.Transport != "" {
		return c.Debate.Transport
	}
	return DefaultDebateTransport
}

// DebateRegisterTimeout returns how long start waits for the panes' agents.
func (c *Config) DebateRegisterTimeout() time.Duration {
	if c.Debate.RegisterTimeout > 0 {
		return c.Debate.RegisterTimeout
	}
	return DefaultDebateRegisterTimeout
}

// DebateEnterDelay returns the longest pause before Enter when typing into
// a pane; a configured 0 stands.
func (c *Config) DebateEnterDelay() time.Duration {
	if c.Debate.EnterDelay != nil {
		return time.Duration(*c.Debate.EnterDelay)
	}
	return DefaultDebateEnterDelay
}

// DebateHeadlessArgs returns the arguments added to headless agent runs.
func (c *Config) DebateHeadlessArgs() []string {
	if c.Debate.HeadlessArgs != nil {
		return c.Debate.HeadlessArgs
	}
	return []string{"--permission-mode", "acceptEdits"}
}

func (d *Debate) validate() error {
	switch {
	case d.Rounds < 0 || d.Rounds > MaxDebateRounds:
		return fmt.Errorf("config: debate.rounds must be between 1 and %d", MaxDebateRounds)
	case d.Transport != "" && d.Transport != "tmux" && d.Transport != "headless":
		return fmt.Errorf("config: debate.transport %q: want tmux or headless", d.Transport)
	case d.RegisterTimeout < 0:
		return errors.New("config: debate.register_timeout must be positive")
	case d.EnterDelay != nil && *d.EnterDelay < 0:
		return errors.New("config: debate.enter_delay must be 0 or more")
	case strings.ContainsAny(d.TmuxSocket, "/\x00"):
		return errors.New("config: debate.tmux_socket is a socket name, not a path")
	}
	return nil
}
