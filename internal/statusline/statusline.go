// Package statusline is `baton statusline`: the one line Claude Code's
// statusLine setting shows under the prompt, from the session's JSON on
// stdin. It shows the model, how much of the context is used, what the
// session and the day cost, the time left in the active 5-hour block, and
// baton's own part: the worktree's task, its open loops (failing commands,
// the announced next step), the proposed decisions that await review, and a
// mark when the session is not being recorded.
//
// Claude Code runs it every few seconds, so it reads only small files the
// hook keeps: the worktree's state.json and the state folder's
// statusline.json, which `baton statusline --refresh` writes (the hook
// starts it in the background when the file is older than RefreshAfter; the
// line writes an empty one once, where there is none, to ask for the
// first). It opens no database, calls no network and waits on no lock.
// Whatever is missing is left out of the line; it never fails.
package statusline

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/state"
)

// Payload is what Claude Code gives the status line command on stdin (the
// fields baton reads; checked with Claude Code 2.1.328).
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Cost *struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow *struct {
		ContextWindowSize int64 `json:"context_window_size"`
		CurrentUsage      *struct {
			InputTokens              int64 `json:"input_tokens"`
			CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		} `json:"current_usage"`
		UsedPercentage *float64 `json:"used_percentage"`
	} `json:"context_window"`
}

// MaxPayload is the most of stdin read; a payload is a few kilobytes.
const MaxPayload = 1 << 20

// ReadPayload reads the payload; a missing or malformed one gives what
// could be read (the line then shows less).
func ReadPayload(r io.Reader) (Payload, error) {
	var p Payload
	b, err := io.ReadAll(io.LimitReader(r, MaxPayload))
	if err != nil {
		return p, fmt.Errorf("read status line payload: %w", err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return Payload{}, fmt.Errorf("status line payload: %w", err)
	}
	return p, nil
}

// Dir is the folder the payload's session works in: its cwd, else the
// workspace's folder.
func (p Payload) Dir() string {
	for _, d := range []string{p.Cwd, p.Workspace.CurrentDir, p.Workspace.ProjectDir} {
		if d != "" {
			return d
		}
	}
	return ""
}

// ContextUsed is the share of the context window used, 0–100; ok is false
// when the payload does not say.
func (p Payload) ContextUsed() (pct float64, ok bool) {
	cw := p.ContextWindow
	if cw == nil {
		return 0, false
	}
	if cw.UsedPercentage != nil {
		return *cw.UsedPercentage, true
	}
	if u := cw.CurrentUsage; u != nil && cw.ContextWindowSize > 0 {
		used := u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
		return 100 * float64(used) / float64(cw.ContextWindowSize), true
	}
	return 0, false
}

// Status is statusline.json: what the line shows that takes reading
// transcripts or the decision log, computed off the line's path.
type Status struct {
	// Written is when the file was made; Day is the day (local) TodayUSD
	// is for.
	Written  time.Time `json:"written"`
	Day      string    `json:"day"`
	TodayUSD float64   `json:"today_cost_usd"`
	// Block is the active 5-hour block, nil when none is.
	Block *Block `json:"block,omitempty"`
	// Sessions are the cost of each session with usage today, for a
	// payload that carries no cost of its own.
	Sessions map[string]float64 `json:"sessions,omitempty"`
	// Pending is how many proposed decisions await the person's review.
	Pending int `json:"pending_decisions"`
}

// Block is the active 5-hour block as the line shows it.
type Block struct {
	End         time.Time `json:"end"`
	CostUSD     float64   `json:"cost_usd"`
	CostPerHour float64   `json:"cost_usd_per_hour,omitempty"`
}

// FileName is the status file's name in the state folder.
const FileName = "statusline.json"

// RefreshAfter is the age past which the hook has the status file made
// again.
const RefreshAfter = 30 * time.Second

// Path is the status file of the state folder dir.
func Path(dir state.Dir) string { return filepath.Join(dir.Root, FileName) }

// ReadStatus reads the status file of dir; nil when there is none or it
// cannot be read (a link planted in its place is not followed).
func ReadStatus(dir state.Dir) *Status {
	b, err := safepath.ReadFile(dir.Base(), Path(dir))
	if err != nil || len(b) > MaxPayload {
		return nil
	}
	var s Status
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// WriteStatus replaces the status file of dir atomically.
func WriteStatus(dir state.Dir, s *Status) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode status: %w", err)
	}
	return atomicfile.WriteIn(dir.Base(), Path(dir), append(b, '\n'), 0o600)
}

// Stale reports whether the status file of dir is older than RefreshAfter
// at now; false when there is none (a person who never asked for the
// status line pays nothing).
func Stale(dir state.Dir, now time.Time) bool {
	fi, err := os.Lstat(Path(dir))
	if err != nil {
		return false
	}
	return now.Sub(fi.ModTime()) > RefreshAfter
}
