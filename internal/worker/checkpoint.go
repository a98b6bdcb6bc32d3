package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
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
	dir := r.rec.Worktree
	if dirty, err := r.w.git.dirty(ctx, dir); err != nil {
		log.Warn("checkpoint: git status", "err", err)
	} else if dirty {
		if err := r.w.git.commitAll(ctx, dir, "baton: checkpoint of run "+r.rec.ID); err != nil {
			log.Warn("checkpoint: commit", "err", err)
		}
	}
	if ahead, err := r.w.git.commitsAhead(ctx, dir, r.repo.Branch()); err == nil && ahead > 0 {
		if err := r.w.git.push(ctx, dir, r.rec.Branch); err != nil {
			log.Warn("checkpoint: push", "err", err)
		}
	}
	id, transcript := r.transcript(sessionID)
	err := r.job.q.saveCheckpoint(ctx, &checkpoint{
		JobID:      r.job.id,
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

// agentHome is the home folder the agent runs with: HOME of its
// environment, else the worker's.
func (r *run) agentHome() string {
	home := r.w.opts.Home
	for _, kv := range r.agentEnv() {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return home
}

// transcript returns the id and bytes of the agent's session in the run's
// worktree (the named one, else the newest), redacted.
func (r *run) transcript(sessionID string) (string, []byte) {
	dir := claudecode.TranscriptDir(r.agentHome(), r.rec.Worktree)
	if sessionID == "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", nil
		}
		var newest time.Time
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".jsonl")
			if !ok || e.IsDir() {
				continue
			}
			if info, err := e.Info(); err == nil && info.ModTime().After(newest) {
				newest, sessionID = info.ModTime(), id
			}
		}
	}
	if sessionID == "" || strings.ContainsAny(sessionID, `/\`) {
		return "", nil
	}
	path := filepath.Join(dir, sessionID+".jsonl")
	if info, err := os.Stat(path); err != nil || info.Size() > maxTranscript {
		return "", nil
	}
	// Only complete lines: the agent may be writing the last one.
	b, _, _, err := transcript.ReadRaw(path, 0, 0)
	if err != nil {
		return "", nil
	}
	// The queue is shared with other hosts: secrets stay on this one.
	return sessionID, redact.JSONLines(b)
}

// layTranscript writes a checkpoint's transcript where the agent CLI looks
// for the session in the run's worktree, so that --resume finds it.
func (r *run) layTranscript(cp *checkpoint) bool {
	if strings.ContainsAny(cp.SessionID, `/\`) {
		return false
	}
	path := filepath.Join(claudecode.TranscriptDir(r.agentHome(), r.rec.Worktree), cp.SessionID+".jsonl")
	if err := atomicfile.Write(path, cp.Transcript, 0o600); err != nil {
		r.problem("lay the checkpoint's transcript", err)
		return false
	}
	return true
}
