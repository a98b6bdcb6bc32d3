package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// writeSettings writes data to a new settings file in a temporary folder and
// returns its path.
func writeSettings(t testing.TB, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readSettings(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: got\n%s\nwant\n%s", golden, got, want)
	}
}

// fileID is what tells whether a file was rewritten: a rename gives a new
// inode, a write a new modification time.
type fileID struct {
	info os.FileInfo
	data []byte
}

func statFile(t testing.TB, path string) fileID {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileID{info: fi, data: readSettings(t, path)}
}

func (a fileID) same(b fileID) bool {
	return os.SameFile(a.info, b.info) && a.info.ModTime().Equal(b.info.ModTime()) &&
		a.info.Mode() == b.info.Mode() && bytes.Equal(a.data, b.data)
}

func TestInstallUninstallFixtures(t *testing.T) {
	all := HookEvents()
	tests := []struct {
		name        string
		wantAdded   []string
		wantRemoved []string
		restores    bool // uninstall gives back the input byte for byte
	}{
		{name: "empty", wantAdded: all, wantRemoved: all},
		{name: "blank", wantAdded: all, wantRemoved: all},
		{name: "empty-object", wantAdded: all, wantRemoved: all, restores: true},
		{name: "user-hooks", wantAdded: all, wantRemoved: all, restores: true},
		{name: "compact", wantAdded: all, wantRemoved: all, restores: true},
		{name: "mixed-style", wantAdded: all, wantRemoved: all, restores: true},
		{name: "four-spaces", wantAdded: all, wantRemoved: all, restores: true},
		{name: "tabs", wantAdded: all, wantRemoved: all, restores: true},
		{name: "crlf", wantAdded: all, wantRemoved: all, restores: true},
		{
			name:        "older-baton",
			wantAdded:   slices.DeleteFunc(HookEvents(), func(e string) bool { return e == "PostToolUse" || e == "Stop" }),
			wantRemoved: all,
		},
		{name: "empty-hooks", wantAdded: all, wantRemoved: all},
		{name: "duplicate-keys", wantAdded: all, wantRemoved: all},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join("testdata", "hooks", tt.name)
			input, err := os.ReadFile(base + ".json")
			if err != nil {
				t.Fatal(err)
			}
			path := writeSettings(t, input)

			ch, err := InstallHooks(ctx, path, DefaultHookCommand)
			if err != nil {
				t.Fatalf("InstallHooks: %v", err)
			}
			if !slices.Equal(ch.Added, tt.wantAdded) || ch.Removed != nil || ch.Created || ch.Unchanged || ch.Path != path {
				t.Errorf("InstallHooks: got %+v; want added %v, path %s", ch, tt.wantAdded, path)
			}
			installed := readSettings(t, path)
			checkGolden(t, base+".installed.golden", installed)
			if !json.Valid(installed) {
				t.Fatalf("installed file is not valid JSON:\n%s", installed)
			}
			events, err := HooksInstalled(ctx, path, DefaultHookCommand)
			if err != nil {
				t.Fatalf("HooksInstalled: %v", err)
			}
			if !sameSet(events, all) {
				t.Errorf("HooksInstalled after install: got %v; want %v", events, all)
			}

			before := statFile(t, path)
			again, err := InstallHooks(ctx, path, DefaultHookCommand)
			if err != nil {
				t.Fatalf("second InstallHooks: %v", err)
			}
			if !again.Unchanged || again.Added != nil {
				t.Errorf("second InstallHooks: got %+v; want unchanged", again)
			}
			if !before.same(statFile(t, path)) {
				t.Errorf("second InstallHooks rewrote the file")
			}

			ch, err = UninstallHooks(ctx, path, DefaultHookCommand)
			if err != nil {
				t.Fatalf("UninstallHooks: %v", err)
			}
			if !sameSet(ch.Removed, tt.wantRemoved) || ch.Added != nil || ch.Unchanged {
				t.Errorf("UninstallHooks: got %+v; want removed %v", ch, tt.wantRemoved)
			}
			uninstalled := readSettings(t, path)
			checkGolden(t, base+".uninstalled.golden", uninstalled)
			if tt.restores && !bytes.Equal(uninstalled, input) {
				t.Errorf("uninstall did not restore the input: got\n%s\nwant\n%s", uninstalled, input)
			}
			if events, err := HooksInstalled(ctx, path, DefaultHookCommand); err != nil || events != nil {
				t.Errorf("HooksInstalled after uninstall: got %v, %v; want none", events, err)
			}

			before = statFile(t, path)
			ch, err = UninstallHooks(ctx, path, DefaultHookCommand)
			if err != nil || !ch.Unchanged {
				t.Errorf("second UninstallHooks: got %+v, %v; want unchanged", ch, err)
			}
			if !before.same(statFile(t, path)) {
				t.Errorf("second UninstallHooks rewrote the file")
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("settings folder: got %d entries; want only the settings file (no lock or temporary file left)", len(entries))
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestInstallKeepsValuesAsWritten checks, beyond the golden file, the
// promises a user relies on: other keys in their order and values spelled as
// they were.
func TestInstallKeepsValuesAsWritten(t *testing.T) {
	input, err := os.ReadFile(filepath.Join("testdata", "hooks", "user-hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeSettings(t, input)
	if _, err := InstallHooks(context.Background(), path, DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	got := string(readSettings(t, path))
	for _, want := range []string{
		`"cleanupPeriodDays": 1e3,`,
		`"ratio": 10.0,`,
		`"neg": -0,`,
		`"big": 12345678901234567890123,`,
		`"GREETING": "こんにちは \u00e9 <b>&amp;</b> \ud83d\ude00"`,
		`"command": "prettier --write \"$CLAUDE_FILE_PATHS\" && echo ok",`,
	} {
		if !bytes.Contains([]byte(got), []byte(want)) {
			t.Errorf("installed file lacks %s", want)
		}
	}
	order := []string{`"model"`, `"permissions"`, `"hooks"`, `"env"`, `"ZED"`, `"ALPHA"`, `"cleanupPeriodDays"`, `"flags"`}
	last := -1
	for _, key := range order {
		i := bytes.Index([]byte(got), []byte(key))
		if i <= last {
			t.Errorf("key %s at %d; want after %d (user's order kept)", key, i, last)
		}
		last = i
	}
	// The user's hooks come first in their events, baton's group after them.
	user := bytes.Index([]byte(got), []byte("prettier"))
	baton := bytes.Index([]byte(got), []byte(`"matcher": "*"`))
	if user < 0 || baton < 0 || user > baton {
		t.Errorf("PostToolUse: user's hook at %d, baton's group at %d; want the user's first", user, baton)
	}
}

func TestInstallHooksMissingFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "repo", ".claude", "settings.local.json")

	ch, err := UninstallHooks(ctx, path, DefaultHookCommand)
	if err != nil || !ch.Unchanged {
		t.Fatalf("UninstallHooks on a missing file: got %+v, %v; want unchanged", ch, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "repo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("UninstallHooks on a missing file created folders: stat: %v", err)
	}
	if events, err := HooksInstalled(ctx, path, DefaultHookCommand); err != nil || events != nil {
		t.Errorf("HooksInstalled on a missing file: got %v, %v; want none", events, err)
	}

	ch, err = InstallHooks(ctx, path, "/opt/baton/bin/baton hook")
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Created || !slices.Equal(ch.Added, HookEvents()) {
		t.Errorf("InstallHooks on a missing file: got %+v; want created with every event", ch)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data := readSettings(t, path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Hooks) != len(HookEvents()) {
		t.Errorf("events: got %d; want %d", len(doc.Hooks), len(HookEvents()))
	}
	for _, event := range HookEvents() {
		groups := doc.Hooks[event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: got %+v; want one group with one hook", event, groups)
			continue
		}
		h := groups[0].Hooks[0]
		if h.Type != "command" || h.Command != "/opt/baton/bin/baton hook" || h.Timeout != HookTimeout {
			t.Errorf("%s: got hook %+v; want command %q, timeout %d", event, h, "/opt/baton/bin/baton hook", HookTimeout)
		}
		wantMatcher := slices.Contains([]string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionDenied"}, event)
		if gotMatcher := groups[0].Matcher != nil && *groups[0].Matcher == "*"; gotMatcher != wantMatcher {
			t.Errorf("%s: matcher \"*\" %t; want %t", event, gotMatcher, wantMatcher)
		}
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.HasPrefix(data, []byte("{\n  \"hooks\": {\n    \"SessionStart\"")) {
		t.Errorf("new file is not two-space indented with a final newline:\n%s", data)
	}
}

func TestInstallHooksOldBatonCommandNotDuplicated(t *testing.T) {
	ctx := context.Background()
	path := writeSettings(t, []byte(`{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/local/bin/baton hook"}]}]}}`))
	ch, err := InstallHooks(ctx, path, "baton hook")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ch.Added, "PostToolUse") {
		t.Errorf("added %v; want PostToolUse left with its older baton hook", ch.Added)
	}
	if n := bytes.Count(readSettings(t, path), []byte("baton hook")); n != len(HookEvents()) {
		t.Errorf("baton hooks in file: got %d; want one per event, %d", n, len(HookEvents()))
	}
}

func TestInstallHooksKeepsMode(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o640, 0o664} {
		t.Run(mode.String(), func(t *testing.T) {
			path := writeSettings(t, []byte("{}\n"))
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
			if _, err := InstallHooks(context.Background(), path, DefaultHookCommand); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != mode {
				t.Errorf("mode: got %v; want %v", fi.Mode().Perm(), mode)
			}
		})
	}
}

func TestInstallHooksFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{\"theme\": \"dark\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHooks(context.Background(), link, DefaultHookCommand); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("settings link replaced by a %v file; want the link kept", fi.Mode())
	}
	if !bytes.Contains(readSettings(t, target), []byte(DefaultHookCommand)) {
		t.Errorf("link target has no baton hook")
	}
}

func TestInvalidSettingsRefused(t *testing.T) {
	tests := []struct {
		name       string
		data       string
		wantLine   int
		wantColumn int
	}{
		{name: "truncated", data: "{\n  \"a\": ", wantLine: 2, wantColumn: 8},
		{name: "comment", data: "{\n  // mine\n  \"a\": 1\n}\n", wantLine: 2, wantColumn: 3},
		{name: "trailing comma", data: "{\n  \"a\": 1,\n}\n", wantLine: 3, wantColumn: 1},
		{name: "two values", data: "{} {}", wantLine: 1, wantColumn: 4},
		{name: "byte order mark", data: "\ufeff{}", wantLine: 1, wantColumn: 1},
		{name: "top-level array", data: "\n  [1, 2]", wantLine: 2, wantColumn: 3},
		{name: "top-level null", data: "null", wantLine: 1, wantColumn: 1},
		{name: "top-level string", data: `"{}"`, wantLine: 1, wantColumn: 1},
		{name: "hooks array", data: "{\n  \"hooks\": []\n}\n", wantLine: 2, wantColumn: 12},
		{name: "hooks null", data: `{"hooks": null}`, wantLine: 1, wantColumn: 11},
		{name: "hooks string", data: `{"model": "x", "hooks": "baton hook"}`, wantLine: 1, wantColumn: 25},
		{name: "event object", data: "{\"hooks\": {\"Stop\": []\n, \"PreToolUse\": {\"hooks\": []}}}", wantLine: 2, wantColumn: 17},
		{name: "event null", data: `{"hooks": {"Notification": null}}`, wantLine: 1, wantColumn: 28},
		{name: "event shadowing", data: `{"hooks": {"Stop": [], "Stop": 1}}`, wantLine: 1, wantColumn: 32},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSettings(t, []byte(tt.data))
			past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			if err := os.Chtimes(path, past, past); err != nil {
				t.Fatal(err)
			}
			before := statFile(t, path)
			ops := []struct {
				name string
				run  func() error
			}{
				{"InstallHooks", func() error { _, err := InstallHooks(ctx, path, DefaultHookCommand); return err }},
				{"UninstallHooks", func() error { _, err := UninstallHooks(ctx, path, DefaultHookCommand); return err }},
				{"HooksInstalled", func() error { _, err := HooksInstalled(ctx, path, DefaultHookCommand); return err }},
			}
			for _, op := range ops {
				err := op.run()
				if !errors.Is(err, ErrInvalidSettings) {
					t.Fatalf("%s: got error %v; want ErrInvalidSettings", op.name, err)
				}
				var ie *InvalidError
				if !errors.As(err, &ie) {
					t.Fatalf("%s: got %T; want *InvalidError", op.name, err)
				}
				if ie.Path != path || ie.Line != tt.wantLine || ie.Column != tt.wantColumn {
					t.Errorf("%s: got %s:%d:%d; want %s:%d:%d (%v)", op.name, ie.Path, ie.Line, ie.Column, path, tt.wantLine, tt.wantColumn, err)
				}
				if !before.same(statFile(t, path)) {
					t.Errorf("%s changed the refused file", op.name)
				}
			}
		})
	}
}

func TestInvalidErrorMessage(t *testing.T) {
	path := writeSettings(t, []byte("{\n  \"hooks\": 3\n}\n"))
	_, err := InstallHooks(context.Background(), path, DefaultHookCommand)
	want := path + `:2:12: invalid settings: "hooks" is not an object`
	if err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
}

func TestUninstallHooksKeepsOthers(t *testing.T) {
	tests := []struct {
		name        string
		input       string
		want        string
		wantRemoved []string
	}{
		{
			name:        "baton beside the user's hook in one group",
			input:       `{"hooks":{"Stop":[{"hooks":[{"command":"say hi"},{"type":"command","command":"baton hook"}]}]}}`,
			want:        `{"hooks":{"Stop":[{"hooks":[{"command":"say hi"}]}]}}`,
			wantRemoved: []string{"Stop"},
		},
		{
			name:        "pre-existing empty group and event kept",
			input:       `{"hooks":{"Stop":[{"hooks":[]},{"hooks":[{"command":"baton hook"}]}],"Notification":[]}}`,
			want:        `{"hooks":{"Stop":[{"hooks":[]}],"Notification":[]}}`,
			wantRemoved: []string{"Stop"},
		},
		{
			name:        "other shapes inside events left alone",
			input:       `{"hooks":{"Stop":["text",{"hooks":"x"},{"matcher":"*"},{"hooks":[1,{"command":2},{"command":"baton hook"}]}]}}`,
			want:        `{"hooks":{"Stop":["text",{"hooks":"x"},{"matcher":"*"},{"hooks":[1,{"command":2}]}]}}`,
			wantRemoved: []string{"Stop"},
		},
		{
			name:        "events baton does not install on are cleaned too",
			input:       `{"hooks":{"SubagentStart":[{"hooks":[{"command":"C:\\bin\\baton.exe hook --debug"}]}]},"z":1}`,
			want:        `{"z":1}`,
			wantRemoved: []string{"SubagentStart"},
		},
		{
			name:        "shadowed hooks object removed with the live one",
			input:       `{"hooks":{"Stop":[{"hooks":[{"command":"mine"}]}]},"hooks":{"Stop":[{"hooks":[{"command":"baton hook"}]}]}}`,
			want:        `{}`,
			wantRemoved: []string{"Stop"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSettings(t, []byte(tt.input))
			ch, err := UninstallHooks(context.Background(), path, DefaultHookCommand)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ch.Removed, tt.wantRemoved) {
				t.Errorf("removed: got %v; want %v", ch.Removed, tt.wantRemoved)
			}
			if got := string(readSettings(t, path)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestHooksInstalled(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{name: "empty file", input: "", want: nil},
		{name: "no hooks", input: `{"model":"x"}`, want: nil},
		{name: "others' hooks only", input: `{"hooks":{"Stop":[{"hooks":[{"command":"baton-dev hook"}]}]}}`, want: nil},
		{
			name:  "some events, file order, older command",
			input: `{"hooks":{"Stop":[{"hooks":[{"command":"baton hook"}]}],"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"'/my dir/baton' hook"}]}],"SessionStart":[]}}`,
			want:  []string{"Stop", "PostToolUse"},
		},
		{
			name:  "shadowed event does not count",
			input: `{"hooks":{"Stop":[{"hooks":[{"command":"baton hook"}]}],"Stop":[]}}`,
			want:  nil,
		},
		{
			name:  "shadowed command does not count",
			input: `{"hooks":{"Stop":[{"hooks":[{"command":"baton hook","command":"other"}]}]}}`,
			want:  nil,
		},
		{
			name:  "key case matters",
			input: `{"hooks":{"Stop":[{"hooks":[{"Command":"baton hook"}]}]}}`,
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSettings(t, []byte(tt.input))
			got, err := HooksInstalled(context.Background(), path, DefaultHookCommand)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

func TestIsBatonHook(t *testing.T) {
	tests := []struct {
		name        string
		hookCommand string
		command     string
		want        bool
	}{
		{name: "exact", hookCommand: "baton hook", command: "baton hook", want: true},
		{name: "exact custom command", hookCommand: "bt hook --fast", command: "bt hook --fast", want: true},
		{name: "absolute path", hookCommand: "/usr/local/bin/baton hook", command: "baton hook", want: true},
		{name: "extra arguments", hookCommand: "baton hook --journal x", command: "baton hook", want: true},
		{name: "plugin root", hookCommand: "${CLAUDE_PLUGIN_ROOT}/bin/baton hook", command: "baton hook", want: true},
		{name: "quoted path with space", hookCommand: `"/Users/me/my tools/baton" hook`, command: "baton hook", want: true},
		{name: "windows exe", hookCommand: `C:\tools\Baton.EXE hook`, command: "baton hook", want: true},
		{name: "tab separated", hookCommand: "baton\thook", command: "baton hook", want: true},
		{name: "hook program", hookCommand: "baton-hook", command: "baton hook", want: true},
		{name: "plugin command", hookCommand: PluginHookCommand, command: "baton-hook", want: true},
		{name: "hook program by path with event", hookCommand: "/home/me/go/bin/baton-hook PostToolUse", command: "baton hook", want: true},
		{name: "baton hook where hook program asked", hookCommand: "baton hook", command: "baton-hook", want: true},
		{name: "windows hook program", hookCommand: `C:\tools\baton-hook.exe`, command: "baton-hook", want: true},
		{name: "hook program suffix", hookCommand: "not-baton-hook", command: "baton-hook", want: false},
		{name: "other program", hookCommand: "baton-dev hook", command: "baton hook", want: false},
		{name: "program suffix", hookCommand: "/bin/notbaton hook", command: "baton hook", want: false},
		{name: "other subcommand", hookCommand: "baton hooks", command: "baton hook", want: false},
		{name: "no subcommand", hookCommand: "baton", command: "baton hook", want: false},
		{name: "baton as an argument", hookCommand: "echo baton hook", command: "baton hook", want: false},
		{name: "empty", hookCommand: "", command: "baton hook", want: false},
		{name: "unclosed quote", hookCommand: `"baton hook`, command: "baton hook", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBatonHook(tt.hookCommand, tt.command); got != tt.want {
				t.Errorf("IsBatonHook(%q, %q): got %t; want %t", tt.hookCommand, tt.command, got, tt.want)
			}
		})
	}
}

// TestConcurrentInstalls runs edits of one file at once; without the lock,
// one writer's read-modify-write would drop another's changes. Commands other
// than baton's stand in for several tools, since every baton hook counts as
// the same one; MCP servers are registered in the same file meanwhile.
func TestConcurrentInstalls(t *testing.T) {
	const writers = 6
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	ctx := context.Background()

	run := func(fns []func() error) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make(chan error, len(fns))
		for _, fn := range fns {
			wg.Go(func() {
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	var fns []func() error
	for i := range writers {
		fns = append(fns,
			func() error { _, err := InstallHooks(ctx, path, fmt.Sprintf("tool%d run", i)); return err },
			func() error {
				_, err := InstallMCPServer(ctx, path, fmt.Sprintf("server%d", i), "srv", []string{fmt.Sprint(i)})
				return err
			})
	}
	run(fns)
	// Then baton's hook, from several installers that name it differently.
	fns = nil
	for _, cmd := range []string{DefaultHookCommand, DefaultHookCommand, "/usr/bin/baton hook", "baton hook"} {
		fns = append(fns, func() error { _, err := InstallHooks(ctx, path, cmd); return err })
	}
	run(fns)

	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
		MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
	}
	if err := json.Unmarshal(readSettings(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	for _, event := range HookEvents() {
		count := map[string]int{}
		for _, g := range doc.Hooks[event] {
			for _, h := range g.Hooks {
				count[h.Command]++
			}
		}
		for i := range writers {
			if cmd := fmt.Sprintf("tool%d run", i); count[cmd] != 1 {
				t.Errorf("%s: %q present %d times; want once", event, cmd, count[cmd])
			}
		}
		if baton := count[DefaultHookCommand] + count["/usr/bin/baton hook"]; baton != 1 {
			t.Errorf("%s: baton hooks present %d times; want once", event, baton)
		}
	}
	for i := range writers {
		name := fmt.Sprintf("server%d", i)
		if s, ok := doc.MCPServers[name]; !ok || !slices.Equal(s.Args, []string{fmt.Sprint(i)}) {
			t.Errorf("MCP server %s: got %+v (present %t); want args [%d]", name, s, ok, i)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("settings folder: got %d entries; want only the settings file", len(entries))
	}
}

func TestInstallHooksWaitsForLock(t *testing.T) {
	path := writeSettings(t, []byte("{}\n"))
	unlock, err := lockFile(context.Background(), path+".lock")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = InstallHooks(ctx, path, DefaultHookCommand)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("InstallHooks while locked: got %v; want context.DeadlineExceeded", err)
	}
	if got := readSettings(t, path); string(got) != "{}\n" {
		t.Errorf("file changed while locked: %s", got)
	}
	unlock()
	if _, err := InstallHooks(context.Background(), path, DefaultHookCommand); err != nil {
		t.Errorf("InstallHooks after unlock: %v", err)
	}
}

// normalize decodes a settings document for semantic comparison, numbers as
// written. An empty "hooks" object and an empty event array mean the same to
// Claude Code as none, and uninstall cannot tell whether the user had them
// before install filled them, so they are dropped.
func normalize(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	doc, _ := v.(map[string]any)
	hooks, ok := doc["hooks"].(map[string]any)
	if !ok {
		return v
	}
	for event, groups := range hooks {
		if g, ok := groups.([]any); ok && len(g) == 0 {
			delete(hooks, event)
		}
	}
	if len(hooks) == 0 {
		delete(doc, "hooks")
	}
	return v
}

func FuzzInstallUninstall(f *testing.F) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "hooks", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range fixtures {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"baton hook"},{"command":"x"}]},{"hooks":[]}],"Notification":[]},"hooks":{}}`))
	f.Add([]byte(`{"a":[1e3,10.0,"\u00e9\ud800"],"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":"/bin/baton hook"}]}]}}`))
	f.Add([]byte(`[{"hooks":1}]`))
	f.Add([]byte("{\"a\":\"\xff\"}"))

	install, uninstall := installHooks(DefaultHookCommand, HookEvents(), HookTimeout), uninstallHooks(DefaultHookCommand)
	f.Fuzz(func(t *testing.T, data []byte) {
		// In memory: the file layer is tested above, and fsync would make
		// each run take milliseconds.
		const path = "settings.json"
		installed, added, _, err := apply(path, data, install)
		if err != nil {
			if !errors.Is(err, ErrInvalidSettings) {
				t.Fatalf("install: %v", err)
			}
			if _, _, _, err := apply(path, data, uninstall); !errors.Is(err, ErrInvalidSettings) {
				t.Fatalf("install refused %q but uninstall got %v", data, err)
			}
			return
		}
		if installed == nil {
			installed = data // every event already had a baton hook
		} else if !json.Valid(installed) || len(added) == 0 {
			t.Fatalf("install wrote %q, added %v; want valid JSON and additions", installed, added)
		}
		d, err := parseDocument(path, installed)
		if err != nil {
			t.Fatalf("parse installed %q: %v", installed, err)
		}
		events, err := d.hookedEvents(DefaultHookCommand)
		if err != nil {
			t.Fatalf("hooked events: %v", err)
		}
		for _, event := range HookEvents() {
			if !slices.Contains(events, event) {
				t.Fatalf("events with baton's hook after install: got %v; want every event (input %q)", events, data)
			}
		}
		roundTrip, _, _, err := apply(path, installed, uninstall)
		if err != nil {
			t.Fatalf("uninstall after install: %v", err)
		}
		if roundTrip == nil {
			t.Fatalf("uninstall after install changed nothing in %q", installed)
		}

		// The input without its baton hooks is what install then uninstall must give.
		direct, _, _, err := apply(path, data, uninstall)
		if err != nil {
			t.Fatalf("uninstall on input: %v", err)
		}
		if direct == nil {
			direct = data
		}
		if got, want := normalize(t, roundTrip), normalize(t, direct); !reflect.DeepEqual(got, want) {
			t.Fatalf("install then uninstall: got %#v; want %#v (input %q)", got, want, data)
		}
	})
}

// FuzzSplice: whatever the file's formatting, an install or uninstall writes
// valid JSON saying exactly what the edited document says.
func FuzzSplice(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "hooks", "*.json"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hooks":{"Stop":[ {"hooks":[{"command":"baton hook"}]} , "x" ]}, "a" : [ ] }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, edit := range []editFunc{installHooks(DefaultHookCommand, HookEvents(), HookTimeout), uninstallHooks(DefaultHookCommand)} {
			doc, err := parseDocument("settings.json", data)
			if err != nil {
				return
			}
			added, removed, err := edit(doc)
			if err != nil || len(added) == 0 && len(removed) == 0 {
				continue
			}
			want := doc.root.bytes()
			got := splice(data, want)
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("spliced text is not JSON: %v\n%s", err, got)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("spliced text says\n%s\nwant\n%s", got, want)
			}
		}
	})
}
