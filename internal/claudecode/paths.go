package claudecode

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxKeyLen is the longest project key Claude Code uses as is; a longer one is
// cut to this length and given a hash of the whole folder path.
const maxKeyLen = 200

// ProjectKey returns the name Claude Code gives the folder under
// ~/.claude/projects/ that holds the transcripts and memory of sessions run
// in cwd: cwd with every character other than an ASCII letter or digit
// replaced by '-'. Characters are counted as UTF-16 code units, as Claude Code
// counts them: a Japanese letter becomes one '-', an emoji two. A key longer
// than 200 characters is cut to 200 and followed by '-' and a base-36 hash of
// cwd.
//
// cwd is used as given; pass the folder Claude Code runs in (a hook's "cwd").
func ProjectKey(cwd string) string {
	key := make([]byte, 0, len(cwd))
	for _, r := range cwd {
		switch {
		case r < 0x80 && isASCIIAlnum(byte(r)):
			key = append(key, byte(r))
		case utf16.RuneLen(r) == 2:
			key = append(key, '-', '-')
		default:
			key = append(key, '-')
		}
	}
	if len(key) <= maxKeyLen {
		return string(key)
	}
	return string(key[:maxKeyLen]) + "-" + strconv.FormatInt(abs(int64(pathHash(cwd))), 36)
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// pathHash is the 32-bit string hash (h = 31*h + c over UTF-16 code units)
// that Claude Code puts after a cut project key.
func pathHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = h*31 + int32(u)
	}
	return h
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// TranscriptDir returns the folder holding the session transcripts
// (<session id>.jsonl) of sessions run in cwd, for the user whose home folder
// is home.
func TranscriptDir(home, cwd string) string {
	return filepath.Join(home, ".claude", "projects", ProjectKey(cwd))
}

// ProjectsDirs returns the folders that hold every project's transcripts:
// projects/ under each folder of configDirs, the value of
// $CLAUDE_CONFIG_DIR (comma-separated), when it is set, else
// ~/.config/claude/projects and ~/.claude/projects.
func ProjectsDirs(home, configDirs string) []string {
	var out []string
	for _, d := range strings.Split(configDirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, filepath.Join(d, "projects"))
		}
	}
	if len(out) > 0 {
		return out
	}
	return []string{filepath.Join(home, ".config", "claude", "projects"), filepath.Join(home, ".claude", "projects")}
}

// MemoryDir returns the agent memory folder of sessions run in cwd; its
// MEMORY.md is loaded into every new session.
func MemoryDir(home, cwd string) string {
	return filepath.Join(TranscriptDir(home, cwd), "memory")
}

// SettingsPaths returns Claude Code's three settings files that baton may
// install hooks in: the repository's personal, untracked one, the repository's
// shared, tracked one, and the user's own.
func SettingsPaths(home, repoRoot string) (local, shared, user string) {
	return filepath.Join(repoRoot, ".claude", "settings.local.json"),
		filepath.Join(repoRoot, ".claude", "settings.json"),
		filepath.Join(home, ".claude", "settings.json")
}
