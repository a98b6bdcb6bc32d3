package teammem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Ref is the ref the shared memory is committed on, in every clone and on
// the remote.
const Ref = "refs/baton/memory"

// remoteRef is where a fetch puts the remote's copy: outside refs/remotes,
// which a `git fetch --prune` of the person's own would clear.
const remoteRef = "refs/baton-origin/memory"

// fetchSpec fetches the remote's refs/baton/ refs; a glob, so that a remote
// without the ref is no error.
const fetchSpec = "+refs/baton/*:refs/baton-origin/*"

// Remote is the remote the memory travels through.
const Remote = "origin"

const gitTimeout = 2 * time.Minute

// Git runs git in one repository with an argument list, never a shell.
type Git struct {
	// Dir is a folder of the repository.
	Dir string
	// Env is the environment git runs with (the person's, for their
	// credentials).
	Env []string
}

// run runs git with args, stdin as its input, and returns its standard
// output. The error holds the end of git's standard error.
func (g Git) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = append(append([]string(nil), g.Env...), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never", "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return out.Bytes(), nil
}

func (g Git) line(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// tip returns the commit ref points at, "" when there is no such ref.
func (g Git) tip(ctx context.Context, ref string) (string, error) {
	out, err := g.run(ctx, nil, "for-each-ref", "--format=%(objectname)", ref)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// files lists the blobs of a commit's tree by path.
func (g Git) files(ctx context.Context, commit string) (map[string]string, error) {
	out := map[string]string{}
	if commit == "" {
		return out, nil
	}
	b, err := g.run(ctx, nil, "ls-tree", "-r", "-z", commit)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(b, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) == 3 && f[1] == "blob" {
			out[string(path)] = f[2]
		}
	}
	return out, nil
}

// filesAt lists the blobs of the tree ref points at; none when there is
// no such ref.
func (g Git) filesAt(ctx context.Context, ref string) (map[string]string, error) {
	tip, err := g.tip(ctx, ref)
	if err != nil {
		return nil, err
	}
	return g.files(ctx, tip)
}

// blobs reads blobs by id in one git process.
func (g Git) blobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	in := []byte(strings.Join(ids, "\n") + "\n")
	b, err := g.run(ctx, in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for len(b) > 0 {
		head, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok {
			return nil, errors.New("git cat-file: short output")
		}
		f := strings.Fields(string(head))
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: %s", head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n+1 > len(rest) {
			return nil, errors.New("git cat-file: short output")
		}
		out[f[0]] = rest[:n]
		b = rest[n+1:]
	}
	return out, nil
}

// writeBlob stores data and returns its id.
func (g Git) writeBlob(ctx context.Context, data []byte) (string, error) {
	return g.lineIn(ctx, data, "hash-object", "-w", "--stdin")
}

func (g Git) lineIn(ctx context.Context, stdin []byte, args ...string) (string, error) {
	out, err := g.run(ctx, stdin, args...)
	return strings.TrimSpace(string(out)), err
}

// writeTree stores a tree of blobs by path (paths hold at most one folder)
// and returns its id.
func (g Git) writeTree(ctx context.Context, files map[string]string) (string, error) {
	dirs := map[string]map[string]string{}
	var root bytes.Buffer
	for path, blob := range files {
		dir, name, nested := strings.Cut(path, "/")
		if !nested {
			fmt.Fprintf(&root, "100644 blob %s\t%s\x00", blob, path)
			continue
		}
		if dirs[dir] == nil {
			dirs[dir] = map[string]string{}
		}
		dirs[dir][name] = blob
	}
	for dir, names := range dirs {
		var sub bytes.Buffer
		for name, blob := range names {
			fmt.Fprintf(&sub, "100644 blob %s\t%s\x00", blob, name)
		}
		id, err := g.lineIn(ctx, sub.Bytes(), "mktree", "-z")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&root, "040000 tree %s\t%s\x00", id, dir)
	}
	return g.lineIn(ctx, root.Bytes(), "mktree", "-z")
}

// commit stores a commit of tree with parents (those that are not "").
func (g Git) commit(ctx context.Context, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", tree, "-m", msg}
	for _, p := range parents {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	return g.line(ctx, args...)
}

// treeOf returns a commit's tree id.
func (g Git) treeOf(ctx context.Context, commit string) (string, error) {
	if commit == "" {
		return "", nil
	}
	return g.line(ctx, "rev-parse", commit+"^{tree}")
}

// setRef moves ref from old ("" when it must not exist yet) to to.
func (g Git) setRef(ctx context.Context, ref, to, old string) error {
	if old == "" {
		old = strings.Repeat("0", len(to))
	}
	_, err := g.run(ctx, nil, "update-ref", "-m", "baton sync", ref, to, old)
	return err
}

// fetch brings the remote's memory ref to remoteRef and returns its tip
// ("" when the remote has none).
func (g Git) fetch(ctx context.Context) (string, error) {
	if _, err := g.run(ctx, nil, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", Remote, fetchSpec); err != nil {
		return "", err
	}
	return g.tip(ctx, remoteRef)
}

// push sends the local memory ref to the remote; a push that is not a
// fast-forward fails.
func (g Git) push(ctx context.Context) error {
	_, err := g.run(ctx, nil, "push", "--quiet", "--no-verify", Remote, Ref+":"+Ref)
	return err
}

// Identity returns the person's git identity, "Name <email>".
func (g Git) Identity(ctx context.Context) (string, error) {
	s, err := g.line(ctx, "var", "GIT_AUTHOR_IDENT")
	if err != nil {
		return "", fmt.Errorf("git identity (set user.name and user.email): %w", err)
	}
	if i := strings.LastIndex(s, ">"); i >= 0 {
		s = s[:i+1]
	}
	return s, nil
}

// HasRemote reports whether the repository has the remote the memory
// travels through.
func (g Git) HasRemote(ctx context.Context) bool {
	_, err := g.run(ctx, nil, "remote", "get-url", Remote)
	return err == nil
}

// HasRef reports whether this clone holds the memory ref: it was synced
// before.
func (g Git) HasRef(ctx context.Context) bool {
	tip, err := g.tip(ctx, Ref)
	return err == nil && tip != ""
}

// Run runs git with args and returns its trimmed standard output.
func (g Git) Run(ctx context.Context, args ...string) (string, error) { return g.line(ctx, args...) }
