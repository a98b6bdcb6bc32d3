package debate

import (
	"context"
	"time"

	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/tmux"
)

// Panes are the tmux panes of a debate.
type Panes struct {
	Moderator, Pro, Con string
	// Session is the tmux session created for the debate; empty when the
	// panes were split from the current window.
	Session string
}

// SessionName is the tmux session a debate started outside tmux runs in.
func SessionName(id string) string { return "baton-debate-" + id }

// OpenPanes starts agent in two new panes, pro and con, working in dir.
// Inside tmux (current is the caller's pane) the panes are split from the
// caller's window and the caller is the moderator. Outside tmux a detached
// session SessionName(id) is created whose first pane runs agent as the
// moderator.
func OpenPanes(ctx context.Context, c tmux.Client, id, current, dir string, agent []string) (Panes, error) {
	spawn := func(role Role) tmux.Spawn { return spawnFor(id, role, dir, agent) }
	var p Panes
	var err error
	if current != "" {
		p.Moderator = current
	} else {
		p.Session = SessionName(id)
		if p.Moderator, err = c.NewSession(ctx, p.Session, 240, 60, spawn(Moderator)); err != nil {
			return p, openError(err, Moderator, "")
		}
	}
	if p.Pro, err = c.SplitWindow(ctx, p.Moderator, true, spawn(Pro)); err != nil {
		return p, openError(err, Pro, p.Moderator)
	}
	if p.Con, err = c.SplitWindow(ctx, p.Pro, false, spawn(Con)); err != nil {
		return p, openError(err, Con, p.Pro)
	}
	return p, nil
}

// spawnFor is role's agent pane: its environment names its debate and
// role, so that its hook records the session as the debate's turns.
func spawnFor(id string, role Role, dir string, agent []string) tmux.Spawn {
	return tmux.Spawn{Dir: dir, Command: agent, Env: []string{panes.DebateEnv + "=" + Mark(id, role)}}
}

// OpenPane starts agent for role of debate id again, in a pane split from
// next to (a live pane of the debate), or, when next is empty, in a new
// detached session SessionName(id); it returns the new pane.
func OpenPane(ctx context.Context, c tmux.Client, id string, role Role, next, dir string, agent []string) (string, error) {
	var pane string
	var err error
	if next == "" {
		pane, err = c.NewSession(ctx, SessionName(id), 240, 60, spawnFor(id, role, dir, agent))
	} else {
		pane, err = c.SplitWindow(ctx, next, false, spawnFor(id, role, dir, agent))
	}
	if err != nil {
		return "", openError(err, role, next)
	}
	return pane, nil
}

// WaitRegistered polls the pane registry until every pane in want has an
// entry, or fails after timeout naming the first pane still missing. An
// entry as before had it (the registry read before the panes opened) is a
// closed pane's whose id tmux gave again (a server started afresh numbers
// its panes from %0), and does not count.
func WaitRegistered(ctx context.Context, registry string, want map[string]Role, before panes.Registry, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		reg, err := panes.Read(registry)
		if err != nil {
			return err
		}
		missing := ""
		for _, pane := range sortedPanes(want) {
			e, ok := reg[pane]
			if old, was := before[pane]; !ok || was && e == old {
				missing = pane
				break
			}
		}
		if missing == "" {
			return nil
		}
		if !time.Now().Before(deadline) {
			return newError(msgRegisterTimeout, nil, timeout, missing, want[missing])
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// sortedPanes lists the panes in role order: pro, con, moderator.
func sortedPanes(want map[string]Role) []string {
	var out []string
	for _, role := range []Role{Pro, Con, Moderator} {
		for pane, r := range want {
			if r == role {
				out = append(out, pane)
			}
		}
	}
	return out
}
