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
	"github.com/baton-cli/baton/internal/claudecode"
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
	// Screen reads the agent's screen (claudecode.ParseScreen for Claude
	// Code). With it, Deliver types only into an input box that is drawn,
	// never into a dialog, and confirms that the text left the box; nil
	// types and presses Enter without looking (agents that read lines).
	Screen func(screen string) claudecode.Screen
	// ReadyWait bounds how long Deliver waits for a starting agent to draw
	// its input box; 0 means defaultReadyWait.
	ReadyWait time.Duration
}

const (
	// defaultReadyWait is how long a pane may take to draw its input box.
	defaultReadyWait = 60 * time.Second
	// submitWait bounds how long a typed text may sit in the input box
	// before the person is told; Enter is pressed again every enterAgain
	// while it does.
	submitWait = 15 * time.Second
	enterAgain = time.Second
	// screenPoll is how often a pane's screen is looked at.
	screenPoll = 20 * time.Millisecond
)

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
	return each(msgs, func(m Message) error { return t.send(ctx, m) })
}

// send delivers m to its pane. With a Screen, it waits for the input box,
// refuses to type into a dialog, and after Enter watches the box until the
// text has left it, pressing Enter again while it sits there, within
// submitWait.
func (t *Tmux) send(ctx context.Context, m Message) error {
	text := redact.Redact(m.Text)
	if t.Screen == nil {
		if err := t.Client.SendText(ctx, m.Pane, text, t.EnterDelay); err != nil {
			return sendError(err, m.Role, m.Pane)
		}
		return nil
	}
	wait := t.ReadyWait
	if wait <= 0 {
		wait = defaultReadyWait
	}
	// A dialog is reported at once: it waits for the person, who is told
	// rather than kept waiting on baton.
	before, err := t.watch(ctx, m.Pane, wait, func(v view) bool { return v.State != claudecode.Starting })
	if err != nil {
		return sendError(err, m.Role, m.Pane)
	}
	switch before.State {
	case claudecode.Dialog:
		return &DeliveryError{Problem: AwaitingApproval, Role: m.Role, Pane: m.Pane, Round: m.Round}
	case claudecode.Starting:
		return &DeliveryError{Problem: NotReady, Role: m.Role, Pane: m.Pane, Round: m.Round}
	}
	if err := t.Client.SendText(ctx, m.Pane, text, t.EnterDelay); err != nil {
		return sendError(err, m.Role, m.Pane)
	}
	// The head of the text is looked for, and in the box its tail too: a
	// text longer than the box scrolls there, its head out of sight
	// ("↑ 1 more").
	all := []rune(squeeze(tmux.OneLine(text)))
	needle, tail := all[:min(len(all), 40)], all[max(0, len(all)-40):]
	inBox := func(sc claudecode.Screen) bool {
		in := squeeze(sc.Input)
		return strings.Contains(in, string(needle)) || strings.Contains(in, string(tail))
	}
	// Submitted is seen, not assumed: the text shows above the box (the
	// prompt in the conversation, or queued while the agent works) more
	// often than before it was typed, or a dialog has replaced the box.
	// An empty box alone proves nothing: Claude Code draws it blank for a
	// frame while it redraws, and restores its draft after.
	outside := func(raw string, sc claudecode.Screen) int {
		return strings.Count(squeeze(raw), string(needle)) - strings.Count(squeeze(sc.Input), string(needle))
	}
	seen := outside(before.raw, before.Screen)
	submitted := func(v view) bool {
		return v.State == claudecode.Dialog || v.State == claudecode.Ready && !inBox(v.Screen) && outside(v.raw, v.Screen) > seen
	}
	deadline := time.Now().Add(submitWait)
	for {
		sc, err := t.watch(ctx, m.Pane, min(enterAgain, time.Until(deadline)), submitted)
		if err != nil {
			return sendError(err, m.Role, m.Pane)
		}
		if submitted(sc) {
			return nil
		}
		if !time.Now().Before(deadline) {
			return &DeliveryError{Problem: NotSubmitted, Role: m.Role, Pane: m.Pane, Round: m.Round}
		}
		if sc.State != claudecode.Ready || !inBox(sc.Screen) {
			continue
		}
		// Enter only reaches the input box: the screen shows the text in
		// it, and a dialog cannot open before the text is submitted.
		if _, err := t.Client.Run(ctx, "send-keys", "-t", m.Pane, "Enter"); err != nil {
			return sendError(err, m.Role, m.Pane)
		}
	}
}

// A view is a pane's screen as read and as parsed.
type view struct {
	claudecode.Screen
	raw string
}

// watch looks at pane's screen every screenPoll until done holds or wait has
// passed, and returns the last screen it read.
func (t *Tmux) watch(ctx context.Context, pane string, wait time.Duration, done func(view) bool) (view, error) {
	deadline := time.Now().Add(wait)
	for {
		raw, err := t.Client.Run(ctx, "capture-pane", "-p", "-t", pane)
		if err != nil {
			return view{}, err
		}
		v := view{Screen: t.Screen(raw), raw: raw}
		if done(v) || !time.Now().Before(deadline) {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(screenPoll):
		}
	}
}

// squeeze drops white space, which a screen adds where it wraps.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

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
