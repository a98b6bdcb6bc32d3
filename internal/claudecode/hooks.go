package claudecode

import (
	"context"
	"strconv"
	"strings"
)

// DefaultHookCommand is the command baton installs when the caller names
// none and the baton-hook program is not installed.
const DefaultHookCommand = "baton hook"

// HookProgram is the program that does what `baton hook` does and starts
// faster; baton installs it when it is on PATH.
const HookProgram = "baton-hook"

// PluginHookCommand is the hook command of baton's plugin. A plugin's
// hooks.json cannot know which programs are installed, so the shell that
// Claude Code runs hook commands with picks baton-hook when it is on PATH,
// else `baton hook`; exec hands the payload on stdin straight to it.
const PluginHookCommand = "command -v baton-hook >/dev/null 2>&1 && exec baton-hook || exec baton hook"

// HookTimeout is the timeout, in seconds, given to every hook baton installs,
// so that a hung hook cannot stall the agent for long.
const HookTimeout = 10

// HookEvents returns the Claude Code hook events baton installs its hook on,
// in the order it adds them. It is the one list of them; the slice is new on
// every call.
//
// WorktreeCreate and WorktreeRemove are left out on purpose: in Claude Code
// (checked with 2.1.328) a WorktreeCreate hook replaces git's worktree
// creation and must print the new worktree's path, so a hook that only
// records would make every `claude --worktree` fail; a WorktreeRemove hook
// runs only for worktrees such a hook made and, when present, takes the
// place of their removal.
func HookEvents() []string {
	return []string{
		"SessionStart",
		"UserPromptSubmit",
		"PreToolUse",
		"PostToolUse",
		"Stop",
		"SubagentStop",
		"PreCompact",
		"SessionEnd",
		"Notification",
		"PostToolUseFailure",
		"StopFailure",
		"PostCompact",
		"SubagentStart",
		"TaskCreated",
		"TaskCompleted",
		"PermissionDenied",
		"CwdChanged",
	}
}

// isToolEvent reports whether event's hooks take a tool matcher.
func isToolEvent(event string) bool {
	switch event {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied":
		return true
	}
	return false
}

// InstallHooks adds baton's hook, running command, to every event of
// HookEvents in the Claude Code settings file path, creating the file and its
// folder if needed. Everything else in the file is kept, in its order and as
// written. An event that already has a baton hook (see IsBatonHook) is left
// alone, so installing twice changes nothing the second time.
//
// A file that is not a JSON object, or whose "hooks" is not an object of
// arrays, is refused with an error matching ErrInvalidSettings.
func InstallHooks(ctx context.Context, path, command string) (Change, error) {
	return editFile(ctx, path, true, installHooks(command, HookEvents(), HookTimeout))
}

// InstallHooksFor is InstallHooks for other agents' CLIs whose settings
// keep hooks in the same shape (the Gemini CLI's settings.json, the Codex
// CLI's hooks.json): only the events given, with no timeout of baton's
// (their own default applies; they count it in other units).
func InstallHooksFor(ctx context.Context, path, command string, events []string) (Change, error) {
	return editFile(ctx, path, true, installHooks(command, events, 0))
}

func installHooks(command string, events []string, timeout int) editFunc {
	return func(d *document) (added, _ []string, err error) {
		hooks, err := d.hooks()
		if err != nil {
			return nil, nil, err
		}
		for _, event := range events {
			var groups []node
			if n, ok := hooks.get(event); ok {
				groups = parseArray(n)
				if hasBatonHook(groups, command) {
					continue
				}
			}
			groups = append(groups, node{raw: hookGroup(event, command, timeout), off: -1})
			hooks.set(event, arrayBytes(groups))
			added = append(added, event)
		}
		if len(added) > 0 {
			d.root.set("hooks", hooks.bytes())
		}
		return added, nil, nil
	}
}

// UninstallHooks removes every baton hook (see IsBatonHook) from the settings
// file path, on whatever event it is. A matcher group left without hooks is
// removed, then an event left without groups, then "hooks" if left empty;
// nothing else changes. A missing file is left missing.
func UninstallHooks(ctx context.Context, path, command string) (Change, error) {
	return editFile(ctx, path, false, uninstallHooks(command))
}

func uninstallHooks(command string) editFunc {
	return func(d *document) (_, removed []string, err error) {
		hooks, err := d.hooks()
		if err != nil || hooks == nil {
			return nil, nil, err
		}
		for _, event := range hooks.liveNames() {
			n, _ := hooks.get(event)
			groups, changed := withoutBatonHooks(parseArray(n), command)
			if !changed {
				continue
			}
			removed = append(removed, event)
			if len(groups) == 0 {
				hooks.remove(event)
			} else {
				hooks.set(event, arrayBytes(groups))
			}
		}
		switch {
		case len(removed) == 0:
		case len(hooks) == 0:
			d.root.remove("hooks")
		default:
			d.root.set("hooks", hooks.bytes())
		}
		return nil, removed, nil
	}
}

// HooksInstalled returns the events in the settings file path that have a
// baton hook, in file order. A missing file has none.
func HooksInstalled(ctx context.Context, path, command string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d, err := readDocument(path)
	if err != nil {
		return nil, err
	}
	return d.hookedEvents(command)
}

// hookedEvents returns the events of d that have a baton hook, in file order.
func (d *document) hookedEvents(command string) ([]string, error) {
	hooks, err := d.hooks()
	if err != nil {
		return nil, err
	}
	var events []string
	for _, event := range hooks.liveNames() {
		n, _ := hooks.get(event)
		if hasBatonHook(parseArray(n), command) {
			events = append(events, event)
		}
	}
	return events, nil
}

// IsBatonHook reports whether a hook's command is baton's: either exactly
// command, or any command, its program optionally quoted, whose program's
// base name is "baton" with "hook" as first argument, or is "baton-hook"
// ("baton.exe" and "baton-hook.exe" too), or is PluginHookCommand. The
// second rule keeps an install by
// another path or the other program, such as "/usr/local/bin/baton hook",
// from being duplicated, and lets uninstall remove it.
func IsBatonHook(hookCommand, command string) bool {
	if hookCommand == command || hookCommand == PluginHookCommand {
		return true
	}
	prog, args := splitProgram(strings.TrimSpace(hookCommand))
	prog = strings.TrimSuffix(strings.ToLower(prog[strings.LastIndexAny(prog, `/\`)+1:]), ".exe")
	fields := strings.Fields(args)
	switch prog {
	case "baton":
		return len(fields) > 0 && fields[0] == "hook"
	case HookProgram:
		return true
	}
	return false
}

// splitProgram splits a command line into its program, unquoted if it is in
// single or double quotes, and the rest.
func splitProgram(cmd string) (prog, rest string) {
	if cmd != "" && (cmd[0] == '"' || cmd[0] == '\'') {
		if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
			return cmd[1 : end+1], cmd[end+2:]
		}
	}
	if i := strings.IndexAny(cmd, " \t"); i >= 0 {
		return cmd[:i], cmd[i:]
	}
	return cmd, ""
}

// hooks returns the live "hooks" object of d, nil if there is none, after
// checking that it is an object of arrays.
func (d *document) hooks() (object, error) {
	n, ok := d.root.get("hooks")
	if !ok {
		return nil, nil
	}
	if n.kind() != '{' {
		return nil, d.invalid(n, `"hooks" is not an object`)
	}
	hooks := parseObject(n)
	for _, event := range hooks.liveNames() {
		if v, _ := hooks.get(event); v.kind() != '[' {
			return nil, d.invalid(v, "hooks of event %q are not an array", event)
		}
	}
	return hooks, nil
}

// hookGroup returns the matcher group baton adds to event, with a timeout
// in seconds unless it is 0.
func hookGroup(event, command string, timeout int) []byte {
	entry := object{}
	entry.set("type", encodeString("command"))
	entry.set("command", encodeString(command))
	if timeout > 0 {
		entry.set("timeout", []byte(strconv.Itoa(timeout)))
	}
	group := object{}
	if isToolEvent(event) {
		group.set("matcher", encodeString("*"))
	}
	group.set("hooks", arrayBytes([]node{{raw: entry.bytes(), off: -1}}))
	return group.bytes()
}

// groupEntries returns a matcher group as an object and its hook entries, if
// it has the expected shape; groups of any other shape are not baton's and
// are left alone.
func groupEntries(group node) (object, []node, bool) {
	if group.kind() != '{' {
		return nil, nil, false
	}
	obj := parseObject(group)
	hooks, ok := obj.get("hooks")
	if !ok || hooks.kind() != '[' {
		return nil, nil, false
	}
	return obj, parseArray(hooks), true
}

// isBatonEntry reports whether a hook entry runs baton's hook.
func isBatonEntry(entry node, command string) bool {
	if entry.kind() != '{' {
		return false
	}
	n, ok := parseObject(entry).get("command")
	if !ok {
		return false
	}
	s, ok := stringValue(n)
	return ok && IsBatonHook(s, command)
}

func hasBatonHook(groups []node, command string) bool {
	for _, g := range groups {
		_, entries, ok := groupEntries(g)
		if !ok {
			continue
		}
		for _, e := range entries {
			if isBatonEntry(e, command) {
				return true
			}
		}
	}
	return false
}

// withoutBatonHooks returns groups with baton's hook entries taken out and
// the groups they leave empty dropped, and whether anything was taken out.
func withoutBatonHooks(groups []node, command string) ([]node, bool) {
	kept := make([]node, 0, len(groups))
	changed := false
	for _, g := range groups {
		obj, entries, ok := groupEntries(g)
		if !ok {
			kept = append(kept, g)
			continue
		}
		rest := make([]node, 0, len(entries))
		for _, e := range entries {
			if !isBatonEntry(e, command) {
				rest = append(rest, e)
			}
		}
		switch {
		case len(rest) == len(entries):
			kept = append(kept, g)
		case len(rest) == 0:
			changed = true
		default:
			changed = true
			obj.set("hooks", arrayBytes(rest))
			kept = append(kept, node{raw: obj.bytes(), off: -1})
		}
	}
	return kept, changed
}
