package debate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tmux"
)

// An Error is a problem a person has to act on, worded in both languages.
// Error returns the English text; In picks the language, and arguments with
// a Name(lang) method, such as a Role, are named in it.
type Error struct {
	Msg  i18n.Msg
	Args []any
	// Err is the underlying error, if any; it is not part of the text.
	Err error
}

func newError(m i18n.Msg, err error, args ...any) *Error {
	return &Error{Msg: m, Args: args, Err: err}
}

func (e *Error) Error() string { return e.In(i18n.EN) }

// In returns the message in lang.
func (e *Error) In(lang i18n.Lang) string {
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		if n, ok := a.(interface{ Name(i18n.Lang) string }); ok {
			a = n.Name(lang)
		}
		args[i] = a
	}
	s := e.Msg.Format(lang, args...)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// PaneGoneError says that a pane an instruction was meant for has closed or
// no longer runs an agent session.
type PaneGoneError struct {
	Role Role
	Pane string
	// InTmux is false when tmux has no such pane, true when the pane is
	// there but the pane registry has no agent session for it.
	InTmux bool
}

func (e *PaneGoneError) Error() string { return e.In(i18n.EN) }

// In returns the message in lang.
func (e *PaneGoneError) In(lang i18n.Lang) string {
	if e.InTmux {
		return msgPaneUnregistered.Format(lang, e.Pane, e.Role.Name(lang))
	}
	return msgPaneGone.Format(lang, e.Pane, e.Role.Name(lang))
}

// A DeliveryProblem is why a message was not handed to a pane's agent.
type DeliveryProblem int

const (
	// AwaitingApproval: the pane shows a dialog (a permission prompt);
	// nothing was typed, so the person's answer is not taken.
	AwaitingApproval DeliveryProblem = iota + 1
	// NotReady: the agent never drew its input box; nothing was typed.
	NotReady
	// NotSubmitted: the text was typed but still sits in the input box.
	NotSubmitted
)

// problemNames are the DeliveryProblems as the main file stores them.
var problemNames = map[DeliveryProblem]string{AwaitingApproval: "awaiting_approval", NotReady: "not_ready", NotSubmitted: "not_submitted"}

// DeliveryError says that a message did not reach the agent in a pane, and
// what the person can do.
type DeliveryError struct {
	Problem DeliveryProblem
	Role    Role
	Pane    string
	// Round is the round the message asked for; 0 for other messages.
	Round int
}

func (e *DeliveryError) Error() string { return e.In(i18n.EN) }

// stored is e as the main file keeps it: "<problem> <round>".
func (e *DeliveryError) stored() string {
	return problemNames[e.Problem] + " " + strconv.Itoa(e.Round)
}

// Pending returns what still needs the person for role's last message, nil
// when nothing does or the side has written the round it was asked for
// since (written is the side's highest round).
func (s *Session) Pending(role Role, written int) *DeliveryError {
	v := s.PendingPro
	if role == Con {
		v = s.PendingCon
	}
	name, n, _ := strings.Cut(v, " ")
	round, err := strconv.Atoi(n)
	if err != nil || round > 0 && written >= round {
		return nil
	}
	for p, pn := range problemNames {
		if pn == name {
			return &DeliveryError{Problem: p, Role: role, Pane: s.Pane(role), Round: round}
		}
	}
	return nil
}

// In returns the message in lang.
func (e *DeliveryError) In(lang i18n.Lang) string {
	switch {
	case e.Problem == AwaitingApproval:
		return msgAwaitingApproval.Format(lang, e.Pane, e.Role.Name(lang))
	case e.Problem == NotReady:
		return msgPaneNotReady.Format(lang, e.Pane, e.Role.Name(lang))
	case e.Round > 0:
		return msgRoundNotSubmitted.Format(lang, e.Round, e.Role.Name(lang), e.Pane)
	}
	return msgNotSubmitted.Format(lang, e.Role.Name(lang), e.Pane)
}

// Localized is implemented by errors that can say themselves in either
// language.
type Localized interface {
	error
	In(lang i18n.Lang) string
}

var (
	_ Localized = (*Error)(nil)
	_ Localized = (*PaneGoneError)(nil)
	_ Localized = (*DeliveryError)(nil)
)

// openError says why tmux did not open role's pane by splitting pane (or,
// with pane empty, in a new session), in words a person can act on; tmux's
// own text is kept only when it is none of the cases known here.
func openError(err error, role Role, pane string) error {
	switch {
	case tmux.IsNoSpace(err):
		return newError(msgTmuxNoSpace, nil, role, pane)
	case tmux.IsNoPane(err):
		return newError(msgTmuxNoTarget, nil, role, pane)
	case tmux.IsNoServer(err):
		return newError(msgTmuxNoServer, nil)
	}
	var te *tmux.Error
	if errors.As(err, &te) {
		return newError(msgTmuxOpen, err, role)
	}
	return wrapf(err, "open %s pane", role)
}

// sendError says why a message to role's pane did not reach it: a pane tmux
// no longer has is gone; tmux's own text is kept for anything else.
func sendError(err error, role Role, pane string) error {
	switch {
	case tmux.IsNoPane(err):
		return &PaneGoneError{Role: role, Pane: pane}
	case tmux.IsNoServer(err):
		return newError(msgTmuxNoServer, nil)
	}
	return newError(msgTmuxSend, err, role, pane)
}

// wrapf wraps err with a short lowercase phrase.
func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}
