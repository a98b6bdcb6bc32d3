// Package cmdenv is what a baton command takes from its process: standard
// streams, environment, clock, working directory and executable, with the
// configuration and repository found from them. Commands receive a Factory
// instead of reaching for package os, so tests run them against buffers.
//
// It is shared by the full command set (internal/cli) and the hook's own
// small program (internal/hookcmd), so it imports only what both can afford
// at every start.
package cmdenv

import (
	"io"
	"os"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsTerminal reports whether Out is a terminal (for colour and prompts).
	IsTerminal bool
}

// Factory gives commands what they need from the process. Expensive members
// are functions, so a command pays only for what it uses.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time
	Getwd   func() (string, error)
	// Executable is the path of the baton program, the one that runs every
	// command (background jobs are started through it).
	Executable func() (string, error)
}

// System returns the Factory of the real process.
func System() *Factory {
	isTerm := false
	if fi, err := os.Stdout.Stat(); err == nil {
		isTerm = fi.Mode()&os.ModeCharDevice != 0
	}
	return &Factory{
		IO:         &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, IsTerminal: isTerm},
		Getenv:     os.Getenv,
		Environ:    os.Environ,
		Now:        time.Now,
		Getwd:      os.Getwd,
		Executable: os.Executable,
	}
}

// Config loads the user's config overridden by the worktree's .baton.yaml
// (root may be empty outside a repository), whose settings that run programs
// or name services apply only when the user trusted it (config.LoadRepo).
func (f *Factory) Config(root string) (*config.Config, error) {
	return config.LoadRepo(config.UserPath(f.Getenv), root)
}

// Repo finds the git worktree holding the working directory.
func (f *Factory) Repo() (gitrepo.Repo, error) {
	wd, err := f.Getwd()
	if err != nil {
		return gitrepo.Repo{}, err
	}
	return gitrepo.Find(wd)
}
