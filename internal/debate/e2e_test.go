package debate_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cli"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/tmux"
)

// The test binary doubles as baton and as a scripted agent, chosen by the
// name it is run under (symlinks made by newWorld).
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "baton":
		os.Exit(cli.Main(context.Background(), os.Args[1:], cli.System()))
	case "agent":
		os.Exit(fakeAgent())
	}
	os.Exit(m.Run())
}

var (
	idRe    = regexp.MustCompile(`cc-debate-[0-9]{8}-[0-9]{6}-[0-9a-z]{4}`)
	roundRe = regexp.MustCompile(`## Round ([0-9]+)`)
)

// fakeAgent stands in for Claude Code in a pane: it reports its pane to the
// registry through `baton hook` as Claude Code's SessionStart hook would,
// then reads instructions from the terminal. For a round instruction it
// appends that round to its own file and runs `baton debate reply`. Every
// line it reads is logged to $FAKE_AGENT_LOG/<pane>.log.
//
// FAKE_AGENT_CONCLUDE=pro:2 makes the pro side write [CONCLUDED] in round 2;
// FAKE_AGENT_PASSIVE=1 makes it only log.
func fakeAgent() int {
	pane := os.Getenv("TMUX_PANE")
	logf, err := os.OpenFile(filepath.Join(os.Getenv("FAKE_AGENT_LOG"), strings.TrimPrefix(pane, "%")+".log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Println("agent:", err)
		return 1
	}
	defer logf.Close()
	wd, _ := os.Getwd()
	start, _ := json.Marshal(map[string]string{"session_id": "fake-" + pane, "hook_event_name": "SessionStart", "source": "startup", "cwd": wd})
	hook := exec.Command("baton", "hook")
	hook.Stdin = strings.NewReader(string(start))
	if out, err := hook.CombinedOutput(); err != nil {
		fmt.Fprintf(logf, "hook failed: %v %s\n", err, out)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(logf, line)
		id, m := idRe.FindString(line), roundRe.FindStringSubmatch(line)
		if id == "" || m == nil || os.Getenv("FAKE_AGENT_PASSIVE") != "" {
			continue
		}
		if err := takeTurn(id, m[1], pane); err != nil {
			fmt.Fprintln(logf, "turn failed:", err)
		}
	}
	return 0
}

func takeTurn(id, round, pane string) error {
	out, err := exec.Command("baton", "debate", "status", id, "--json").Output()
	if err != nil {
		return err
	}
	var st struct {
		Panes map[string]string `json:"panes"`
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return err
	}
	side := "con"
	if st.Panes["pro"] == pane {
		side = "pro"
	}
	text := fmt.Sprintf("\n## Round %s\nThe %s side's argument for round %s.\n", round, side, round)
	if os.Getenv("FAKE_AGENT_CONCLUDE") == side+":"+round {
		text += "We agree on everything. [CONCLUDED]\n"
	}
	f, err := os.OpenFile(st.Files[side], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return exec.Command("baton", "debate", "reply", id).Run()
}

// world is a private tmux server whose panes run the fake agent, with a
// HOME of its own and the test binary on PATH as baton and agent.
type world struct {
	t        testing.TB
	tmux     tmux.Client
	env      []string
	home     string
	bin      string
	dialogue string
	logs     string
	work     string
}

func newWorld(t testing.TB, config string, extraEnv ...string) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a tmux server with agent panes")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	bin, home, logs, work := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for _, name := range []string{"baton", "agent"} {
		if err := os.Symlink(os.Args[0], filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A folder name holding quotes, a semicolon, a command substitution
	// and non-ASCII: every instruction names it.
	dialogue := filepath.Join(home, `it's "a"; $(touch PWNED) 議論`)
	sock := fmt.Sprintf("baton-debate-test-%d-%s-%d", os.Getpid(), t.Name(), time.Now().UnixNano()%1e6)
	w := &world{t: t, home: home, bin: bin, dialogue: dialogue, logs: logs, work: work, tmux: tmux.Client{Socket: sock}}
	w.env = append([]string{
		"HOME=" + home,
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
		"FAKE_AGENT_LOG=" + logs,
	}, extraEnv...)
	w.tmux.Env = w.env
	// The tests' panes run the fake agent, which reads whole lines, so a
	// short Enter pause will do; a config that sets its own keeps its own.
	if !strings.Contains(config, "enter_delay:") {
		config += "  enter_delay: 20ms\n"
	}
	cfg := fmt.Sprintf("debate:\n  dir: %q\n  register_timeout: 30s\n%s", dialogue, config)
	if err := os.MkdirAll(filepath.Join(home, ".config", "baton"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "baton", "config.yaml"), []byte(strings.ReplaceAll(cfg, "$SOCK", sock)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.tmux.KillServer(context.Background())
		// The agents' last commands (a reply, a hook) may still run
		// after their panes closed, writing into the folders about to be
		// removed.
		mark := []byte("FAKE_AGENT_LOG=" + logs + "\x00")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			envs, _ := filepath.Glob("/proc/[0-9]*/environ")
			left := false
			for _, e := range envs {
				if b, err := os.ReadFile(e); err == nil && bytes.Contains(b, mark) {
					left = true
					break
				}
			}
			if !left {
				break
			}
		}
		for _, dir := range []string{home, work, dialogue} {
			if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
				t.Errorf("PWNED exists in %s: a path reached a shell", dir)
			}
		}
	})
	return w
}

// baton runs the CLI in the world with extra environment entries.
func (w *world) baton(extraEnv []string, args ...string) (string, error) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(w.bin, "baton"), args...)
	cmd.Dir = w.work
	cmd.Env = append(append([]string{}, w.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (w *world) dir() debate.Dir { return debate.Dir{Root: w.dialogue} }

// waitFor polls cond until it holds or the deadline passes.
func (w *world) waitFor(what string, timeout time.Duration, cond func() (bool, string)) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out waiting for %s; last state: %s\nagent logs:\n%s", what, state, w.agentLogs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *world) agentLogs() string {
	var b strings.Builder
	ents, _ := os.ReadDir(w.logs)
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(w.logs, e.Name()))
		fmt.Fprintf(&b, "--- %s\n%s", e.Name(), data)
	}
	return b.String()
}

func (w *world) paneLog(pane string) string {
	b, _ := os.ReadFile(filepath.Join(w.logs, strings.TrimPrefix(pane, "%")+".log"))
	return string(b)
}

// startDebate runs baton debate start and returns the new debate's id.
func (w *world) startDebate(extraEnv []string, args ...string) string {
	w.t.Helper()
	out, err := w.baton(extraEnv, append([]string{"debate", "start"}, args...)...)
	if err != nil {
		w.t.Fatalf("debate start: %v\n%s\nagent logs:\n%s", err, out, w.agentLogs())
	}
	id := idRe.FindString(out)
	if id == "" {
		w.t.Fatalf("debate start printed no id:\n%s", out)
	}
	return id
}

func (w *world) waitStatus(id string, want debate.Status) *debate.Session {
	w.t.Helper()
	var s *debate.Session
	w.waitFor("status "+string(want), 60*time.Second, func() (bool, string) {
		var err error
		s, err = w.dir().Load(id)
		if err != nil {
			return false, err.Error()
		}
		return s.Status == want, fmt.Sprintf("%+v", *s)
	})
	return s
}

// TestTmuxDebateTimeout runs a whole three-round debate outside tmux: baton
// creates its own session, the agents take their turns on their own, and the
// moderator's pane ends up with the summary request on screen.
func TestTmuxDebateTimeout(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "  tmux_socket: $SOCK\n")
	if _, err := w.tmux.NewSession(t.Context(), "keep", 80, 24, tmux.Spawn{Dir: w.work, Command: []string{"sleep", "600"}}); err != nil {
		t.Fatal(err)
	}
	id := w.startDebate(nil, "--topic", "Should we rewrite it in Go?\nSecond line", "--rounds", "3", "--agent", "agent", "--lang", "en")
	s := w.waitStatus(id, debate.Timeout)
	if s.CurrentRound != 3 || s.MaxRounds != 3 {
		t.Errorf("ended at round %d of %d; want 3 of 3", s.CurrentRound, s.MaxRounds)
	}
	r, err := w.dir().Inspect(id)
	if err != nil {
		t.Fatal(err)
	}
	for side, rounds := range map[string]debate.Rounds{"pro": r.Pro, "con": r.Con} {
		if fmt.Sprint(rounds.Numbers) != "[1 2 3]" {
			t.Errorf("%s wrote rounds %v; want [1 2 3] (each side writes max_rounds rounds)", side, rounds.Numbers)
		}
	}

	// Every instruction names the files intact, weird folder name and all.
	for _, pane := range []string{s.PanePro, s.PaneCon} {
		log := w.paneLog(pane)
		if n := strings.Count(log, "baton debate reply "+id); n != 3 {
			t.Errorf("pane %s got %d round instructions; want 3\n%s", pane, n, log)
		}
		for _, p := range []string{r.Paths.Main, r.Paths.Pro, r.Paths.Con} {
			if strings.Count(log, p) < 3 {
				t.Errorf("pane %s log does not name %q in every instruction:\n%s", pane, p, log)
			}
		}
		if strings.Contains(log, "Should we rewrite") {
			t.Errorf("the topic was typed into pane %s", pane)
		}
	}
	w.waitFor("the summary request in the moderator's log", 10*time.Second, func() (bool, string) {
		log := w.paneLog(s.PaneModerator)
		return strings.Contains(log, "summarise both sides fairly") && strings.Contains(log, r.Paths.Con), log
	})
	w.waitFor("the summary request on the moderator's screen", 10*time.Second, func() (bool, string) {
		screen, err := w.tmux.CapturePane(t.Context(), s.PaneModerator)
		return err == nil && strings.Contains(screen, "round limit reached") && strings.Contains(screen, "common ground"), screen
	})
}

// TestTmuxDebateConcluded starts inside tmux (the caller's pane is the
// moderator) and the pro side concludes in round 2.
func TestTmuxDebateConcluded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "", "FAKE_AGENT_CONCLUDE=pro:2")
	moderator, err := w.tmux.NewSession(t.Context(), "main", 200, 50, tmux.Spawn{Dir: w.work, Command: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	socket, err := w.tmux.Run(t.Context(), "display-message", "-p", "-t", moderator, "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor("the moderator's agent to register", 20*time.Second, func() (bool, string) {
		reg, err := panes.Read(panes.Path(w.home))
		_, ok := reg[moderator]
		return err == nil && ok, fmt.Sprint(reg, err)
	})
	inside := []string{"TMUX=" + socket + ",1,0", "TMUX_PANE=" + moderator}
	id := w.startDebate(inside, "--topic", "引数 'a' \"b\" $(c)", "--rounds", "5", "--agent", "agent", "--lang", "ja")
	s := w.waitStatus(id, debate.Concluded)
	// Pro concludes in round 2; whether con had written round 2 by then
	// decides whether round 2 counts as completed.
	if s.PaneModerator != moderator || s.CurrentRound < 1 || s.CurrentRound > 2 {
		t.Errorf("moderator %s round %d; want %s, round 1 or 2", s.PaneModerator, s.CurrentRound, moderator)
	}
	if s.Topic != `引数 'a' "b" $(c)` {
		t.Errorf("topic = %q; want it kept exactly", s.Topic)
	}
	live, err := w.tmux.ListPanes(t.Context())
	if err != nil || len(live) != 3 {
		t.Errorf("panes = %v, %v; want the moderator plus two split panes in one window", live, err)
	}
	w.waitFor("the summary request in the moderator's log", 10*time.Second, func() (bool, string) {
		log := w.paneLog(moderator)
		return strings.Contains(log, "理由: 合意") && strings.Contains(log, "共通点・相違点"), log
	})
	// The moderator's pane is free again: a second debate may start there.
	if out, err := w.baton(inside, "debate", "status", id, "--json"); err != nil || !strings.Contains(out, `"status": "concluded"`) {
		t.Errorf("status: %v\n%s", err, out)
	}
	if log := w.paneLog(s.PanePro); strings.Count(log, "## Round 3") != 0 {
		t.Errorf("pro was asked for round 3 after concluding:\n%s", log)
	}
}

// TestTmuxDeadPane: a side's pane closes, or its agent leaves the registry;
// reply names the pane and side and leaves the session as it was.
func TestTmuxDeadPane(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "  tmux_socket: $SOCK\n", "FAKE_AGENT_PASSIVE=1")
	id := w.startDebate(nil, "--topic", "t", "--agent", "agent", "--lang", "en")
	r, err := w.dir().Inspect(id)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Session
	for _, side := range []string{r.Paths.Pro, r.Paths.Con} {
		f, err := os.OpenFile(side, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(f, "\n## Round 1\nargument\n")
		f.Close()
	}
	before, _ := os.ReadFile(r.Paths.Main)

	if err := panes.Update(panes.Path(w.home), func(reg panes.Registry) bool { delete(reg, s.PanePro); return true }); err != nil {
		t.Fatal(err)
	}
	out, err := w.baton(nil, "debate", "reply", id)
	if err == nil || !strings.Contains(out, "pane "+s.PanePro+" (pro side) has no agent session") {
		t.Errorf("reply with an unregistered pro pane: %v\n%s", err, out)
	}
	if err := panes.Update(panes.Path(w.home), func(reg panes.Registry) bool {
		reg[s.PanePro] = panes.Entry{Status: panes.Idle}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.tmux.KillPane(t.Context(), s.PaneCon); err != nil {
		t.Fatal(err)
	}
	out, err = w.baton(nil, "debate", "reply", id, "--lang", "ja")
	if err == nil || !strings.Contains(out, "pane "+s.PaneCon+"（反対派）はもう存在しません") {
		t.Errorf("reply with the con pane gone: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(r.Paths.Main); string(after) != string(before) {
		t.Errorf("the main file changed:\n%s\n->\n%s", before, after)
	}
	for _, pane := range []string{s.PanePro, s.PaneCon} {
		if log := w.paneLog(pane); strings.Count(log, "\n") != 1 {
			t.Errorf("pane %s got more than its opening:\n%s", pane, log)
		}
	}

	// Stop still works; the reachable side is told, the gone one reported.
	out, err = w.baton(nil, "debate", "stop", id)
	if want := "Stopped debate " + id + " and told the pro side.\n  not told: pane " + s.PaneCon + " (con side) is gone"; err != nil || !strings.HasPrefix(out, want) {
		t.Errorf("stop: %v\n%s", err, out)
	}
	w.waitFor("the stop notice in the pro pane", 10*time.Second, func() (bool, string) {
		log := w.paneLog(s.PanePro)
		return strings.Contains(log, "was stopped"), log
	})
	if got, err := w.dir().Load(id); err != nil || got.Status != debate.Aborted {
		t.Errorf("after stop: %+v, %v; want aborted", got, err)
	}
	if _, err := w.baton(nil, "debate", "reply", "../x"); err == nil {
		t.Error("reply ../x succeeded")
	}
	var ee *exec.ExitError
	if _, err := w.baton(nil, "debate", "stop", "../x"); !errors.As(err, &ee) {
		t.Errorf("stop ../x: %v; want a non-zero exit", err)
	}
}

// BenchmarkTmuxWatchHandoff measures the whole hand-off with the shipped
// settings on real tmux: a `baton debate watch` process sees the second
// side's round appended and types the next instruction into the other pane,
// where the agent has read it as a submitted line. The config sets no
// debate.enter_delay, so the default applies; the budget is 200ms.
func BenchmarkTmuxWatchHandoff(b *testing.B) {
	if b.N > 48 {
		b.Skipf("b.N = %d: a debate has at most 50 rounds; use -benchtime 40x or less", b.N)
	}
	w := newWorld(b, "  tmux_socket: $SOCK\n  enter_delay: \n", "FAKE_AGENT_PASSIVE=1")
	id := w.startDebate(nil, "--topic", "t", "--agent", "agent", "--rounds", "50", "--lang", "en")
	r, err := w.dir().Inspect(id)
	if err != nil {
		b.Fatal(err)
	}
	conPane := r.Session.PaneCon
	w.waitFor("the opening in the con pane", 10*time.Second, func() (bool, string) {
		log := w.paneLog(conPane)
		return strings.Count(log, "\n") == 1, log
	})
	ctx, cancel := context.WithCancel(context.Background())
	watch := exec.CommandContext(ctx, filepath.Join(w.bin, "baton"), "debate", "watch", id)
	watch.Dir, watch.Env = w.work, w.env
	var watchOut strings.Builder
	watch.Stdout, watch.Stderr = &watchOut, &watchOut
	if err := watch.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cancel()
		watch.Wait()
		if b.Failed() {
			b.Logf("watch output:\n%s", watchOut.String())
		}
	}()
	// The watcher reads the debate before it waits for writes: give it a
	// round to prove it is watching.
	warm := 1
	appendRound := func(path string, n int) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\n## Round %d\nargument\n", n)
		f.Close()
	}
	handoff := func(n int) time.Duration {
		appendRound(r.Paths.Pro, n)
		start := time.Now()
		appendRound(r.Paths.Con, n)
		for strings.Count(w.paneLog(conPane), "\n") < n+1 {
			if time.Since(start) > 10*time.Second {
				b.Fatalf("round %d never reached the con pane", n+1)
			}
			time.Sleep(time.Millisecond)
		}
		return time.Since(start)
	}
	for n := range warm {
		handoff(n + 1)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		lat = append(lat, handoff(warm+i+1))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-max")
}

// TestTmuxStartRefusesPaneWithoutAgent: start run inside tmux from a pane
// where no agent runs (a plain shell) is refused before any pane opens or
// file is written: the summary at the end would have nobody to go to.
func TestTmuxStartRefusesPaneWithoutAgent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	shell, err := w.tmux.NewSession(t.Context(), "main", 200, 50, tmux.Spawn{Dir: w.work, Command: []string{"sleep", "600"}})
	if err != nil {
		t.Fatal(err)
	}
	socket, err := w.tmux.Run(t.Context(), "display-message", "-p", "-t", shell, "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	inside := []string{"TMUX=" + socket + ",1,0", "TMUX_PANE=" + shell}
	for _, lang := range []string{"en", "ja"} {
		out, err := w.baton(inside, "debate", "start", "--topic", "t", "--agent", "agent", "--lang", lang)
		want := map[string]string{"en": "no agent runs in this pane, " + shell, "ja": "このペイン " + shell + " ではエージェントが動いていません"}[lang]
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("start from a pane without an agent (%s): %v\n%s", lang, err, out)
		}
	}
	if live, err := w.tmux.ListPanes(t.Context()); err != nil || len(live) != 1 {
		t.Errorf("panes = %v, %v; want only the shell's", live, err)
	}
	if list, err := w.dir().List(); err != nil || len(list) != 0 {
		t.Errorf("debates = %v, %v; want none written", list, err)
	}
}

// TestTmuxPaneKilledMidRound: the con pane closes mid-round. watch reports
// it and keeps watching, status names it and the ways on, resume-pane
// starts the con side again and sends it the round it owes, the debate goes
// on through watch, and stop --summary ends it with the moderator asked for
// a summary of what was written.
func TestTmuxPaneKilledMidRound(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "  tmux_socket: $SOCK\n", "FAKE_AGENT_PASSIVE=1")
	id := w.startDebate(nil, "--topic", "t", "--agent", "agent", "--rounds", "3", "--lang", "en")
	r, err := w.dir().Inspect(id)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Session
	appendRound := func(path string, n int) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "\n## Round %d\nargument\n", n)
		f.Close()
	}
	appendRound(r.Paths.Pro, 1)
	if err := w.tmux.KillPane(t.Context(), s.PaneCon); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watch := exec.CommandContext(ctx, filepath.Join(w.bin, "baton"), "debate", "watch", id)
	watch.Dir, watch.Env = w.work, w.env
	var watchOut syncBuffer
	watch.Stdout, watch.Stderr = &watchOut, &watchOut
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Wait()

	// The con side had written its round just before its pane closed.
	appendRound(r.Paths.Con, 1)
	w.waitFor("watch to report the gone pane", 20*time.Second, func() (bool, string) {
		got := watchOut.String()
		return strings.Contains(got, "pane "+s.PaneCon+" (con side) is gone") && strings.Contains(got, "baton debate resume-pane "+id+" con"), got
	})
	out, err := w.baton(nil, "debate", "status", id)
	if err != nil || !strings.Contains(out, "! pane "+s.PaneCon+" (con side) is gone") || !strings.Contains(out, "baton debate stop --summary "+id) {
		t.Errorf("status with the con pane gone: %v\n%s", err, out)
	}
	out, err = w.baton(nil, "debate", "resume-pane", id, "con")
	if err != nil || !strings.Contains(out, "Started the con side again in pane") || strings.Contains(out, "instruction") {
		t.Fatalf("resume-pane after con wrote round 1: %v\n%s", err, out)
	}
	now, err := w.dir().Load(id)
	if err != nil || now.PaneCon == s.PaneCon || now.PaneCon == "" {
		t.Fatalf("con pane after resume-pane = %+v, %v; want a new one", now, err)
	}
	// watch sees the new pane in the main file and hands round 1 off.
	w.waitFor("round 2 handed off by watch to the new con pane", 20*time.Second, func() (bool, string) {
		log := w.paneLog(now.PaneCon)
		return strings.Contains(log, `"## Round 2"`), log + "\nwatch:\n" + watchOut.String()
	})

	w.waitFor("watch to finish the hand-off", 20*time.Second, func() (bool, string) {
		got := watchOut.String()
		return strings.Contains(got, "Sent the round 2 instructions"), got
	})
	// Closed again before writing round 2: the new pane gets round 2.
	if err := w.tmux.KillPane(t.Context(), now.PaneCon); err != nil {
		t.Fatal(err)
	}
	out, err = w.baton(nil, "debate", "resume-pane", id, "con")
	if err != nil || !strings.Contains(out, "Sent it the round 2 instruction.") {
		st, _ := w.baton(nil, "debate", "status", id)
		t.Fatalf("resume-pane before con wrote round 2: %v\n%s\n%s", err, out, st)
	}
	again, _ := w.dir().Load(id)
	w.waitFor("the round 2 instruction in the third con pane", 20*time.Second, func() (bool, string) {
		log := w.paneLog(again.PaneCon)
		return strings.Contains(log, `"## Round 2"`) && strings.Contains(log, "as the con side"), log
	})

	out, err = w.baton(nil, "debate", "stop", "--summary", id)
	if err != nil || !strings.Contains(out, "Asked the moderator (pane "+s.PaneModerator+") for a summary.") {
		t.Errorf("stop --summary: %v\n%s", err, out)
	}
	w.waitFor("the summary request in the moderator's log", 20*time.Second, func() (bool, string) {
		log := w.paneLog(s.PaneModerator)
		return strings.Contains(log, "has ended (stopped)") && strings.Contains(log, "summarise both sides fairly"), log
	})
}

// syncBuffer is a bytes.Buffer safe for a process's output and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTmuxTwoDebatesAtOnce: two debates run side by side, each in its own
// tmux session, and both play to their end; while both are active, reply
// without an id refuses and lists them, and a second start from a pane
// that moderates a running debate is refused before splitting its window.
func TestTmuxTwoDebatesAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "  tmux_socket: $SOCK\n", "FAKE_AGENT_PASSIVE=1")
	first := w.startDebate(nil, "--topic", "one", "--agent", "agent", "--rounds", "2", "--lang", "en")
	second := w.startDebate(nil, "--topic", "two", "--agent", "agent", "--rounds", "2", "--lang", "en")
	out, err := w.baton(nil, "debate", "reply")
	if err == nil || !strings.Contains(out, "2 debates are active") || !strings.Contains(out, first) || !strings.Contains(out, second) {
		t.Errorf("reply without an id with two active: %v\n%s", err, out)
	}
	for _, id := range []string{first, second} {
		r, err := w.dir().Inspect(id)
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 2; n++ {
			for _, side := range []string{r.Paths.Pro, r.Paths.Con} {
				f, err := os.OpenFile(side, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(f, "\n## Round %d\nargument\n", n)
				f.Close()
			}
			if out, err := w.baton(nil, "debate", "reply", id); err != nil {
				t.Fatalf("reply %s round %d: %v\n%s", id, n, err, out)
			}
		}
		if s := w.waitStatus(id, debate.Timeout); s.CurrentRound != 2 {
			t.Errorf("%s ended at round %d; want 2", id, s.CurrentRound)
		}
		w.waitFor("the summary request in "+id+"'s moderator pane", 20*time.Second, func() (bool, string) {
			log := w.paneLog(r.Session.PaneModerator)
			return strings.Contains(log, "summarise both sides fairly") && strings.Contains(log, id+"-con.md"), log
		})
	}

	// Inside tmux, a pane that moderates a running debate starts no other.
	moderator, err := w.tmux.NewSession(t.Context(), "main", 200, 50, tmux.Spawn{Dir: w.work, Command: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	socket, err := w.tmux.Run(t.Context(), "display-message", "-p", "-t", moderator, "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor("the moderator's agent to register", 20*time.Second, func() (bool, string) {
		reg, err := panes.Read(panes.Path(w.home))
		_, ok := reg[moderator]
		return err == nil && ok, fmt.Sprint(reg, err)
	})
	inside := []string{"TMUX=" + socket + ",1,0", "TMUX_PANE=" + moderator}
	cfg := filepath.Join(w.home, ".config", "baton", "config.yaml")
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Inside tmux the current server is used, not the private socket's
	// name: the same server here, reached through TMUX.
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(string(raw), "  tmux_socket: "+w.tmux.Socket+"\n", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	third := w.startDebate(inside, "--topic", "three", "--agent", "agent", "--lang", "en")
	before, _ := w.tmux.ListPanes(t.Context())
	out, err = w.baton(inside, "debate", "start", "--topic", "four", "--agent", "agent", "--lang", "en")
	if err == nil || !strings.Contains(out, "debate "+third+" is running with this pane, "+moderator) {
		t.Errorf("second start from the same moderator: %v\n%s", err, out)
	}
	if after, _ := w.tmux.ListPanes(t.Context()); len(after) != len(before) {
		t.Errorf("panes %d -> %d; want the window not split again", len(before), len(after))
	}
}
