package index

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/state"
)

// Sources are the files an index is derived from. Any of them may be
// missing.
type Sources struct {
	// State is the repository's state folder: the journal, the decision
	// files, the context layers and the transcript archive.
	State state.Dir
	// TranscriptDirs are the folders of Claude Code transcripts
	// (<session>.jsonl) of the repository's worktrees. The archived copies
	// under the state folder are read too, when the original is gone.
	TranscriptDirs []string
	// WorkerDir is the worker's data folder; its runs/ are indexed.
	WorkerDir string
	// DebatesDir holds the debate files.
	DebatesDir string
	// Agents are the other agents' CLIs' folders; their sessions that ran
	// in one of Worktrees (or below) are indexed.
	Agents    agentlog.Dirs
	Worktrees []string
}

// Worktrees returns the repository's worktrees: the main one first, then the
// linked ones git records in <common dir>/worktrees/*/gitdir, sorted.
// It reads git's files and runs no git.
func Worktrees(repo gitrepo.Repo) []string {
	out := []string{repo.Main}
	entries, err := os.ReadDir(filepath.Join(repo.CommonDir, "worktrees"))
	if err != nil {
		return out
	}
	var linked []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(repo.CommonDir, "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		// gitdir names the worktree's .git file.
		p := strings.TrimSpace(string(bytes.TrimSpace(b)))
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(repo.CommonDir, "worktrees", e.Name(), p)
		}
		linked = append(linked, filepath.Dir(filepath.Clean(p)))
	}
	slices.Sort(linked)
	for _, w := range slices.Compact(linked) {
		if w != repo.Main {
			out = append(out, w)
		}
	}
	return out
}

// TranscriptDirs returns the transcript folders under home of sessions run
// at the top of each worktree.
func TranscriptDirs(home string, worktrees []string) []string {
	out := make([]string, 0, len(worktrees))
	for _, w := range worktrees {
		out = append(out, claudecode.TranscriptDir(home, w))
	}
	return out
}

// ArchiveDir is where `baton archive` keeps compressed copies of the
// transcripts of the repository's sessions:
// <state>/archive/transcripts/<project key>/<session>.jsonl.gz.
func ArchiveDir(d state.Dir) string {
	return filepath.Join(d.Archive(), "transcripts")
}
