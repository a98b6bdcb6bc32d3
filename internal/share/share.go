// Package share decides what of a repository's own memory its people share
// through the repository's remote, and runs the sync: the approved
// decisions (always, unless sharing is off), the recent summaries and this
// worktree's branch state when memory.kinds asks for them. The ref, its
// merging and its pushing are package teammem's; this package reads the
// local layers (package recall) and the worktree's state (package resume)
// and writes the view the session-start hook reads.
package share

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/textcut"
)

// ErrOff means the repository's memory is not shared (memory.share: false).
var ErrOff = errors.New("sharing is off for this repository (memory.share: false)")

// ErrNoRemote means the repository has no origin remote to share through.
var ErrNoRemote = errors.New("the repository has no remote named origin")

// Options say which repository to sync and what to add.
type Options struct {
	State  state.Dir
	Repo   gitrepo.Repo
	Config *config.Config
	// Env is git's environment: the person's, for their credentials.
	Env []string
	// DataDir is baton's data folder, which keeps this machine's id.
	DataDir string
	Now     time.Time
	// Brief describes the worktree whose branch state is shared.
	Brief resume.Options
	// Change adds retractions, handoffs and pickups.
	Change teammem.Change
	// Push is false to fetch and merge only.
	Push bool
}

// Open returns the repository's store, with the person's git identity and
// this machine's id.
func Open(ctx context.Context, o Options) (*teammem.Store, error) {
	g := teammem.Git{Dir: o.Repo.Worktree, Env: o.Env}
	if !g.HasRemote(ctx) {
		return nil, ErrNoRemote
	}
	author, err := g.Identity(ctx)
	if err != nil {
		return nil, err
	}
	machine, err := MachineID(o.DataDir)
	if err != nil {
		return nil, err
	}
	return &teammem.Store{Git: g, Author: author, Machine: machine, LockPath: filepath.Join(o.Repo.CommonDir, "baton-memory.lock")}, nil
}

// Sync collects what this repository shares, syncs it with the remote and
// writes the view and the status the hooks and `baton doctor` read.
func Sync(ctx context.Context, o Options) (teammem.Result, error) {
	if !o.Config.MemoryShare() {
		return teammem.Result{}, ErrOff
	}
	st, err := Open(ctx, o)
	if err != nil {
		return teammem.Result{}, err
	}
	ch := o.Change
	decided, err := ownDecisions(o)
	if err != nil {
		return teammem.Result{}, err
	}
	own, err := collect(ctx, o, decided)
	if err != nil {
		return teammem.Result{}, err
	}
	ch.Entries = append(own, ch.Entries...)
	res, err := st.Sync(ctx, ch, o.Push)
	dir := teammem.DirOf(o.State)
	status := teammem.Status{At: o.Now, Came: len(res.Came), Went: len(res.Went), Entries: len(res.Entries)}
	for _, r := range res.Refused {
		status.Refused = append(status.Refused, refusedLine(r))
	}
	if err != nil {
		status.Error = err.Error()
		_ = dir.WriteStatus(status)
		return res, err
	}
	if err := dir.WriteView(teammem.MakeView(res.Entries, st.Machine, decided, o.Now)); err != nil {
		return res, err
	}
	return res, dir.WriteStatus(status)
}

// refusedLine names a refused entry for the status: its kind, its first
// words and the kinds of secret, never the secret.
func refusedLine(r teammem.Refusal) string {
	what := r.Entry.Slug
	if what == "" {
		what = textcut.Chars(redact.Redact(strings.Join(r.Entry.Texts(), " ")), 40)
	}
	return r.Entry.Kind + " " + what + " (" + strings.Join(r.Kinds, ", ") + ")"
}

// collect returns the entries this repository shares now, as
// memory.kinds asks: every approved decision (decided, read already), the
// recent summaries, the worktree's branch state.
func collect(ctx context.Context, o Options, decided []teammem.Entry) ([]teammem.Entry, error) {
	f, err := recall.FilesFor(o.State, o.Config.ContextRoute())
	if err != nil {
		return nil, err
	}
	var out []teammem.Entry
	if o.Config.MemoryShares(config.MemoryDecisions) {
		out = append(out, decided...)
	}
	if o.Config.MemoryShares(config.MemorySummaries) {
		rs, err := recall.ReadRecent(f, 256<<10)
		if err != nil {
			return nil, err
		}
		if len(rs) > maxSummaries {
			rs = rs[len(rs)-maxSummaries:]
		}
		for _, r := range rs {
			if r.Goal == "" && len(r.OpenLoops) == 0 {
				continue
			}
			out = append(out, teammem.Entry{Kind: teammem.KindSummary, TS: r.TS.UTC(), Session: r.Session, Task: r.Goal, Loops: r.OpenLoops})
		}
	}
	if o.Config.MemoryShares(config.MemoryBranch) && o.Brief.Branch != "" {
		e, ok, err := BranchEntry(ctx, o.Brief)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// ownDecisions are the entries of the repository's approved decisions,
// shared or not: a teammate's retraction may hide one of them.
func ownDecisions(o Options) ([]teammem.Entry, error) {
	f, err := recall.FilesFor(o.State, o.Config.ContextRoute())
	if err != nil {
		return nil, err
	}
	ds, err := recall.ReadDecisions(f, true)
	if err != nil {
		return nil, err
	}
	out := make([]teammem.Entry, 0, len(ds))
	for _, d := range ds {
		out = append(out, teammem.FromDecision(d))
	}
	return out, nil
}

// maxSummaries is how many of the newest recent summaries are shared.
const maxSummaries = 20

// BranchEntry is the worktree's branch state: its task and open loops
// (the next step announced, the state file's next steps, prompts not
// answered, commands failing, the todo items not done), as of its last
// activity. ok is false when it has
// neither a task nor open loops.
func BranchEntry(ctx context.Context, o resume.Options) (teammem.Entry, bool, error) {
	b, err := resume.Build(ctx, o)
	if err != nil {
		return teammem.Entry{}, false, err
	}
	var loops []string
	add := func(s string) {
		if s = textcut.Chars(textcut.OneLine(s), recall.MaxItem); s != "" && len(loops) < maxLoops {
			loops = append(loops, s)
		}
	}
	add(b.NextStep)
	for _, n := range b.Next {
		add(n)
	}
	for _, p := range b.Unanswered {
		add(p)
	}
	for _, f := range b.Failing {
		add("`" + f.Cmd + "` → " + exitText(f.Exit))
	}
	for _, t := range b.Todo {
		if t.Status != "completed" {
			add(t.Subject)
		}
	}
	task := textcut.Chars(textcut.OneLine(b.Task), recall.MaxItem)
	if task == "" && len(loops) == 0 {
		return teammem.Entry{}, false, nil
	}
	at := b.LastActivity
	if b.Updated.After(at) {
		at = b.Updated
	}
	return teammem.Entry{Kind: teammem.KindBranch, TS: at.UTC().Truncate(time.Second), Branch: o.Branch, Task: task, Loops: loops}, true, nil
}

// maxLoops is how many open loops a branch state lists.
const maxLoops = 10

func exitText(code *int) string {
	if code == nil {
		return "failed"
	}
	return fmt.Sprintf("exit %d", *code)
}

// MachineID returns this machine's id, kept in dir/machine-id and made on
// first use: it tells two machines of one person apart on the ref.
func MachineID(dir string) (string, error) {
	path := filepath.Join(dir, "machine-id")
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); validMachine(id) {
			return id, nil
		}
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("machine id: %w", err)
	}
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		// Another process made it first: use its id.
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("machine id: %w", err)
		}
		if id := strings.TrimSpace(string(b)); validMachine(id) {
			return id, nil
		}
		return "", fmt.Errorf("machine id: %s is damaged; remove it", path)
	}
	if err != nil {
		return "", fmt.Errorf("machine id: %w", err)
	}
	_, err = fd.WriteString(id + "\n")
	if cerr := fd.Close(); err == nil {
		err = cerr
	}
	return id, err
}

func validMachine(id string) bool {
	_, err := hex.DecodeString(id)
	return len(id) == 16 && err == nil
}
