package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/i18n"
)

// terminal is a pseudo-terminal the forms run on: the test types into it
// and reads the screen back.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	tty  *os.File
	mu   sync.Mutex
	out  []byte
	done chan struct{}
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, ptmx: ptmx, tty: tty, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.mu.Lock()
			term.out = append(term.out, buf[:n]...)
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		<-term.done
	})
	return term
}

// factory runs commands on the terminal.
func (term *terminal) factory() *Factory {
	return &Factory{
		IO:     &IOStreams{In: term.tty, Out: term.tty, ErrOut: term.tty, IsTerminal: true},
		Getenv: func(k string) string { return map[string]string{"TERM": "xterm-256color"}[k] },
	}
}

var ansiSeq = regexp.MustCompile(`\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])`)

// screen is everything written to the terminal since the last mark,
// without escape sequences.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return ansiSeq.ReplaceAllString(string(term.out), "")
}

// waitFor waits until the terminal has shown text since the last clear.
func (term *terminal) waitFor(text string) {
	term.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(term.screen(), text) {
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal never showed %q; it shows:\n%s", text, term.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// clear forgets what was shown so far.
func (term *terminal) clear() {
	term.mu.Lock()
	term.out = nil
	term.mu.Unlock()
}

// keys types keys, one key at a time as a person would.
func (term *terminal) keys(keys ...string) {
	term.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(term.ptmx, k); err != nil {
			term.t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

const (
	keyDown  = "\x1b[B"
	keyEnter = "\r"
	keySpace = " "
	keyCtrlC = "\x03"
)

func TestFormApprove(t *testing.T) {
	cands := []decision.Candidate{
		{Slug: "alpha", What: "Use alpha", ScopeHint: decision.ScopeIssue},
		{Slug: "beta", What: "Use beta", ScopeHint: decision.ScopeCrossIssue},
		{Slug: "gamma", What: strings.Repeat("long ", 40), ScopeHint: decision.ScopeIssue},
	}
	tests := []struct {
		name string
		// post is typed at the first question, cross at the second.
		post, cross []string
		scopes      map[string]string
		want        []string // slug=scope
		err         error
	}{
		{name: "enter twice keeps all and the hints", post: []string{keyEnter}, cross: []string{keyEnter}, want: []string{"alpha=issue", "beta=cross-issue", "gamma=issue"}},
		{
			name:  "drop one, unmark the hint, mark another",
			post:  []string{keyDown, keyDown, keySpace, keyEnter},  // gamma off
			cross: []string{keySpace, keyDown, keySpace, keyEnter}, // alpha on, beta off
			want:  []string{"alpha=cross-issue", "beta=issue"},
		},
		{name: "none", post: []string{keySpace, keyDown, keySpace, keyDown, keySpace, keyEnter}, want: nil},
		{name: "a --scope flag is the suggestion", post: []string{keyEnter}, cross: []string{keyEnter}, scopes: map[string]string{"alpha": "cross-issue", "beta": "issue"}, want: []string{"alpha=cross-issue", "beta=issue", "gamma=issue"}},
		{name: "ctrl+c cancels", post: []string{keyCtrlC}, err: decision.ErrCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerminal(t)
			ui := &formUI{f: term.factory(), lang: i18n.EN, scopes: tt.scopes}
			type result struct {
				ds  []decision.UserDecision
				err error
			}
			done := make(chan result, 1)
			go func() {
				ds, err := ui.Approve(context.Background(), cands)
				done <- result{ds, err}
			}()
			term.waitFor("Choose the decisions to post")
			term.waitFor("gamma — " + strings.Repeat("long ", 14))
			term.keys(tt.post...)
			if tt.cross != nil {
				term.waitFor("Mark the cross-issue decisions")
				term.keys(tt.cross...)
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("the form did not finish; the terminal shows:\n%s", term.screen())
			}
			if !errors.Is(r.err, tt.err) {
				t.Fatalf("err: got %v; want %v", r.err, tt.err)
			}
			var got []string
			for _, d := range r.ds {
				got = append(got, d.Candidate.Slug+"="+d.FinalScope)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v; want %v\nterminal:\n%s", got, tt.want, term.screen())
			}
		})
	}
}

func TestFormOtherQuestions(t *testing.T) {
	term := newTerminal(t)
	ui := &formUI{f: term.factory(), lang: i18n.EN}
	ctx := context.Background()
	issue := make(chan int, 1)
	go func() {
		n, _ := ui.ChooseIssue(ctx, []int{7, 8})
		issue <- n
	}()
	term.waitFor("#8")
	term.keys(keyDown, keyEnter)
	if n := <-issue; n != 8 {
		t.Errorf("ChooseIssue: %d; want 8", n)
	}
	tests := []struct {
		keys []string
		want decision.Choice
	}{
		{[]string{keyEnter}, decision.ChoiceSave},
		{[]string{keyDown, keyEnter}, decision.ChoiceDiscard},
		{[]string{keyDown, keyDown, keyEnter}, decision.ChoiceAbort},
		{[]string{keyCtrlC}, decision.ChoiceAbort},
	}
	for _, tt := range tests {
		term.clear()
		choice := make(chan decision.Choice, 1)
		go func() {
			c, _ := ui.OnFailure(ctx, []decision.Failure{{Slug: "a"}, {Slug: "b"}})
			choice <- c
		}()
		term.waitFor("2 decision(s) could not be posted")
		term.waitFor("Abort (record nothing)")
		term.keys(tt.keys...)
		if c := <-choice; c != tt.want {
			t.Errorf("OnFailure after %q: %s; want %s", tt.keys, c, tt.want)
		}
	}
}

// TestCaptureAtTerminal runs `baton decisions capture` on a
// pseudo-terminal against a repository and its local tracker: the person
// unticks one of the two candidates in the form, and only the other is
// posted to the issue.
func TestCaptureAtTerminal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	home, repo := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	env := map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"XDG_STATE_HOME":      filepath.Join(home, ".local", "state"),
		"PATH":                os.Getenv("PATH"),
		"LANG":                "en_US.UTF-8",
		"TERM":                "xterm-256color",
		"GIT_CONFIG_GLOBAL":   filepath.Join(dir, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM": "1",
	}
	environ := func() []string {
		var out []string
		for k, v := range env {
			out = append(out, k+"="+v)
		}
		return out
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "init", "-q", repo)
	git.Env = environ()
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	transcript := filepath.Join(dir, "t1.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"How should state be kept?"}}`,
		`{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"## Decision: alpha-choice\n\n**What:** Use alpha.\n\n**Why:** It is simple.\n\n**Alternatives considered:** Beta alone.\n\n**Consequences:** One more file.\n\n## Decision: beta-choice\n\n**What:** Use beta.\n\n**Why:** Readers never see half a file.\n\n**Alternatives considered:** SQLite.\n\n**Consequences:** A lock per session."}]}}`,
	}
	if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	factory := func(io *IOStreams) *Factory {
		return &Factory{
			IO:         io,
			Getenv:     func(k string) string { return env[k] },
			Environ:    environ,
			Now:        time.Now,
			Getwd:      func() (string, error) { return repo, nil },
			Executable: os.Executable,
		}
	}
	baton := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if code := Main(context.Background(), args, factory(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out})); code != ExitOK {
			t.Fatalf("baton %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
		}
		return out.String()
	}
	baton("issue", "new", "--title", "Session closer")
	baton("issue", "label", "1", "--add", "status:in-progress")

	term := newTerminal(t)
	f := term.factory()
	f = factory(f.IO)
	code := make(chan int, 1)
	go func() {
		code <- Main(context.Background(), []string{"decisions", "capture", "--session", "s1", "--transcript", transcript, "--lang", "en"}, f)
	}()
	term.waitFor("Choose the decisions to post")
	term.waitFor("beta-choice — Use beta.")
	term.keys(keyDown, keySpace, keyEnter) // untick beta
	term.waitFor("Mark the cross-issue decisions")
	term.keys(keyEnter)
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("capture: exit %d\n%s", c, term.screen())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("capture did not finish; the terminal shows:\n%s", term.screen())
	}
	term.waitFor("Posted 1 decisions")
	issue := baton("issue", "show", "1")
	if !strings.Contains(issue, "claude-issueops:decision:alpha-choice") || strings.Contains(issue, "beta-choice") {
		t.Errorf("issue 1 holds:\n%s\nwant alpha-choice posted and beta-choice not", issue)
	}
}
