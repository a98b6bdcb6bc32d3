package share

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/transcript"
)

// maxHandoffTranscript is the largest transcript a handoff carries.
const maxHandoffTranscript = 64 << 20

// Errors of handoffs and pickups.
var (
	ErrDetached   = errors.New("HEAD is detached: check out the branch to hand off")
	ErrNoHandoff  = errors.New("no handoff has this id")
	ErrAmbiguous  = errors.New("more than one handoff has this id")
	ErrPickedUp   = errors.New("this handoff was picked up already")
	ErrBadHandoff = errors.New("the handoff names a branch, commit or session baton does not use")
	ErrHeldBack   = errors.New("the handoff would carry a secret")
)

// Handoff says which session to hand off.
type Handoff struct {
	Options
	// Home is the person's home folder, where Claude Code keeps the
	// transcripts.
	Home string
	// Session is the session to hand off; "" for the worktree's newest.
	Session string
	// Task is the worktree's task; Briefing the briefing, kept beside the
	// transcript for the person who picks it up.
	Task, Briefing string
}

// Handed is what a handoff sent.
type Handed struct {
	Entry teammem.Entry
	// Dirty is set when the worktree has changes not committed: they stay
	// on this machine.
	Dirty bool
}

// HandOff pushes the worktree's branch and puts the session's transcript
// (redacted) and the briefing on the shared memory's ref, with an entry
// naming them. Entry.ID's first characters are the id to pick it up by.
func HandOff(ctx context.Context, h Handoff) (Handed, error) {
	var out Handed
	o := h.Options
	if o.Repo.Branch == "" {
		return out, ErrDetached
	}
	st, err := Open(ctx, o)
	if err != nil {
		return out, err
	}
	g := st.Git
	commit, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return out, err
	}
	status, err := g.Run(ctx, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return out, err
	}
	out.Dirty = status != ""
	branch := "refs/heads/" + o.Repo.Branch
	if _, err := g.Run(ctx, "push", "--quiet", teammem.Remote, branch+":"+branch); err != nil {
		return out, fmt.Errorf("push branch %s: %w", o.Repo.Branch, err)
	}
	session, data, err := transcript.ReadSession(claudecode.TranscriptDir(h.Home, o.Repo.Worktree), h.Session, maxHandoffTranscript)
	if err != nil {
		return out, err
	}
	sum := sha256.Sum256([]byte(session + "\x00" + commit + "\x00" + o.Now.String()))
	key := hex.EncodeToString(sum[:8])
	e := teammem.Entry{
		Kind: teammem.KindHandoff, TS: o.Now.UTC().Truncate(time.Second), Branch: o.Repo.Branch, Commit: commit,
		Session: session, Task: textcut.Chars(textcut.OneLine(redact.Redact(h.Task)), 240), Transcript: teammem.HandoffPath(key),
	}
	files := map[string][]byte{e.Transcript: data}
	if h.Briefing != "" {
		files[strings.TrimSuffix(e.Transcript, ".jsonl")+".md"] = []byte(redact.Redact(h.Briefing))
	}
	res, err := st.Sync(ctx, teammem.Change{Entries: []teammem.Entry{e}, Files: files}, true)
	if err != nil {
		return out, err
	}
	if len(res.Refused) > 0 {
		return out, ErrHeldBack
	}
	e.Author, e.Machine = st.Author, st.Machine
	e.Seal()
	out.Entry = e
	return out, nil
}

// Pickup says which handoff to pick up and where.
type Pickup struct {
	Options
	Home string
	// ID is the handoff's id or its first 8 or more characters.
	ID string
	// Again picks up a handoff picked up before.
	Again bool
	// Dir is where a new worktree goes; "" for beside the main worktree,
	// named after it and the branch.
	Dir string
}

// Picked is what a pickup did.
type Picked struct {
	Entry teammem.Entry
	// Worktree is the worktree on the handoff's branch; Created is set
	// when the pickup made it.
	Worktree string
	Created  bool
	// Before are the earlier pickups of the handoff (with Again).
	Before []teammem.Entry
	// MarkErr is why the pickup could not be marked on the remote; the
	// next `baton sync` marks it.
	MarkErr error
}

// PickedUpError says who picked a handoff up before, and when.
type PickedUpError struct{ Before []teammem.Entry }

func (e *PickedUpError) Error() string {
	last := e.Before[len(e.Before)-1]
	return fmt.Sprintf("%v: by %s at %s", ErrPickedUp, last.Author, last.TS.Format(time.RFC3339))
}

func (e *PickedUpError) Unwrap() error { return ErrPickedUp }

// PickUp fetches a handoff, checks out its branch at the handed-off commit
// (in the current worktree when it is on that branch, else in the worktree
// that has it or a new one), lays the session's transcript where Claude
// Code looks for that worktree, and marks the handoff picked up.
func PickUp(ctx context.Context, p Pickup) (Picked, error) {
	var out Picked
	o := p.Options
	st, err := Open(ctx, o)
	if err != nil {
		return out, err
	}
	res, err := st.Sync(ctx, teammem.Change{}, false)
	if err != nil {
		return out, err
	}
	e, err := findHandoff(res.Entries, p.ID)
	if err != nil {
		return out, err
	}
	out.Entry = e
	out.Before = teammem.PickedUp(res.Entries, e.ID)
	if len(out.Before) > 0 && !p.Again {
		return out, &PickedUpError{Before: out.Before}
	}
	g := st.Git
	if !validBranch(ctx, g, e.Branch) || !hexRE.MatchString(e.Commit) {
		return out, ErrBadHandoff
	}
	if _, err := g.Run(ctx, "fetch", "--quiet", "--no-tags", teammem.Remote, "refs/heads/"+e.Branch); err != nil {
		return out, fmt.Errorf("fetch branch %s: %w", e.Branch, err)
	}
	if _, err := g.Run(ctx, "cat-file", "-e", e.Commit+"^{commit}"); err != nil {
		return out, fmt.Errorf("commit %s of branch %s: %w", e.Commit, e.Branch, err)
	}
	if out.Worktree, out.Created, err = worktreeFor(ctx, g, o, e, p.Dir); err != nil {
		return out, err
	}
	data, err := st.ReadFile(ctx, e.Transcript)
	if err != nil {
		return out, err
	}
	if data == nil {
		return out, fmt.Errorf("%w: its transcript is missing", ErrBadHandoff)
	}
	if err := transcript.LaySession(claudecode.TranscriptDir(p.Home, out.Worktree), e.Session, data); err != nil {
		return out, err
	}
	mark := teammem.Entry{Kind: teammem.KindPickup, TS: o.Now.UTC().Truncate(time.Second), Target: e.ID}
	if _, err := st.Sync(ctx, teammem.Change{Entries: []teammem.Entry{mark}}, true); err != nil {
		out.MarkErr = err
	}
	return out, nil
}

var hexRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// validBranch reports whether name is a branch name git accepts and that
// cannot be read as an option.
func validBranch(ctx context.Context, g teammem.Git, name string) bool {
	if name == "" || strings.HasPrefix(name, "-") {
		return false
	}
	_, err := g.Run(ctx, "check-ref-format", "--branch", name)
	return err == nil
}

// findHandoff returns the handoff whose id starts with id.
func findHandoff(es []teammem.Entry, id string) (teammem.Entry, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	var found []teammem.Entry
	for _, e := range es {
		if e.Kind == teammem.KindHandoff && len(id) >= 8 && strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return teammem.Entry{}, ErrNoHandoff
	case 1:
		return found[0], nil
	}
	return teammem.Entry{}, ErrAmbiguous
}

// worktreeFor returns the worktree on the handoff's branch, brought to its
// commit: the current one when it is on the branch, else the one that has
// it checked out, else a new one at dir.
func worktreeFor(ctx context.Context, g teammem.Git, o Options, e teammem.Entry, dir string) (string, bool, error) {
	wt := ""
	if o.Repo.Branch == e.Branch {
		wt = o.Repo.Worktree
	} else {
		list, err := g.Run(ctx, "worktree", "list", "--porcelain")
		if err != nil {
			return "", false, err
		}
		cur := ""
		for _, line := range strings.Split(list, "\n") {
			if p, ok := strings.CutPrefix(line, "worktree "); ok {
				cur = p
			}
			if line == "branch refs/heads/"+e.Branch {
				wt = cur
			}
		}
	}
	if wt != "" {
		return wt, false, fastForward(ctx, teammem.Git{Dir: wt, Env: g.Env}, e.Commit)
	}
	if dir == "" {
		dir = filepath.Join(filepath.Dir(o.Repo.Main), filepath.Base(o.Repo.Main)+"-"+pathPart(e.Branch))
	}
	if _, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+e.Branch); err == nil {
		if _, err := g.Run(ctx, "worktree", "add", "--quiet", dir, e.Branch); err != nil {
			return "", false, err
		}
		return dir, true, fastForward(ctx, teammem.Git{Dir: dir, Env: g.Env}, e.Commit)
	}
	if _, err := g.Run(ctx, "worktree", "add", "--quiet", "-b", e.Branch, dir, e.Commit); err != nil {
		return "", false, err
	}
	return dir, true, nil
}

// fastForward brings the worktree's branch to commit when it does not hold
// it yet; a branch that went another way is left as it is.
func fastForward(ctx context.Context, g teammem.Git, commit string) error {
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", commit, "HEAD"); err == nil {
		return nil
	}
	if _, err := g.Run(ctx, "merge", "--ff-only", "--quiet", commit); err != nil {
		return fmt.Errorf("bring %s to the handed-off commit: %w", g.Dir, err)
	}
	return nil
}

// pathPart makes a branch name one folder name.
func pathPart(branch string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, branch)
}
