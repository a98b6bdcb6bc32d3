package hookcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/cue"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

// recallRepo is a git repository with one approved decision and one
// command that failed twice in its recall file.
func recallRepo(t *testing.T) (repo string, d state.Dir) {
	t.Helper()
	repo = t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	repo, _ = filepath.EvalSymlinks(repo)
	d = state.At(repo)
	if err := os.MkdirAll(d.Root, 0o700); err != nil {
		t.Fatal(err)
	}
	files, _ := recall.FilesFor(d, "")
	now := time.Now()
	if _, err := recall.AppendDecisions(files, recall.Decision{Date: now.Format(recall.DateLayout), TS: now, Slug: "river-job-queue", Summary: "Use River for the job queue", Issue: 12}); err != nil {
		t.Fatal(err)
	}
	j := journal.Open(d.Root, journal.Options{})
	exit := 2
	// Twice: a note comes before a command whose failure recurs.
	for _, ago := range []time.Duration{2 * time.Hour, time.Hour} {
		if err := j.Append(journal.Record{TS: now.Add(-ago), Event: "PostToolUseFailure", Tool: "Bash", Session: "old", Worktree: repo, Cmd: "make migrate", Exit: &exit, Error: "no such file"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cue.Build(context.Background(), cue.BuildOptions{State: d, Journal: j, Now: now}); err != nil {
		t.Fatal(err)
	}
	return repo, d
}

func runHook(t *testing.T, repo, payload string) (out, errOut string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state")}
	var o, e bytes.Buffer
	f := &cmdenv.Factory{
		IO:         &cmdenv.IOStreams{In: strings.NewReader(payload), Out: &o, ErrOut: &e},
		Getenv:     func(k string) string { return env[k] },
		Environ:    func() []string { return nil },
		Now:        time.Now,
		Getwd:      func() (string, error) { return repo, nil },
		Executable: func() (string, error) { return "", errors.New("no jobs in this test") },
	}
	Run(context.Background(), f, Options{Providers: nil})
	return o.String(), e.String()
}

func promptPayload(repo string) string {
	return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"What did we decide about the job queue?"}`, repo)
}

func bashPayload(repo string) string {
	return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make migrate"}}`, repo)
}

// TestRecallAnswers: with a sound recall file the prompt and the tool
// call get their context as hook output.
func TestRecallAnswers(t *testing.T) {
	repo, _ := recallRepo(t)
	out, errOut := runHook(t, repo, promptPayload(repo))
	if !strings.Contains(out, `"hookEventName":"UserPromptSubmit"`) || !strings.Contains(out, "Use River for the job queue") || errOut != "" {
		t.Errorf("prompt: stdout %q, stderr %q", out, errOut)
	}
	out, errOut = runHook(t, repo, bashPayload(repo))
	if !strings.Contains(out, `"hookEventName":"PreToolUse"`) || !strings.Contains(out, "make migrate") || errOut != "" {
		t.Errorf("tool: stdout %q, stderr %q", out, errOut)
	}
}

// TestRecallFailsOpen: a recall file that is damaged, too large or not a
// file, or a journal full of junk, never fails a prompt or a tool call:
// nothing printed, nothing on stderr, and a damaged recall file is named
// in baton.log.
func TestRecallFailsOpen(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(t *testing.T, d state.Dir)
		wantLog string // "" when nothing is to be logged
		// toolNote is set when the journal alone still gives the note.
		toolNote bool
	}{
		{"corrupt", func(t *testing.T, d state.Dir) { write(t, cue.Path(d), []byte("baton-recall 1 x\n{\n")) }, "recall file is damaged", false},
		{"cut short", func(t *testing.T, d state.Dir) {
			b, _ := os.ReadFile(cue.Path(d))
			write(t, cue.Path(d), b[:len(b)/2])
		}, "recall file is damaged", false},
		{"huge", func(t *testing.T, d state.Dir) {
			if err := os.Truncate(cue.Path(d), cue.MaxFile+1); err != nil {
				t.Fatal(err)
			}
		}, "more than", false},
		{"a folder in its place", func(t *testing.T, d state.Dir) {
			os.Remove(cue.Path(d))
			if err := os.Mkdir(cue.Path(d), 0o700); err != nil {
				t.Fatal(err)
			}
		}, "recall", false},
		{"missing: the journal's end still has the failure", func(t *testing.T, d state.Dir) { os.Remove(cue.Path(d)) }, "", true},
		{"journal of junk", func(t *testing.T, d state.Dir) {
			os.Remove(cue.Path(d))
			junk := bytes.Repeat([]byte("\x00{\"event\":\"PostToolUseFailure\",\"cmd\":\"make\"\n"), 20000)
			write(t, d.Journal(), append(junk, bytes.Repeat([]byte("x"), 1<<20)...)) // a last line 1 MiB long, not ended
		}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, d := recallRepo(t)
			tt.damage(t, d)
			if out, errOut := runHook(t, repo, promptPayload(repo)); out != "" || errOut != "" {
				t.Errorf("prompt: stdout %q, stderr %q; want nothing", out, errOut)
			}
			out, errOut := runHook(t, repo, bashPayload(repo))
			if tt.toolNote != strings.Contains(out, "make migrate") || !tt.toolNote && out != "" || errOut != "" {
				t.Errorf("tool: stdout %q, stderr %q; want a note: %v", out, errOut, tt.toolNote)
			}
			log, _ := os.ReadFile(d.Log())
			if tt.wantLog != "" && !strings.Contains(string(log), tt.wantLog) {
				t.Errorf("baton.log = %q; want %q in it", log, tt.wantLog)
			}
			if tt.wantLog == "" && len(withoutDeadlines(log)) > 0 {
				t.Errorf("baton.log = %q; want nothing", log)
			}
		})
	}
}

// withoutDeadlines drops the lines saying that recall ran out of its time
// budget: on a loaded machine reading a damaged journal may, and answering
// nothing then is the point. Any other line is a problem the damage caused.
func withoutDeadlines(log []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(log, []byte("\n")) {
		if !bytes.Contains(line, []byte(context.DeadlineExceeded.Error())) {
			out = append(out, line...)
		}
	}
	return out
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshRecall: a Stop starts the rewrite of the recall file only
// when there is something to recall and the file is stale.
func TestRefreshRecall(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, d state.Dir)
		want  bool
	}{
		{"fresh repository", func(t *testing.T, d state.Dir) {}, false},
		{"decisions, no file", func(t *testing.T, d state.Dir) {
			files, _ := recall.FilesFor(d, "")
			if _, err := recall.AppendDecisions(files, recall.Decision{Date: "2026-11-30", Summary: "x"}); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"file newer than the decisions", func(t *testing.T, d state.Dir) {
			files, _ := recall.FilesFor(d, "")
			recall.AppendDecisions(files, recall.Decision{Date: "2026-11-30", Summary: "x"})
			old := time.Now().Add(-time.Minute)
			os.Chtimes(files.Decisions(), old, old)
			write(t, cue.Path(d), []byte("x"))
		}, false},
		{"a decision since the file", func(t *testing.T, d state.Dir) {
			files, _ := recall.FilesFor(d, "")
			write(t, cue.Path(d), []byte("x"))
			old := time.Now().Add(-time.Minute)
			os.Chtimes(cue.Path(d), old, old)
			recall.AppendDecisions(files, recall.Decision{Date: "2026-11-30", Summary: "x"})
		}, true},
		{"file older than the refresh age", func(t *testing.T, d state.Dir) {
			write(t, cue.Path(d), []byte("x"))
			old := time.Now().Add(-recallRefresh - time.Minute)
			os.Chtimes(cue.Path(d), old, old)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := state.Dir{Root: t.TempDir()}
			os.MkdirAll(d.Context(), 0o700)
			tt.setup(t, d)
			started := false
			f := &cmdenv.Factory{
				Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now,
				Executable: func() (string, error) { started = true; return "", errors.New("not started in this test") },
			}
			res := hook.Result{Payload: hook.Payload{Event: hook.Stop, Cwd: d.Root}, State: d, Config: &config.Config{}}
			err := refreshRecall(f, res)
			if started != tt.want || tt.want != (err != nil) {
				t.Errorf("started %v (err %v); want %v", started, err, tt.want)
			}
		})
	}
}

// TestFindApprovals: a Stop starts the search for approval candidates when
// the prompt it answered, the session's newest, holds an approval phrase.
func TestFindApprovals(t *testing.T) {
	tests := []struct {
		name    string
		prompts map[string]string // session → its prompts, oldest first, "|"-separated
		want    bool
	}{
		{"LGTM", map[string]string{"s1": "use port 8081?|LGTM"}, true},
		{"OK, go with that", map[string]string{"s1": "OK, go with that"}, true},
		{"それでいこう", map[string]string{"s1": "それでいこう"}, true},
		{"no approval", map[string]string{"s1": "LGTM|now write the tests"}, false},
		{"another session's approval", map[string]string{"s1": "write the tests", "s2": "LGTM"}, false},
		{"no prompt", map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := state.Dir{Root: t.TempDir()}
			wt := wtstate.At(d.Base(), d.WorktreeDir("/repo"))
			ts := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
			for _, session := range []string{"s2", "s1"} {
				for _, p := range strings.Split(tt.prompts[session], "|") {
					if p == "" {
						continue
					}
					ts = ts.Add(time.Minute)
					for _, r := range []journal.Record{
						{TS: ts, Event: "UserPromptSubmit", Session: session, Prompt: p},
						{TS: ts, Event: "PostToolUse", Session: session, Tool: "Bash", Cmd: "make"},
					} {
						if err := wt.Observe(wtstate.Event{Record: r, Prompt: r.Prompt}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			started := false
			f := &cmdenv.Factory{
				Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now,
				Executable: func() (string, error) { started = true; return "", errors.New("not started in this test") },
			}
			res := hook.Result{Payload: hook.Payload{Event: hook.Stop, SessionID: "s1", Cwd: d.Root}, State: d, Worktree: "/repo", Config: &config.Config{}}
			err := findApprovals(f, res)
			if started != tt.want || tt.want != (err != nil) {
				t.Errorf("started %v (err %v); want %v", started, err, tt.want)
			}
		})
	}
}
