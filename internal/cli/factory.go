// Package cli holds baton's commands. Each command group has a file with an
// Options struct, a NewCmdX constructor that only parses flags and an xRun
// function that does the work. This package is the only one that knows the
// process: its streams, environment and clock come in through a Factory, so
// tests run commands against buffers.
package cli

import (
	"io"
	"os"
	"path/filepath"
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
	// Executable is the path of the running baton binary.
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
// (root may be empty outside a repository).
func (f *Factory) Config(root string) (*config.Config, error) {
	repoFile := ""
	if root != "" {
		repoFile = filepath.Join(root, config.RepoFile)
	}
	return config.Load(config.UserPath(f.Getenv), repoFile)
}

// Repo finds the git worktree holding the working directory.
func (f *Factory) Repo() (gitrepo.Repo, error) {
	wd, err := f.Getwd()
	if err != nil {
		return gitrepo.Repo{}, err
	}
	return gitrepo.Find(wd)
}
