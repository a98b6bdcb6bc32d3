package debate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/modelserver"
)

var sideRe = regexp.MustCompile(`as the (pro|con) side|You are the (pro|con) side`)

// debater scripts the model behind a headless agent: asked for a round, a
// side answers with its argument (which baton appends to its file); asked
// anything else, the moderator answers with a summary.
func debater(r *modelserver.Request) modelserver.Turn {
	prompt := r.Prompt()
	side, round := sideRe.FindStringSubmatch(prompt), roundRe.FindStringSubmatch(prompt)
	if side == nil || round == nil {
		return modelserver.Text("SUMMARY: both sides argued well.")
	}
	return modelserver.Text(fmt.Sprintf("The %s%s side argues round %s.\n## Round 9\nnot a heading", side[1], side[2], round[1]))
}

// TestHeadlessDebate runs a two-round debate without tmux: every side and
// the moderator is a real Claude Code CLI run (-p, then -p --continue in the
// side's own folder) against the scripted model server.
func TestHeadlessDebate(t *testing.T) {
	t.Parallel()
	if testing.Short() || raceEnabled {
		// Five CLI runs take about 40s on a loaded 2-core machine; the
		// hand-off's concurrency is covered by TestRaceReply.
		t.Skip("runs the Claude Code CLI five times (skipped with -short and -race)")
	}
	turns := make([]modelserver.Turn, 20)
	for i := range turns {
		turns[i] = modelserver.Func(debater)
	}
	server := modelserver.New(t, turns...)
	e := claudetest.New(t, server)

	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "baton")); err != nil {
		t.Fatal(err)
	}
	dialogues := filepath.Join(e.Home, ".local", "share", "baton", "dialogues")
	w := &world{t: t, bin: bin, home: e.Home, dialogue: dialogues, work: e.Dir,
		env: append(e.Environ(), "XDG_CONFIG_HOME="+filepath.Join(e.Home, ".config"))}

	id := w.startDebate(nil, "--transport", "headless", "--topic", "Is a monorepo better?", "--rounds", "2", "--agent", e.Bin, "--lang", "en")
	out, err := w.baton(nil, "debate", "reply", id)
	if err != nil {
		t.Fatalf("reply: %v\n%s", err, out)
	}
	for _, want := range []string{"Sent the round 2 instructions", "has ended (round limit reached)", "-summary.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("reply output lacks %q:\n%s", want, out)
		}
	}

	r, err := w.dir().Inspect(id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Session.Status != debate.Timeout || r.Session.CurrentRound != 2 {
		t.Errorf("session %s round %d; want timeout round 2", r.Session.Status, r.Session.CurrentRound)
	}
	for side, rounds := range map[string]debate.Rounds{"pro": r.Pro, "con": r.Con} {
		if fmt.Sprint(rounds.Numbers) != "[1 2]" {
			t.Errorf("%s wrote rounds %v; want [1 2]", side, rounds.Numbers)
		}
	}

	// Each side continued its own conversation; the moderator got the
	// summary request naming the three files.
	var summary *modelserver.Request
	for _, req := range server.Requests() {
		text := req.Text()
		p := req.Prompt()
		switch {
		case strings.Contains(p, "summarise both sides fairly"):
			summary = req
		case strings.Contains(p, `"## Round 2"`) && strings.Contains(p, "as the pro side"):
			if !strings.Contains(text, "The pro side argues round 1.") {
				t.Errorf("pro's round 2 request does not hold its round 1 answer:\n%s", text)
			}
			if !strings.Contains(text, "has started") || strings.Contains(text, "as the con side") {
				t.Errorf("pro's round 2 request does not continue pro's own conversation:\n%s", text)
			}
		}
	}
	if summary == nil {
		for _, req := range server.Requests() {
			t.Logf("last tool result %q", req.LastToolResult())
		}
		t.Fatalf("no summary request reached the model; prompts: %d requests", len(server.Requests()))
	}
	for _, want := range []string{r.Paths.Main, r.Paths.Pro, r.Paths.Con, "strongest arguments", "common ground"} {
		if !strings.Contains(summary.Prompt(), want) {
			t.Errorf("summary request lacks %q:\n%s", want, summary.Prompt())
		}
	}
	pro, _ := os.ReadFile(r.Paths.Pro)
	if !strings.Contains(string(pro), "\n## Round 2\n\nThe pro side argues round 2.\n### Round 9\n") {
		t.Errorf("pro's file does not hold its answers as rounds:\n%s", pro)
	}
	if strings.Contains(summary.Text(), "has started") {
		t.Errorf("the moderator's run continued a side's conversation:\n%s", summary.Text())
	}
	got, err := os.ReadFile(r.Paths.Summary)
	if err != nil || !strings.Contains(string(got), "SUMMARY: both sides argued well.") {
		t.Errorf("summary file = %q, %v; want the moderator's answer", got, err)
	}
}
