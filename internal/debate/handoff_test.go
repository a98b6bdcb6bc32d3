package debate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
)

// recorder is a Transport that records what it is asked to send.
type recorder struct {
	mu         sync.Mutex
	sent       []Message
	checkErr   error
	deliverErr error
	delivered  chan []Message // when not nil, each Deliver's messages go here
}

func (r *recorder) Check(_ context.Context, _ []Message) error { return r.checkErr }

func (r *recorder) Deliver(_ context.Context, msgs []Message) error {
	r.mu.Lock()
	err := r.deliverErr
	if err == nil {
		r.sent = append(r.sent, msgs...)
	}
	r.mu.Unlock()
	if err == nil && r.delivered != nil {
		r.delivered <- msgs
	}
	return err
}

func (r *recorder) messages() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.sent...)
}

// fixture is a debate folder with one active tmux debate.
type fixture struct {
	d  Dir
	s  *Session
	p  Paths
	tr *recorder
}

func newFixture(t testing.TB, rounds int) *fixture {
	t.Helper()
	d := Dir{Root: filepath.Join(t.TempDir(), "dialogues")}
	s := &Session{
		ID: "cc-debate-20260101-120000-ab12", Topic: "tabs or spaces",
		PaneModerator: "%1", PanePro: "%2", PaneCon: "%3",
		MaxRounds: rounds, Transport: TransportTmux, Lang: i18n.EN,
	}
	tr := &recorder{}
	if _, err := d.Open(context.Background(), s, tr); err != nil {
		t.Fatal(err)
	}
	p, _ := d.Paths(s.ID)
	tr.sent = nil
	return &fixture{d: d, s: s, p: p, tr: tr}
}

func (f *fixture) write(t testing.TB, side Role, round int, text string) {
	t.Helper()
	fh, err := os.OpenFile(f.p.Side(side), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fmt.Fprintf(fh, "\n## Round %d\n%s\n", round, text); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) reply(t testing.TB) Result {
	t.Helper()
	res, err := f.d.Reply(context.Background(), f.s.ID, f.tr)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *fixture) load(t testing.TB) *Session {
	t.Helper()
	s, err := f.d.Load(f.s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenSendsRoundOne(t *testing.T) {
	d := Dir{Root: t.TempDir()}
	s := &Session{ID: "cc-debate-20260101-120000-ab12", Topic: "secret topic", PaneModerator: "%1", PanePro: "%2", PaneCon: "%3", MaxRounds: 2, Transport: TransportTmux, Lang: i18n.JA}
	tr := &recorder{}
	res, err := d.Open(context.Background(), s, tr)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := d.Paths(s.ID)
	if res.Kind != Opened || len(tr.sent) != 2 {
		t.Fatalf("Open = %v, sent %d; want opened with 2 messages", res.Kind, len(tr.sent))
	}
	for _, m := range tr.sent {
		own, other := p.Side(m.Role), p.Side(m.Role.other())
		if m.Pane != s.Pane(m.Role) {
			t.Errorf("%s message to pane %s; want %s", m.Role, m.Pane, s.Pane(m.Role))
		}
		for _, w := range []string{p.Main, own, other, "## Round 1", "baton debate reply " + s.ID, m.Role.Name(i18n.JA)} {
			if !strings.Contains(m.Text, w) {
				t.Errorf("%s opening %q lacks %q", m.Role, m.Text, w)
			}
		}
		if strings.Contains(m.Text, "secret topic") {
			t.Errorf("the topic was sent through the transport: %q", m.Text)
		}
	}
	if got := d.mustLoad(t, s.ID); got.Status != Active || got.CurrentRound != 0 || got.Topic != "secret topic" {
		t.Errorf("after Open: %+v", got)
	}
}

func (d Dir) mustLoad(t *testing.T, id string) *Session {
	t.Helper()
	s, err := d.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWholeDebate walks three rounds: each side writes max_rounds rounds,
// the round after the last is never asked for, and the moderator gets the
// summary request once.
func TestWholeDebate(t *testing.T) {
	f := newFixture(t, 3)
	for round := 1; round <= 3; round++ {
		f.write(t, Pro, round, "pro argument")
		if res := f.reply(t); res.Kind != Waiting || res.WaitingFor != Con || res.Round != round {
			t.Fatalf("round %d after pro only: %v waiting for %q round %d; want waiting for con", round, res.Kind, res.WaitingFor, res.Round)
		}
		f.write(t, Con, round, "con argument")
		res := f.reply(t)
		s := f.load(t)
		if s.CurrentRound != round {
			t.Fatalf("after round %d: current_round = %d", round, s.CurrentRound)
		}
		if round < 3 {
			if res.Kind != HandedOff || res.Round != round+1 || s.Status != Active {
				t.Fatalf("round %d: %v round %d status %s; want handed off round %d", round, res.Kind, res.Round, s.Status, round+1)
			}
			if again := f.reply(t); again.Kind != AlreadyHandedOff || again.Round != round+1 {
				t.Errorf("second reply in round %d: %v; want already handed off", round, again.Kind)
			}
			continue
		}
		if res.Kind != Ended || s.Status != Timeout {
			t.Fatalf("last round: %v status %s; want ended, timeout", res.Kind, s.Status)
		}
	}
	sent := f.tr.messages()
	if len(sent) != 5 {
		t.Fatalf("sent %d messages; want 2+2 rounds and 1 summary", len(sent))
	}
	for i, m := range sent[:4] {
		want := fmt.Sprintf(`"## Round %d"`, i/2+2)
		if !strings.Contains(m.Text, want) {
			t.Errorf("message %d %q lacks %s", i, m.Text, want)
		}
	}
	sum := sent[4]
	if sum.Role != Moderator || sum.Pane != "%1" {
		t.Errorf("last message to %s %s; want the moderator %%1", sum.Role, sum.Pane)
	}
	for _, w := range []string{f.p.Main, f.p.Pro, f.p.Con, "round limit", "strongest arguments", "common ground", "differences"} {
		if !strings.Contains(sum.Text, w) {
			t.Errorf("summary request %q lacks %q", sum.Text, w)
		}
	}
	if res := f.reply(t); res.Kind != NotActive {
		t.Errorf("reply after the end: %v; want not active", res.Kind)
	}
	if got := len(f.tr.messages()); got != 5 {
		t.Errorf("a reply after the end sent something (%d messages)", got)
	}
}

func TestConcluded(t *testing.T) {
	tests := []struct {
		name      string
		writes    func(f *fixture, t *testing.T)
		wantRound int
	}{
		{"pro concludes, con writes that round after", func(f *fixture, t *testing.T) {
			f.write(t, Pro, 1, "a")
			f.write(t, Con, 1, "b")
			f.reply(t)
			f.write(t, Pro, 2, "fine, we agree [CONCLUDED]")
			// One side's [CONCLUDED] waits for the other's round.
			if res := f.reply(t); res.Kind != Waiting || res.WaitingFor != Con || f.load(t).Status != Active {
				t.Fatalf("reply after pro concluded alone = %v waiting for %q; want waiting for con, still active", res.Kind, res.WaitingFor)
			}
			f.write(t, Con, 2, "b2")
		}, 2},
		{"con concludes after both wrote", func(f *fixture, t *testing.T) {
			f.write(t, Pro, 1, "a")
			f.write(t, Con, 1, "agreed [CONCLUDED]")
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 5)
			tt.writes(f, t)
			before := len(f.tr.messages())
			res := f.reply(t)
			s := f.load(t)
			if res.Kind != Ended || s.Status != Concluded || s.CurrentRound != tt.wantRound {
				t.Fatalf("reply = %v, status %s round %d; want ended, concluded, round %d", res.Kind, s.Status, s.CurrentRound, tt.wantRound)
			}
			sent := f.tr.messages()[before:]
			if len(sent) != 1 || sent[0].Role != Moderator || !strings.Contains(sent[0].Text, "agreed") {
				t.Errorf("sent %+v; want one summary request giving agreement as the reason", sent)
			}
		})
	}
}

// TestWroteAheadNotAskedAgain: a side that has written the next round
// already is not sent its instruction.
func TestWroteAheadNotAskedAgain(t *testing.T) {
	f := newFixture(t, 5)
	f.write(t, Pro, 1, "a")
	f.write(t, Pro, 2, "ahead")
	f.write(t, Con, 1, "b")
	res := f.reply(t)
	if res.Kind != HandedOff || res.Round != 2 {
		t.Fatalf("reply = %v round %d; want handed off to round 2", res.Kind, res.Round)
	}
	if sent := f.tr.messages(); len(sent) != 1 || sent[0].Role != Con || sent[0].Round != 2 {
		t.Errorf("sent %+v; want the round 2 instruction to the con side only", sent)
	}
}

func TestReplyLeavesSessionOnProblems(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture, t *testing.T)
		want  string
	}{
		{"gone pane", func(f *fixture, t *testing.T) {
			f.tr.checkErr = &PaneGoneError{Role: Con, Pane: "%3"}
		}, "pane %3 (con side) is gone"},
		{"pane without agent", func(f *fixture, t *testing.T) {
			f.tr.checkErr = &PaneGoneError{Role: Pro, Pane: "%2", InTmux: true}
		}, "pane %2 (pro side) has no agent session"},
		{"missing side file", func(f *fixture, t *testing.T) {
			os.Remove(f.p.Con)
		}, "the con side's file " + "%CON%" + " is missing"},
		{"malformed frontmatter", func(f *fixture, t *testing.T) {
			b, _ := os.ReadFile(f.p.Main)
			os.WriteFile(f.p.Main, bytes.Replace(b, []byte("status: active"), []byte("status: ???"), 1), 0o600)
		}, "malformed frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 3)
			f.write(t, Pro, 1, "a")
			f.write(t, Con, 1, "b")
			tt.setup(f, t)
			before, _ := os.ReadFile(f.p.Main)
			_, err := f.d.Reply(context.Background(), f.s.ID, f.tr)
			want := strings.ReplaceAll(tt.want, "%CON%", f.p.Con)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Reply error = %v; want %q", err, want)
			}
			var le Localized
			if !errors.As(err, &le) || le.In(i18n.JA) == le.In(i18n.EN) {
				t.Errorf("error %v is not worded in Japanese too", err)
			}
			after, _ := os.ReadFile(f.p.Main)
			if !bytes.Equal(before, after) {
				t.Errorf("main file changed:\n%s\n->\n%s", before, after)
			}
			if n := len(f.tr.messages()); n != 0 {
				t.Errorf("sent %d messages; want none", n)
			}
		})
	}
}

func TestDeliveryFailureSetsBack(t *testing.T) {
	f := newFixture(t, 3)
	f.write(t, Pro, 1, "a")
	f.write(t, Con, 1, "b")
	f.tr.deliverErr = errors.New("tmux: can't find pane %3")
	_, err := f.d.Reply(context.Background(), f.s.ID, f.tr)
	if err == nil || !strings.Contains(err.Error(), "set back to round 0") {
		t.Fatalf("Reply error = %v; want delivery failure and the set-back", err)
	}
	if s := f.load(t); s.CurrentRound != 0 || s.Status != Active {
		t.Errorf("after failed delivery: round %d status %s; want 0 active", s.CurrentRound, s.Status)
	}
	f.tr.deliverErr = nil
	if res := f.reply(t); res.Kind != HandedOff || res.Round != 2 {
		t.Errorf("retry: %v round %d; want handed off round 2", res.Kind, res.Round)
	}
}

func TestHostileIDTouchesNothing(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: filepath.Join(root, "dialogues")}
	victim := filepath.Join(root, "x.md")
	os.WriteFile(victim, []byte("---\nid: ../x\nmax_rounds: 1\ncurrent_round: 0\nstatus: active\n---\n"), 0o600)
	tr := &recorder{}
	ctx := context.Background()
	calls := map[string]func() error{
		"reply": func() error { _, err := d.Reply(ctx, "../x", tr); return err },
		"stop":  func() error { _, err := d.Stop(ctx, "../x", tr); return err },
		"load":  func() error { _, err := d.Load("../x"); return err },
		"watch": func() error { return d.Watch(ctx, "../x", tr, func(Result) {}) },
		"open": func() error {
			_, err := d.Open(ctx, &Session{ID: "../x", MaxRounds: 1}, tr)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); err == nil || !strings.Contains(err.Error(), "invalid debate id") {
				t.Errorf("err = %v; want invalid debate id", err)
			}
		})
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries; want only x.md (no lock file, no folder)", root, len(entries))
	}
	if b, _ := os.ReadFile(victim); !strings.Contains(string(b), "status: active") {
		t.Errorf("x.md was changed: %s", b)
	}
}

func TestStop(t *testing.T) {
	f := newFixture(t, 3)
	res, err := f.d.Stop(context.Background(), f.s.ID, f.tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Session.Status != Aborted || f.load(t).Status != Aborted {
		t.Errorf("status after Stop = %s", f.load(t).Status)
	}
	sent := f.tr.messages()
	if len(sent) != 2 || len(res.Told) != 2 || !strings.Contains(sent[0].Text, "was stopped") {
		t.Errorf("Stop told %v, sent %+v; want both sides told", res.Told, sent)
	}
	if _, err := f.d.Stop(context.Background(), f.s.ID, f.tr); err == nil || !strings.Contains(err.Error(), "already ended (status: aborted)") {
		t.Errorf("second Stop: err = %v", err)
	}
	f.write(t, Pro, 1, "late")
	f.write(t, Con, 1, "late")
	if r := f.reply(t); r.Kind != NotActive {
		t.Errorf("reply after stop: %v; want not active", r.Kind)
	}
}

// TestRaceReply has both sides call reply at the same instant, 200 rounds
// in a row: every round must be handed off exactly once and each message
// sent exactly once.
func TestRaceReply(t *testing.T) {
	const rounds = 200
	f := newFixture(t, rounds+1)
	for round := 1; round <= rounds; round++ {
		f.write(t, Pro, round, "p")
		f.write(t, Con, round, "c")
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]Result, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Go(func() {
				<-start
				results[i], errs[i] = f.d.Reply(context.Background(), f.s.ID, f.tr)
			})
		}
		close(start)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("round %d: errors %v, %v", round, errs[0], errs[1])
		}
		kinds := map[Kind]int{}
		for _, r := range results {
			kinds[r.Kind]++
		}
		if kinds[HandedOff] != 1 || kinds[AlreadyHandedOff] != 1 {
			t.Fatalf("round %d: outcomes %v; want one handed_off and one already_handed_off", round, kinds)
		}
		if s := f.load(t); s.CurrentRound != round {
			t.Fatalf("round %d: current_round = %d", round, s.CurrentRound)
		}
	}
	sent := f.tr.messages()
	count := map[string]int{}
	for _, m := range sent {
		count[fmt.Sprintf("%s %s", m.Role, m.Text)]++
	}
	if len(sent) != 2*rounds || len(count) != 2*rounds {
		t.Errorf("sent %d messages, %d distinct; want %d, each once", len(sent), len(count), 2*rounds)
	}
}

// TestNoLangSpeaksTheCallers: a session file without lang (the original
// tool's template has none) speaks the caller's language, and the file is
// not given one.
func TestNoLangSpeaksTheCallers(t *testing.T) {
	for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
		t.Run(string(lang), func(t *testing.T) {
			d := Dir{Root: t.TempDir(), Lang: lang}
			s := &Session{ID: "cc-debate-20260101-120000-ab12", Topic: "tabs", PaneModerator: "%1", PanePro: "%2", PaneCon: "%3", MaxRounds: 1, Transport: TransportTmux}
			tr := &recorder{}
			if _, err := d.Open(context.Background(), s, tr); err != nil {
				t.Fatal(err)
			}
			for _, m := range tr.sent {
				if !strings.Contains(m.Text, m.Role.Name(lang)) {
					t.Errorf("opening %q is not in %s", m.Text, lang)
				}
			}
			p, _ := d.Paths(s.ID)
			f := &fixture{d: d, s: s, p: p, tr: tr}
			f.write(t, Pro, 1, "pro says")
			f.write(t, Con, 1, "con says")
			tr.sent = nil
			res := f.reply(t)
			if res.Kind != Ended || len(tr.sent) != 1 || tr.sent[0].Text != summaryRequest(res.Session, p, lang) {
				t.Errorf("end of the debate: %v, sent %+v; want the summary request in %s", res.Kind, tr.sent, lang)
			}
			main, _ := os.ReadFile(p.Main)
			if strings.Contains(string(main), "\nlang:") {
				t.Errorf("the session file was given a lang:\n%s", main)
			}
		})
	}
}

// TestPendingKept: an instruction typed but not submitted, or held back by
// a dialog, is kept in the main file for status and list, until the side
// writes that round or a later message reaches it.
func TestPendingKept(t *testing.T) {
	f := newFixture(t, 5)
	f.write(t, Pro, 1, "a")
	f.write(t, Con, 1, "b")
	f.tr.deliverErr = &DeliveryError{Problem: NotSubmitted, Role: Con, Pane: "%3", Round: 2}
	if res := f.reply(t); res.Kind != HandedOff || len(res.Pending) != 1 {
		t.Fatalf("reply = %v, pending %v; want handed off with the con side's round pending", res.Kind, res.Pending)
	}
	s := f.load(t)
	if got, want := s.PendingCon, "not_submitted 2"; got != want || s.PendingPro != "" {
		t.Fatalf("pending con %q, pro %q; want %q and none", got, s.PendingPro, want)
	}
	if de := s.Pending(Con, 1); de == nil || de.In(i18n.EN) != "round 2 not submitted to the con side: press Enter in pane %3" {
		t.Errorf("Pending(con, 1) = %v", de)
	}
	if de := s.Pending(Con, 2); de != nil {
		t.Errorf("Pending(con) after it wrote round 2 = %v; want nil", de)
	}
	// A dialog holds the pro pane at the next hand-off: the round is set
	// back and the pro side's problem kept.
	f.write(t, Pro, 2, "c")
	f.write(t, Con, 2, "d")
	f.tr.deliverErr = &DeliveryError{Problem: AwaitingApproval, Role: Pro, Pane: "%2", Round: 3}
	if res := f.reply(t); res.Kind != Undelivered {
		t.Fatalf("reply = %v; want undelivered", res.Kind)
	}
	if s := f.load(t); s.PendingPro != "awaiting_approval 3" || s.CurrentRound != 1 {
		t.Errorf("pending pro %q round %d; want awaiting_approval 3 at round 1", s.PendingPro, s.CurrentRound)
	}
	f.tr.deliverErr = nil
	if res := f.reply(t); res.Kind != HandedOff {
		t.Fatalf("reply = %v; want handed off", res.Kind)
	}
	if s := f.load(t); s.PendingPro != "" || s.PendingCon != "" {
		t.Errorf("pending pro %q con %q after delivery; want none", s.PendingPro, s.PendingCon)
	}
}
