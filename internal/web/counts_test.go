package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/journal"
)

// TestSessionListCountsAgreeWithPage: a session that ran Bash twice (once
// failing) shows the same tool and message counts in the timeline and on
// its own page, from the journal and from the index; each call counted
// once (its PreToolUse is the same call), a failed one too. Its messages are
// its prompt and its two answers: the transcript's lines that hold only a
// tool call or its result are not messages.
func TestSessionListCountsAgreeWithPage(t *testing.T) {
	const id = "5e55a0a1-3333-4aaa-8bbb-000000000003"
	fx := newFixture(t)
	exit0, exit1 := 0, 1
	at := func(m int) time.Time { return fxNow.Add(time.Duration(m) * time.Second) }
	rec := func(m int, r journal.Record) journal.Record {
		r.TS, r.Session, r.Cwd, r.Worktree, r.Branch = at(m), id, fx.Main, fx.Main, fxBranch
		return r
	}
	j := journal.Open(fx.State.Root, journal.Options{Now: func() time.Time { return fxNow }})
	if err := j.Append(
		rec(1, journal.Record{Event: "SessionStart", Source: "startup"}),
		rec(2, journal.Record{Event: "UserPromptSubmit", Prompt: "run the tests twice"}),
		rec(3, journal.Record{Event: "PreToolUse", Tool: "Bash", Cmd: "go test ./..."}),
		rec(4, journal.Record{Event: "PostToolUse", Tool: "Bash", Cmd: "go test ./...", Exit: &exit0}),
		rec(5, journal.Record{Event: "PreToolUse", Tool: "Bash", Cmd: "go vet ./..."}),
		rec(6, journal.Record{Event: "PostToolUseFailure", Tool: "Bash", Cmd: "go vet ./...", Exit: &exit1, Error: "Exit code 1"}),
		rec(7, journal.Record{Event: "Stop", Message: "The tests pass; vet fails."}),
	); err != nil {
		t.Fatal(err)
	}
	writeTranscript(t, claudecode.TranscriptDir(fx.Home, fx.Main), id,
		transcriptLine(id, fx.Main, at(2), "user", "run the tests twice"),
		transcriptLine(id, fx.Main, at(3), "assistant", "Running them."),
		transcriptLine(id, fx.Main, at(3), "assistant", map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "go test ./..."}}),
		transcriptLine(id, fx.Main, at(4), "user", map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}),
		transcriptLine(id, fx.Main, at(5), "assistant", map[string]any{"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": map[string]any{"command": "go vet ./..."}}),
		transcriptLine(id, fx.Main, at(6), "user", map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "content": "Exit code 1", "is_error": true}),
		transcriptLine(id, fx.Main, at(7), "assistant", "The tests pass; vet fails."),
	)
	withIndex := fx.options()
	withIndex.Index = fx.index(t)
	for name, o := range map[string]Options{"files": fx.options(), "index": withIndex} {
		t.Run(name, func(t *testing.T) {
			url := fx.server(t, o, "").URL
			_, list := get(t, url, "/")
			row := regexp.MustCompile(`(?s)href="/sessions/` + id + `".*?</tr>`).FindString(list)
			cells := regexp.MustCompile(`<td class="n">([0-9,]+)</td>`).FindAllStringSubmatch(row, -1)
			if len(cells) != 4 {
				t.Fatalf("the timeline's row of the session has %d counts; want 4:\n%s", len(cells), row)
			}
			listTools, listMessages := number(t, cells[2][1]), number(t, cells[3][1])

			_, page := get(t, url, "/sessions/"+id)
			tools := regexp.MustCompile(`(?s)<section id="tools">.*?</section>`).FindString(page)
			pageTools := 0
			for _, m := range regexp.MustCompile(`<td class="n">([0-9,]+)</td>`).FindAllStringSubmatch(tools, -1) {
				pageTools += number(t, m[1])
			}
			pageMessages := strings.Count(page, `<div class="message role-`)
			if pageMessages == 0 {
				// Without a transcript the page has no conversation; the
				// timeline counts the answers its Stop records kept.
				pageMessages = 1
			}
			if listTools != 2 || pageTools != 2 {
				t.Errorf("tools: timeline %d, page %d; want 2 in both", listTools, pageTools)
			}
			if listMessages != pageMessages {
				t.Errorf("messages: timeline %d, page %d; want the same", listMessages, pageMessages)
			}
			if name == "index" && listMessages != 3 {
				t.Errorf("messages from the transcript: %d; want 3 (a prompt and two answers)", listMessages)
			}
		})
	}
}

func number(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// transcriptLine is a line of a Claude Code transcript: a message of role
// whose content is text (a string) or one block.
func transcriptLine(session, cwd string, ts time.Time, role string, content any) string {
	if block, ok := content.(map[string]any); ok {
		content = []any{block}
	} else if role == "assistant" {
		content = []any{map[string]any{"type": "text", "text": content}}
	}
	b, _ := json.Marshal(map[string]any{"type": role, "uuid": fmt.Sprintf("u-%d-%s", ts.UnixNano(), role), "sessionId": session, "cwd": cwd,
		"timestamp": ts.UTC().Format("2006-01-02T15:04:05.000Z"), "version": "2.1.328",
		"message": map[string]any{"role": role, "content": content}})
	return string(b)
}

func writeTranscript(t *testing.T, dir, session string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, session+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
