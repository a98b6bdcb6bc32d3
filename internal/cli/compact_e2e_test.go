package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/modelserver"
)

// TestE2ETaskSurvivesCompactions drives one real Claude Code session with
// -p --continue through 40 compactions whose summary keeps nothing (the
// worst case: summaries of summaries), with the work of everyday use
// between them: failed tool calls followed by answers stating decisions,
// long tool outputs followed by answers stating decisions, decisions stated
// by the person in a prompt, "LGTM" / "OK." turns after the agent announced
// its next step, and more than five commands failing at once. After each
// round the person captures its decisions (`baton decisions capture
// --yes`).
//
// After each compaction the first request to the model must carry, in
// baton's text (the compaction's start says so; the briefing may be the
// one given just before the /compact, which Claude Code keeps): the task,
// stated once in the opening prompt; every decision captured so far (among
// the approved decisions, or one pull away when the briefing says it left
// decisions out); the next step the agent announced last; and every command
// still failing (listed, or counted in the line that folds the oldest). The
// test logs the counts and holds them to the targets: task, next step and
// failing commands at least 95%, decisions 100%.
func TestE2ETaskSurvivesCompactions(t *testing.T) {
	const compactions = 40
	const task = "Build the tokenizer for the query language: split on whitespace, keep quoted strings whole"
	s := modelserver.New(t, modelserver.ToolUse("Bash", map[string]string{"command": "echo start > notes.txt", "description": "Start the notes"}))
	s.OnSide(func(r *modelserver.Request) modelserver.Turn {
		if r.Kind == modelserver.KindCompact {
			return modelserver.Text("<summary>\nNothing.\n</summary>")
		}
		return modelserver.Text(modelserver.Fallback)
	})
	e, baton := e2eRepo(t, s)
	if _, err := claudecode.InstallHooks(context.Background(), filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	// The issue the decisions are posted to, on the local tracker.
	runBaton(t, e, baton, "issue", "new", "--title", "Query tokenizer")
	runBaton(t, e, baton, "issue", "label", "1", "--add", "status:in-progress")

	e.Run(t, "-p", task, "--allowedTools", "Bash")

	var (
		decisions []string // a phrase of each decision stated so far
		failing   []string // the commands failing so far
		nextStep  string   // the next step announced last
		counts    loopCounts
	)
	for i := range compactions {
		e.Run(t, "-p", "--continue", "/compact")
		r := newRound(i + 1)
		s.Add(r.turns...)
		before := len(s.Requests())
		e.Run(t, "-p", "--continue", r.prompt, "--allowedTools", "Bash")
		var first *modelserver.Request
		for _, q := range s.Requests()[before:] {
			if q.Kind == modelserver.KindMain {
				first = q
				break
			}
		}
		if first == nil {
			t.Fatalf("compaction %d: no request to the model after it", i+1)
		}
		sent := first.Text()
		brief := batonText(sent)
		if !strings.Contains(brief, "The conversation was compacted with /compact") {
			t.Fatalf("compaction %d: the first request carries no baton text for the compaction:\n%s", i+1, brief)
		}
		counts.add(i+1, brief, task, decisions, nextStep, failing, t)
		t.Logf("after compaction %d: %s", i+1, counts)
		if strings.Contains(brief, "ask whether to continue") {
			t.Errorf("compaction %d: the briefing after a compaction asks whether to continue:\n%s", i+1, brief)
		}

		// The round's own work, which the next compaction must carry.
		for _, a := range r.after {
			s.Add(modelserver.Text(a.answer))
			e.Run(t, "-p", "--continue", a.prompt, "--allowedTools", "Bash")
		}
		runBaton(t, e, baton, "decisions", "capture", "--yes")
		decisions = append(decisions, r.decision)
		if r.failing != "" {
			failing = append(failing, r.failing)
		}
		if r.next != "" {
			nextStep = r.next
		}
	}
	counts.report(t)
}

// loopCounts counts, over the compactions, what the first request after
// each carried of what it should.
type loopCounts struct {
	compactions, task, next, nextWanted   int
	decisions, decisionsWanted, pulled    int
	failing, failingWanted, failingFolded int
}

func (c *loopCounts) add(n int, brief, task string, decisions []string, next string, failing []string, t *testing.T) {
	t.Helper()
	c.compactions++
	if strings.Contains(brief, task) {
		c.task++
	} else {
		t.Logf("compaction %d: no task", n)
	}
	if next != "" {
		c.nextWanted++
		if strings.Contains(brief, next) {
			c.next++
		} else {
			t.Logf("compaction %d: no next step %q", n, next)
		}
	}
	// Decisions are looked for among the approved ones (elsewhere the
	// briefing may quote the agent's answer); those left out of the
	// briefing are one pull away when it says so.
	approved := sections(brief, "pproved decisions (L3)")
	leftOut := strings.Contains(brief, "left out to stay within") && strings.Contains(brief, "decision(s)")
	for _, d := range decisions {
		c.decisionsWanted++
		switch {
		case strings.Contains(approved, d):
			c.decisions++
		case leftOut:
			c.decisions++
			c.pulled++
		default:
			t.Logf("compaction %d: decision %q neither in the briefing nor said to be left out", n, d)
		}
	}
	// Commands not listed are delivered when a line folds that many.
	missing := 0
	for _, f := range failing {
		c.failingWanted++
		if strings.Contains(brief, "`"+f+"`") {
			c.failing++
		} else {
			missing++
		}
	}
	if missing > 0 {
		if folded := foldedCount(brief); folded >= missing {
			c.failing += missing
			c.failingFolded += missing
		} else {
			t.Logf("compaction %d: %d of %d failing commands missing (%d folded)", n, missing, len(failing), folded)
		}
	}
}

// sections are the parts of baton's text under headings that hold
// heading, each up to the next heading.
func sections(text, heading string) string {
	var out []string
	for _, part := range strings.Split(text, "\n### ")[1:] {
		if title, body, _ := strings.Cut(part, "\n"); strings.Contains(title, heading) {
			out = append(out, body)
		}
	}
	return strings.Join(out, "\n")
}

// foldedCount is the count of the line that folds the oldest failing
// commands ("… and N older commands still failing"), 0 without one.
func foldedCount(brief string) int {
	for line := range strings.SplitSeq(brief, "\n") {
		var n int
		if i := strings.Index(line, "older command"); i > 0 {
			fields := strings.Fields(line[:i])
			if len(fields) > 0 {
				if _, err := fmt.Sscanf(fields[len(fields)-1], "%d", &n); err == nil {
					return n
				}
			}
		}
	}
	return 0
}

func pct(got, want int) float64 {
	if want == 0 {
		return 100
	}
	return 100 * float64(got) / float64(want)
}

func (c loopCounts) String() string {
	return fmt.Sprintf("task %d/%d (%.0f%%); next step %d/%d (%.0f%%); decisions %d/%d (%.1f%%, %d one pull away); failing commands %d/%d (%.1f%%, %d folded)",
		c.task, c.compactions, pct(c.task, c.compactions),
		c.next, c.nextWanted, pct(c.next, c.nextWanted),
		c.decisions, c.decisionsWanted, pct(c.decisions, c.decisionsWanted), c.pulled,
		c.failing, c.failingWanted, pct(c.failing, c.failingWanted), c.failingFolded)
}

func (c *loopCounts) report(t *testing.T) {
	t.Helper()
	t.Logf("over %d compactions: %s", c.compactions, c)
	for _, k := range []struct {
		what      string
		got, want int
		target    float64
	}{
		{"task", c.task, c.compactions, 95},
		{"next step", c.next, c.nextWanted, 95},
		{"failing commands", c.failing, c.failingWanted, 95},
		{"decisions", c.decisions, c.decisionsWanted, 100},
	} {
		if p := pct(k.got, k.want); p < k.target {
			t.Errorf("%s: %d/%d (%.1f%%); want at least %.0f%%", k.what, k.got, k.want, p, k.target)
		}
	}
}

// A round is the scripted work between two compactions: the prompt that
// follows the compaction and the model's turns for it, the turns after
// it, and what the round leaves for the next briefing to carry.
type round struct {
	prompt   string
	turns    []modelserver.Turn
	after    []exchange
	decision string // a phrase of the decision it states
	next     string // the next step it announces, "" for none
	failing  string // the command it leaves failing, "" for none
}

type exchange struct{ prompt, answer string }

// newRound scripts round n, one of four kinds in turn: a failed command
// then an answer stating a decision; a long tool output then an answer
// stating a decision; a failed command, a short answer stating a decision
// and the next step, then "LGTM" / "OK."; a decision stated in the
// person's prompt, then "OK." turns.
func newRound(n int) round {
	next := fmt.Sprintf("Next I will set DB_URL_%d in deploy.sh and rerun it.", n)
	labelled := func(what, why string) string {
		return fmt.Sprintf("Decision: %s\nWhy: %s\nAlternatives: a random port; a unix socket\nConsequences: deploy.sh exports the port\n\n%s", what, why, next)
	}
	r := round{prompt: fmt.Sprintf("step %d: go on", n), next: next}
	switch n % 4 {
	case 0:
		r.failing = fmt.Sprintf("ls missing-%d.txt", n)
		r.decision = fmt.Sprintf("Serve stage %d on port %d", n, 8100+n)
		r.turns = []modelserver.Turn{
			modelserver.ToolUse("Bash", map[string]string{"command": r.failing, "description": "Look for the stage file"}),
			modelserver.Text(fmt.Sprintf("The stage file is missing, so the port cannot come from it.\n\n%s", labelled(r.decision, fmt.Sprintf("port %d is taken by the proxy", 8000+n)))),
		}
	case 1:
		r.decision = fmt.Sprintf("Keep stage %d tokens in a ring buffer of %d entries", n, 64*n)
		r.turns = []modelserver.Turn{
			modelserver.ToolUse("Bash", map[string]string{"command": "seq 1 4000", "description": "Print the token ids"}),
			modelserver.Text(labelled(r.decision, "the ids above show the reuse distance")),
		}
	case 2:
		r.failing = fmt.Sprintf("ls missing-%d.txt", n)
		r.decision = fmt.Sprintf("Name stage %d's queue tok-%d", n, n)
		r.turns = []modelserver.Turn{
			modelserver.ToolUse("Bash", map[string]string{"command": r.failing, "description": "Look for the stage file"}),
			modelserver.Text(labelled(r.decision, "the old name clashed")),
		}
		r.after = []exchange{{"LGTM", "OK."}}
	case 3:
		r.decision = fmt.Sprintf("port %d for the metrics endpoint", 9000+n)
		r.prompt = fmt.Sprintf("step %d: we decided to use port %d for the metrics endpoint because the dashboard expects it", n, 9000+n)
		r.next = ""
		r.turns = []modelserver.Turn{modelserver.Text(fmt.Sprintf("Noted: port %d for the metrics endpoint.", 9000+n))}
		r.after = []exchange{{"OK", "OK."}}
	}
	return r
}

// batonText is a request's text from baton's first heading on: after a
// compaction, the briefings the conversation holds, the prompt and what the
// agent CLI adds.
func batonText(text string) string {
	if i := strings.Index(text, "## baton:"); i >= 0 {
		return text[i:]
	}
	return ""
}
