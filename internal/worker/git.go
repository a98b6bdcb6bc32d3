package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// gitTimeout bounds one git command, so a hung fetch or push cannot hold a
// repository's queue forever.
const gitTimeout = 10 * time.Minute

// gitRunner runs git with an argument list (never a shell) and the worker's
// environment, with prompts for credentials turned off: nobody is there to
// answer them.
type gitRunner struct {
	env []string
	// lockDir holds the lock files that make the runs sharing a clone (in
	// this process or another) change its worktrees and refs one at a
	// time: concurrent `git worktree add` in one repository fail.
	lockDir string
}

// lockClone takes the lock of a clone, waiting for it.
func (g gitRunner) lockClone(ctx context.Context, repo string) (func(), error) {
	if g.lockDir == "" {
		return func() {}, nil
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	sum := sha256.Sum256([]byte(abs))
	if err := os.MkdirAll(g.lockDir, 0o700); err != nil {
		return nil, fmt.Errorf("lock clone %s: %w", repo, err)
	}
	lock := flock.New(filepath.Join(g.lockDir, "clone-"+hex.EncodeToString(sum[:8])+".lock"))
	if _, err := lock.TryLockContext(ctx, 20*time.Millisecond); err != nil {
		return nil, fmt.Errorf("lock clone %s: %w", repo, err)
	}
	return func() { _ = lock.Unlock() }, nil
}

// locked runs git in the clone repo under the clone's lock.
func (g gitRunner) locked(ctx context.Context, repo string, args ...string) (string, error) {
	unlock, err := g.lockClone(ctx, repo)
	if err != nil {
		return "", err
	}
	defer unlock()
	return g.run(ctx, repo, args...)
}

// run runs git in dir and returns its trimmed standard output. The error
// holds the end of git's standard error.
func (g gitRunner) run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := g.output(ctx, dir, nil, args...)
	return strings.TrimSpace(out), err
}

// output runs git in dir with stdin (nil: none) and returns its standard
// output as it is.
func (g gitRunner) output(ctx context.Context, dir string, stdin []byte, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), g.env...), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	errOut := newCapture(0, 4<<10)
	cmd.Stdout, cmd.Stderr = &out, errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.Output().Text)
		if msg == "" {
			return "", fmt.Errorf("git %s: %w", args[0], err)
		}
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return out.String(), nil
}

// fetch brings the clone's origin up to date.
func (g gitRunner) fetch(ctx context.Context, repo string) error {
	_, err := g.locked(ctx, repo, "fetch", "--prune", "origin")
	return err
}

// addWorktree creates a new branch at origin/base checked out in dir.
func (g gitRunner) addWorktree(ctx context.Context, repo, dir, branch, base string) error {
	_, err := g.locked(ctx, repo, "worktree", "add", "--no-track", "-b", branch, dir, "origin/"+base)
	return err
}

// branchExists reports whether the clone has a local branch of that name.
func (g gitRunner) branchExists(ctx context.Context, repo, branch string) bool {
	_, err := g.run(ctx, repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// removeWorktree removes the worktree (even with changes in it) and prunes
// git's record of it; the branch stays.
func (g gitRunner) removeWorktree(ctx context.Context, repo, dir string) error {
	_, err := g.locked(ctx, repo, "worktree", "remove", "--force", dir)
	return err
}

// deleteBranch deletes a local branch that holds nothing new.
func (g gitRunner) deleteBranch(ctx context.Context, repo, branch string) error {
	_, err := g.locked(ctx, repo, "branch", "-D", branch)
	return err
}

// commitsAhead counts the commits of HEAD in dir that origin/base lacks.
func (g gitRunner) commitsAhead(ctx context.Context, dir, base string) (int, error) {
	out, err := g.run(ctx, dir, "rev-list", "--count", "origin/"+base+"..HEAD")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("git rev-list: unexpected output %q", out)
	}
	return n, nil
}

// dirty reports whether the worktree has changes that are not committed.
func (g gitRunner) dirty(ctx context.Context, dir string) (bool, error) {
	out, err := g.run(ctx, dir, "status", "--porcelain", "--untracked-files=normal")
	return out != "", err
}

// push pushes HEAD of dir to branch on origin.
func (g gitRunner) push(ctx context.Context, dir, branch string) error {
	_, err := g.run(ctx, dir, "push", "origin", "HEAD:refs/heads/"+branch)
	return err
}

// remoteBranchExists reports whether origin has the branch (as of the last
// fetch).
func (g gitRunner) remoteBranchExists(ctx context.Context, repo, branch string) bool {
	if branch == "" {
		return false
	}
	_, err := g.run(ctx, repo, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+branch)
	return err == nil
}

// maxCheckpointFile is the largest file a checkpoint commits: a bigger
// one is a build output or a data dump, not the agent's work.
const maxCheckpointFile = 1 << 20

// stageWork stages the worktree's changes as the agent would commit them:
// what .gitignore (and the user's excludes) leave out stays out, and files
// over maxCheckpointFile are skipped and returned.
func (g gitRunner) stageWork(ctx context.Context, dir string) (skipped []string, err error) {
	out, err := g.output(ctx, dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var paths []byte
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		xy, path := f[:2], f[3:]
		names := []string{path}
		if xy[0] == 'R' || xy[0] == 'C' {
			// A rename's entry is followed by the name it had.
			if i+1 < len(fields) {
				i++
				names = append(names, fields[i])
			}
		}
		if info, err := os.Lstat(filepath.Join(dir, path)); err == nil && info.Mode().IsRegular() && info.Size() > maxCheckpointFile {
			skipped = append(skipped, path)
			continue
		}
		for _, n := range names {
			paths = append(append(paths, n...), 0)
		}
	}
	if len(paths) == 0 {
		return skipped, nil
	}
	_, err = g.output(ctx, dir, paths, "--literal-pathspecs", "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul")
	return skipped, err
}

// commitStaged commits what is staged, with the repository's own commit
// hooks. Without a git identity configured, the commit is the worker's.
func (g gitRunner) commitStaged(ctx context.Context, dir, message string) error {
	args := []string{"commit", "-q", "-m", message}
	if email, err := g.run(ctx, dir, "config", "user.email"); err != nil || email == "" {
		args = append([]string{"-c", "user.name=baton worker", "-c", "user.email=baton-worker@localhost"}, args...)
	}
	_, err := g.run(ctx, dir, args...)
	return err
}

// unstage empties the index back to HEAD; the files stay as they are.
func (g gitRunner) unstage(ctx context.Context, dir string) error {
	_, err := g.run(ctx, dir, "reset", "-q")
	return err
}

// diff returns the patch of diffArgs (a range, or --cached), binary files
// as text, so that what it adds can be scanned.
func (g gitRunner) diff(ctx context.Context, dir string, diffArgs ...string) (string, error) {
	args := append([]string{"-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--text", "-U0"}, diffArgs...)
	return g.output(ctx, dir, nil, args...)
}
