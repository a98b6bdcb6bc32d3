// Package panes keeps the pane registry ~/.claude/pane-state.json: which tmux
// panes run an agent session, and whether that session is idle, working or
// waiting for the user. baton hook keeps it current; debates read it to know
// where they can send text.
//
// The file format is shared with existing hook scripts and kept exactly:
//
//	{"%12": {"status": "idle", "dir": "/repo", "prompt": "…", "session_id": "…"}}
package panes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// Statuses of a pane's agent session.
const (
	Idle    = "idle"
	Working = "working"
	Waiting = "waiting"
)

// DebateEnv is set in the environment of a debate agent's pane to
// "<debate id>:<role>" (pro, con or moderator), so that the hook of the
// agent's session knows the session is a debate turn, not the worktree's
// work.
const DebateEnv = "BATON_DEBATE"

// DebateMark returns v, the value of DebateEnv, when it has the shape of a
// mark (at most 64 characters of a-z, 0-9, '-' and one ':'), else "".
func DebateMark(v string) string {
	if len(v) == 0 || len(v) > 64 || strings.Count(v, ":") != 1 {
		return ""
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == ':') {
			return ""
		}
	}
	return v
}

// Entry is one pane's record.
type Entry struct {
	Status    string `json:"status"`
	Dir       string `json:"dir"`
	Prompt    string `json:"prompt"`
	SessionID string `json:"session_id"`
}

// Registry maps a tmux pane id ("%12") to its entry.
type Registry map[string]Entry

// Path returns the registry's location under home.
func Path(home string) string { return filepath.Join(home, ".claude", "pane-state.json") }

// Read returns the registry at path; a missing or empty file is an empty registry.
func Read(path string) (Registry, error) {
	reg := Registry{}
	err := atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
		var err error
		reg, err = parse(old)
		if err != nil {
			return nil, err
		}
		return nil, atomicfile.ErrUnchanged
	})
	if err != nil {
		return nil, fmt.Errorf("read pane registry: %w", err)
	}
	return reg, nil
}

// Update applies fn to the registry at path under its lock and, when fn
// reports a change, writes the result atomically. A registry that is not valid JSON is replaced rather than
// left to block every later update: it only mirrors live panes and is rebuilt
// as sessions report in.
func Update(path string, fn func(Registry) (changed bool)) error {
	return atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
		reg, err := parse(old)
		if err != nil {
			reg = Registry{}
		}
		if !fn(reg) {
			return nil, atomicfile.ErrUnchanged
		}
		out, err := json.MarshalIndent(reg, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(out, '\n'), nil
	})
}

func parse(b []byte) (Registry, error) {
	reg := Registry{}
	if len(bytes.TrimSpace(b)) == 0 {
		return reg, nil
	}
	if err := json.Unmarshal(b, &reg); err != nil {
		return nil, err
	}
	return reg, nil
}

// Prune removes the entries whose pane is not in live.
func (r Registry) Prune(live map[string]bool) {
	for id := range r {
		if !live[id] {
			delete(r, id)
		}
	}
}

// LivePanes asks tmux for the ids of every pane on the server the environment
// points at (TMUX). It runs tmux with an argument list, never a shell.
func LivePanes(ctx context.Context, tmux string, env []string) (map[string]bool, error) {
	cmd := exec.CommandContext(ctx, tmux, "list-panes", "-a", "-F", "#{pane_id}")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tmux list-panes: %w", err)
	}
	live := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if id := strings.TrimSpace(line); id != "" {
			live[id] = true
		}
	}
	return live, nil
}
