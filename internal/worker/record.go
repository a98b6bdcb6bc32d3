package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// The states of a run.
const (
	// StateRunning: a worker is working on the issue (or died doing so;
	// the queue then gives the job to another host).
	StateRunning = "running"
	// StateDone: a pull request is linked; the issue is labelled done.
	StateDone = "done"
	// StateFailed: no pull request; the issue is labelled failed.
	StateFailed = "failed"
	// StateInterrupted: the worker was stopped, or died, during the run;
	// the issue went back to the trigger label.
	StateInterrupted = "interrupted"
)

// Record is one run of the worker on one issue, saved as a JSON file for
// `baton worker status` and the dashboard. It is rewritten as the run goes,
// so a crash leaves the last step it reached.
type Record struct {
	ID    string `json:"id"`
	Repo  string `json:"repo"`
	Issue int    `json:"issue"`
	Title string `json:"title"`
	URL   string `json:"url,omitempty"`
	Host  string `json:"host"`
	// PID is the worker process that ran the issue.
	PID   int    `json:"pid"`
	State string `json:"state"`
	// Step is the last step the run reached: claim, worktree, prompt,
	// agent, resume, pull-request, finish.
	Step     string   `json:"step"`
	Category Category `json:"category,omitempty"`
	Summary  string   `json:"summary,omitempty"`

	Branch   string `json:"branch,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	// WorktreeKept: the worktree is still on disk (kept on failure, or
	// because it held uncommitted work).
	WorktreeKept bool `json:"worktree_kept,omitempty"`
	// CommitsAhead is how many commits the branch has over the base.
	CommitsAhead int `json:"commits_ahead,omitempty"`
	// HeldBack names the files whose changes held a secret, with the
	// kinds found ("debug.log (github)"): they were neither committed nor
	// pushed by a checkpoint.
	HeldBack []string `json:"held_back,omitempty"`
	// SkippedFiles are files a checkpoint left out for their size.
	SkippedFiles []string `json:"skipped_files,omitempty"`

	StartedAt      time.Time `json:"started_at"`
	Deadline       time.Time `json:"deadline,omitzero"`
	FinishedAt     time.Time `json:"finished_at,omitzero"`
	TimeoutMinutes int       `json:"timeout_minutes"`

	Attempts []Attempt `json:"attempts,omitempty"`
	// Resumed tells why the session was or was not resumed.
	Resumed    bool   `json:"resumed"`
	ResumeNote string `json:"resume_note,omitempty"`

	PullRequest *PullRequestRef `json:"pull_request,omitempty"`

	// JobID is the run's job in the queue; Attempt counts the hosts that
	// took it (2 or more: rescued from a host that stopped answering).
	JobID   int64 `json:"job_id,omitempty"`
	Attempt int   `json:"attempt,omitempty"`
	// Stale: another host took the job over while this run went on (this
	// host was thought dead); the run's end was not applied.
	Stale bool `json:"stale,omitempty"`
	// RescuedFrom is the host whose run this one continues.
	RescuedFrom string `json:"rescued_from,omitempty"`
	// RescueNote says how a rescued run started: from the checkpoint, or
	// fresh when there was none.
	RescueNote string `json:"rescue_note,omitempty"`

	// ClaimCommentID is the run's claim comment; zero once deleted.
	ClaimCommentID int64 `json:"claim_comment_id,omitempty"`
	// LabelsPending: the labels of the run's end are not on GitHub yet.
	LabelsPending bool `json:"labels_pending,omitempty"`
	// CommentPending is a comment that could not be posted yet.
	CommentPending string `json:"comment_pending,omitempty"`
	CommentURL     string `json:"comment_url,omitempty"`
	// Errors are the GitHub and git failures met on the way (after the
	// client's own retries), redacted.
	Errors []string `json:"errors,omitempty"`
}

// settled reports whether the record's labels and comment reached GitHub.
func (r *Record) settled() bool {
	return !r.LabelsPending && r.CommentPending == ""
}

// lastAnswer is the agent's last non-empty answer over the run's attempts.
func (r *Record) lastAnswer() string {
	last := ""
	for _, a := range r.Attempts {
		if a.Result != nil && a.Result.Result != "" {
			last = a.Result.Result
		}
	}
	return last
}

// PullRequestRef is the pull request a run produced.
type PullRequestRef struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	Draft  bool   `json:"draft,omitempty"`
	// Fallback: baton opened it from the agent's commits.
	Fallback bool `json:"fallback,omitempty"`
}

// Store keeps run records as one file each under Dir/runs.
type Store struct {
	Dir string
}

// maxRecords is how many finished records the store keeps.
const maxRecords = 500

func (s Store) path(id string) string {
	return filepath.Join(s.Dir, "runs", id+".json")
}

// Save writes r atomically.
func (s Store) Save(r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run record: %w", err)
	}
	return atomicfile.Write(s.path(r.ID), append(b, '\n'), 0o600)
}

// List returns every readable record, newest first. Unreadable files are
// skipped: one damaged record must not hide the others.
func (s Store) List() ([]*Record, error) {
	dir := filepath.Join(s.Dir, "runs")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list run records: %w", err)
	}
	var out []*Record
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var r Record
		if json.Unmarshal(b, &r) != nil || r.ID == "" {
			continue
		}
		out = append(out, &r)
	}
	slices.SortFunc(out, func(a, b *Record) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Prune removes the oldest finished records past the newest maxRecords.
func (s Store) Prune() error {
	all, err := s.List()
	if err != nil {
		return err
	}
	kept := 0
	for _, r := range all {
		if r.State == StateRunning || r.LabelsPending || r.CommentPending != "" {
			continue
		}
		kept++
		if kept > maxRecords {
			if err := os.Remove(s.path(r.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("prune run records: %w", err)
			}
		}
	}
	return nil
}
