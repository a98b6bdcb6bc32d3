// Package tmux is a small tmux client: it runs the tmux program with an
// argument list (never through a shell), optionally against a private server
// socket, to create sessions and panes, list panes, type text into a pane and
// read a pane back. It knows nothing about what runs in the panes.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// A Client runs tmux commands against one tmux server.
type Client struct {
	// Bin is the tmux program; empty means "tmux" on PATH.
	Bin string
	// Socket, when set, selects a private server by socket name (tmux -L).
	// Otherwise tmux finds the server through $TMUX or its default socket.
	Socket string
	// Env is the environment tmux runs with; nil means the process's own.
	Env []string
}

// Error is a tmux command that failed, with what tmux printed.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("tmux %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Run runs tmux with args and returns its standard output without the final
// newline.
func (c Client) Run(ctx context.Context, args ...string) (string, error) {
	bin := c.Bin
	if bin == "" {
		bin = "tmux"
	}
	full := args
	if c.Socket != "" {
		full = append([]string{"-L", c.Socket}, args...)
	}
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = c.Env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		return "", &Error{Args: args, Stderr: errOut.String(), Err: err}
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// Spawn describes a new pane: where it starts and what it runs.
type Spawn struct {
	// Dir is the pane's working directory; empty leaves tmux's default.
	Dir string
	// Command is the program and its arguments; empty runs the default shell.
	Command []string
	// Env lists KEY=VALUE entries set in the pane's environment.
	Env []string
}

// args returns the options and trailing command words shared by
// new-session and split-window.
func (s Spawn) args() (opts, command []string) {
	if s.Dir != "" {
		opts = append(opts, "-c", s.Dir)
	}
	for _, e := range s.Env {
		opts = append(opts, "-e", e)
	}
	command = s.Command
	if len(command) == 1 {
		// tmux hands a single command word to "sh -c"; as several words it
		// runs the program directly, so the word never meets a shell.
		command = []string{"env", command[0]}
	}
	if len(command) > 0 {
		command = append([]string{"--"}, command...)
	}
	return opts, command
}

// NewSession creates a detached session called name, width×height cells
// (0 leaves tmux's default), running s, and returns its first pane's id.
func (c Client) NewSession(ctx context.Context, name string, width, height int, s Spawn) (string, error) {
	opts, command := s.args()
	args := []string{"new-session", "-d", "-s", name, "-P", "-F", "#{pane_id}"}
	if width > 0 && height > 0 {
		args = append(args, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height))
	}
	args = append(append(args, opts...), command...)
	return c.Run(ctx, args...)
}

// SplitWindow splits the pane target, side by side when horizontal, else one
// above the other, without moving the focus, and returns the new pane's id.
func (c Client) SplitWindow(ctx context.Context, target string, horizontal bool, s Spawn) (string, error) {
	opts, command := s.args()
	dir := "-v"
	if horizontal {
		dir = "-h"
	}
	args := append([]string{"split-window", dir, "-d", "-t", target, "-P", "-F", "#{pane_id}"}, opts...)
	return c.Run(ctx, append(args, command...)...)
}

// ListPanes returns the ids of every pane on the server.
func (c Client) ListPanes(ctx context.Context) (map[string]bool, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if id := strings.TrimSpace(line); id != "" {
			live[id] = true
		}
	}
	return live, nil
}

// SendText types text into pane literally (send-keys -l) and presses Enter,
// so the program in the pane receives text as one submitted line. Line
// breaks in text would submit it early, so they are sent as spaces; other
// control characters are dropped. tmux receives the text as one argument: no
// shell ever sees it.
//
// With delay 0 the text and Enter go in one tmux call, for programs that
// read whole lines. A terminal program that reads the text and the Enter in
// one read (Claude Code does) takes them for a paste and the Enter for a line
// break, and one that is not ready (just started, just finished a turn) drops
// an Enter. So with a delay above 0, Enter waits until the text shows on the
// pane's screen, which means the program has read it, and enterMinPause has
// passed since it was typed (Claude Code shows a text before it takes an
// Enter after it as a submission), or until delay has passed (a text too
// long for the screen waits the whole delay); and when neither the screen
// nor the cursor moves after Enter, Enter is pressed again, at most
// enterRetries times.
func (c Client) SendText(ctx context.Context, pane, text string, delay time.Duration) error {
	line := OneLine(text)
	arg := line
	if strings.HasSuffix(arg, ";") {
		// tmux reads an argument ending in ";" as the end of a command and
		// drops the ";"; ending it in "\;" types one ";".
		arg = arg[:len(arg)-1] + `\;`
	}
	if delay <= 0 {
		// A lone ";" argument separates tmux commands.
		_, err := c.Run(ctx, "send-keys", "-t", pane, "-l", "--", arg, ";", "send-keys", "-t", pane, "Enter")
		return err
	}
	// The whole text, white space aside, is looked for: its words are the
	// message's own, where a tail could be shared with the previous
	// instruction still on the screen (or scrolled off it as this one is
	// typed).
	needle := squeeze(line)
	count := func(view string) int { return strings.Count(squeeze(view), needle) }
	before, err := c.view(ctx, pane)
	if err != nil {
		return err
	}
	seen := count(before)
	typed := time.Now()
	if _, err := c.Run(ctx, "send-keys", "-t", pane, "-l", "--", arg); err != nil {
		return err
	}
	shown, last, err := c.poll(ctx, pane, delay, func(view string) bool { return needle != "" && count(view) > seen })
	if err != nil {
		return err
	}
	if err := sleep(ctx, time.Until(typed.Add(min(enterMinPause, delay)))); err != nil {
		return err
	}
	enter := func() error {
		_, err := c.Run(ctx, "send-keys", "-t", pane, "Enter")
		return err
	}
	if err := enter(); err != nil || !shown {
		return err
	}
	for range enterRetries {
		moved, _, err := c.poll(ctx, pane, enterSettle, func(view string) bool { return view != last })
		if err != nil || moved {
			return err
		}
		if err := enter(); err != nil {
			return err
		}
	}
	return nil
}

const (
	// echoPoll is how often SendText looks at the pane.
	echoPoll = 2 * time.Millisecond
	// enterMinPause is the least time between the text and Enter when the
	// delay allows it. Measured with Claude Code 2.1.328 typing an
	// instruction right after its previous answer: Enter as soon as the
	// text showed (10-20ms) was lost in about 1 run of 8; 50ms and 100ms
	// after it, never in 48 instructions each.
	enterMinPause = 100 * time.Millisecond
	// enterSettle is how long a program has to show that it took Enter
	// before SendText presses it again, at most enterRetries times.
	enterSettle  = 150 * time.Millisecond
	enterRetries = 2
)

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// view returns the pane's cursor position and screen, which change when the
// program in it shows something.
func (c Client) view(ctx context.Context, pane string) (string, error) {
	return c.Run(ctx, "display-message", "-p", "-t", pane, "#{cursor_x},#{cursor_y}", ";", "capture-pane", "-p", "-t", pane)
}

// poll looks at pane every echoPoll until done holds for its view or wait
// has passed; it returns whether done held, and the last view.
func (c Client) poll(ctx context.Context, pane string, wait time.Duration, done func(view string) bool) (bool, string, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	tick := time.NewTicker(echoPoll)
	defer tick.Stop()
	var last string
	for {
		select {
		case <-ctx.Done():
			return false, last, ctx.Err()
		case <-t.C:
			return false, last, nil
		case <-tick.C:
			v, err := c.view(ctx, pane)
			if err != nil {
				return false, last, err
			}
			last = v
			if done(v) {
				return true, v, nil
			}
		}
	}
}

// squeeze drops white space.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// OneLine returns text as it is typed by SendText: CRLF, CR and LF become one
// space each, tabs a space, and other control characters are dropped.
func OneLine(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, text)
}

// CapturePane returns the text of pane, its history included, with lines
// that tmux wrapped joined back together.
func (c Client) CapturePane(ctx context.Context, pane string) (string, error) {
	return c.Run(ctx, "capture-pane", "-p", "-J", "-S", "-", "-t", pane)
}

// KillPane closes pane and whatever runs in it.
func (c Client) KillPane(ctx context.Context, pane string) error {
	_, err := c.Run(ctx, "kill-pane", "-t", pane)
	return err
}

// KillServer stops the server and every session on it.
func (c Client) KillServer(ctx context.Context) error {
	_, err := c.Run(ctx, "kill-server")
	return err
}

// IsNoServer reports whether err says no tmux server is running.
func IsNoServer(err error) bool {
	return said(err, "no server running", "error connecting to", "No such file or directory")
}

// IsNoSpace reports whether err says the window has no room for a new pane.
func IsNoSpace(err error) bool { return said(err, "no space for new pane", "pane too small") }

// IsNoPane reports whether err says the target pane does not exist.
func IsNoPane(err error) bool { return said(err, "can't find pane") }

// said reports whether err is a tmux Error whose output holds one of texts.
func said(err error, texts ...string) bool {
	var te *Error
	if !errors.As(err, &te) {
		return false
	}
	for _, t := range texts {
		if strings.Contains(te.Stderr, t) {
			return true
		}
	}
	return false
}
