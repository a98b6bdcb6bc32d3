package debate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/tmux"
)

// A Message is text for one participant.
type Message struct {
	Role Role
	// Pane is the participant's tmux pane; empty for headless debates.
	Pane string
	// Round is the round a side is asked to write; 0 for other messages.
	Round int
	Text  string
}

// A Transport carries instructions to the agents.
type Transport interface {
	// Check reports, before anything changes, a participant that cannot be
	// reached; the error names it.
	Check(ctx context.Context, msgs []Message) error
	// Deliver sends every message. It returns when each has been handed
	// to its agent.
	Deliver(ctx context.Context, msgs []Message) error
}

var (
	_ Transport = (*Tmux)(nil)
	_ Transport = (*Headless)(nil)
)

// Tmux types instructions into the agents' panes.
type Tmux struct {
	Client tmux.Client
	// Registry is the pane registry file (panes.Path).
	Registry string
	// EnterDelay is the pause between the text and Enter.
	EnterDelay time.Duration
}

// Check finds every message's pane in tmux and in the pane registry.
func (t *Tmux) Check(ctx context.Context, msgs []Message) error {
	live, err := t.Client.ListPanes(ctx)
	if err != nil && !tmux.IsNoServer(err) {
		return wrapf(err, "list panes")
	}
	reg, err := panes.Read(t.Registry)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Pane == "" || !live[m.Pane] {
			return &PaneGoneError{Role: m.Role, Pane: m.Pane}
		}
		if _, ok := reg[m.Pane]; !ok {
			return &PaneGoneError{Role: m.Role, Pane: m.Pane, InTmux: true}
		}
	}
	return nil
}

// Deliver types each message into its pane, all panes at once, and presses
// Enter after EnterDelay.
func (t *Tmux) Deliver(ctx context.Context, msgs []Message) error {
	return each(msgs, func(m Message) error {
		if err := t.Client.SendText(ctx, m.Pane, redact.Redact(m.Text), t.EnterDelay); err != nil {
			return fmt.Errorf("send to %s pane %s: %w", m.Role, m.Pane, err)
		}
		return nil
	})
}

// each runs fn for every message concurrently and joins the errors.
func each(msgs []Message, fn func(Message) error) error {
	errs := make([]error, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Go(func() { errs[i] = fn(m) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Headless runs each participant as an agent CLI session of its own, in its
// own working folder: "<agent> -p" the first time, "<agent> -p --continue"
// after, with the instruction on standard input. A side answers with its
// round and baton appends the answer to the side's file under "## Round N"
// (unless the agent wrote that round itself), so the agent needs no
// permission to edit files. The moderator's answer is saved as the debate's
// summary file. Deliver returns when the agents have finished.
type Headless struct {
	// Agent is the agent program and its arguments.
	Agent []string
	// Args are added after "-p" (and "--continue").
	Args []string
	// Paths are the debate's files; the agents may edit files in their
	// folder (--add-dir).
	Paths Paths
	// Env is the agents' environment; nil means the process's own.
	Env []string
}

// startedMark in a working folder says the agent has a conversation there
// to continue.
const startedMark = ".baton-started"

// Check finds the agent program.
func (h *Headless) Check(_ context.Context, _ []Message) error {
	if len(h.Agent) == 0 {
		return errors.New("no agent command")
	}
	if _, err := exec.LookPath(h.Agent[0]); err != nil {
		return wrapf(err, "agent command")
	}
	return nil
}

// Deliver runs the agents for all messages at once and waits for them.
func (h *Headless) Deliver(ctx context.Context, msgs []Message) error {
	return each(msgs, func(m Message) error { return h.run(ctx, m) })
}

func (h *Headless) run(ctx context.Context, m Message) error {
	work := h.Paths.WorkDir(m.Role)
	if err := os.MkdirAll(work, 0o700); err != nil {
		return wrapf(err, "%s agent", m.Role)
	}
	mark := filepath.Join(work, startedMark)
	args := append(append([]string{}, h.Agent[1:]...), "-p")
	if _, err := os.Stat(mark); err == nil {
		args = append(args, "--continue")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return wrapf(err, "%s agent", m.Role)
	}
	args = append(append(args, h.Args...), "--add-dir", filepath.Dir(h.Paths.Main))

	cmd := exec.CommandContext(ctx, h.Agent[0], args...)
	cmd.Dir = work
	cmd.Env = h.Env
	cmd.Stdin = strings.NewReader(redact.Redact(m.Text))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s agent %s: %w: %s", m.Role, h.Agent[0], err, lastLines(errOut.String()+out.String(), 5))
	}
	if err := atomicfile.Write(mark, nil, 0o600); err != nil {
		return err
	}
	switch {
	case m.Role == Moderator:
		return atomicfile.Write(h.Paths.Summary, out.Bytes(), 0o600)
	case m.Round > 0:
		return appendRound(h.Paths.Side(m.Role), m.Round, out.String())
	}
	return nil
}

// appendRound adds answer to a side file as round n, unless the file has
// that round already or the answer is empty. Lines of the answer that would
// read as round headings are demoted a level.
func appendRound(path string, n int, answer string) error {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		return nil
	}
	return atomicfile.Update(path, 0o600, func(old []byte) ([]byte, error) {
		if ParseRounds(string(old)).Has(n) {
			return nil, atomicfile.ErrUnchanged
		}
		lines := strings.Split(answer, "\n")
		for i, l := range lines {
			if _, ok := roundHeading(strings.TrimRight(l, "\r")); ok {
				lines[i] = "#" + l
			}
		}
		var b bytes.Buffer
		b.Write(old)
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "\n## Round %d\n\n%s\n", n, strings.Join(lines, "\n"))
		return b.Bytes(), nil
	})
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
