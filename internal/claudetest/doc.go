// Package claudetest finds and runs the real Claude Code CLI for baton's
// end-to-end tests, hermetically and offline, against a scripted model
// server (package modelserver). It owns the test environment of the CLI,
// not what a test asserts about baton.
//
//	s := modelserver.New(t, modelserver.Text("hello"))
//	e := claudetest.New(t, s) // skips when the CLI is not installed (fails on CI)
//	e.Path = append(e.Path, claudetest.BuildBaton(t))
//	out, _ := e.Run(t, "-p", "hi")
//
// # Environment
//
// The CLI runs with nothing inherited but PATH: HOME and TMPDIR are fresh
// temporary directories (so the developer's ~/.claude never leaks in and
// the CLI's per-session files under $TMPDIR/claude-<uid> stay in the test),
// ANTHROPIC_BASE_URL points at the server, ANTHROPIC_API_KEY is a dummy, and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, DISABLE_AUTOUPDATER,
// DISABLE_TELEMETRY and DISABLE_ERROR_REPORTING are 1. With that, version
// 2.1.328 connects to nothing but the server.
//
// # What Claude Code 2.1.328 needs and does in print mode (-p)
//
// Checked on a 2-core machine, as root:
//   - A fresh HOME needs no preparation: no ~/.claude.json, onboarding or
//     login; the CLI writes ~/.claude.json and ~/.claude/ itself.
//   - --dangerously-skip-permissions is refused as root; --allowedTools Bash
//     (or the tools the test needs) lets a scripted tool_use run.
//   - Hooks in the working directory's .claude/settings.local.json fire with
//     no trust prompt or trusted-workspace setup. Hook commands run through
//     the shell and inherit the CLI's environment.
//   - Hooks that fire for one prompt with one Bash call: SessionStart
//     (source "startup"; "resume" with --continue/--resume), UserPromptSubmit,
//     PreToolUse, PostToolUse, Stop, SessionEnd (reason "other"), in that
//     order, each done before the CLI exits. A "/compact" prompt fires
//     SessionStart (resume), PreCompact (trigger "manual"), SubagentStop,
//     SessionStart (source "compact"), PostCompact, SessionEnd; it fires
//     neither UserPromptSubmit nor Stop and prints nothing.
//   - A SessionStart hook printing {"hookSpecificOutput":{"hookEventName":
//     "SessionStart","additionalContext":"…"}} reaches the model as a
//     "system" role message beginning "SessionStart hook additional
//     context: ".
//   - One run of -p with one text turn takes about 1 s of wall time (0.7 s
//     of CPU) on an idle 2-core machine, 5 to 8 s when that machine is
//     loaded; each tool call adds a tool run and a request. A retry after
//     529 or 500 waits about a second.
//
// # Helpers
//
// WriteProjectSettings and HookSettings write hooks into the working
// directory's settings; RunJSON runs with --output-format json and returns
// the session id; BuildBaton builds cmd/baton once per test process for
// Env.Path, so hooks and tools the CLI runs find the baton under test.
package claudetest
