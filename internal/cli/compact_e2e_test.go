package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// TestE2ETaskSurvivesCompactions drives one real Claude Code session with
// -p --continue through 20 compactions whose summary keeps nothing (the
// worst case: summaries of summaries). After each compaction the first
// request to the model must carry the task, stated once in the opening
// prompt, and every approved decision, in the briefing of the compaction's
// own session start, which says it was a /compact and to carry on.
func TestE2ETaskSurvivesCompactions(t *testing.T) {
	const compactions = 20
	const task = "Build the tokenizer for the query language: split on whitespace, keep quoted strings whole"
	s := modelserver.New(t, modelserver.ToolUse("Bash", map[string]string{"command": "echo start > notes.txt", "description": "Start the notes"}))
	s.OnSide(func(r *modelserver.Request) modelserver.Turn {
		if r.Kind == modelserver.KindCompact {
			return modelserver.Text("<summary>\nNothing.\n</summary>")
		}
		return modelserver.Text(modelserver.Fallback)
	})
	e, _ := e2eRepo(t, s)
	if _, err := claudecode.InstallHooks(context.Background(), filepath.Join(e.Dir, ".claude", "settings.local.json"), claudecode.DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	e.Run(t, "-p", task, "--allowedTools", "Bash")
	// Decisions approved on the issue while the work goes on.
	files, err := recall.FilesFor(state.At(e.Dir), "")
	if err != nil {
		t.Fatal(err)
	}
	decisions := []string{
		"Tokens carry their byte offsets in the query",
		"Quoted strings keep their quotes in the token text",
		"The tokenizer never allocates per token",
	}
	for i, d := range decisions {
		if _, err := recall.AppendDecisions(files, recall.Decision{Date: time.Now().Format(recall.DateLayout), Summary: d, Source: "issue", Issue: 40 + i}); err != nil {
			t.Fatal(err)
		}
	}

	for i := range compactions {
		e.Run(t, "-p", "--continue", "/compact")
		before := len(s.Requests())
		e.Run(t, "-p", "--continue", fmt.Sprintf("step %d: go on", i+1))
		var first *modelserver.Request
		for _, r := range s.Requests()[before:] {
			if r.Kind == modelserver.KindMain {
				first = r
				break
			}
		}
		if first == nil {
			t.Fatalf("compaction %d: no request to the model after it", i+1)
		}
		sent := first.Text()
		brief := compactBriefing(sent)
		if brief == "" {
			t.Fatalf("compaction %d: the first request carries no briefing of the compaction:\n%.4000s", i+1, sent)
		}
		for _, want := range append([]string{task, "Carry on with this task"}, decisions...) {
			if !strings.Contains(brief, want) {
				t.Errorf("compaction %d: the compaction's briefing lacks %q:\n%s", i+1, want, brief)
			}
		}
		if strings.Contains(brief, "ask whether to continue") {
			t.Errorf("compaction %d: the briefing after a compaction asks whether to continue:\n%s", i+1, brief)
		}
	}
}

// compactBriefing is the briefing of the newest compaction in a request's
// text: from its title to the line on how to pull more.
func compactBriefing(text string) string {
	i := strings.LastIndex(text, "The conversation was compacted with /compact")
	if i < 0 {
		return ""
	}
	start := strings.LastIndex(text[:i], "## baton: where this worktree stands")
	end := strings.Index(text[i:], "`baton resume` and `baton search`.")
	if start < 0 || end < 0 {
		return ""
	}
	return text[start : i+end]
}
