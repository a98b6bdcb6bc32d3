package cue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// TestRanKey: a line runs every command of it, by the one rule of
// wtstate.CommandKey (whose table test is there).
func TestRanKey(t *testing.T) {
	if !ranKey("npm ci && npm run build", "npm run") || ranKey("npm ci", "npm run") || !ranKey("cd web && sudo -E npm run build", "npm run") {
		t.Errorf("ranKey does not see every command of a line")
	}
}

// TestFileLookup writes a recall file with many terms and finds each one
// by binary search, and none that it does not hold.
func TestFileLookup(t *testing.T) {
	w := newWriter()
	for i := range 500 {
		w.add(entry{Kind: kindDecision, Text: strings.Repeat("x", i%40)}, []string{"t" + strings.Repeat("a", i%7) + string(rune('a'+i%26)) + "-" + itoa(i), "common"})
	}
	data, err := w.bytes(fixtureNow)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		term := "t" + strings.Repeat("a", i%7) + string(rune('a'+i%26)) + "-" + itoa(i)
		offs, err := f.lookup(term)
		if err != nil || len(offs) != 1 {
			t.Fatalf("lookup(%q) = %v, %v; want one entry", term, offs, err)
		}
		e, err := f.entry(offs[0])
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat("x", i%40); e.Text != want {
			t.Fatalf("lookup(%q) points at the entry %q; want %q", term, e.Text, want)
		}
	}
	for _, missing := range []string{"", "a", "t", "zzz", "common"} {
		if offs, err := f.lookup(missing); err != nil || len(offs) != 0 {
			t.Errorf("lookup(%q) = %v, %v; want nothing (a word in every entry is dropped)", missing, offs, err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestToolCommandNote(t *testing.T) {
	d, wt := writeFixture(t)
	ctx := context.Background()
	j := journal.Open(d.Root, journal.Options{})
	o := Options{State: d, Journal: j, Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	tests := []struct {
		name, cmd string
		want      []string // substrings; nil for no note
	}{
		{"failed, then a different line worked", "npm run build -- --minify", []string{"`npm run` failed earlier", "Cannot find module 'esbuild'", "exit 2", "npm ci && npm run build"}},
		{"failed once, nothing worked since: the note would repeat the error", "make migrate", nil},
		{"failed, then worked in a longer line", "git push origin main", []string{"non-fast-forward", "git pull --rebase && git push"}},
		{"failed as is, then worked as is", "go vet ./internal/billing", nil},
		{"the line that worked", "npm ci && npm run build", nil},
		{"never failed", "go vet ./...", nil},
		{"another subcommand", "go build ./...", nil},
		{"same program, failed subcommand once", "go test ./internal/billing/...", nil},
		{"failed under another interpreter, then worked", "sh ./deploy.sh staging", []string{"`deploy.sh staging`", "DB_URL=… ./deploy.sh staging"}},
		{"a script of another name", "sh ./seed.sh", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Tool(ctx, o, "Bash", "", tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if got != "" {
					t.Errorf("got %q; want no note", got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q; want %q in it", got, w)
				}
			}
			if n := len([]rune(got)); n > MaxTool {
				t.Errorf("%d characters; want at most %d", n, MaxTool)
			}
		})
	}

	// A failure minutes ago, in this session, is not in the recall file
	// yet: the journal's end has it. Once the same line works, silence.
	exit := 1
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-3 * time.Minute), Event: "PostToolUseFailure", Tool: "Bash", Session: "now", Worktree: wt,
		Cmd: "cargo test --workspace", Exit: &exit, Error: "error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:3:5"})
	got, err := Tool(ctx, o, "Bash", "", "cargo test -p core")
	if err != nil || got != "" {
		t.Errorf("after one fresh failure: got %q, %v; want no note (it would repeat the error)", got, err)
	}
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-2 * time.Minute), Event: "PostToolUseFailure", Tool: "Bash", Session: "now", Worktree: wt,
		Cmd: "cargo test --workspace", Exit: &exit, Error: "error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:3:5"})
	got, err = Tool(ctx, o, "Bash", "", "cargo test -p core")
	if err != nil || !strings.Contains(got, "2 min ago") || !strings.Contains(got, "2 times") || !strings.Contains(got, "E0425") {
		t.Errorf("after a second fresh failure: got %q, %v; want the failure 2 min ago, 2 times", got, err)
	}
	edit, err := Tool(ctx, o, "Edit", filepath.Join(wt, "src/lib.rs"), "")
	if err != nil || !strings.Contains(edit, "cargo test --workspace") {
		t.Errorf("edit of the file the fresh failure names: got %q, %v", edit, err)
	}
	zero := 0
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-time.Minute), Event: "PostToolUse", Tool: "Bash", Session: "now", Worktree: wt, Cmd: "cargo test --workspace", Exit: &zero})
	if got, err := Tool(ctx, o, "Bash", "", "cargo test -p core"); err != nil || got != "" {
		t.Errorf("after the failing line worked: got %q, %v; want no note", got, err)
	}

	// Past FailureAge a failure is not worth a note.
	late := o
	late.Now = fixtureNow.Add(FailureAge + 24*time.Hour)
	if got, err := Tool(ctx, late, "Bash", "", "make migrate"); err != nil || got != "" {
		t.Errorf("two weeks later: got %q, %v; want no note", got, err)
	}
}

func TestToolFileNote(t *testing.T) {
	d, wt := writeFixture(t)
	ctx := context.Background()
	for _, lang := range []i18n.Lang{i18n.EN, i18n.JA} {
		o := Options{State: d, Journal: journal.Open(d.Root, journal.Options{}), Worktree: wt, Session: "now", Lang: lang, Now: fixtureNow}
		tests := []struct {
			name, tool, file string
			want             []string
		}{
			{"a decision names it", "Edit", filepath.Join(wt, "internal/billing/money.go"), []string{"internal/billing/money.go", "integer cents", "issue #63"}},
			{"a failure names it", "Write", filepath.Join(wt, "db/migrations/0042_orders.sql"), []string{"make migrate"}},
			{"a decision names it, relative", "MultiEdit", "config/ratelimit.yaml", []string{"100 requests"}},
			{"nothing names it", "Edit", filepath.Join(wt, "internal/other/money.go"), nil},
			{"not an edit", "Read", filepath.Join(wt, "internal/billing/money.go"), nil},
		}
		for _, tt := range tests {
			t.Run(string(lang)+"/"+tt.name, func(t *testing.T) {
				got, err := Tool(ctx, o, tt.tool, tt.file, "")
				if err != nil {
					t.Fatal(err)
				}
				if tt.want == nil && got != "" {
					t.Errorf("got %q; want no note", got)
				}
				for _, w := range tt.want {
					if !strings.Contains(got, w) {
						t.Errorf("got %q; want %q in it", got, w)
					}
				}
				if n := len([]rune(got)); n > MaxTool {
					t.Errorf("%d characters; want at most %d", n, MaxTool)
				}
			})
		}
	}
}

// TestBadRecallFile: a damaged or oversized recall file is an error (the
// hook logs it and prints nothing), never a panic; a missing one is empty.
func TestBadRecallFile(t *testing.T) {
	d, wt := writeFixture(t)
	good, err := os.ReadFile(Path(d))
	if err != nil {
		t.Fatal(err)
	}
	sep := strings.Index(string(good), "\n\n")
	tests := []struct {
		name  string
		write func(path string) error
		isErr bool
		// lookup is set when the damage shows only where a term points.
		lookup bool
	}{
		{"missing", os.Remove, false, false},
		{"empty", func(p string) error { return os.WriteFile(p, nil, 0o600) }, true, false},
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("\x00\xffnot a recall file\n"), 0o600) }, true, false},
		{"cut in the entries", func(p string) error { return os.WriteFile(p, good[:sep/2], 0o600) }, true, false},
		{"cut in the terms", func(p string) error { return os.WriteFile(p, good[:sep+(len(good)-sep)/2], 0o600) }, true, false},
		{"offsets pointing nowhere", func(p string) error {
			return os.WriteFile(p, []byte(header+"1\n{}\n\njob\t999999\nqueu\t3\n"), 0o600)
		}, true, true},
		{"entry not JSON", func(p string) error {
			return os.WriteFile(p, []byte(header+"1\nnot json\n\njob\t16\nqueu\t16\n"), 0o600)
		}, true, true},
		{"huge", func(p string) error {
			if err := os.WriteFile(p, good, 0o600); err != nil {
				return err
			}
			return os.Truncate(p, MaxFile+1)
		}, true, false},
		{"a folder", func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o700)
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Path(d)
			os.RemoveAll(p)
			if err := os.WriteFile(p, good, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tt.write(p); err != nil {
				t.Fatal(err)
			}
			o := Options{State: d, Worktree: wt, Lang: i18n.EN, Now: fixtureNow}
			text, err := Prompt(context.Background(), o, "What did we decide about the job queue?")
			if text != "" {
				t.Errorf("printed %q; want nothing", text)
			}
			if (err != nil) != tt.isErr {
				t.Errorf("err = %v; want an error: %v", err, tt.isErr)
			}
			if tt.isErr && tt.name != "a folder" && !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v; want ErrCorrupt", err)
			}
			note, err := Tool(context.Background(), o, "Bash", "", "make migrate")
			if note != "" || (err != nil) != (tt.isErr && !tt.lookup) {
				t.Errorf("Tool: %q, %v", note, err)
			}
		})
	}
}

// TestRecallFileRewritten: while Build rewrites the file over and over,
// every read sees a whole file, old or new.
func TestRecallFileRewritten(t *testing.T) {
	d, wt := writeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		j := journal.Open(d.Root, journal.Options{})
		for ctx.Err() == nil {
			if _, err := Build(ctx, BuildOptions{State: d, Journal: j, Now: fixtureNow}); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
		}
	}()
	o := Options{State: d, Worktree: wt, Lang: i18n.EN, Now: fixtureNow}
	for range 200 {
		text, err := Prompt(ctx, o, "What did we decide about the job queue?")
		if err != nil || !strings.Contains(text, "River") {
			t.Errorf("during a rewrite: %q, %v", text, err)
			break
		}
	}
	cancel()
	wg.Wait()
}

// TestToolEditFailure: an edit that failed is noted before the next edit
// of the file, until an edit of it goes through; then silence, from the
// journal's end and from the recall file alike.
func TestToolEditFailure(t *testing.T) {
	d, wt := writeFixture(t)
	ctx := context.Background()
	j := journal.Open(d.Root, journal.Options{})
	o := Options{State: d, Journal: j, Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	file := filepath.Join(wt, "web/src/App.tsx")
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-2 * time.Minute), Event: "PostToolUseFailure", Tool: "Edit", File: file, Session: "now", Worktree: wt,
		Error: "String to replace not found in file."})
	got, err := Tool(ctx, o, "Edit", file, "")
	if err != nil || !strings.Contains(got, "Edit on web/src/App.tsx failed (2 min ago): String to replace not found") {
		t.Errorf("after a failed edit: %q, %v", got, err)
	}
	if _, err := Build(ctx, BuildOptions{State: d, Journal: j, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	if got2, err := Tool(ctx, Options{State: d, Worktree: wt, Lang: i18n.EN, Now: fixtureNow}, "Write", file, ""); err != nil || !strings.Contains(got2, "String to replace not found") {
		t.Errorf("from the recall file: %q, %v", got2, err)
	}
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-time.Minute), Event: "PostToolUse", Tool: "Edit", File: file, Session: "now", Worktree: wt})
	if got, err := Tool(ctx, o, "Edit", file, ""); err != nil || got != "" {
		t.Errorf("after an edit went through: %q, %v; want no note", got, err)
	}
	if _, err := Build(ctx, BuildOptions{State: d, Journal: j, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	if got, err := Tool(ctx, Options{State: d, Worktree: wt, Lang: i18n.EN, Now: fixtureNow}, "Edit", file, ""); err != nil || got != "" {
		t.Errorf("rebuilt after an edit went through: %q, %v; want no note", got, err)
	}
}

// TestPromptRecentFailure: a prompt about a command that failed minutes
// ago, before the recall file knew of it, gets the failure from the
// journal's end, also with no recall file at all.
func TestPromptRecentFailure(t *testing.T) {
	d, wt := writeFixture(t)
	j := journal.Open(d.Root, journal.Options{})
	exit := 101
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-4 * time.Minute), Event: "PostToolUseFailure", Tool: "Bash", Session: "now", Worktree: wt,
		Cmd: "cargo build --release", Exit: &exit, Error: "error: linker `cc` not found"})
	o := Options{State: d, Journal: j, Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	for _, missing := range []bool{false, true} {
		if missing {
			os.Remove(Path(d))
		}
		got, err := Prompt(context.Background(), o, "why did cargo build fail just now?")
		if err != nil || !strings.Contains(got, "`cargo build --release` failed (4 min ago, exit 101): error: linker `cc` not found") {
			t.Errorf("recall file missing %v: %q, %v", missing, got, err)
		}
		if got, err := Prompt(context.Background(), o, "write a cargo build script for a new crate"); err != nil || got != "" {
			t.Errorf("a prompt that only names the command, not its past: %q, %v", got, err)
		}
	}
}

// TestToolJournalRotating: while other sessions append and the journal
// rotates under the reader, the note still comes, without errors.
func TestToolJournalRotating(t *testing.T) {
	d, wt := writeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := journal.Open(d.Root, journal.Options{MaxSize: 8 << 10})
		for i := 0; ctx.Err() == nil; i++ {
			r := journal.Record{TS: fixtureNow, Event: "PostToolUse", Tool: "Bash", Session: "other", Worktree: wt, Cmd: fmt.Sprintf("echo %d", i)}
			if err := w.Append(r); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	o := Options{State: d, Journal: journal.Open(d.Root, journal.Options{MaxSize: 8 << 10}), Worktree: wt, Session: "now", Lang: i18n.EN, Now: fixtureNow}
	for range 100 {
		got, err := Tool(ctx, o, "Bash", "", "npm run build -- --minify")
		if err != nil || !strings.Contains(got, "npm ci && npm run build") {
			t.Errorf("while the journal rotates: %q, %v", got, err)
			break
		}
	}
	cancel()
	wg.Wait()
	if archived, _ := filepath.Glob(filepath.Join(d.Archive(), "*")); len(archived) == 0 {
		t.Errorf("the journal never rotated")
	}
}

// TestPromptFailedCommandWords: a prompt that asks to run a command again
// in words (the script's name, its subcommand, a loanword written in
// katakana) gets how it went last time, what worked after it, when and in
// which session; a prompt that only shares a word with it, or a
// repository with no such history, gets nothing of it.
func TestPromptFailedCommandWords(t *testing.T) {
	d, wt := writeFixture(t)
	ctx := context.Background()
	o := Options{State: d, Worktree: wt, Session: "now", Now: fixtureNow}
	deploy := []string{"`./deploy.sh staging`", "deploy: DB_URL is not set", "DB_URL=… ./deploy.sh staging", "5e1f0a11"}
	fires := []struct {
		lang   i18n.Lang
		prompt string
		want   []string
	}{
		{i18n.EN, "deploy to staging again", append([]string{"failed (", "What worked after:", ", in session 5e1f0a11"}, deploy...)},
		{i18n.EN, "ship it to staging again", deploy},
		{i18n.EN, "run the migration", []string{"`make migrate` failed", "0042_orders.sql"}},
		{i18n.EN, "Please rerun the migrations", []string{"`make migrate` failed"}},
		{i18n.JA, "デプロイして", append([]string{"が失敗（", "その後に成功した実行", "、セッション 5e1f0a11"}, deploy...)},
		{i18n.JA, "ステージングにもう一度デプロイ", deploy},
		{i18n.JA, "マイグレーションを実行して", []string{"`make migrate` が失敗"}},
	}
	for _, tt := range fires {
		o.Lang = tt.lang
		got, err := Prompt(ctx, o, tt.prompt)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: lacks %q:\n%s", tt.prompt, w, got)
			}
		}
		if !strings.Contains(got, "<<<quote ") {
			t.Errorf("%q: not a fenced recall block: %q", tt.prompt, got)
		}
		// The session named is where the command failed: it stands with
		// the failure, before what worked after it.
		if s, w := strings.Index(got, "5e1f0a11"), strings.Index(got, "DB_URL=…"); s >= 0 && w >= 0 && s > w {
			t.Errorf("%q: the session follows what worked after, as if that had run in it:\n%s", tt.prompt, got)
		}
	}
	o.Lang = i18n.EN
	for _, p := range []string{
		"explain how deploys work in general",
		"Write a deploy script for staging",
		"what does a database migration do?",
		"ステージング環境について説明して",
	} {
		got, err := Prompt(ctx, o, p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, "deploy.sh") || strings.Contains(got, "make migrate") {
			t.Errorf("%q shares a word with a failed command and asks nothing of it:\n%s", p, got)
		}
	}
	// It failed again minutes ago, after the recall file was written: the
	// journal's failure joins the file's, and what worked after still did.
	j := journal.Open(d.Root, journal.Options{})
	exit := 3
	mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-2 * time.Minute), Event: "PostToolUseFailure", Tool: "Bash", Session: "now", Worktree: wt,
		Cmd: "./deploy.sh staging", Exit: &exit, Error: "deploy: DB_URL is not set"})
	o.Journal = j
	got, err := Prompt(ctx, o, "deploy to staging again")
	if err != nil || !strings.Contains(got, "`./deploy.sh staging` failed (2 min ago, exit 3, 2 times, first at 2026-11-") || !strings.Contains(got, "What worked after: `DB_URL=… ./deploy.sh staging`") {
		t.Errorf("after a newer failure in the journal: %q, %v", got, err)
	}

	// Another repository: its own state folder, no failure history.
	other := t.TempDir()
	od := state.At(other)
	if err := os.MkdirAll(od.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, BuildOptions{State: od, Journal: journal.Open(od.Root, journal.Options{}), Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"deploy to staging again", "デプロイして"} {
		got, err := Prompt(ctx, Options{State: od, Journal: journal.Open(od.Root, journal.Options{}), Worktree: other, Lang: i18n.EN, Now: fixtureNow}, p)
		if err != nil || got != "" {
			t.Errorf("%q in a repository with no failures: %q, %v; want nothing", p, got, err)
		}
	}
}

// TestToolNoteSince: a command that keeps failing gets how many times and
// since when, counting the recall file's failures and the journal's newer
// ones.
func TestToolNoteSince(t *testing.T) {
	wt := t.TempDir()
	d := state.At(wt)
	if err := os.MkdirAll(d.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j := journal.Open(d.Root, journal.Options{})
	exit := 3
	yesterday := time.Date(2026, 11, 29, 10, 42, 0, 0, time.UTC)
	fail := func(at time.Time) {
		mustAppend(t, j, journal.Record{TS: at, Event: "PostToolUseFailure", Tool: "Bash", Session: "s1", Worktree: wt,
			Cmd: "./deploy.sh staging", Exit: &exit, Error: "deploy: DB_URL is not set"})
	}
	fail(yesterday)
	fail(yesterday.Add(time.Hour))
	if _, err := Build(ctx, BuildOptions{State: d, Journal: j, Now: fixtureNow.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	fail(fixtureNow.Add(-5 * time.Minute)) // newer than the recall file
	for _, tt := range []struct {
		lang i18n.Lang
		want string
	}{{i18n.EN, "exit 3, 3 times, first at 10:42 yesterday"}, {i18n.JA, "終了コード 3、3 回・初回 昨日 10:42"}} {
		got, err := Tool(ctx, Options{State: d, Journal: j, Worktree: wt, Lang: tt.lang, Now: fixtureNow}, "Bash", "", "./deploy.sh staging")
		if err != nil || !strings.Contains(got, tt.want) || !strings.Contains(got, "5 min") && !strings.Contains(got, "5 分前") {
			t.Errorf("%s: %q, %v; want %q", tt.lang, got, err, tt.want)
		}
	}
}

// TestWorkedBetweenFailures: a line that worked between two failures of
// the command still says what worked, once the recall file is rebuilt
// after the second; the failing line that worked before its last failure
// does not make it resolved.
func TestWorkedBetweenFailures(t *testing.T) {
	wt := t.TempDir()
	d := state.At(wt)
	if err := os.MkdirAll(d.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j := journal.Open(d.Root, journal.Options{})
	fail, ok := 3, 0
	add := func(ago time.Duration, event, cmd string, exit *int) {
		mustAppend(t, j, journal.Record{TS: fixtureNow.Add(-ago), Event: event, Tool: "Bash", Session: "s1", Worktree: wt, Cmd: cmd, Exit: exit, Error: "deploy: DB_URL is not set"})
	}
	add(3*time.Hour, "PostToolUseFailure", "./deploy.sh staging", &fail)
	add(170*time.Minute, "PostToolUse", "./deploy.sh staging", &ok)
	add(2*time.Hour, "PostToolUseFailure", "./deploy.sh staging", &fail)
	add(110*time.Minute, "PostToolUse", "DB_URL=… ./deploy.sh staging", &ok)
	add(time.Hour, "PostToolUseFailure", "./deploy.sh staging", &fail)
	if _, err := Build(ctx, BuildOptions{State: d, Journal: j, Now: fixtureNow}); err != nil {
		t.Fatal(err)
	}
	o := Options{State: d, Worktree: wt, Lang: i18n.EN, Now: fixtureNow}
	got, err := Prompt(ctx, o, "deploy to staging again")
	if err != nil || !strings.Contains(got, "exit 3, 3 times, first at 09:00") || !strings.Contains(got, "What worked after: `DB_URL=… ./deploy.sh staging`") {
		t.Errorf("prompt: %q, %v", got, err)
	}
	if got, err := Tool(ctx, o, "Bash", "", "./deploy.sh staging"); err != nil || !strings.Contains(got, "What worked after: `DB_URL=… ./deploy.sh staging`") {
		t.Errorf("tool note: %q, %v", got, err)
	}
}
