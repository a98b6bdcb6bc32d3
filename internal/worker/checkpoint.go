package worker

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/transcript"
)

// maxTranscript is the most of a transcript a checkpoint stores; a longer
// one is not stored (the rescue then starts a new session on the branch).
const maxTranscript = 64 << 20

// checkpointEvery checkpoints the run every CheckpointEvery while the agent
// runs; the returned function stops it and waits for a checkpoint in
// progress.
func (r *run) checkpointEvery(ctx context.Context) func() {
	if r.job == nil || r.job.q == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(r.w.opts.CheckpointEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				r.checkpoint(ctx, "")
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// checkpoint saves what a host taking the job over needs: the worktree's
// changes committed and pushed to the run's branch, and the agent's
// session transcript stored in the queue. sessionID names the session when
// known; otherwise the newest transcript of the worktree is taken. Failures
// are logged: a checkpoint missed is not a run failed.
func (r *run) checkpoint(ctx context.Context, sessionID string) {
	if r.job == nil || r.job.q == nil || r.rec.Worktree == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	log := r.w.log.With("run", r.rec.ID, "job", r.job.id)
	if !r.current(ctx) {
		log.Warn("checkpoint: the job runs on another host; none taken")
		return
	}
	r.commitWork(ctx)
	if err := r.push(ctx); err != nil {
		log.Warn("checkpoint: push", "err", err)
	}
	id, transcript := r.transcript(sessionID)
	err := r.job.q.saveCheckpoint(ctx, &checkpoint{
		JobID:      r.job.id,
		Attempt:    r.job.attempt,
		Repo:       r.rec.Repo,
		Issue:      r.rec.Issue,
		Branch:     r.rec.Branch,
		Host:       r.w.opts.Host,
		SessionID:  id,
		Transcript: transcript,
		Deadline:   r.rec.Deadline,
	}, r.w.opts.Now())
	if err != nil {
		log.Warn("checkpoint: store", "err", err)
		return
	}
	log.Info("checkpoint", "branch", r.rec.Branch, "session", id, "transcript bytes", len(transcript))
}

// errHeldBack is why a branch holding a secret is not pushed.
var errHeldBack = errors.New("the branch holds a secret: not pushed")

// commitWork commits the worktree's uncommitted changes as a checkpoint,
// as the agent would commit them (see gitRunner.stageWork), with the
// repository's commit hooks. Changes that hold a secret are not committed:
// they stay in the worktree, on this host only, and the run says so.
func (r *run) commitWork(ctx context.Context) {
	log := r.w.log.With("run", r.rec.ID)
	dir := r.rec.Worktree
	dirty, err := r.w.git.dirty(ctx, dir)
	if err != nil || !dirty {
		if err != nil {
			log.Warn("checkpoint: git status", "err", err)
		}
		return
	}
	skipped, err := r.w.git.stageWork(ctx, dir)
	for _, f := range skipped {
		r.note(&r.rec.SkippedFiles, f)
	}
	if err != nil {
		log.Warn("checkpoint: stage", "err", err)
		_ = r.w.git.unstage(ctx, dir)
		return
	}
	patch, err := r.w.git.diff(ctx, dir, "--cached")
	if err != nil {
		log.Warn("checkpoint: diff", "err", err)
		_ = r.w.git.unstage(ctx, dir)
		return
	}
	if patch == "" {
		return
	}
	if held := secretsIn(patch); len(held) > 0 {
		for _, h := range held {
			r.note(&r.rec.HeldBack, h)
		}
		log.Warn("checkpoint: changes hold a secret; not committed", "files", held)
		if err := r.w.git.unstage(ctx, dir); err != nil {
			log.Warn("checkpoint: unstage", "err", err)
		}
		return
	}
	if err := r.w.git.commitStaged(ctx, dir, "baton: checkpoint of run "+r.rec.ID); err != nil {
		log.Warn("checkpoint: commit", "err", err)
		_ = r.w.git.unstage(ctx, dir)
	}
}

// push pushes the run's branch when it has commits over the base, unless
// what it adds holds a secret (errHeldBack): that stays on this host.
func (r *run) push(ctx context.Context) error {
	dir := r.rec.Worktree
	ahead, err := r.w.git.commitsAhead(ctx, dir, r.repo.Branch())
	if err != nil || ahead == 0 {
		return err
	}
	patch, err := r.w.git.diff(ctx, dir, "origin/"+r.repo.Branch()+"...HEAD")
	if err != nil {
		return err
	}
	if held := secretsIn(patch); len(held) > 0 {
		for _, h := range held {
			r.note(&r.rec.HeldBack, h)
		}
		return errHeldBack
	}
	return r.w.git.push(ctx, dir, r.rec.Branch)
}

// note adds s to list (a field of the record) once.
func (r *run) note(list *[]string, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}

// secretsIn returns, for each file of a patch whose added lines hold a
// secret by the rules the journal is redacted with, the file and the kinds
// found: "debug.log (github)". The secret itself is never in the result.
func secretsIn(patch string) []string {
	var out []string
	file := ""
	var added strings.Builder
	flush := func() {
		if added.Len() == 0 {
			return
		}
		text := added.String()
		added.Reset()
		if kinds := newKinds(text, redact.Redact(text)); len(kinds) > 0 {
			out = append(out, file+" ("+strings.Join(kinds, ", ")+")")
		}
	}
	inHunk := false
	for line := range strings.Lines(patch) {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			inHunk, file = false, ""
		case !inHunk && strings.HasPrefix(line, "+++ "):
			file = strings.TrimPrefix(strings.TrimSpace(line[4:]), "b/")
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk && strings.HasPrefix(line, "+"):
			added.WriteString(line[1:])
		}
	}
	flush()
	return out
}

// redactedKind matches a redaction marker.
var redactedKind = regexp.MustCompile(`\[REDACTED:([a-z0-9-]+)\]`)

// newKinds returns the kinds of the markers redacted has beyond those
// already in text, sorted; a removed <private> span counts as "private".
func newKinds(text, redacted string) []string {
	if text == redacted {
		return nil
	}
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, k := range redactedKind.FindAllStringSubmatch(s, -1) {
			m[k[1]]++
		}
		return m
	}
	before, after := count(text), count(redacted)
	var kinds []string
	for k, n := range after {
		if n > before[k] {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		kinds = append(kinds, "private")
	}
	slices.Sort(kinds)
	return kinds
}

// agentVar returns the value of a variable of the agent's environment
// (the last one set), or "".
func (r *run) agentVar(name string) string {
	v := ""
	for _, kv := range r.agentEnv() {
		if val, ok := strings.CutPrefix(kv, name+"="); ok {
			v = val
		}
	}
	return v
}

// transcriptDir is where the agent CLI keeps the transcripts of the run's
// worktree: under CLAUDE_CONFIG_DIR of its environment when set, else
// under ~/.claude of its HOME (the worker's when it sets none).
func (r *run) transcriptDir() string {
	if dir := r.agentVar("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "projects", claudecode.ProjectKey(r.rec.Worktree))
	}
	return claudecode.TranscriptDir(cmp.Or(r.agentVar("HOME"), r.w.opts.Home), r.rec.Worktree)
}

// transcript returns the id and bytes of the agent's session in the run's
// worktree (the named one, else the newest), redacted: the queue is shared
// with other hosts, and secrets stay on this one.
func (r *run) transcript(sessionID string) (string, []byte) {
	id, b, err := transcript.ReadSession(r.transcriptDir(), sessionID, maxTranscript)
	if err != nil {
		return "", nil
	}
	return id, b
}

// layTranscript writes a checkpoint's transcript where the agent CLI looks
// for the session in the run's worktree, so that --resume finds it.
func (r *run) layTranscript(cp *checkpoint) bool {
	if err := transcript.LaySession(r.transcriptDir(), cp.SessionID, cp.Transcript); err != nil {
		r.problem("lay the checkpoint's transcript", err)
		return false
	}
	return true
}
