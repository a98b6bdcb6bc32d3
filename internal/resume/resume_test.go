package resume

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/quote/quotetest"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// now is the clock of every fixture: their records and state files are
// dated relative to it.
var now = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

func baseOptions(dir string) Options {
	return Options{
		State:    state.Dir{Root: dir},
		Worktree: "/repo", Main: "/repo", Branch: "main",
		Now:        now,
		Records:    30,
		Stale:      7 * 24 * time.Hour,
		ScanBytes:  4 << 20,
		BatonFiles: []string{"/home/u/.config/baton/config.yaml"},
	}
}

// fixture copies testdata/cases/<name> into a fresh state folder.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "cases", name)
	for _, f := range []string{"current.md", "auto.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	got = []byte(quotetest.Masked(string(got)))
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant (%s)\n%s", got, path, want)
	}
}

// want is what a case's --json must say, field by field. A nil pointer
// field is expected to be JSON null.
type want struct {
	source       Source
	task         string
	updated      *string
	status       string
	stale        bool
	broken       bool
	now, next    []string
	lastActivity *string
	age          *int64
	records      int
	topFiles     []FileCount
	commands     []string
	setupOnly    bool
	other        map[string]any
}

func str(s string) *string { return &s }
func num(n int64) *int64   { return &n }

func TestBuild(t *testing.T) {
	journalOnlyFiles := []FileCount{
		{"internal/export/csv.go", 6}, {"internal/export/writer.go", 4}, {"/etc/hosts", 3},
		{".claude/session-state/current.md", 2}, {"internal", 2},
	}
	journalOnlyCommands := []string{"go vet ./...", "git diff --stat", "go test ./internal/export/"}
	tests := []struct {
		name    string
		fixture string // folder under testdata/cases; the name when empty
		opts    func(*Options)
		want    want
	}{
		{
			name: "state-in-progress",
			want: want{
				source: FromState, task: "エクスポート機能のリファクタ R3", updated: str("2026-05-10T18:00:00+09:00"), status: "in_progress",
				now:  []string{"CSV 出力のストリーミング化", "メモリ使用量の計測"},
				next: []string{"writer を io.Writer 受けにする"},
				// The journal is older than the state file: no extra line.
				lastActivity: str("2026-05-10T08:00:00Z"), age: num(4 * 3600), records: 1,
				topFiles: []FileCount{{"internal/export/csv.go", 1}}, commands: []string{},
			},
		},
		{
			name: "state-and-newer-journal",
			want: want{
				source: FromState, task: "エクスポート機能のリファクタ R3", updated: str("2026-05-10T16:00:00+09:00"), status: "in_progress",
				now:          []string{"CSV 出力のストリーミング化", "メモリ使用量の計測"},
				next:         []string{"writer を io.Writer 受けにする"},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 30,
				topFiles: journalOnlyFiles, commands: journalOnlyCommands,
			},
		},
		{
			name: "state-stale",
			want: want{
				source: FromState, task: "Refactor the export", updated: str("2026-05-01T09:00:00Z"), status: "in_progress", stale: true,
				now: []string{"streaming CSV"}, next: []string{"switch the writer", "add tests"},
				topFiles: []FileCount{}, commands: []string{},
			},
		},
		{
			name: "state-stale-configured", fixture: "state-stale",
			opts: func(o *Options) { o.Stale = 10 * 24 * time.Hour },
			want: want{
				source: FromState, task: "Refactor the export", updated: str("2026-05-01T09:00:00Z"), status: "in_progress",
				now: []string{"streaming CSV"}, next: []string{"switch the writer", "add tests"},
				topFiles: []FileCount{}, commands: []string{},
			},
		},
		{
			name: "state-completed",
			want: want{
				source: FromJournal, task: "エクスポート機能のリファクタ R3", updated: str("2026-05-10T18:00:00+09:00"), status: "completed",
				now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 30,
				topFiles: journalOnlyFiles, commands: journalOnlyCommands,
			},
		},
		{
			name: "state-broken-yaml",
			want: want{
				source: FromJournal, broken: true, now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 30,
				topFiles: journalOnlyFiles, commands: journalOnlyCommands,
			},
		},
		{
			name: "state-no-frontmatter",
			want: want{
				source: FromJournal, broken: true, now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 30,
				topFiles: journalOnlyFiles, commands: journalOnlyCommands,
			},
		},
		{
			name: "state-unknown-status",
			want: want{source: FromNothing, broken: true, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{}},
		},
		{
			name: "journal-only",
			want: want{
				source: FromJournal, now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 30,
				topFiles: journalOnlyFiles, commands: journalOnlyCommands,
			},
		},
		{
			name: "journal-records-configured", fixture: "journal-only",
			opts: func(o *Options) { o.Records = 3 },
			want: want{
				source: FromJournal, now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T11:51:00Z"), age: num(540), records: 3,
				topFiles: []FileCount{{"/etc/hosts", 1}, {".claude/session-state/current.md", 1}}, commands: []string{"go vet ./..."},
			},
		},
		{
			name: "journal-few-torn",
			want: want{
				source: FromJournal, now: []string{}, next: []string{},
				lastActivity: str("2026-05-08T11:00:00Z"), age: num(2*86400 + 3600), records: 3,
				topFiles: []FileCount{{"b.go", 1}, {"a.go", 1}}, commands: []string{"make build"},
			},
		},
		{
			name: "journal-setup-only",
			want: want{
				source: FromJournal, now: []string{}, next: []string{}, setupOnly: true,
				lastActivity: str("2026-05-09T10:06:00Z"), age: num(25*3600 + 54*60), records: 6,
				topFiles: []FileCount{
					{".claude/session-state/current.md", 2}, {"/home/u/.config/baton/config.yaml", 1}, {".baton.yaml", 1},
				},
				commands: []string{"baton save --task 'x'"},
			},
		},
		{
			name: "journal-setup-after-work",
			want: want{
				source: FromJournal, now: []string{}, next: []string{},
				lastActivity: str("2026-05-09T10:06:00Z"), age: num(25*3600 + 54*60), records: 8,
				topFiles: []FileCount{
					{".claude/session-state/current.md", 2}, {"/home/u/.config/baton/config.yaml", 1}, {".baton.yaml", 1}, {"main.go", 1},
				},
				commands: []string{"baton save --task 'x'", "go test ./..."},
			},
		},
		{
			name: "legacy-records",
			want: want{
				source: FromJournal, now: []string{}, next: []string{},
				lastActivity: str("2026-05-10T09:00:00Z"), age: num(3 * 3600), records: 4,
				topFiles: []FileCount{{"src/app.ts", 2}, {"src/util.ts", 1}}, commands: []string{"npm test"},
			},
		},
		{
			// Records that name no worktree belong to the main one.
			name: "legacy-records-linked-worktree", fixture: "legacy-records",
			opts: func(o *Options) { o.Worktree = "/repo-wt2" },
			want: want{
				source: FromNothing, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{},
				other: map[string]any{"worktree": "/repo", "branch": "", "last_activity": "2026-05-10T09:00:00Z"},
			},
		},
		{
			name: "other-worktree",
			want: want{
				source: FromNothing, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{},
				other: map[string]any{"worktree": "/repo-wt2", "branch": "feat/x", "last_activity": "2026-05-10T10:00:00Z"},
			},
		},
		{
			name: "other-worktree-old",
			want: want{source: FromNothing, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{}},
		},
		{
			name: "beyond-scan-bound",
			opts: func(o *Options) { o.ScanBytes = 4096 },
			want: want{
				source: FromNothing, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{},
				other: map[string]any{"worktree": "/repo-wt2", "branch": "feat/x", "last_activity": "2026-05-10T08:01:39Z"},
			},
		},
		{
			name: "empty",
			want: want{source: FromNothing, now: []string{}, next: []string{}, topFiles: []FileCount{}, commands: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := tt.fixture
			if fx == "" {
				fx = tt.name
			}
			dir := fixture(t, fx)
			before, _ := os.ReadFile(filepath.Join(dir, "current.md"))
			o := baseOptions(dir)
			if tt.opts != nil {
				tt.opts(&o)
			}
			brief := func(lang i18n.Lang) *Brief {
				br, err := BuildBrief(context.Background(), BriefOptions{Options: o, Lang: lang, Budget: 10000, Own: true, Pulls: recall.Pulls{MCP: true}})
				if err != nil {
					t.Fatalf("BuildBrief: %v", err)
				}
				return br
			}
			en, ja := brief(i18n.EN), brief(i18n.JA)
			if after, _ := os.ReadFile(filepath.Join(dir, "current.md")); !bytes.Equal(after, before) {
				t.Errorf("current.md changed:\n%s\nwant\n%s", after, before)
			}

			out, err := en.JSON()
			if err != nil {
				t.Fatal(err)
			}
			checkJSON(t, out, tt.want)

			// The state folder is a temporary one: goldens call it $STATE.
			golden := filepath.Join("testdata", "cases", fx, tt.name)
			fix := func(s string) []byte { return []byte(strings.ReplaceAll(s, dir, "$STATE") + "\n") }
			checkGolden(t, golden+".ja.golden", fix(ja.Text))
			checkGolden(t, golden+".en.golden", fix(en.Text))
			checkGolden(t, golden+".json.golden", fix(string(out)))
		})
	}
}

// checkJSON decodes the --json output and compares it with w field by field.
func checkJSON(t *testing.T, out []byte, w want) {
	t.Helper()
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	// Round-trip w through JSON so numbers and lists compare as decoded.
	norm := func(v any) any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	fields := map[string]any{
		"source": string(w.source), "task": w.task, "updated": w.updated, "status": w.status,
		"stale": w.stale, "state_file_broken": w.broken, "now": w.now, "next": w.next,
		"last_activity": w.lastActivity, "last_activity_age_seconds": w.age, "records": w.records,
		"top_files": w.topFiles, "commands": w.commands, "setup_only": w.setupOnly,
		"worktree": "/repo", "branch": "main",
	}
	if w.other != nil {
		fields["other_worktree"] = w.other
	} else {
		fields["other_worktree"] = nil
	}
	for k, v := range fields {
		if k == "worktree" {
			continue // set by the case's options
		}
		if g, wv := got[k], norm(v); !reflect.DeepEqual(g, wv) {
			t.Errorf("%s = %v; want %v", k, g, wv)
		}
	}
	if _, ok := got["text"].(string); !ok {
		t.Errorf("text = %v; want a string", got["text"])
	}
	if got["source"] != string(FromNothing) && got["text"] == "" {
		t.Errorf("text is empty for source %v", got["source"])
	}
}

func TestMayBeActivityOf(t *testing.T) {
	tests := []struct {
		name, worktree, line string
		want                 bool
	}{
		{name: "this worktree", worktree: "/repo", line: `{"tool":"Edit","event":"PostToolUse","worktree":"/repo"}`, want: true},
		{name: "this worktree, spaced", worktree: "/repo", line: `{"tool": "Edit", "worktree": "/repo"}`, want: true},
		{name: "another worktree", worktree: "/repo", line: `{"tool":"Edit","worktree":"/repo-wt2"}`, want: false},
		{name: "no worktree: the main one's", worktree: "/repo", line: `{"tool":"Edit","file":"a.go"}`, want: true},
		{name: "empty worktree: the main one's", worktree: "/repo", line: `{"tool":"Edit","worktree":""}`, want: true},
		{name: "escaped slashes", worktree: "/repo", line: `{"tool":"Edit","worktree":"\/repo"}`, want: true},
		{name: "key in other case", worktree: "/repo", line: `{"Tool":"Edit","Worktree":"/repo"}`, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mayBeActivityOf(tt.worktree)([]byte(tt.line)); got != tt.want {
				t.Errorf("mayBeActivityOf(%q)(%s) = %t; want %t", tt.worktree, tt.line, got, tt.want)
			}
		})
	}
	for _, wt := range []string{"", "/home/me/プロジェクト", `C:\\repo`, "/a&b"} {
		if mayBeActivityOf(wt) != nil {
			t.Errorf("mayBeActivityOf(%q) is a filter; want none for a path JSON may write otherwise", wt)
		}
	}
}

// TestFirstStartAfterUpgrade: a worktree worked on under an older baton
// has its work only in the journal. The first hook call of a newer baton
// starts the worktree's own records file (with the SessionStart it is
// briefing); that young file must not hide the work the journal holds.
func TestFirstStartAfterUpgrade(t *testing.T) {
	dir := fixture(t, "journal-only")
	o := baseOptions(dir)
	before, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if before.Records == 0 || len(before.TopFiles) == 0 {
		t.Fatalf("the fixture's journal gives %d records, files %+v; want some", before.Records, before.TopFiles)
	}
	wt := wtstate.At(o.State.Base(), o.State.WorktreeDir(o.Worktree))
	start := journal.Record{TS: now, Event: "SessionStart", Session: "new", Source: "startup", Worktree: o.Worktree, Branch: "main"}
	if err := wt.Observe(wtstate.Event{Record: start}); err != nil {
		t.Fatal(err)
	}
	after, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if after.Source != before.Source || after.Records != before.Records || !reflect.DeepEqual(after.TopFiles, before.TopFiles) || !reflect.DeepEqual(after.Commands, before.Commands) {
		t.Errorf("after the first start: source %s, %d records, files %+v, commands %q; want what the journal gave: %s, %d, %+v, %q",
			after.Source, after.Records, after.TopFiles, after.Commands, before.Source, before.Records, before.TopFiles, before.Commands)
	}
}

// TestUnreadableWorktreeFiles: the worktree's own files cannot be read (a
// folder in their place): the briefing still comes, from the journal.
func TestUnreadableWorktreeFiles(t *testing.T) {
	dir := fixture(t, "journal-only")
	o := baseOptions(dir)
	want, err := Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	wt := o.State.WorktreeDir(o.Worktree)
	for _, name := range []string{"records.jsonl", "state.json"} {
		if err := os.MkdirAll(filepath.Join(wt, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Build(context.Background(), o)
	if err != nil {
		t.Fatalf("Build: %v; want the journal's briefing", err)
	}
	if got.Source != want.Source || got.Records != want.Records || !reflect.DeepEqual(got.TopFiles, want.TopFiles) {
		t.Errorf("source %s, %d records, files %+v; want %s, %d, %+v", got.Source, got.Records, got.TopFiles, want.Source, want.Records, want.TopFiles)
	}
}
