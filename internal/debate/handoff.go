package debate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// Kind is what a hand-off call found or did.
type Kind int

// Outcomes of Reply, Open and Stop.
const (
	// NotActive: the debate had already ended; nothing was done.
	NotActive Kind = iota + 1
	// Waiting: not both sides have written the next round yet.
	Waiting
	// AlreadyHandedOff: another caller handed this round off first.
	AlreadyHandedOff
	// HandedOff: this call moved the round on and sent the next round.
	HandedOff
	// Ended: this call ended the debate and asked the moderator for a
	// summary.
	Ended
	// Opened: the debate was created and round 1 sent.
	Opened
	// Undelivered: a hand-off's messages could not be given to a pane
	// (Pending says why); the session was left as it was.
	Undelivered
)

func (k Kind) String() string {
	switch k {
	case NotActive:
		return "not_active"
	case Waiting:
		return "waiting"
	case AlreadyHandedOff:
		return "already_handed_off"
	case HandedOff:
		return "handed_off"
	case Ended:
		return "ended"
	case Opened:
		return "opened"
	case Undelivered:
		return "undelivered"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Result is the outcome of a call.
type Result struct {
	Kind Kind
	// Session is the debate's state after the call.
	Session *Session
	// Round is the round the sides are (now) writing.
	Round int
	// WaitingFor, when Waiting, is the side that has not written Round yet;
	// empty when neither has.
	WaitingFor Role
	// Sent are the messages this call delivered.
	Sent []Message
	// Pending are the messages that still need the person: typed but not
	// submitted, or held back by a dialog.
	Pending []*DeliveryError
	// Gone, with Kind Undelivered, is a participant's pane that closed:
	// the session was left as it was until the person starts the side
	// again or ends the debate.
	Gone *PaneGoneError
}

// Reply hands the round off if both sides have written it. Exactly one of
// any number of simultaneous callers does so: the decision and the update
// of the main file happen under the main file's lock, and the transport is
// asked first whether everyone can be reached, so a gone pane leaves the
// session as it was. The messages are delivered after the lock is released;
// if delivery fails the session is set back, unless someone moved it on
// meanwhile.
func (d Dir) Reply(ctx context.Context, id string, tr Transport) (Result, error) {
	p, err := d.Paths(id)
	if err != nil {
		return Result{}, err
	}
	var res Result
	var before Session
	err = atomicfile.Update(p.Main, 0o600, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, newError(msgNoSession, nil, id, d.Root)
		}
		s, err := Parse(id, old)
		if err != nil {
			return nil, newError(msgMalformed, nil, p.Main, err)
		}
		before = *s
		res = Result{Session: s}
		if s.Status != Active {
			res.Kind = NotActive
			return nil, atomicfile.ErrUnchanged
		}
		pro, err := readRounds(p, Pro)
		if err != nil {
			return nil, err
		}
		con, err := readRounds(p, Con)
		if err != nil {
			return nil, err
		}
		next := s.CurrentRound + 1
		hasPro, hasCon := pro.Has(next), con.Has(next)
		switch {
		case (pro.Concluded() || con.Concluded()) && hasPro == hasCon:
			// A side's [CONCLUDED] ends the debate once the other side
			// has written that round too.
			if hasPro {
				s.CurrentRound = next
			}
			s.Status = Concluded
		case hasPro != hasCon:
			res.Kind, res.Round, res.WaitingFor = Waiting, next, Pro
			if hasPro {
				res.WaitingFor = Con
			}
			return nil, atomicfile.ErrUnchanged
		case !hasPro && s.CurrentRound == 0:
			res.Kind, res.Round = Waiting, next
			return nil, atomicfile.ErrUnchanged
		case !hasPro:
			res.Kind, res.Round = AlreadyHandedOff, next
			return nil, atomicfile.ErrUnchanged
		default:
			s.CurrentRound = next
			if s.CurrentRound >= s.MaxRounds {
				s.Status = Timeout
			}
		}
		if s.Status == Active {
			res.Kind, res.Round = HandedOff, s.CurrentRound+1
			for _, side := range []Role{Pro, Con} {
				// A side that wrote ahead is not asked again.
				if wrote := map[Role]Rounds{Pro: pro, Con: con}[side]; !wrote.Has(res.Round) {
					res.Sent = append(res.Sent, Message{Role: side, Pane: s.Pane(side), Round: res.Round, Text: instruction(s, p, side, res.Round, d.langOf(s))})
				}
			}
		} else {
			res.Kind, res.Round = Ended, s.CurrentRound
			res.Sent = []Message{{Role: Moderator, Pane: s.PaneModerator, Text: summaryRequest(s, p, d.langOf(s))}}
		}
		if err := tr.Check(ctx, res.Sent); err != nil {
			return nil, err
		}
		return s.Marshal(), nil
	})
	if err != nil {
		return Result{}, err
	}
	if len(res.Sent) == 0 {
		return res, nil
	}
	if err := tr.Deliver(ctx, res.Sent); err != nil {
		des, ok := deliveryErrors(err)
		if ok && typedOnly(des) {
			// The instructions wait in the input boxes for an Enter:
			// the round has moved on.
			res.Pending = des
			return res, d.notePending(p, id, res.Sent, des)
		}
		after := res.Session
		if rerr := d.setBack(p, id, after, &before); rerr != nil {
			return Result{}, errors.Join(err, rerr)
		}
		if ok {
			// A pane held by a dialog got nothing; the next reply, once
			// its agent has written, hands the round off again.
			return Result{Kind: Undelivered, Session: &before, Round: res.Round, Pending: des}, d.notePending(p, id, res.Sent, des)
		}
		return Result{}, errors.Join(err, newError(msgDeliverFailed, nil, before.CurrentRound, before.Status))
	}
	return res, d.notePending(p, id, res.Sent, nil)
}

// notePending records in the main file, for each side sent a message, what
// still needs the person (pending), or that nothing does, so that status and
// list can say it later.
func (d Dir) notePending(p Paths, id string, sent []Message, pending []*DeliveryError) error {
	return d.change(p, id, func(s *Session) (bool, error) {
		was := *s
		for _, m := range sent {
			v := ""
			for _, de := range pending {
				if de.Role == m.Role {
					v = de.stored()
				}
			}
			switch m.Role {
			case Pro:
				s.PendingPro = v
			case Con:
				s.PendingCon = v
			}
		}
		return s.PendingPro != was.PendingPro || s.PendingCon != was.PendingCon, nil
	})
}

// typedOnly reports whether every one of des says a text was typed but not
// submitted: it waits in its input box for the person's Enter.
func typedOnly(des []*DeliveryError) bool {
	for _, de := range des {
		if de.Problem != NotSubmitted {
			return false
		}
	}
	return true
}

// deliveryErrors returns the DeliveryErrors err joins; ok is false when it
// joins any other error.
func deliveryErrors(err error) (des []*DeliveryError, ok bool) {
	if j, isJoin := err.(interface{ Unwrap() []error }); isJoin {
		for _, e := range j.Unwrap() {
			d, ok := deliveryErrors(e)
			if !ok {
				return nil, false
			}
			des = append(des, d...)
		}
		return des, true
	}
	var de *DeliveryError
	if !errors.As(err, &de) {
		return nil, false
	}
	return []*DeliveryError{de}, true
}

// change applies fn to debate id's session under the main file's lock and
// writes the session back when fn reports a change.
func (d Dir) change(p Paths, id string, fn func(s *Session) (changed bool, err error)) error {
	return atomicfile.Update(p.Main, 0o600, func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, newError(msgNoSession, nil, id, d.Root)
		}
		s, err := Parse(id, old)
		if err != nil {
			return nil, newError(msgMalformed, nil, p.Main, err)
		}
		changed, err := fn(s)
		if err != nil {
			return nil, err
		}
		if !changed {
			return nil, atomicfile.ErrUnchanged
		}
		return s.Marshal(), nil
	})
}

// setBack restores the round and status of before if the session is still
// as after left it.
func (d Dir) setBack(p Paths, id string, after, before *Session) error {
	return d.change(p, id, func(s *Session) (bool, error) {
		if s.CurrentRound != after.CurrentRound || s.Status != after.Status {
			return false, nil
		}
		s.CurrentRound, s.Status = before.CurrentRound, before.Status
		return true, nil
	})
}

func readRounds(p Paths, side Role) (Rounds, error) {
	b, err := os.ReadFile(p.Side(side))
	if errors.Is(err, fs.ErrNotExist) {
		return Rounds{}, newError(msgMissingSide, nil, side, p.Side(side))
	}
	if err != nil {
		return Rounds{}, wrapf(err, "read %s file", side)
	}
	return ParseRounds(string(b)), nil
}

// Open creates the debate s (status active, round 0) and sends both sides
// their round 1 instruction. If the instructions cannot be delivered the
// debate is marked aborted.
func (d Dir) Open(ctx context.Context, s *Session, tr Transport) (Result, error) {
	p, err := d.Paths(s.ID)
	if err != nil {
		return Result{}, err
	}
	s.Status, s.CurrentRound = Active, 0
	msgs := []Message{
		{Role: Pro, Pane: s.PanePro, Round: 1, Text: instruction(s, p, Pro, 1, d.langOf(s))},
		{Role: Con, Pane: s.PaneCon, Round: 1, Text: instruction(s, p, Con, 1, d.langOf(s))},
	}
	if err := tr.Check(ctx, msgs); err != nil {
		return Result{}, err
	}
	if err := d.Create(s); err != nil {
		return Result{}, err
	}
	if err := tr.Deliver(ctx, msgs); err != nil {
		if des, ok := deliveryErrors(err); ok && typedOnly(des) {
			return Result{Kind: Opened, Session: s, Round: 1, Sent: msgs, Pending: des}, d.notePending(p, s.ID, msgs, des)
		}
		if _, serr := d.Stop(ctx, s.ID, nil); serr != nil {
			err = errors.Join(err, serr)
		}
		return Result{}, err
	}
	return Result{Kind: Opened, Session: s, Round: 1, Sent: msgs}, nil
}

// StopResult is the outcome of Stop.
type StopResult struct {
	Session *Session
	// Told are the participants that were sent the stop notice.
	Told []Role
	// NotTold says why the others could not be told.
	NotTold []error
}

// Stop marks an active debate aborted and, when tr is not nil, tells the
// sides that can still be reached.
func (d Dir) Stop(ctx context.Context, id string, tr Transport) (StopResult, error) {
	p, err := d.Paths(id)
	if err != nil {
		return StopResult{}, err
	}
	var res StopResult
	err = d.change(p, id, func(s *Session) (bool, error) {
		if s.Status != Active {
			return false, newError(msgNotStopped, nil, id, s.Status)
		}
		s.Status = Aborted
		res.Session = s
		return true, nil
	})
	if err != nil || tr == nil {
		return res, err
	}
	s := res.Session
	for _, role := range []Role{Pro, Con} {
		m := Message{Role: role, Pane: s.Pane(role), Text: stopNotice(s, p, d.langOf(s))}
		if m.Pane == "" {
			continue
		}
		err := tr.Check(ctx, []Message{m})
		if err == nil {
			err = tr.Deliver(ctx, []Message{m})
		}
		if err != nil {
			res.NotTold = append(res.NotTold, err)
			continue
		}
		res.Told = append(res.Told, role)
	}
	return res, nil
}

// Summarize asks the moderator of the ended debate id for a summary of what
// the sides wrote, as at the end of its last round.
func (d Dir) Summarize(ctx context.Context, id string, tr Transport) error {
	s, err := d.Load(id)
	if err != nil {
		return err
	}
	if s.Status == Active {
		return newError(msgStillActive, nil, id)
	}
	p, _ := d.Paths(id)
	msgs := []Message{{Role: Moderator, Pane: s.PaneModerator, Text: summaryRequest(s, p, d.langOf(s))}}
	if err := tr.Check(ctx, msgs); err != nil {
		return err
	}
	return tr.Deliver(ctx, msgs)
}

// Replace makes pane the pane of role in the active debate id (its agent
// was started again there) and, when role is a side that has not written
// the round it is at, sends that round's instruction to the new pane.
func (d Dir) Replace(ctx context.Context, id string, role Role, pane string, tr Transport) (Result, error) {
	p, err := d.Paths(id)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = d.change(p, id, func(s *Session) (bool, error) {
		if s.Status != Active {
			return false, newError(msgNotActive, nil, id, s.Status)
		}
		switch role {
		case Pro:
			s.PanePro, s.PendingPro = pane, ""
		case Con:
			s.PaneCon, s.PendingCon = pane, ""
		default:
			s.PaneModerator = pane
		}
		res = Result{Kind: Waiting, Session: s, Round: s.CurrentRound + 1}
		return true, nil
	})
	if err != nil || role == Moderator {
		return res, err
	}
	rounds, err := readRounds(p, role)
	if err != nil || rounds.Has(res.Round) {
		return res, err
	}
	s := res.Session
	res.Sent = []Message{{Role: role, Pane: pane, Round: res.Round, Text: instruction(s, p, role, res.Round, d.langOf(s))}}
	if err := tr.Deliver(ctx, res.Sent); err != nil {
		des, ok := deliveryErrors(err)
		if !ok {
			return res, err
		}
		res.Pending = des
		return res, d.notePending(p, id, res.Sent, des)
	}
	return res, nil
}
