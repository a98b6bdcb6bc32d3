package debate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/tmux"
)

// claudeWorld runs `baton debate start` with the real Claude Code in every
// pane, on a private tmux server, with baton's hooks installed for the
// user, the shipped settings (default folder, default Enter pause) and a
// scripted model that plays each side as an agent would: it reads its own
// file, writes it back with the round appended, and runs `baton debate
// reply`.
type claudeWorld struct {
	t    *testing.T
	e    *claudetest.Env
	srv  *modelserver.Server
	tmux tmux.Client
	env  []string

	mu sync.Mutex
	// written is when the model was asked again after a side's Write of
	// a round (the file is written by then), by side file and round.
	written map[string]time.Time
	// asked is when a side's instruction for a round first reached the
	// model, by side file and round; replied when the model told a side to
	// run the reply command after writing a round.
	asked, replied map[string]time.Time
	// dialogs counts the screens seen holding a dialog.
	dialogs []string
}

var (
	ownFileRe = regexp.MustCompile(`own file (\S+?\.md)`)
	askedRe   = regexp.MustCompile(`append your round ([0-9]+) argument`)
)

func newClaudeWorld(t *testing.T, config string) *claudeWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Claude Code in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	w := &claudeWorld{t: t, written: map[string]time.Time{}, asked: map[string]time.Time{}, replied: map[string]time.Time{}}
	w.srv = modelserver.New(t)
	for range 5000 {
		w.srv.Add(modelserver.Func(w.model))
	}
	w.e = claudetest.New(t, w.srv)
	w.e.Path = []string{claudetest.BuildBaton(t)}
	trustFolder(t, w.e)
	// The dialogs that would swallow the first typed text, and the
	// permission mode that works offline.
	cfgPath := filepath.Join(w.e.Home, ".claude.json")
	var claudeJSON map[string]any
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &claudeJSON); err != nil {
		t.Fatal(err)
	}
	claudeJSON["hasSeenAutoDefaultNudge"], claudeJSON["hasSeenAutoDefaultNotice"] = true, true
	writeJSON(t, cfgPath, claudeJSON)
	settings := claudetest.HookSettings("baton hook", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd", "Notification")
	settings["permissions"] = map[string]any{"defaultMode": "default"}
	writeJSON(t, filepath.Join(w.e.Home, ".claude", "settings.json"), settings)
	if out, err := exec.Command("git", "init", "-q", w.e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}

	sock := fmt.Sprintf("baton-claude-debate-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	w.tmux = tmux.Client{Socket: sock}
	w.env = append(w.e.Environ(), "TERM=xterm-256color", "XDG_CONFIG_HOME="+filepath.Join(w.e.Home, ".config"))
	w.tmux.Env = w.env
	cfg := fmt.Sprintf("agent:\n  command: %s\ndebate:\n  tmux_socket: %s\n%s", w.e.Bin, sock, config)
	if err := os.MkdirAll(filepath.Join(w.e.Home, ".config", "baton"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.e.Home, ".config", "baton", "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pids, _ := w.tmux.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_pid}")
		w.tmux.KillServer(context.Background())
		for _, p := range strings.Fields(pids) {
			n, _ := strconv.Atoi(p)
			for deadline := time.Now().Add(10 * time.Second); n > 0 && syscall.Kill(n, 0) == nil && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return w
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// model plays a side: for the round its last instruction asks for, Read
// its own file, Write it back with the round appended, run the reply
// command, and say it is done. Anything else (the summary request, a stop
// notice) is answered with a line of text.
func (w *claudeWorld) model(r *modelserver.Request) modelserver.Turn {
	prompt := r.Prompt()
	own, asked, id := ownFileRe.FindStringSubmatch(prompt), askedRe.FindStringSubmatch(prompt), idRe.FindString(prompt)
	if own == nil || asked == nil || id == "" {
		if strings.Contains(prompt, "summarise both sides fairly") {
			return modelserver.Text("Summary: both sides argued their case.")
		}
		return modelserver.Text("Noted.")
	}
	file, round := own[1], asked[1]
	key := file + "#" + round
	// The tools called since the instruction, in order.
	var done []string
	last := 0
	for i, m := range r.Messages {
		if m.Role == "user" && slices.ContainsFunc(m.Content, func(c modelserver.Content) bool { return c.Type == "text" && strings.Contains(c.Text, asked[0]) }) {
			last = i
		}
	}
	for _, m := range r.Messages[last:] {
		for _, c := range m.Content {
			if m.Role == "assistant" && c.Type == "tool_use" {
				done = append(done, c.Name)
			}
		}
	}
	now := time.Now()
	w.mu.Lock()
	if _, ok := w.asked[key]; !ok && len(done) == 0 {
		w.asked[key] = now
	}
	if len(done) == 2 {
		if _, ok := w.written[key]; !ok {
			w.written[key] = now
		}
	}
	w.mu.Unlock()
	switch len(done) {
	case 0:
		return modelserver.ToolUse("Read", map[string]any{"file_path": file})
	case 1:
		old, err := os.ReadFile(file)
		if err != nil {
			return modelserver.Text("cannot read " + file)
		}
		side := "pro"
		if strings.HasSuffix(file, "-con.md") {
			side = "con"
		}
		text := fmt.Sprintf("%s\n## Round %s\n\nThe %s side's argument for round %s.\n", strings.TrimRight(string(old), "\n"), round, side, round)
		return modelserver.ToolUse("Write", map[string]any{"file_path": file, "content": text})
	case 2:
		w.mu.Lock()
		if _, ok := w.replied[key]; !ok {
			w.replied[key] = time.Now()
		}
		w.mu.Unlock()
		return modelserver.ToolUse("Bash", map[string]any{"command": "baton debate reply " + id, "description": "Hand the round off"})
	}
	return modelserver.Text("Round " + round + " written.")
}

// baton runs the CLI in the world.
func (w *claudeWorld) baton(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(w.t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(w.e.Path[0], "baton"), args...)
	cmd.Dir, cmd.Env = w.e.Dir, w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (w *claudeWorld) dir() debate.Dir {
	return debate.Dir{Root: filepath.Join(w.e.Home, ".local", "share", "baton", "dialogues")}
}

// watchDialogs samples every pane's screen until ctx ends and keeps the
// ones that show a dialog.
func (w *claudeWorld) watchDialogs(ctx context.Context) {
	for ctx.Err() == nil {
		ids, err := w.tmux.Run(ctx, "list-panes", "-a", "-F", "#{pane_id}")
		if err == nil {
			for _, pane := range strings.Fields(ids) {
				screen, err := w.tmux.Run(ctx, "capture-pane", "-p", "-t", pane)
				if err == nil && claudecode.ParseScreen(screen).State == claudecode.Dialog {
					w.mu.Lock()
					w.dialogs = append(w.dialogs, pane+":\n"+screen)
					w.mu.Unlock()
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitEnded polls the debate until it is no longer active.
func (w *claudeWorld) waitEnded(id string, timeout time.Duration) *debate.Session {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, err := w.dir().Load(id)
		if err == nil && s.Status != debate.Active {
			return s
		}
		if time.Now().After(deadline) {
			out, _ := w.baton("debate", "status", id)
			w.t.Fatalf("debate %s still active after %s: %v\n%s\n%s", id, timeout, err, out, w.screens())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (w *claudeWorld) screens() string {
	var b strings.Builder
	ids, _ := w.tmux.Run(context.Background(), "list-panes", "-a", "-F", "#{pane_id}")
	for _, pane := range strings.Fields(ids) {
		screen, _ := w.tmux.Run(context.Background(), "capture-pane", "-p", "-t", pane)
		fmt.Fprintf(&b, "--- pane %s\n%s\n", pane, screen)
	}
	return b.String()
}

// TestClaudeCodeDebates runs whole debates of 3 rounds with the real Claude
// Code in every pane and the shipped settings, nobody at the keyboard:
// every round is submitted and handed off, no pane ever shows a permission
// prompt, the moderator gets the summary request, the sides' briefings
// name their debate and side, and the worktree's task never becomes a
// debate's. BATON_TEST_DEBATES sets how many debates run one after the
// other (default 1); the hand-off times are logged.
func TestClaudeCodeDebates(t *testing.T) {
	runs := 1
	if v := os.Getenv("BATON_TEST_DEBATES"); v != "" {
		var err error
		if runs, err = strconv.Atoi(v); err != nil || runs < 1 {
			t.Fatalf("BATON_TEST_DEBATES=%q: want a positive number", v)
		}
	}
	w := newClaudeWorld(t, "")
	// A session that outlives the debates' keeps the server, and its pane
	// numbers, going.
	if _, err := w.tmux.NewSession(t.Context(), "keep", 80, 24, tmux.Spawn{Dir: w.e.Dir, Command: []string{"sleep", "3600"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var sampler sync.WaitGroup
	sampler.Go(func() { w.watchDialogs(ctx) })
	defer func() { cancel(); sampler.Wait() }()

	// handoffs run from the second side's round written to the next
	// round's instruction reaching each side's model; fromReply from the
	// model's answer that runs the reply command (the agent's own Bash
	// call, then baton typing and submitting) to the same.
	var handoffs, fromReply []time.Duration
	for run := range runs {
		out, err := w.baton("debate", "start", "--topic", fmt.Sprintf("Debate %d: tabs or spaces?", run+1), "--rounds", "3", "--lang", "en")
		if err != nil {
			t.Fatalf("debate %d: start: %v\n%s\n%s", run+1, err, out, w.screens())
		}
		id := idRe.FindString(out)
		if strings.Contains(out, "not submitted") || strings.Contains(out, "approval") {
			t.Errorf("debate %d: start says:\n%s", run+1, out)
		}
		s := w.waitEnded(id, 5*time.Minute)
		r, err := w.dir().Inspect(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != debate.Timeout || s.CurrentRound != 3 {
			t.Errorf("debate %d ended %s at round %d; want timeout at round 3", run+1, s.Status, s.CurrentRound)
		}
		for side, rounds := range map[string]debate.Rounds{"pro": r.Pro, "con": r.Con} {
			if fmt.Sprint(rounds.Numbers) != "[1 2 3]" {
				t.Errorf("debate %d: the %s side wrote rounds %v; want [1 2 3]", run+1, side, rounds.Numbers)
			}
		}
		deadline := time.Now().Add(2 * time.Minute)
		for !slices.ContainsFunc(w.srv.Requests(), func(q *modelserver.Request) bool {
			return strings.Contains(q.Prompt(), "summarise both sides fairly") && strings.Contains(q.Prompt(), r.Paths.Con)
		}) {
			if time.Now().After(deadline) {
				t.Fatalf("debate %d: the moderator never got the summary request\n%s", run+1, w.screens())
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Hand-off: from the second side's round written to the next
		// round's instruction reaching each side's model.
		w.mu.Lock()
		for n := 1; n < 3; n++ {
			pro, con := r.Paths.Pro+"#"+strconv.Itoa(n), r.Paths.Con+"#"+strconv.Itoa(n)
			done, reply := w.written[pro], w.replied[pro]
			if w.written[con].After(done) {
				done, reply = w.written[con], w.replied[con]
			}
			for _, f := range []string{r.Paths.Pro, r.Paths.Con} {
				if at, ok := w.asked[f+"#"+strconv.Itoa(n+1)]; ok && !done.IsZero() {
					handoffs = append(handoffs, at.Sub(done))
					fromReply = append(fromReply, at.Sub(reply))
				}
			}
		}
		w.mu.Unlock()
		// The side panes are left; the next debate opens its own session.
		if _, err := w.tmux.Run(t.Context(), "kill-session", "-t", debate.SessionName(id)); err != nil {
			t.Logf("kill session: %v", err)
		}
	}
	cancel()
	sampler.Wait()
	if len(w.dialogs) > 0 {
		t.Errorf("%d screens showed a dialog; the first:\n%s", len(w.dialogs), w.dialogs[0])
	}
	// Each side's briefing named its debate and side.
	briefed := 0
	for _, q := range w.srv.Requests() {
		if strings.Contains(q.Text(), "this session is the pro side of debate") || strings.Contains(q.Text(), "this session is the con side of debate") {
			briefed++
			break
		}
	}
	if briefed == 0 {
		t.Error("no side's model was told which debate and side it is")
	}
	// Nothing of the debates became the worktree's task.
	out, err := w.baton("resume")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if strings.Contains(out, "argument") || strings.Contains(out, "Debate") {
		t.Errorf("baton resume after the debates speaks of them:\n%s", out)
	}
	recs, err := journal.Open(filepath.Join(w.e.Dir, ".claude", "session-state"), journal.Options{}).Tail(t.Context(), 100000, journal.TailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, rec := range recs {
		if rec.Debate != "" {
			marked++
		}
	}
	if marked == 0 {
		t.Errorf("no journal record of %d carries a debate mark", len(recs))
	}
	for name, ds := range map[string][]time.Duration{"round written": handoffs, "reply command sent": fromReply} {
		if len(ds) > 0 {
			slices.Sort(ds)
			t.Logf("%d debates, %d hand-offs from the %s to the next instruction at the model: median %v, min %v, max %v", runs, len(ds), name, ds[len(ds)/2], ds[0], ds[len(ds)-1])
		}
	}
	if want := runs * 4; len(handoffs) != want {
		t.Errorf("%d hand-offs timed; want %d", len(handoffs), want)
	}
}
