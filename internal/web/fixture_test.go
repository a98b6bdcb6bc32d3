package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/pricing"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/statefile"
	"github.com/baton-cli/baton/internal/worker"
)

// The fixture repository's facts, which the tests look for on the pages.
const (
	fxSession      = "5e55a0a1-1111-4aaa-8bbb-000000000001"
	fxOtherSession = "5e55a0a1-2222-4aaa-8bbb-000000000002"
	fxHostile      = `<script>alert(1)</script> please refactor the CSV export`
	fxTask         = "Make the CSV export stream rows"
	fxFile         = "internal/export/csv.go"
	fxBranch       = "feat/12-csv-stream"
	fxOtherBranch  = "fix/31-login"
	fxSlug         = "stream-csv-rows"
	fxCrossSlug    = "use-utc-everywhere"
	fxPendingSlug  = "retry-github-posts"
	fxProposal     = "Shall I keep the layers as JSON lines?"
	fxRunTitle     = "Add a CSV export"
	fxRunPR        = "https://github.com/acme/shop/pull/77"
	fxRunStdout    = "agent says <b>done</b>"
	fxTopic        = "Should the index be rebuilt on every start?"
	fxProRound2    = "Rebuilding is cheap at this size."
	fxConRound1    = "No: the index is derived and catches up incrementally."
	fxSummary      = "The moderator sides with incremental catch-up."
	fxL1Action     = "Edit internal/export/csv.go (2×)"
	fxIssue        = 12
)

// fxNow is the fixture's clock.
var fxNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// fixture is a repository with one of everything the dashboard shows, each
// file written by the package that owns it.
type fixture struct {
	Root, Main, Other string
	Home              string
	State             state.Dir
	RunsDir           string
	DebatesDir        string
	MemoryDir         string
	DebateID          string
	RunID             string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := t.TempDir()
	fx := &fixture{
		Root:       root,
		Main:       filepath.Join(root, "shop"),
		Other:      filepath.Join(root, "shop-login"),
		RunsDir:    filepath.Join(root, "data", "worker"),
		DebatesDir: filepath.Join(root, "dialogues"),
		MemoryDir:  filepath.Join(root, "memory"),
		Home:       filepath.Join(root, "home"),
	}
	fx.State = state.Dir{Root: filepath.Join(fx.Main, filepath.FromSlash(state.RelDir))}
	for _, d := range []string{fx.State.Root, fx.Other, fx.MemoryDir, fx.DebatesDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	at := func(m int) time.Time { return fxNow.Add(time.Duration(m-120) * time.Minute) }

	// The journal: a session in the main worktree with a hostile prompt,
	// and an older one in another worktree.
	j := journal.Open(fx.State.Root, journal.Options{Now: func() time.Time { return fxNow }})
	main := func(m int, r journal.Record) journal.Record {
		r.TS, r.Session, r.Cwd, r.Worktree, r.Branch = at(m), fxSession, fx.Main, fx.Main, fxBranch
		return r
	}
	other := func(m int, r journal.Record) journal.Record {
		r.TS, r.Session, r.Cwd, r.Worktree, r.Branch = at(m), fxOtherSession, fx.Other, fx.Other, fxOtherBranch
		return r
	}
	recs := []journal.Record{
		other(0, journal.Record{Event: "SessionStart", Source: "startup"}),
		other(1, journal.Record{Event: "UserPromptSubmit", Prompt: "fix the login redirect"}),
		other(2, journal.Record{Event: "PostToolUse", Tool: "Edit", File: "internal/auth/login.go"}),
		other(3, journal.Record{Event: "SessionEnd", Reason: "exit"}),
		main(10, journal.Record{Event: "SessionStart", Source: "startup"}),
		main(11, journal.Record{Event: "UserPromptSubmit", Prompt: fxHostile}),
		main(12, journal.Record{Event: "PostToolUse", Tool: "Read", File: fxFile}),
		main(13, journal.Record{Event: "PostToolUse", Tool: "Edit", File: fxFile}),
		main(14, journal.Record{Event: "PostToolUse", Tool: "Edit", File: fxFile}),
		main(15, journal.Record{Event: "PostToolUse", Tool: "Bash", Desc: "go test ./internal/export/"}),
		main(16, journal.Record{Event: "Stop", Message: "The export now streams rows. Shall I keep the layers as JSON lines?"}),
		main(17, journal.Record{Event: "UserPromptSubmit", Prompt: "OK, go ahead"}),
		main(18, journal.Record{Event: "PostToolUse", Tool: "Write", File: "internal/export/csv_test.go"}),
	}
	if err := j.Append(recs...); err != nil {
		t.Fatal(err)
	}

	// current.md, as baton save writes it.
	sf := statefile.New(i18n.EN)
	if err := sf.Apply(statefile.Change{Task: fxTask, Doing: "Rewrite the writer loop", Next: "Benchmark 1M rows"}, at(19), i18n.EN); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(fx.State.Current(), sf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// Decisions: one posted to the issue, one cross-issue escalated to the
	// memory folder, one approved but not posted.
	cand := func(slug, what string) decision.Candidate {
		return decision.Candidate{Slug: slug, What: what, Why: "because", Alternatives: "none", Consequences: "some", ScopeHint: decision.ScopeIssue}
	}
	posted := decision.UserDecision{Candidate: cand(fxSlug, "Write CSV rows as they are read"), FinalScope: decision.ScopeIssue}
	cross := decision.UserDecision{Candidate: cand(fxCrossSlug, "Store every time in UTC"), FinalScope: decision.ScopeCrossIssue}
	off := int64(4096)
	if _, _, err := decision.CommitState(fx.State, fxSession, decision.NewPatch(at(20), &off, []string{fxSlug, fxCrossSlug}), at(20)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := decision.CommitState(fx.State, fxSession, decision.Patch{decision.KeyIssue: []byte("12")}, at(20)); err != nil {
		t.Fatal(err)
	}
	if err := decision.LogApproved(fx.State, fxSession, fxIssue, []decision.UserDecision{posted, cross}, at(20)); err != nil {
		t.Fatal(err)
	}
	if res := decision.Escalate(fx.MemoryDir, fx.State.Locks(), []decision.UserDecision{cross}); len(res.Written) != 1 {
		t.Fatalf("escalate: %+v", res)
	}
	pending := decision.UserDecision{Candidate: cand(fxPendingSlug, "Retry GitHub posts with backoff"), FinalScope: decision.ScopeIssue}
	if _, _, err := decision.SavePending(fx.State, fxSession, fxIssue, []decision.UserDecision{pending}, at(21)); err != nil {
		t.Fatal(err)
	}

	// Context layers: an L1 and an L2 entry made by the extractive
	// summarizer from the journal (the hostile prompt becomes the L1 goal),
	// and the approval it found waiting for a person.
	files, err := recall.FilesFor(fx.State, "")
	if err != nil {
		t.Fatal(err)
	}
	mk := &recall.Maker{Files: files, Journal: j, Recent: recall.Extractive{}, Daily: recall.Extractive{},
		Phrases: []string{"go ahead"}, Records: 20, Lang: i18n.EN, Now: func() time.Time { return at(22) }}
	if _, ok, err := mk.MakeRecent(ctx, recall.RecentOptions{Session: fxSession, Trigger: "SessionEnd"}); err != nil || !ok {
		t.Fatalf("make L1: ok %v, err %v", ok, err)
	}
	if _, ok, err := mk.MakeDaily(ctx, recall.DailyOptions{Day: at(0).Format(recall.DateLayout)}); err != nil || !ok {
		t.Fatalf("make L2: ok %v, err %v", ok, err)
	}
	if c, err := recall.Pending(files); err != nil || len(c) != 1 || !strings.Contains(c[0].Proposal, fxProposal) {
		t.Fatalf("pending candidates: %+v, %v", c, err)
	}

	// A worker run with a pull request and output.
	fx.RunID = "acme-shop-12-20260310T100000Z"
	run := &worker.Record{
		ID: fx.RunID, Repo: "acme/shop", Issue: fxIssue, Title: fxRunTitle, URL: "https://github.com/acme/shop/issues/12",
		Host: "devbox", PID: 4242, State: worker.StateDone, Step: "finish", Branch: "ai/12-csv", CommitsAhead: 3,
		StartedAt: at(30), Deadline: at(90), FinishedAt: at(52), TimeoutMinutes: 60,
		Attempts: []worker.Attempt{{Kind: "first", StartedAt: at(31), EndedAt: at(50), ExitCode: 0,
			Result: &worker.Result{Type: "result", Subtype: "success", NumTurns: 9, Result: "Opened the pull request."},
			Stdout: fxRunStdout, StdoutBytes: int64(len(fxRunStdout))}},
		PullRequest: &worker.PullRequestRef{Number: 77, URL: fxRunPR},
	}
	if err := (worker.Store{Dir: fx.RunsDir}).Save(run); err != nil {
		t.Fatal(err)
	}
	failed := &worker.Record{ID: "acme-shop-13-20260310T080000Z", Repo: "acme/shop", Issue: 13, Title: "Flaky test", Host: "devbox",
		State: worker.StateFailed, Step: "finish", Category: worker.NoLinkedPR, StartedAt: at(-60), FinishedAt: at(-10), TimeoutMinutes: 60}
	if err := (worker.Store{Dir: fx.RunsDir}).Save(failed); err != nil {
		t.Fatal(err)
	}

	// A concluded debate: two rounds from pro, one from con, a summary.
	dd := debate.Dir{Root: fx.DebatesDir}
	fx.DebateID = "cc-debate-20260310-100000-ab12"
	if err := dd.Create(&debate.Session{ID: fx.DebateID, Topic: fxTopic, MaxRounds: 2, CurrentRound: 1,
		Status: debate.Concluded, Transport: debate.TransportHeadless}); err != nil {
		t.Fatal(err)
	}
	paths, err := dd.Paths(fx.DebateID)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(paths.Pro, "# Pro\n\n## Round 1\n\nRebuild it: simpler.\n\n```\n## Round 9\n```\n\n## Round 2\n\n"+fxProRound2+"\n")
	write(paths.Con, "# Con\n\n## Round 1\n\n"+fxConRound1+"\n\n[CONCLUDED]\n")
	write(paths.Summary, fxSummary+"\n")
	fx.writeTranscripts(t, at)
	return fx
}

// Token counts of the fixture's transcripts.
const (
	fxSessionTokens = 13330 // 110 input + 220 output + 1000 cache creation + 12000 cache read
	fxOtherTokens   = 10
)

// writeTranscripts writes a transcript per session in Claude Code's
// shape: the main session's holds the hostile prompt and a response
// written twice (one line per content block), the other's one response
// the day before; and a malformed line.
func (fx *fixture) writeTranscripts(t testing.TB, at func(int) time.Time) {
	t.Helper()
	line := func(typ, session, cwd string, ts time.Time, extra map[string]any) string {
		m := map[string]any{"type": typ, "uuid": fmt.Sprintf("u-%d", ts.UnixNano()), "sessionId": session, "cwd": cwd,
			"timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "version": "2.1.328", "isSidechain": false, "userType": "external"}
		for k, v := range extra {
			m[k] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	assistant := func(id, req, model, text string, in, out, create, read int) map[string]any {
		return map[string]any{"requestId": req, "message": map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": create, "cache_read_input_tokens": read},
		}}
	}
	user := func(text string) map[string]any {
		return map[string]any{"message": map[string]any{"role": "user", "content": text}}
	}
	main := line("user", fxSession, fx.Main, at(11), user(fxHostile)) +
		line("assistant", fxSession, fx.Main, at(12), assistant("msg_a1", "req_a1", "claude-sonnet-4-5-20250929", "Reading the export.", 100, 200, 1000, 5000)) +
		line("assistant", fxSession, fx.Main, at(12), assistant("msg_a1", "req_a1", "claude-sonnet-4-5-20250929", "Reading the export.", 100, 200, 1000, 5000)) +
		"{not json\n" +
		line("assistant", fxSession, fx.Main, at(16), assistant("msg_a2", "req_a2", "claude-sonnet-4-5-20250929", "The export now streams rows.", 10, 20, 0, 7000))
	other := line("user", fxOtherSession, fx.Other, at(-24*60), user("fix the login redirect")) +
		line("assistant", fxOtherSession, fx.Other, at(-24*60+1), assistant("msg_b1", "req_b1", "claude-haiku-4-5-20251001", "Fixed.", 1, 2, 3, 4))
	for _, tr := range []struct{ cwd, session, text string }{{fx.Main, fxSession, main}, {fx.Other, fxOtherSession, other}} {
		dir := claudecode.TranscriptDir(fx.Home, tr.cwd)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tr.session+".jsonl"), []byte(tr.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// options are the dashboard's options over the fixture, serving its main
// worktree.
func (fx *fixture) options() Options {
	return Options{
		State: fx.State,
		Resume: resume.Options{
			State: fx.State, Worktree: fx.Main, Main: fx.Main, Branch: fxBranch,
			Records: 30, Stale: 7 * 24 * time.Hour, ScanBytes: 256 << 10,
		},
		Runs: worker.Store{Dir: fx.RunsDir},
		Queue: func(context.Context) (*worker.QueueStatus, error) {
			return &worker.QueueStatus{
				Where:  "postgres://baton:xxxxx@db.example/queue",
				Counts: map[string]map[string]int{"running": {"host-a": 1}, "completed": {"host-a": 3, "host-b": 2}},
				Jobs:   []worker.JobView{{ID: 41, Repo: "acme/shop", Issue: 12, State: "running", Host: "host-a", Attempt: 2, At: time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC)}},
			}, nil
		},
		Debates:   debate.Dir{Root: fx.DebatesDir},
		MemoryDir: fx.MemoryDir,
		TranscriptDirs: []string{
			claudecode.TranscriptDir(fx.Home, fx.Main),
			claudecode.TranscriptDir(fx.Home, fx.Other),
		},
		IssueURL: func(n int) string { return "https://github.com/acme/shop/issues/" + itoa(n) },
		Prices:   fxPrices,
		Lang:     i18n.EN,
		Now:      func() time.Time { return fxNow },
	}
}

// fxPrices are the shipped prices.
var fxPrices = func() *pricing.Table {
	p, err := pricing.Shipped()
	if err != nil {
		panic(err)
	}
	return p
}()

func itoa(n int) string { s, _ := num(n); return strings.ReplaceAll(s, ",", "") }

// index opens the fixture's index and catches it up; it is closed when
// the test ends.
func (fx *fixture) index(t testing.TB) *index.Index {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, fx.State.Index(), index.Options{Now: func() time.Time { return fxNow }, Sources: index.Sources{
		State:          fx.State,
		TranscriptDirs: fx.options().TranscriptDirs,
		WorkerDir:      fx.RunsDir,
		DebatesDir:     fx.DebatesDir,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.CatchUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// server serves the fixture behind the guard on a loopback port.
func (fx *fixture) server(t testing.TB, o Options, token string) *httptest.Server {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = Guard{Hosts: Hosts(ts.Listener.Addr()), Token: token, Lang: o.Lang}.Wrap(s)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}
