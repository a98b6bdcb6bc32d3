package wtstate

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestNewTask(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"new task: write the tokenizer", "write the tokenizer", true},
		{"  New Task : port the parser ", "port the parser", true},
		{"NEW TASK:x", "x", true},
		{"次のタスク: ログイン画面", "ログイン画面", true},
		{"次のタスク：ログイン画面", "ログイン画面", true},
		{"新しいタスク：検索", "検索", true},
		{"new task:", "", false},
		{"a new task: no", "", false},
		{"new tasks are fun", "", false},
		{"次のタスクは何？", "", false},
	}
	for _, tt := range tests {
		got, ok := NewTask(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NewTask(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// step is one hook call in a scenario.
type step struct {
	event, session, source, prompt string
}

func run(t *testing.T, d Dir, steps []step) {
	t.Helper()
	for i, s := range steps {
		r := journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: s.event, Session: s.session, Source: s.source, Prompt: s.prompt}
		if err := d.Observe(Event{Record: r, Prompt: s.prompt}); err != nil {
			t.Fatalf("step %d %+v: %v", i, s, err)
		}
	}
}

func TestTaskSurvivesTheChain(t *testing.T) {
	long := strings.Repeat("あ", 1500)
	tests := []struct {
		name     string
		steps    []step
		want     string
		previous string
	}{
		{"opening prompt", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"UserPromptSubmit", "s1", "", "now run the tests"},
		}, "write the tokenizer", ""},
		{"kept across compaction, resume and clear", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"SessionStart", "s1", "compact", ""},
			{"UserPromptSubmit", "s1", "", "go on"},
			{"SessionEnd", "s1", "", ""},
			{"SessionStart", "s1", "resume", ""},
			{"UserPromptSubmit", "s1", "", "continue"},
			{"SessionStart", "s2", "clear", ""},
			{"UserPromptSubmit", "s2", "", "fix the lint"},
		}, "write the tokenizer", ""},
		{"slash command is no task", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "/compact"},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
		}, "write the tokenizer", ""},
		{"explicit new task replaces", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"UserPromptSubmit", "s1", "", "次のタスク: パーサを直す"},
			{"SessionStart", "s1", "compact", ""},
			{"UserPromptSubmit", "s1", "", "go on"},
		}, "パーサを直す", "write the tokenizer"},
		{"a fresh start opens a new chain", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"SessionEnd", "s1", "", ""},
			{"SessionStart", "s2", "startup", ""},
			{"UserPromptSubmit", "s2", "", "update the docs"},
		}, "update the docs", "write the tokenizer"},
		{"hooks installed mid-session: no start seen", []step{
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"Stop", "s1", "", ""},
			{"UserPromptSubmit", "s1", "", "now run the tests"},
		}, "write the tokenizer", ""},
		{"capped", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "次のタスク：" + long},
		}, strings.Repeat("あ", MaxTask-1) + "…", ""},
		{"a greeting in a fresh session keeps the task", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"SessionEnd", "s1", "", ""},
			{"SessionStart", "s2", "startup", ""},
			{"UserPromptSubmit", "s2", "", "hello"},
			{"UserPromptSubmit", "s2", "", "which port did we pick for the server?"},
			{"SessionEnd", "s2", "", ""},
			{"SessionStart", "s2", "resume", ""},
			{"UserPromptSubmit", "s2", "", "go on"},
		}, "write the tokenizer", ""},
		{"new work after a greeting replaces it once", []step{
			{"SessionStart", "s1", "startup", ""},
			{"UserPromptSubmit", "s1", "", "write the tokenizer"},
			{"SessionEnd", "s1", "", ""},
			{"SessionStart", "s2", "startup", ""},
			{"UserPromptSubmit", "s2", "", "こんにちは"},
			{"UserPromptSubmit", "s2", "", "CSVエクスポート機能を作って、日付の範囲で絞り込めるようにして"},
			{"UserPromptSubmit", "s2", "", "add a test for the empty range"},
		}, "CSVエクスポート機能を作って、日付の範囲で絞り込めるようにして", "write the tokenizer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := At("", t.TempDir())
			run(t, d, tt.steps)
			s, err := d.Read()
			if err != nil {
				t.Fatal(err)
			}
			if s.Task == nil || s.Task.Text != tt.want {
				t.Fatalf("task = %+v; want %q", s.Task, tt.want)
			}
			prev := ""
			if s.Previous != nil {
				prev = s.Previous.Text
			}
			if prev != tt.previous {
				t.Errorf("previous task = %q; want %q", prev, tt.previous)
			}
		})
	}
}

func TestTaskRedacted(t *testing.T) {
	d := At("", t.TempDir())
	run(t, d, []step{{"SessionStart", "s1", "startup", ""}, {"UserPromptSubmit", "s1", "", "deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}})
	s, _ := d.Read()
	if s.Task == nil || strings.Contains(s.Task.Text, "ghp_abcdefghijklmnop") {
		t.Errorf("task = %+v; want the token redacted", s.Task)
	}
}

func TestRecordsCut(t *testing.T) {
	d := At("", t.TempDir())
	const writers, each = 4, 400
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := journal.Record{TS: t0, Event: "PostToolUse", Tool: "Bash", Session: fmt.Sprint(w), Desc: fmt.Sprintf("%d %s", i, strings.Repeat("x", 200))}
				if err := d.AppendRecord(r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	fi, err := os.Stat(filepath.Join(d.Path(), recordsName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > MaxRecords {
		t.Errorf("records.jsonl is %d bytes; want at most %d", fi.Size(), MaxRecords)
	}
	recs, err := d.Records()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 100 {
		t.Fatalf("%d records kept; want over 100", len(recs))
	}
	// Every line is whole, and the newest record written is the last.
	for _, r := range recs {
		if r.Event != "PostToolUse" || r.Tool != "Bash" {
			t.Fatalf("torn record %+v", r)
		}
	}
	if got := strings.Fields(recs[len(recs)-1].Desc)[0]; got != fmt.Sprint(each-1) {
		t.Errorf("newest kept record is number %s; want %d", got, each-1)
	}
}

func TestRecordsMissingOrDamaged(t *testing.T) {
	d := At("", t.TempDir())
	if recs, err := d.Records(); err != nil || recs != nil {
		t.Errorf("Records of a missing file = %v, %v; want none", recs, err)
	}
	os.WriteFile(filepath.Join(d.Path(), recordsName), []byte("not json\n{\"event\":\"Stop\"}\n{\"ev"), 0o600)
	recs, err := d.Records()
	if err != nil || len(recs) != 1 || recs[0].Event != "Stop" {
		t.Errorf("Records = %+v, %v; want the one whole record", recs, err)
	}
	os.WriteFile(filepath.Join(d.Path(), stateName), []byte("{broken"), 0o600)
	if s, err := d.Read(); err != nil || s.Task != nil || len(s.Sessions) != 0 {
		t.Errorf("Read of a damaged state = %+v, %v; want empty", s, err)
	}
}

// exited returns a process that ran and has exited.
func exited(t *testing.T) Process {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return Process{PID: cmd.Process.Pid}
}

// zombie returns a child process that has exited and is not yet waited for.
func zombie(t *testing.T) Process {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() })
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if st, ok := procStat(cmd.Process.Pid); ok && st.state == 'Z' {
			return Process{PID: cmd.Process.Pid, Start: st.start}
		}
	}
	t.Fatal("the child did not exit")
	return Process{}
}

func self(t *testing.T) Process {
	st, ok := procStat(os.Getpid())
	if !ok {
		t.Skip("no /proc")
	}
	return Process{PID: os.Getpid(), Start: st.start}
}

func TestOthers(t *testing.T) {
	me := self(t)
	reused := Process{PID: me.PID, Start: me.Start + 1} // same pid, another process
	tests := []struct {
		name      string
		sessions  []Session
		crashed   string
		liveCount int
	}{
		{"parallel live session is no crash", []Session{
			{ID: "a", Started: t0, Agent: me},
			{ID: "cur", Started: t0.Add(time.Hour), Agent: me},
		}, "", 1},
		{"ended cleanly", []Session{
			{ID: "a", Started: t0, Agent: exited(t), Ended: true},
		}, "", 0},
		{"process gone without SessionEnd", []Session{
			{ID: "a", Started: t0, Agent: exited(t)},
		}, "a", 0},
		{"pid reused by another process", []Session{
			{ID: "a", Started: t0, Agent: reused},
		}, "a", 0},
		{"older crash behind a clean session", []Session{
			{ID: "a", Started: t0, Agent: exited(t)},
			{ID: "b", Started: t0.Add(time.Hour), Agent: exited(t), Ended: true},
		}, "", 0},
		{"crash beside a live session", []Session{
			{ID: "a", Started: t0, Agent: exited(t)},
			{ID: "b", Started: t0.Add(time.Hour), Agent: me},
		}, "a", 1},
		{"exited, not yet reaped", []Session{
			{ID: "a", Started: t0, Agent: zombie(t)},
		}, "a", 0},
		{"unknown process is not called crashed", []Session{
			{ID: "a", Started: t0},
		}, "", 0},
		{"process of another pid namespace is not called crashed", []Session{
			{ID: "a", Started: t0, Agent: Process{PID: exited(t).PID, NS: pidNS() + 1}},
		}, "", 0},
		{"process of this pid namespace gone", []Session{
			{ID: "a", Started: t0, Agent: Process{PID: exited(t).PID, NS: pidNS()}},
		}, "a", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := State{Sessions: tt.sessions}
			crashed, live := s.Others("cur")
			got := ""
			if crashed != nil {
				got = crashed.ID
			}
			if got != tt.crashed || len(live) != tt.liveCount {
				t.Errorf("crashed %q, %d live; want %q, %d", got, len(live), tt.crashed, tt.liveCount)
			}
		})
	}
}

func TestSessionEntries(t *testing.T) {
	d := At("", t.TempDir())
	agent := Process{PID: 4242, Start: 7}
	obs := func(r journal.Record, msg string) {
		t.Helper()
		if err := d.Observe(Event{Record: r, Message: msg, Agent: agent}); err != nil {
			t.Fatal(err)
		}
	}
	obs(journal.Record{TS: t0, Event: "SessionStart", Session: "s1", Source: "startup", Branch: "main"}, "")
	obs(journal.Record{TS: t0.Add(time.Minute), Event: "Stop", Session: "s1", Transcript: "/t/s1.jsonl", Offset: 900}, "Next I will write the tokenizer. "+strings.Repeat("x", 3000))
	obs(journal.Record{TS: t0.Add(2 * time.Minute), Event: "PreCompact", Session: "s1", Trigger: "manual", Transcript: "/t/s1.jsonl", Offset: 1200}, "")
	obs(journal.Record{TS: t0.Add(3 * time.Minute), Event: "SessionStart", Session: "s1", Source: "compact"}, "")
	s, _ := d.Read()
	ss := s.Session("s1")
	if ss == nil {
		t.Fatal("no entry for s1")
	}
	if ss.Agent != agent || ss.Offset != 1200 || ss.Trigger != "manual" || ss.Ended || ss.LastEvent != "PreCompact" {
		t.Errorf("entry %+v", *ss)
	}
	if n := len([]rune(ss.Message)); n != MaxMessage || !strings.HasPrefix(ss.Message, "Next I will") {
		t.Errorf("message has %d characters; want the first %d", n, MaxMessage)
	}
	obs(journal.Record{TS: t0.Add(4 * time.Minute), Event: "SessionEnd", Session: "s1", Reason: "other"}, "")
	s, _ = d.Read()
	if ss := s.Session("s1"); !ss.Ended || ss.Reason != "other" {
		t.Errorf("after SessionEnd: %+v", *ss)
	}
	recs, _ := d.Records()
	if len(recs) != 5 {
		t.Errorf("%d records kept; want 5", len(recs))
	}
}

func TestSessionsBounded(t *testing.T) {
	d := At("", t.TempDir())
	for i := range MaxSessions + 10 {
		r := journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: "SessionStart", Session: fmt.Sprint("s", i), Source: "startup"}
		if err := d.Observe(Event{Record: r}); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := d.Read()
	if len(s.Sessions) != MaxSessions || s.Session(fmt.Sprint("s", MaxSessions+9)) == nil || s.Session("s0") != nil {
		t.Errorf("%d sessions kept; want the newest %d", len(s.Sessions), MaxSessions)
	}
}

func TestAgentIsAnAncestor(t *testing.T) {
	a := Agent()
	if a.PID != os.Getppid() {
		if st, ok := procStat(os.Getppid()); !ok || st.ppid != a.PID {
			t.Errorf("Agent() = %d; want the parent %d or its parent", a.PID, os.Getppid())
		}
	}
	if alive, known := a.Alive(); !alive || !known {
		t.Errorf("the agent process %+v is not alive", a)
	}
	if ns := pidNS(); ns != 0 && a.NS != ns {
		t.Errorf("Agent().NS = %d; want this pid namespace, %d", a.NS, ns)
	}
}

// TestCrashToldOnce: a session dies while another runs beside it and ends
// cleanly; the next start is told of the crash, and the one after it is not.
func TestCrashToldOnce(t *testing.T) {
	d := At("", t.TempDir())
	a := exec.Command("sleep", "60")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Process.Kill()
	st, _ := procStat(a.Process.Pid)
	agentA := Process{PID: a.Process.Pid, Start: st.start}
	me := self(t)
	start := func(i int, session string, p Process) {
		t.Helper()
		r := journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: "SessionStart", Session: session, Source: "startup"}
		if err := d.Observe(Event{Record: r, Agent: p}); err != nil {
			t.Fatal(err)
		}
	}
	end := func(i int, session string) {
		t.Helper()
		if err := d.Observe(Event{Record: journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: "SessionEnd", Session: session}}); err != nil {
			t.Fatal(err)
		}
	}
	others := func(current string) (string, int) {
		s, _ := d.Read()
		c, live := s.Others(current)
		if c == nil {
			return "", len(live)
		}
		return c.ID, len(live)
	}

	start(0, "A", agentA)
	start(1, "B", me)
	if c, live := others("B"); c != "" || live != 1 {
		t.Fatalf("beside a running A: crashed %q, %d live; want none and A live", c, live)
	}
	a.Process.Kill()
	a.Wait()
	end(2, "B")
	start(3, "C", me)
	if c, _ := others("C"); c != "A" {
		t.Errorf("after A died: crashed %q; want A", c)
	}
	end(4, "C")
	start(5, "D", me)
	if c, _ := others("D"); c != "" {
		t.Errorf("at the start after that: crashed %q; want none (told once)", c)
	}
}

// TestRecordsCutKeepsWholeWindow: when the cut falls on a line's start,
// that line is whole and kept.
func TestRecordsCutKeepsWholeWindow(t *testing.T) {
	d := At("", t.TempDir())
	const size = 256 // KeepRecords is a multiple of it
	rec := func(i int) journal.Record {
		r := journal.Record{TS: t0, Event: "PostToolUse", Tool: "Bash", Desc: fmt.Sprintf("%04d ", i)}
		b, _ := json.Marshal(r)
		r.Desc += strings.Repeat("x", size-len(b)-1)
		return r
	}
	n := MaxRecords/size + 1
	for i := range n {
		if err := d.AppendRecord(rec(i)); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := d.Records()
	if err != nil {
		t.Fatal(err)
	}
	if want := KeepRecords / size; len(recs) != want {
		t.Errorf("%d records kept after the cut; want the newest %d (%d bytes)", len(recs), want, KeepRecords)
	}
}

// prompt is one row of testdata/opening_prompts*.tsv.
type prompt struct {
	file, label, lang, text string
}

func readPrompts(t testing.TB, names ...string) []prompt {
	t.Helper()
	var out []prompt
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				t.Fatalf("%s: %q: want 3 tab-separated columns", name, line)
			}
			out = append(out, prompt{name, f[0], f[1], f[2]})
		}
	}
	return out
}

// TestOpeningPrompts runs each opening prompt of the fixed list (and of
// baton's own) as the first prompt of a fresh session in a worktree whose
// task was set before, and in one that has none yet: a chat prompt never
// becomes the task, an explicit one always does, work is recognised as new
// work and names the task before it.
func TestOpeningPrompts(t *testing.T) {
	const earlier = "Write the tokenizer for the query language"
	prompts := readPrompts(t, "opening_prompts.tsv", "opening_prompts_more.tsv")
	type tally struct{ total, task int }
	counts := map[string]*tally{}
	for _, p := range prompts {
		key := p.file + " " + p.label
		if counts[key] == nil {
			counts[key] = &tally{}
		}
		c := counts[key]
		c.total++
		want := p.text
		if text, ok := NewTask(p.text); ok {
			want = text
		}
		for _, before := range []bool{true, false} {
			d := At("", t.TempDir())
			var steps []step
			if before {
				steps = []step{
					{"SessionStart", "s1", "startup", ""},
					{"UserPromptSubmit", "s1", "", "new task: " + earlier},
					{"SessionEnd", "s1", "", ""},
				}
			}
			run(t, d, append(steps, step{"SessionStart", "s2", "startup", ""}, step{"UserPromptSubmit", "s2", "", p.text}))
			s, err := d.Read()
			if err != nil {
				t.Fatal(err)
			}
			became := s.Task != nil && s.Task.Session == "s2"
			if before {
				if became {
					c.task++
				}
				switch {
				case became && (s.Task.Text != want || s.Previous == nil || s.Previous.Text != earlier):
					t.Errorf("%s %q: task %+v, previous %+v; want %q, previous %q", key, p.text, s.Task, s.Previous, want, earlier)
				case !became && (s.Task == nil || s.Task.Text != earlier):
					t.Errorf("%s %q: task %+v; want the earlier one kept", key, p.text, s.Task)
				}
			}
			switch {
			case p.label == "chat" && became:
				t.Errorf("%s %q became the task (task before it: %v)", key, p.text, before)
			case p.label == "explicit" && !became:
				t.Errorf("%s %q did not become the task (task before it: %v)", key, p.text, before)
			case p.label == "work" && !became:
				t.Logf("%s %q not recognised as new work (task before it: %v)", key, p.text, before)
			}
		}
	}
	for key, c := range counts {
		t.Logf("%s: %d of %d became the task", key, c.task, c.total)
	}
	if c := counts["opening_prompts.tsv work"]; c == nil || c.task < workRecognised {
		t.Errorf("work prompts recognised: %+v; want at least %d", c, workRecognised)
	}
}

// workRecognised is how many of opening_prompts.tsv's 18 work prompts
// IsWork recognises; a change that recognises fewer fails.
const workRecognised = 18

func FuzzIsWork(f *testing.F) {
	for _, s := range []string{"hello", "Add a /health endpoint", "ログイン画面を直して", "/compact fix it", "can you set up CI?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		work := IsWork(p)
		if strings.HasPrefix(strings.TrimSpace(p), "/") && work {
			t.Errorf("IsWork(%q) = true; want a slash command never work", p)
		}
		if IsWork(p) != work {
			t.Errorf("IsWork(%q) changed between calls", p)
		}
	})
}

// BenchmarkIsWork measures the rule on the fixed list's prompts, as the
// prompt hook runs it.
func BenchmarkIsWork(b *testing.B) {
	prompts := readPrompts(b, "opening_prompts.tsv")
	b.ResetTimer()
	for i := range b.N {
		IsWork(prompts[i%len(prompts)].text)
	}
}
