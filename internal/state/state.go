// Package state knows where baton keeps a repository's files: the state folder
// <main worktree>/.claude/session-state/ shared by all worktrees, and the paths
// inside it. It also opens baton.log, the log of internal errors.
//
// It does not read or write the files' contents; the packages that own each
// file (journal, resume, decision, …) do.
package state

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/safepath"
)

// RelDir is the state folder's path relative to the main worktree.
const RelDir = ".claude/session-state"

// ExcludePattern is the line of the repository's info/exclude that keeps the
// state folder out of git. Whatever creates the folder first (`baton init`,
// a hook installed as a plugin, a command) adds it.
const ExcludePattern = RelDir + "/"

// Dir is a repository's state folder.
type Dir struct {
	// Root is the state folder's absolute path.
	Root string
	// Legacy are the folders where claude-issueops, the tool baton's
	// decision capture replaces, kept its per-session files
	// (<project>/session-state/): read, so switching loses nothing.
	Legacy []string
}

// LegacyRelDir is the original decision-capture tool's per-session folder,
// relative to the project folder.
const LegacyRelDir = "session-state"

// For returns the state folder of repo: it lives in the main worktree so every
// worktree of the repository shares one journal.
func For(repo gitrepo.Repo) Dir {
	d := Dir{Root: filepath.Join(repo.Main, RelDir)}
	for _, w := range []string{repo.Worktree, repo.Main} {
		if l := filepath.Join(w, LegacyRelDir); w != "" && (len(d.Legacy) == 0 || d.Legacy[0] != l) {
			d.Legacy = append(d.Legacy, l)
		}
	}
	return d
}

// At returns the state folder of a project folder that is not a git worktree.
func At(projectDir string) Dir {
	return Dir{Root: filepath.Join(projectDir, RelDir), Legacy: []string{filepath.Join(projectDir, LegacyRelDir)}}
}

// Base is the folder holding the state folder: the main worktree, or the
// project folder outside git. It is the folder baton trusts: below it, every
// folder on the way to a state file must be a real folder, never a link a
// repository planted (see package safepath). A Root that does not end in
// RelDir (a test's folder) is trusted from its parent.
func (d Dir) Base() string {
	if b, ok := strings.CutSuffix(d.Root, string(filepath.Separator)+filepath.FromSlash(RelDir)); ok {
		return b
	}
	return filepath.Dir(d.Root)
}

// Check reports an error wrapping safepath.ErrLink when a folder on the way
// from Base to the state folder, or the state folder itself, is a link.
func (d Dir) Check() error { return safepath.Check(d.Base(), d.Root) }

// Create makes the state folder when it is missing and keeps it out of git
// through repo's info/exclude (repo is nil outside git), as `baton init`
// does: whatever writes first, a hook installed as a plugin or a command,
// leaves git status clean. It reports whether it made the folder. The
// folder's parent, the worktree, must exist: a state folder is never made
// from a path nobody checked. A state folder reached through a link is
// refused with an error wrapping safepath.ErrLink.
func (d Dir) Create(repo *gitrepo.Repo) (created bool, err error) {
	if err := d.Check(); err != nil {
		return false, err
	}
	if _, err := os.Lstat(d.Root); !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := os.Stat(d.Base()); err != nil {
		return false, fmt.Errorf("create state folder: %w", err)
	}
	if err := safepath.MkdirAll(d.Base(), d.Root, 0o700); err != nil {
		return false, fmt.Errorf("create state folder: %w", err)
	}
	if repo != nil {
		if _, err := repo.AddExclude(ExcludePattern); err != nil {
			return true, fmt.Errorf("exclude the state folder from git: %w", err)
		}
	}
	return true, nil
}

func (d Dir) Journal() string  { return filepath.Join(d.Root, "auto.jsonl") }
func (d Dir) Current() string  { return filepath.Join(d.Root, "current.md") }
func (d Dir) Sessions() string { return filepath.Join(d.Root, "sessions") }
func (d Dir) Context() string  { return filepath.Join(d.Root, "context") }
func (d Dir) Index() string    { return filepath.Join(d.Root, "index.db") }
func (d Dir) Log() string      { return filepath.Join(d.Root, "baton.log") }
func (d Dir) Archive() string  { return filepath.Join(d.Root, "archive") }

// Shared holds what the last sync of the shared memory left for the hooks
// to read (package teammem).
func (d Dir) Shared() string { return filepath.Join(d.Root, "shared") }

// Worktrees is the folder of the per-worktree files.
func (d Dir) Worktrees() string { return filepath.Join(d.Root, "worktrees") }

// WorktreeDir is the folder of one worktree's own files:
// worktrees/<name>-<hash>, where name is the worktree folder's base name
// (for a person reading the listing) and hash a hash of its whole path
// (two worktrees can share a base name).
func (d Dir) WorktreeDir(worktree string) string {
	return filepath.Join(d.Worktrees(), WorktreeKey(worktree))
}

// WorktreeKey names a worktree's folder under Worktrees.
func WorktreeKey(worktree string) string {
	worktree = filepath.Clean(worktree)
	h := fnv.New64a()
	h.Write([]byte(worktree))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(worktree))
	if len(name) > 40 {
		name = name[:40]
	}
	return strings.TrimLeft(name, ".") + "-" + strconv.FormatUint(h.Sum64(), 16)
}

// CurrentOf is the hand-kept state file of worktree: current.md in the
// state folder for the main worktree (where it has always been), and in
// the worktree's own folder for the others. main is the main worktree.
func (d Dir) CurrentOf(worktree, main string) string {
	if worktree == "" || filepath.Clean(worktree) == filepath.Clean(main) {
		return d.Current()
	}
	return filepath.Join(d.WorktreeDir(worktree), "current.md")
}

// Locks holds lock files for files kept outside the state folder (the agent
// memory index), so their folders hold only what belongs there.
func (d Dir) Locks() string { return filepath.Join(d.Root, "locks") }

// UserLog is the log used when no repository's state folder is writable:
// ${XDG_STATE_HOME:-~/.local/state}/baton/baton.log.
func UserLog(getenv func(string) string) string {
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "baton", "baton.log")
}
