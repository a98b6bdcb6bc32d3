package cue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// benchState is a state folder at the recall file's limits: 1,000
// decisions, the opening prompts of 400 sessions and 300 failing commands
// (the file keeps 300 sessions and 200 commands), words drawn from a
// vocabulary of 2,000, half English and half Japanese.
func benchState(b *testing.B) (state.Dir, string) {
	b.Helper()
	wt := b.TempDir()
	d := state.At(wt)
	if err := os.MkdirAll(d.Root, 0o700); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		if i%2 == 0 {
			vocab[i] = fmt.Sprintf("word%dx", i)
		} else {
			vocab[i] = string([]rune("アイウエオカキクケコサシスセソタチツテト")[i%20:i%20+1]) + string([]rune("漢字検索索引設計仕様決定会議資料認証期限")[i%20:i%20+1]) + string([]rune("設定変数関数構造")[i%8:i%8+1])
		}
	}
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	files, _ := recall.FilesFor(d, "")
	var ds []recall.Decision
	for i := range 1000 {
		at := fixtureNow.Add(-time.Duration(1000-i) * time.Hour)
		ds = append(ds, recall.Decision{Date: at.Format(recall.DateLayout), TS: at, Slug: fmt.Sprintf("decision-%d", i),
			Summary: sentence(12) + fmt.Sprintf(" (internal/pkg%d/file%d.go)", i%50, i), Issue: i + 1})
	}
	if _, err := recall.AppendDecisions(files, ds...); err != nil {
		b.Fatal(err)
	}
	j := journal.Open(d.Root, journal.Options{})
	at := fixtureNow.Add(-5 * 24 * time.Hour)
	for i := range 400 {
		at = at.Add(10 * time.Minute)
		if err := j.Append(journal.Record{TS: at, Event: "UserPromptSubmit", Session: fmt.Sprintf("session-%d", i), Worktree: wt, Prompt: sentence(20)}); err != nil {
			b.Fatal(err)
		}
		exit := 1
		if err := j.Append(journal.Record{TS: at.Add(time.Minute), Event: "PostToolUseFailure", Tool: "Bash", Session: fmt.Sprintf("session-%d", i), Worktree: wt,
			Cmd: fmt.Sprintf("tool%d run --flag ./...", i%300), Exit: &exit, Error: "error: " + sentence(8) + fmt.Sprintf(" internal/pkg%d/file%d.go:12", i%50, i)}); err != nil {
			b.Fatal(err)
		}
	}
	built, err := Build(context.Background(), BuildOptions{State: d, Journal: j, Now: fixtureNow})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("recall file: %d bytes, %d decisions, %d sessions, %d commands", built.Bytes, built.Decisions, built.Sessions, built.Commands)
	return d, wt
}

// BenchmarkPrompt is the recall of one prompt against a full recall file:
// read it, look the prompt's terms up, lay out the block.
func BenchmarkPrompt(b *testing.B) {
	d, wt := benchState(b)
	o := Options{State: d, Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	ctx := context.Background()
	for _, tt := range []struct{ name, prompt string }{
		{"hit", "what did we decide about decision-500 and word1000x word1002x?"},
		{"miss", "Write a Python function that reverses a linked list and explain how it works in detail"},
		{"ja", "検索索引の設計はどう決めましたか、前回の会議資料を見せて"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Prompt(ctx, o, tt.prompt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTool is the note before a Bash call and an edit, against a full
// recall file and the journal's end.
func BenchmarkTool(b *testing.B) {
	d, wt := benchState(b)
	o := Options{State: d, Journal: journal.Open(d.Root, journal.Options{}), Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	ctx := context.Background()
	for _, tt := range []struct{ name, tool, file, cmd string }{
		{"bash-hit", "Bash", "", "tool42 run ./internal/..."},
		{"bash-miss", "Bash", "", "go test ./..."},
		{"edit-hit", "Edit", wt + "/internal/pkg7/file7.go", ""},
		{"edit-miss", "Edit", wt + "/README.md", ""},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Tool(ctx, o, tt.tool, tt.file, tt.cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromptPasted is a prompt with a pasted log of 200 KB: only its
// start is looked up.
func BenchmarkPromptPasted(b *testing.B) {
	d, wt := benchState(b)
	o := Options{State: d, Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	var sb strings.Builder
	sb.WriteString("why does this fail? ")
	for i := 0; sb.Len() < 200<<10; i++ {
		fmt.Fprintf(&sb, "2026-11-30T12:00:%02d ERROR worker%d: request id=%x failed: connection reset by peer\n", i%60, i%17, i*7919)
	}
	prompt := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Prompt(context.Background(), o, prompt); err != nil {
			b.Fatal(err)
		}
	}
}
