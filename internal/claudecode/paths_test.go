package claudecode

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestProjectKey(t *testing.T) {
	long := "/tmp/tmp.2BnVnUZDUJ/" + strings.Repeat("x", 250)
	tests := []struct {
		name string
		cwd  string
		want string
	}{
		{name: "plain", cwd: "/home/u/my_repo.x", want: "-home-u-my-repo-x"},
		{name: "digits and case kept", cwd: "/Users/Me/Repo2", want: "-Users-Me-Repo2"},
		{name: "spaces and dots", cwd: "/home/u/.config/my app", want: "-home-u--config-my-app"},
		// The next three were observed with Claude Code 2.1.328.
		{name: "japanese one dash per character", cwd: "/tmp/tmp.3MQCprmUPd/日本語_フォルダ.x", want: "-tmp-tmp-3MQCprmUPd----------x"},
		{name: "emoji two dashes", cwd: "/tmp/tmp.2BnVnUZDUJ/a😀b", want: "-tmp-tmp-2BnVnUZDUJ-a--b"},
		{name: "long path cut and hashed", cwd: long, want: ("-tmp-tmp-2BnVnUZDUJ-" + strings.Repeat("x", 250))[:200] + "-p9bbw3"},
		{name: "accented letter", cwd: "/é", want: "--"},
		{name: "windows", cwd: `C:\Users\me\repo`, want: "C--Users-me-repo"},
		{name: "exactly 200", cwd: "/" + strings.Repeat("a", 199), want: "-" + strings.Repeat("a", 199)},
		{name: "201 is cut", cwd: "/" + strings.Repeat("a", 200), want: "-" + strings.Repeat("a", 199) + "-" + "b6ymvl"},
		{name: "negative hash made positive", cwd: "/" + strings.Repeat("c", 201), want: "-" + strings.Repeat("c", 199) + "-id6lpo"},
		{name: "empty", cwd: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProjectKey(tt.cwd); got != tt.want {
				t.Errorf("ProjectKey(%q): got %q; want %q", tt.cwd, got, tt.want)
			}
		})
	}
}

func TestPathHash(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int32
	}{
		{name: "empty", in: "", want: 0},
		{name: "ascii", in: "abc", want: 96354},
		{name: "overflow wraps", in: "hello world, this overflows", want: 161437415},
		{name: "negative", in: "negative?", want: -1510311254},
		{name: "surrogate pair counts as two units", in: "😀", want: 0xd83d*31 + 0xde00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pathHash(tt.in); got != tt.want {
				t.Errorf("pathHash(%q): got %d; want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestDirs(t *testing.T) {
	home, cwd := "/home/u", "/home/u/my_repo"
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "transcripts", got: TranscriptDir(home, cwd), want: "/home/u/.claude/projects/-home-u-my-repo"},
		{name: "memory", got: MemoryDir(home, cwd), want: "/home/u/.claude/projects/-home-u-my-repo/memory"},
	}
	local, shared, user := SettingsPaths(home, "/src/repo")
	tests = append(tests,
		struct{ name, got, want string }{name: "local settings", got: local, want: "/src/repo/.claude/settings.local.json"},
		struct{ name, got, want string }{name: "shared settings", got: shared, want: "/src/repo/.claude/settings.json"},
		struct{ name, got, want string }{name: "user settings", got: user, want: "/home/u/.claude/settings.json"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != filepath.FromSlash(tt.want) {
				t.Errorf("got %s; want %s", tt.got, tt.want)
			}
		})
	}
}

func BenchmarkProjectKey(b *testing.B) {
	cwd := "/home/someone/src/github.com/baton-cli/baton/.worktrees/feature_x"
	for b.Loop() {
		ProjectKey(cwd)
	}
}

func TestProjectsDirs(t *testing.T) {
	tests := []struct {
		name, configDirs string
		want             []string
	}{
		{name: "default", want: []string{"/h/.config/claude/projects", "/h/.claude/projects"}},
		{name: "one config folder", configDirs: "/c", want: []string{"/c/projects"}},
		{name: "several, spaced", configDirs: " /a , /b ,", want: []string{"/a/projects", "/b/projects"}},
		{name: "only commas", configDirs: " , ", want: []string{"/h/.config/claude/projects", "/h/.claude/projects"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProjectsDirs("/h", tt.configDirs); !slices.Equal(got, tt.want) {
				t.Errorf("ProjectsDirs = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestAccessArgs(t *testing.T) {
	tests := []struct {
		dir  string
		want string
	}{
		{"/home/u/.local/share/baton/dialogues", "--allowedTools Bash(baton debate reply:*) Read(//home/u/.local/share/baton/dialogues/**) Edit(//home/u/.local/share/baton/dialogues/**) Write(//home/u/.local/share/baton/dialogues/**)"},
		{"/tmp/a (b)", "--allowedTools Bash(baton debate reply:*)"},
	}
	for _, tt := range tests {
		if got := strings.Join(AccessArgs(tt.dir, "baton debate reply"), " "); got != tt.want {
			t.Errorf("AccessArgs(%q) = %q; want %q", tt.dir, got, tt.want)
		}
	}
}
