package resume

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/wtstate"
)

// TestOneBriefingPerConversation runs starts of one conversation as the
// hook does (the start observed, the briefing built, what it holds
// recorded) and checks what each later start adds: a conversation that
// holds a briefing gets only what changed, or nothing; a compaction that
// took the briefing out gets the full one again.
func TestOneBriefingPerConversation(t *testing.T) {
	exit1, exit0 := 1, 0
	type step struct {
		evs      []ev   // observed before the start
		decision string // approved before the start
		source   string // the start's source
		ago      int
	}
	tests := []struct {
		name  string
		steps []step
		full  bool     // the last start gives the full briefing
		want  []string // in the last start's English text
		not   []string
		empty bool // the last start adds nothing
	}{
		{
			name: "resume-nothing-changed",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61},
				{evs: []ev{{20, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}}, source: "resume", ago: 1},
			},
			empty: true,
		},
		{
			name: "resume-after-changes",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61, decision: "Tokens carry their byte offsets"},
				{evs: []ev{
					{30, journal.Record{Event: "PostToolUse", Session: "s1", Tool: "Bash", Cmd: "go test ./query/", Exit: &exit0}, ""},
					{29, journal.Record{Event: "PostToolUseFailure", Session: "s1", Tool: "Bash", Cmd: "make release", Exit: &exit1, Error: "missing VERSION"}, ""},
					{28, journal.Record{Event: "Stop", Session: "s1", Message: "Next I will write VERSION."}, "Next I will write VERSION."},
					{20, journal.Record{Event: "SessionEnd", Session: "s1"}, ""},
				}, decision: "Quoted strings keep their quotes", source: "resume", ago: 1},
			},
			want: []string{"what changed since the briefing earlier", "The session was resumed", "Quoted strings keep their quotes",
				"`make release` → exit 1", "missing VERSION", "**No longer failing**: `go test ./query/`", "Next I will write VERSION."},
			not: []string{"where this worktree stands", "Tokens carry their byte offsets", "Write the tokenizer", "ask whether", "Carry on"},
		},
		{
			name: "compact-right-after-a-resume",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61},
				{evs: []ev{{20, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}}, source: "resume", ago: 19},
				{evs: []ev{{10, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}}, source: "resume", ago: 3},
				{evs: []ev{{2, journal.Record{Event: "PreCompact", Session: "s1", Trigger: "manual"}, ""}}, source: "compact", ago: 1},
			},
			full: true,
			want: []string{"where this worktree stands", "compacted with /compact", "Write the tokenizer"},
		},
		{
			name: "compact-right-after-a-full-briefing",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61},
				{evs: []ev{{30, journal.Record{Event: "SessionEnd", Session: "s2"}, ""}}, source: "startup", ago: 3},
				{evs: []ev{{2, journal.Record{Event: "PreCompact", Session: "s2", Trigger: "manual"}, ""}}, source: "compact", ago: 1},
			},
			want: []string{"compacted with /compact; baton's briefing just before it was kept and still holds"},
			not:  []string{"where this worktree stands", "Write the tokenizer"},
		},
		{
			name: "compact-after-work",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61},
				{evs: []ev{
					{5, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "go on"}, ""},
					{4, journal.Record{Event: "PostToolUse", Session: "s1", Tool: "Edit", File: "/repo/query/lex.go"}, ""},
					{2, journal.Record{Event: "PreCompact", Session: "s1", Trigger: "auto"}, ""},
				}, source: "compact", ago: 1},
			},
			full: true,
			want: []string{"where this worktree stands", "compacted automatically", "Write the tokenizer"},
		},
		{
			// After /exit a fresh session said hello (and got the full
			// briefing), then --continue: the task did not change.
			name: "resume-after-a-greeting",
			steps: []step{
				{evs: append(work("s1", 60), ev{30, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}), source: "startup", ago: 11},
				{evs: []ev{
					{10, journal.Record{Event: "UserPromptSubmit", Session: "s2", Prompt: "hello"}, ""},
					{9, journal.Record{Event: "Stop", Session: "s2", Message: "Hello! What would you like to work on?"}, "Hello! What would you like to work on?"},
					{8, journal.Record{Event: "SessionEnd", Session: "s2"}, ""},
				}, source: "resume", ago: 1},
			},
			empty: true,
		},
		{
			// A fresh session opened with new work, then --continue: the
			// changed task is told, with the task before it.
			name: "resume-after-new-work",
			steps: []step{
				{evs: append(work("s1", 60), ev{30, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}), source: "startup", ago: 11},
				{evs: []ev{
					{10, journal.Record{Event: "UserPromptSubmit", Session: "s2", Prompt: "Add a /health endpoint to the HTTP server that returns the build version as JSON"}, ""},
					{9, journal.Record{Event: "Stop", Session: "s2", Message: "Added the endpoint."}, "Added the endpoint."},
					{8, journal.Record{Event: "SessionEnd", Session: "s2"}, ""},
				}, source: "resume", ago: 1},
			},
			want: []string{"**The task changed**: Add a /health endpoint", "The task before this one: Write the tokenizer for the query language"},
			not:  []string{"where this worktree stands"},
		},
		{
			// A compacted conversation is resumed after another session
			// fixed what its briefing said was failing: the update says
			// when that briefing was given and that it replaces it, the
			// command works and the step it was about is done.
			name: "resume-of-a-compacted-session-after-the-fix",
			steps: []step{
				{evs: work("s1", 90), source: "startup", ago: 91},
				{evs: []ev{
					{75, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "/compact"}, ""},
					{74, journal.Record{Event: "PreCompact", Session: "s1", Trigger: "manual"}, ""},
				}, source: "compact", ago: 74},
				{evs: []ev{
					{70, journal.Record{Event: "SessionEnd", Session: "s1"}, ""},
					{40, journal.Record{Event: "SessionStart", Session: "s2", Source: "startup"}, ""},
					{39, journal.Record{Event: "PostToolUse", Session: "s2", Tool: "Bash", Cmd: "go test ./query/", Exit: &exit0}, ""},
					{38, journal.Record{Event: "Stop", Session: "s2", Message: "The query tests pass now."}, "The query tests pass now."},
					{37, journal.Record{Event: "SessionEnd", Session: "s2"}, ""},
				}, source: "resume", ago: 1},
			},
			want: []string{"was given 1 hour ago", "count from then", "where the two differ, this is how things stand now",
				"**No longer failing**: `go test ./query/`", "**Next step no longer open**: Next I will make the lexer keep a quoted string as one token."},
			not: []string{"where this worktree stands", "Carry on", "still failing"},
		},
		{
			name: "resume-of-a-conversation-never-briefed",
			steps: []step{
				{evs: append(work("s1", 60), ev{20, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}), source: "resume", ago: 1},
			},
			full: true,
			want: []string{"where this worktree stands", "The session was resumed", "Write the tokenizer"},
		},
		{
			name: "startup-is-a-new-conversation",
			steps: []step{
				{evs: work("s1", 60), source: "startup", ago: 61},
				{evs: []ev{{20, journal.Record{Event: "SessionEnd", Session: "s1"}, ""}}, source: "startup", ago: 1},
			},
			full: true,
			want: []string{"where this worktree stands", "A new session started."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := state.Dir{Root: t.TempDir()}
			f, err := recall.FilesFor(st, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(f.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			var br map[i18n.Lang]*Brief
			for i, s := range tt.steps {
				if s.decision != "" {
					if _, err := recall.AppendDecisions(f, recall.Decision{Date: "2026-05-09", Summary: s.decision, Source: "issue", Issue: 7}); err != nil {
						t.Fatal(err)
					}
				}
				session := "s1"
				if i > 0 && tt.name == "compact-right-after-a-full-briefing" || strings.HasPrefix(tt.name, "resume-after-a") || tt.name == "resume-after-new-work" {
					session = "s2"
				}
				observe(t, st, append(s.evs, ev{s.ago, journal.Record{Event: "SessionStart", Session: session, Source: s.source}, ""}), nil)
				br = startBriefs(t, st, session, s.source, at(s.ago))
			}
			en := br[i18n.EN]
			if got := strings.Contains(en.Text, "## baton: where this worktree stands"); got != tt.full {
				t.Errorf("full briefing: got %v; want %v:\n%s", got, tt.full, en.Text)
			}
			if got := en.Text == ""; got != tt.empty {
				t.Errorf("nothing added: got %v; want %v:\n%s", got, tt.empty, en.Text)
			}
			if en.Held == tt.full {
				t.Errorf("Held = %v with a full briefing %v", en.Held, tt.full)
			}
			for _, w := range tt.want {
				if !strings.Contains(en.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, en.Text)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(en.Text, w) {
					t.Errorf("text has %q:\n%s", w, en.Text)
				}
			}
			if ja := br[i18n.JA]; (ja.Text == "") != tt.empty || ja.Held != en.Held {
				t.Errorf("Japanese text (held %v) differs in kind from the English one:\n%s", ja.Held, ja.Text)
			}
			golden := filepath.Join("testdata", "brief", "told-"+tt.name)
			fix := func(s string) []byte { return []byte(strings.ReplaceAll(s, st.Root, "$STATE") + "\n") }
			checkGolden(t, golden+".en.golden", fix(en.Text))
			checkGolden(t, golden+".ja.golden", fix(br[i18n.JA].Text))
		})
	}
}

// startBriefs builds a start's briefing in both languages and records
// what the conversation then holds, as the session-start hook does.
func startBriefs(t *testing.T, st state.Dir, session, source string, when time.Time) map[i18n.Lang]*Brief {
	t.Helper()
	o := baseOptions(st.Root)
	o.Session, o.Now = session, when
	out := map[i18n.Lang]*Brief{}
	for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
		br, err := BuildBrief(context.Background(), BriefOptions{Options: o, Source: source, Lang: lang, Budget: hook.MaxContext, Own: true, Layers: true, Conversation: true, Pulls: recall.Pulls{MCP: true}})
		if err != nil {
			t.Fatal(err)
		}
		out[lang] = br
	}
	if told := out[i18n.EN].Told; told != nil {
		if err := wtstate.At(st.Base(), st.WorktreeDir("/repo")).SetTold(session, told); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestBriefNamesOnlyToolsThatExist: the briefing names baton's MCP tools
// only where the set-up has them, and the commands otherwise.
func TestBriefNamesOnlyToolsThatExist(t *testing.T) {
	st := state.Dir{Root: t.TempDir()}
	observe(t, st, work("s1", 60), nil)
	for _, tt := range []struct {
		mcp       bool
		want, not string
	}{
		{true, "mcp__baton__decisions, mcp__baton__session_log and mcp__baton__search", "baton context show"},
		{false, "`baton context show --layer l3` (the approved decisions)", "mcp__"},
	} {
		br, err := BuildBrief(context.Background(), BriefOptions{Options: baseOptions(st.Root), Lang: i18n.EN, Budget: hook.MaxContext, Own: true, Layers: true, Pulls: recall.Pulls{MCP: tt.mcp}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(br.Text, tt.want) || strings.Contains(br.Text, tt.not) {
			t.Errorf("MCP %v: got\n%s\nwant %q in it and not %q", tt.mcp, br.Text, tt.want, tt.not)
		}
	}
}

// TestStatedDecisionsCarried: a decision the agent or the person stated in
// the conversation, and nobody approved, stays in every briefing after the
// message that said it is long past, marked as not approved; it leaves once
// the decision log holds it. A compaction with no decision at all does not
// tell the agent to keep to approved decisions.
func TestStatedDecisionsCarried(t *testing.T) {
	st := state.Dir{Root: t.TempDir()}
	f, err := recall.FilesFor(st, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(f.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const said = "The script reads no DB_URL. We will use port 8081 because 8080 is taken. Next I will set DB_URL in deploy.sh and rerun it."
	observe(t, st, []ev{
		{60, journal.Record{Event: "SessionStart", Session: "s1", Source: "startup"}, ""},
		{59, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "Fix the staging deploy script"}, ""},
		{58, journal.Record{Event: "Stop", Session: "s1", Message: said}, said},
		{57, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "OK. Let's go with JSON logs, since the collector parses them."}, ""},
		{56, journal.Record{Event: "Stop", Session: "s1", Message: "OK."}, "OK."},
		{55, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "thanks"}, ""},
		{54, journal.Record{Event: "Stop", Session: "s1", Message: "You're welcome."}, "You're welcome."},
		{53, journal.Record{Event: "PreCompact", Session: "s1", Trigger: "manual"}, ""},
		{53, journal.Record{Event: "SessionStart", Session: "s1", Source: "compact"}, ""},
	}, nil)
	// The person's "OK." made the proposal before it a candidate: the
	// briefing lists it as stated and does not count it again.
	if _, err := recall.AddCandidates(f, []recall.Candidate{
		{ID: "5eaf9820", TS: at(57), Session: "s1", Phrase: "OK", Approval: "OK.", Proposal: said, Status: recall.StatusPending},
		{ID: "77aa01bc", TS: at(57), Session: "s1", Phrase: "OK", Approval: "OK", Proposal: "Keep the old IDs.", Status: recall.StatusPending},
	}, at(57)); err != nil {
		t.Fatal(err)
	}
	br := startBriefs(t, st, "s1", "compact", at(53))
	en, ja := br[i18n.EN].Text, br[i18n.JA].Text
	for _, w := range []string{
		"**Decisions stated in the conversation** (no person has approved them yet):",
		"- JSON logs because the collector parses them (said by the person, 4 minutes ago)",
		"- Use port 8081 because 8080 is taken (said by the agent, 5 minutes ago)",
		"Carry on with this task: pick up from the open items below.",
		"1 proposed decision(s) await the person's review (not decided yet).",
	} {
		if !strings.Contains(en, w) {
			t.Errorf("briefing lacks %q:\n%s", w, en)
		}
	}
	if strings.Contains(en, "approved decisions") {
		t.Errorf("told to keep to approved decisions when there are none:\n%s", en)
	}
	if !strings.Contains(ja, "**会話で述べられた決定**（人はまだ承認していません）：") || !strings.Contains(ja, "Use port 8081 because 8080 is taken（エージェントの発言、5 分前）") {
		t.Errorf("Japanese briefing lacks the stated decisions:\n%s", ja)
	}

	// Approved: it leaves the list, and the agent is told to keep to it.
	if _, err := recall.AppendDecisions(f, recall.Decision{Date: "2026-05-09", Summary: "Use port 8081 for the server because 8080 is taken by the proxy", Source: "issue", Issue: 7}); err != nil {
		t.Fatal(err)
	}
	observe(t, st, []ev{{10, journal.Record{Event: "SessionStart", Session: "s2", Source: "startup"}, ""}}, nil)
	en = startBriefs(t, st, "s2", "startup", at(10))[i18n.EN].Text
	if strings.Contains(en, "- Use port 8081 because 8080 is taken (said by") || !strings.Contains(en, "- JSON logs because the collector parses them") {
		t.Errorf("after approval, the stated list is wrong:\n%s", en)
	}
}

// TestCarryOnNamesOnlyWhatExists: after a compaction the agent is told to
// keep to approved decisions only when there are some, its own or a
// teammate's, and to pick up open items only when there are some.
func TestCarryOnNamesOnlyWhatExists(t *testing.T) {
	const (
		keep = "Carry on with this task, keeping to the approved decisions."
		both = "Carry on with this task: keep to the approved decisions and pick up from the open items below."
		open = "Carry on with this task: pick up from the open items below."
		bare = "Carry on with this task."
	)
	quiet := []ev{
		{60, journal.Record{Event: "SessionStart", Session: "s1", Source: "startup"}, ""},
		{59, journal.Record{Event: "UserPromptSubmit", Session: "s1", Prompt: "Write the release notes for version 2"}, ""},
		{58, journal.Record{Event: "Stop", Session: "s1", Message: "Wrote them."}, "Wrote them."},
		{57, journal.Record{Event: "PreCompact", Session: "s1", Trigger: "manual"}, ""},
		{57, journal.Record{Event: "SessionStart", Session: "s1", Source: "compact"}, ""},
	}
	for _, tt := range []struct {
		name     string
		evs      []ev
		teammate bool
		want     string
	}{
		{"nothing open, no decision", quiet, false, bare},
		{"a teammate's decision", quiet, true, keep},
		{"a next step", append(quiet[:3:3], ev{57, journal.Record{Event: "Stop", Session: "s1", Message: "Next I will tag v2."}, "Next I will tag v2."},
			quiet[3], quiet[4]), false, open},
		{"a next step and a teammate's decision", append(quiet[:3:3], ev{57, journal.Record{Event: "Stop", Session: "s1", Message: "Next I will tag v2."}, "Next I will tag v2."},
			quiet[3], quiet[4]), true, both},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := state.Dir{Root: t.TempDir()}
			observe(t, st, tt.evs, nil)
			if tt.teammate {
				e := teammem.Entry{Kind: teammem.KindDecision, TS: at(120), Author: "Aiko <aiko@example.com>", Date: "2026-05-09", Slug: "release-notes-in-english", Summary: "Release notes are written in English"}
				e.Seal()
				if err := teammem.DirOf(st).WriteView(teammem.View{Decisions: []teammem.Entry{e}}); err != nil {
					t.Fatal(err)
				}
			}
			en := startBriefs(t, st, "s1", "compact", at(57))[i18n.EN].Text
			for _, line := range []string{keep, both, open, bare} {
				if got := strings.Contains(en, line+"\n"); got != (line == tt.want) {
					t.Errorf("has %q: %v; want only %q:\n%s", line, got, tt.want, en)
				}
			}
		})
	}
}

// TestPersonToldOfTheLiveSession: `baton resume`, run by a person beside
// the only session running in the worktree, names that session without
// calling it "another" one; the agent starting beside it is told of
// another session.
func TestPersonToldOfTheLiveSession(t *testing.T) {
	st := state.Dir{Root: t.TempDir()}
	self := wtstate.Process{PID: os.Getpid()}
	observe(t, st, work("s1", 60), func(string) wtstate.Process { return self })
	o := baseOptions(st.Root)
	br, err := BuildBrief(context.Background(), BriefOptions{Options: o, Lang: i18n.EN, Budget: hook.MaxContext, Own: true, ForPerson: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(br.Text, "Session s1 (started ") || strings.Contains(br.Text, "Another session") {
		t.Errorf("the person's briefing:\n%s", br.Text)
	}
}
