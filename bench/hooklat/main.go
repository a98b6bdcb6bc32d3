// Command hooklat measures whole-process latency of a hook call as Claude
// Code sees it (fork, exec, read stdin, append, exit): baton-hook and
// `baton hook` against a bare `cat >/dev/null` exec measured in the same run,
// interleaved so that all see the same machine load. It prints median and p95
// of each and their ratio to cat.
//
//	go build -o /tmp/bin/ ./cmd/...
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -baton /tmp/bin/baton -n 500
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -event SessionStart -journal /tmp/bench/auto-1g.jsonl
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -event UserPromptSubmit -journal /tmp/bench/auto-1g.jsonl \
//	    -transcripts /tmp/bench/projects -recall
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -before /tmp/old/baton-hook -event PostToolUse
//
// With -recall it first writes approved decisions (-decisions) and builds the
// recall file from them and the journal, as `baton context recall` does, so
// that UserPromptSubmit (-prompt) and PreToolUse (a Bash call of -command)
// are measured answering from it. Before timing it prints what one call of
// the hook wrote, so a run says whether it measured an answer or silence.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/cue"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/teammem/teammemtest"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hooklat:", err)
		os.Exit(1)
	}
}

func run() error {
	baton := flag.String("baton", "", "baton binary, to measure `baton hook` too")
	hookBin := flag.String("hook", "baton-hook", "baton-hook binary")
	n := flag.Int("n", 300, "runs of each command")
	event := flag.String("event", "PostToolUse", "hook event to send")
	journalFile := flag.String("journal", "", "journal to copy in as auto.jsonl first (e.g. a generated 1 GB one)")
	prompt := flag.String("prompt", "what did we decide about the journal tail and the hook session?", "the prompt of a UserPromptSubmit")
	command := flag.String("command", "go test ./...", "the Bash command of a PreToolUse or PostToolUse")
	withRecall := flag.Bool("recall", false, "write decisions and build the recall file first")
	decisions := flag.Int("decisions", 300, "approved decisions to write with -recall")
	noRecall := flag.Bool("no-recall", false, "turn the recall off in the repository's configuration (context.recall: false), to measure without it")
	transcripts := flag.String("transcripts", "", "a folder of transcript projects (bench/gen transcripts) to put under the run's ~/.claude/projects")
	worktreeRecords := flag.Int("worktree", 0, "records to seed the worktree's own files with first (its records.jsonl keeps at most 128 KiB), with 32 sessions")
	shared := flag.Int("shared", 0, "entries teammates shared to seed the view a sync leaves with first (decisions, branch states of 500 branches, this one's included, and retractions)")
	current := flag.String("current", "", "write a current.md in progress first: \"untracked\" (as baton save leaves it) or \"tracked\" (added to git, as a cloned repository brings it); the repository gets 600 tracked files either way")
	var before []string
	flag.Func("before", "another baton-hook binary (an earlier build) to measure in the same run, interleaved; may be repeated", func(s string) error {
		before = append(before, s)
		return nil
	})
	statusLine := flag.Bool("statusline", false, "measure the status line (baton-hook statusline) instead of a hook, after a SessionStart and a status file")
	flag.Parse()

	repo, err := os.MkdirTemp("", "hooklat-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(repo)
	if out, err := exec.Command("git", "init", "-q", "-b", "main", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	stateDir := filepath.Join(repo, ".claude", "session-state")
	if *journalFile != "" {
		if err := os.MkdirAll(stateDir, 0o700); err != nil {
			return err
		}
		// A hard link or a copy. The hook only appends; the run's records
		// are cut off again at the end, so that the next run reads the
		// generated records and not this run's.
		dst := filepath.Join(stateDir, "auto.jsonl")
		fi, err := os.Stat(*journalFile)
		if err != nil {
			return err
		}
		if err := os.Link(*journalFile, dst); err != nil {
			if err := copyFile(*journalFile, dst); err != nil {
				return err
			}
		}
		defer os.Truncate(dst, fi.Size())
		// Keep the big file from rotating away during the run.
		conf := "journal:\n  max_size: 64GiB\n"
		if *noRecall {
			conf += "context:\n  recall: false\n"
		}
		if err := os.WriteFile(filepath.Join(repo, ".baton.yaml"), []byte(conf), 0o644); err != nil {
			return err
		}
	}
	if *transcripts != "" {
		if err := linkTranscripts(*transcripts, repo); err != nil {
			return err
		}
	}
	if *withRecall {
		if err := seedRecall(repo, stateDir, *decisions, *command); err != nil {
			return err
		}
	}
	if *shared > 0 {
		if err := seedShared(stateDir, *shared); err != nil {
			return err
		}
	}
	if *current != "" {
		if err := seedCurrent(repo, stateDir, *current); err != nil {
			return err
		}
	}
	if *worktreeRecords > 0 {
		if err := seedWorktree(repo, stateDir, *worktreeRecords); err != nil {
			return err
		}
	}
	payload := fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"/nonexistent.jsonl","cwd":%q,"hook_event_name":%q,"source":"startup","prompt":%q,"tool_name":"Bash","tool_input":{"command":%q,"description":"Run the tests"},"tool_response":{"stdout":"ok  \tgithub.com/example/pkg\t0.123s","stderr":"","interrupted":false}}`, repo, *event, *prompt, *command)

	env := append(os.Environ(), "HOME="+repo, "XDG_CONFIG_HOME="+filepath.Join(repo, ".config"))
	var hookArgs, batonArgs []string
	if *statusLine {
		if err := seedStatusLine(*hookBin, repo, env, payload); err != nil {
			return err
		}
		payload = fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"/nonexistent.jsonl","cwd":%q,"model":{"id":"claude-opus-4-6","display_name":"Opus 4.6"},`+
			`"workspace":{"current_dir":%q,"project_dir":%q},"context_window":{"context_window_size":200000,"used_percentage":37},"cost":{"total_cost_usd":1.25}}`, repo, repo, repo)
		hookArgs, batonArgs = []string{"statusline"}, []string{"statusline"}
		*event = "status line"
	} else {
		batonArgs = []string{"hook"}
	}
	runOnce := func(name string, args ...string) (time.Duration, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = env
		cmd.Stdin = bytes.NewReader([]byte(payload))
		cmd.Stdout = io.Discard
		start := time.Now()
		err := cmd.Run()
		return time.Since(start), err
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		return err
	}
	cmds := [][]string{{cat}, append([]string{*hookBin}, hookArgs...)}
	names := []string{"cat >/dev/null", strings.Join(cmds[1], " ")[len(filepath.Dir(*hookBin))+1:]}
	for _, b := range before {
		cmds = append(cmds, append([]string{b}, hookArgs...))
		names = append(names, "before: "+b)
	}
	if *baton != "" {
		cmds = append(cmds, append([]string{*baton}, batonArgs...))
		names = append(names, "baton "+strings.Join(batonArgs, " "))
	}
	// What the hook says to this payload: an answer or silence.
	{
		cmd := exec.Command(*hookBin, hookArgs...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, bytes.NewReader([]byte(payload))
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("baton-hook: %w", err)
		}
		fmt.Printf("baton-hook wrote %d bytes: %s\n", len(out), strings.TrimSpace(textcut.Bytes(string(out), 300)))
	}
	// Warm up all (page cache, binary loading).
	for range 10 {
		for _, c := range cmds {
			runOnce(c[0], c[1:]...)
		}
	}
	times := make([][]time.Duration, len(cmds))
	for range *n {
		for i, c := range cmds {
			d, err := runOnce(c[0], c[1:]...)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			times[i] = append(times[i], d)
		}
	}
	fmt.Printf("event %s, %d runs each, interleaved\n", *event, *n)
	catMedian, _ := stats(times[0])
	for i, name := range names {
		m, p := stats(times[i])
		fmt.Printf("%-16s median %8.3f ms   p95 %8.3f ms   ratio to cat %.2fx\n", name, ms(m), ms(p), float64(m)/float64(catMedian))
	}
	if fi, err := os.Stat(filepath.Join(stateDir, "baton.log")); err == nil && fi.Size() > 0 {
		b, _ := os.ReadFile(filepath.Join(stateDir, "baton.log"))
		return fmt.Errorf("the hook logged problems:\n%s", b)
	}
	return nil
}

func stats(d []time.Duration) (median, p95 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*95/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// linkTranscripts puts each project folder of dir under the run's
// ~/.claude/projects (HOME is the repository folder), the repository's own
// folder first: the corpus is where Claude Code keeps transcripts.
func linkTranscripts(dir, repo string) error {
	projects := filepath.Join(repo, ".claude", "projects")
	if err := os.MkdirAll(projects, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for i, e := range entries {
		name := e.Name()
		if i == 0 {
			name = encodeCwd(repo)
		}
		if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(projects, name)); err != nil {
			return err
		}
	}
	return nil
}

// encodeCwd is Claude Code's project folder name for a cwd: every
// character that is not a letter or a digit becomes '-'.
func encodeCwd(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// seedRecall writes n approved decisions about the generated journal's
// topics, appends a failure of another line of command to the journal
// (so that a PreToolUse of command has history), and builds the recall
// file from them and the journal.
func seedRecall(repo, stateDir string, n int, command string) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	d := state.Dir{Root: stateDir}
	files, err := recall.FilesFor(d, "")
	if err != nil {
		return err
	}
	topics := strings.Fields("journal hook session resume decision context agent worktree branch index search tail rotate archive redact transcript usage worker debate pane")
	now := time.Now()
	var ds []recall.Decision
	for i := range n {
		a, b := topics[i%len(topics)], topics[(i/len(topics)+i+1)%len(topics)]
		at := now.Add(-time.Duration(n-i) * time.Hour)
		ds = append(ds, recall.Decision{
			Date: at.Format(recall.DateLayout), TS: at, Slug: fmt.Sprintf("%s-%s-%d", a, b, i),
			Summary: fmt.Sprintf("The %s keeps its %s in internal/%s/%s.go; decision %d of the bench", a, b, a, b, i),
			Issue:   100 + i,
		})
	}
	if _, err := recall.AppendDecisions(files, ds...); err != nil {
		return err
	}
	exit := 1
	j := journal.Open(stateDir, journal.Options{MaxSize: 64 << 30})
	// After the journal's last record: a generated journal's clock runs
	// ahead of now.
	at := now.Add(-10 * time.Minute)
	if last, err := j.Tail(context.Background(), 1, journal.TailOptions{}); err == nil && len(last) == 1 && last[0].TS.After(at) {
		at = last[0].TS.Add(time.Second)
	}
	if err := j.Append(journal.Record{
		TS: at, Event: "PostToolUseFailure", Tool: "Bash", Session: "bench-earlier", Cwd: repo, Worktree: repo, Branch: "main",
		Cmd: command + " -count=1", Exit: &exit, Error: "--- FAIL: TestBench (0.01s)\n    bench_test.go:9: got 1, want 2",
	}); err != nil {
		return err
	}
	start := time.Now()
	built, err := cue.Build(context.Background(), cue.BuildOptions{State: d, Journal: j, Now: now})
	if err != nil {
		return err
	}
	fmt.Printf("recall file: %d bytes (%d decisions, %d sessions, %d failed commands, %d files), built in %.0f ms\n",
		built.Bytes, built.Decisions, built.Sessions, built.Commands, built.Files, float64(time.Since(start).Microseconds())/1000)
	return nil
}

// seedShared writes the view `baton sync` leaves after fetching n entries
// of three teammates (teammemtest.SharedEntries).
func seedShared(stateDir string, n int) error {
	now := time.Now()
	d := teammem.DirOf(state.Dir{Root: stateDir})
	if err := d.WriteView(teammem.MakeView(teammemtest.SharedEntries(n, now), "m-me", nil, now)); err != nil {
		return err
	}
	fi, err := os.Stat(filepath.Join(stateDir, "shared", "view.json"))
	if err != nil {
		return err
	}
	fmt.Printf("shared view: %d bytes from %d entries\n", fi.Size(), n)
	return nil
}

// seedWorktree fills the worktree's own files as a busy worktree's hooks
// would: n records of a session's usual mix (prompts, edits, commands that
// pass and fail, answers, a todo list) over 32 sessions.
func seedWorktree(repo, stateDir string, n int) error {
	d := state.Dir{Root: stateDir}
	wt := wtstate.At(d.Base(), d.WorktreeDir(repo))
	now := time.Now().Add(-time.Duration(n) * time.Second)
	ok, failed := 0, 1
	for i := range n {
		session := fmt.Sprintf("seed-session-%02d", i*32/n)
		r := journal.Record{TS: now.Add(time.Duration(i) * time.Second), Session: session, Cwd: repo, Worktree: repo, Branch: "main"}
		var msg string
		switch i % 10 {
		case 0:
			r.Event, r.Source = "SessionStart", "startup"
		case 1:
			r.Event, r.Prompt = "UserPromptSubmit", fmt.Sprintf("Make the export stream rows instead of building the whole file (%d)", i)
		case 2, 3, 4:
			r.Event, r.Tool, r.File = "PostToolUse", "Edit", fmt.Sprintf("%s/internal/export/file%d.go", repo, i%7)
		case 5:
			r.Event, r.Tool, r.Cmd, r.Desc, r.Exit = "PostToolUse", "Bash", "go test ./internal/export/", "Run the export tests", &ok
		case 6:
			r.Event, r.Tool, r.Cmd, r.Exit, r.Error = "PostToolUseFailure", "Bash", fmt.Sprintf("go build ./cmd/tool%d", i%5), &failed, "cmd/tool/main.go:12: undefined: export.Stream"
		case 7:
			r.Event, r.TaskID, r.Desc = "TaskCreated", fmt.Sprint(i%5), "stream the rows"
		case 8:
			r.Event, r.Tool, r.TaskID, r.TaskStatus = "PostToolUse", "TaskUpdate", fmt.Sprint(i%5), "in_progress"
		case 9:
			r.Event = "Stop"
			msg = "The writer now streams rows; the CLI still builds the file. Next I will switch the CLI to the streaming writer. " + strings.Repeat("Details of the change. ", 20)
			r.Message = msg[:min(len(msg), 500)]
			r.Transcript, r.Offset = "/nonexistent.jsonl", int64(i*1000)
		}
		if err := wt.Observe(wtstate.Event{Record: r, Prompt: r.Prompt, Message: msg}); err != nil {
			return err
		}
	}
	recs, err := wt.Records()
	if err != nil {
		return err
	}
	st, err := wt.Read()
	if err != nil {
		return err
	}
	fmt.Printf("worktree files: %d records kept, %d sessions\n", len(recs), len(st.Sessions))
	return nil
}

// seedCurrent gives the repository 600 tracked files and a current.md in
// progress, added to git too when how is "tracked".
func seedCurrent(repo, stateDir, how string) error {
	if how != "untracked" && how != "tracked" {
		return fmt.Errorf("-current %q: want untracked or tracked", how)
	}
	for i := range 600 {
		p := filepath.Join(repo, "src", fmt.Sprintf("pkg%02d", i/20), fmt.Sprintf("file%03d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	state := "---\nupdated: " + time.Now().UTC().Format(time.RFC3339) + "\nstatus: in_progress\ncurrent_task: Fix the CSV export\n---\n\n## Now\n\n- writing a failing test\n\n## Next\n\n- swap the writer\n"
	if err := os.WriteFile(filepath.Join(stateDir, "current.md"), []byte(state), 0o644); err != nil {
		return err
	}
	add := []string{"-C", repo, "add", "src"}
	if how == "tracked" {
		add = append(add, filepath.Join(stateDir, "current.md"))
	}
	if out, err := exec.Command("git", add...).CombinedOutput(); err != nil {
		return fmt.Errorf("git add: %v: %s", err, out)
	}
	return nil
}

// seedStatusLine runs a SessionStart and a failing command through the hook
// (so that the worktree has a state and the session is recorded) and writes
// a status file, so that the status line reads everything it can.
func seedStatusLine(hookBin, repo string, env []string, hookPayload string) error {
	for _, p := range []string{
		strings.Replace(hookPayload, `"hook_event_name":"`, `"hook_event_name":"SessionStart","x":"`, 1),
		fmt.Sprintf(`{"session_id":"bench-session","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"new task: make the status line show the task"}`, repo),
		fmt.Sprintf(`{"session_id":"bench-session","cwd":%q,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./..."},"error":"Exit code 1\nFAIL"}`, repo),
	} {
		cmd := exec.Command(hookBin)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, strings.NewReader(p)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("seed status line: %v: %s", err, out)
		}
	}
	status := fmt.Sprintf(`{"written":%q,"day":%q,"today_cost_usd":12.5,"block":{"end":%q,"cost_usd":4.2},"pending_decisions":2}`,
		time.Now().Format(time.RFC3339), time.Now().Format(time.DateOnly), time.Now().Add(2*time.Hour).Format(time.RFC3339))
	return os.WriteFile(filepath.Join(repo, ".claude", "session-state", "statusline.json"), []byte(status), 0o600)
}
