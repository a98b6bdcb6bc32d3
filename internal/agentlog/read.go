package agentlog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Read reads the session file f from its start, calling fn for each record
// in the order the session made them, and returns what the file says of its
// session. fn's error stops the reading and is returned; ErrStop stops it
// with no error. Malformed lines and record types this package does not
// know are skipped; a compressed file cut short (still being written) ends
// where it is cut.
func Read(ctx context.Context, f File, fn func(*Session, *Record) error) (*Session, error) {
	return read(ctx, f, codexAll, fn)
}

// ReadUsage is Read handing over only the Usage records, faster: a Codex
// file's messages and commands are passed over undecoded.
func ReadUsage(ctx context.Context, f File, fn func(*Session, *Record) error) (*Session, error) {
	return read(ctx, f, codexUsageOnly, func(s *Session, r *Record) error {
		if r.Kind != Usage {
			return nil
		}
		return fn(s, r)
	})
}

func read(ctx context.Context, f File, mode codexMode, fn func(*Session, *Record) error) (*Session, error) {
	s := &Session{Agent: f.Agent, Path: f.Path, Cwd: f.Cwd}
	if fn == nil {
		fn = func(*Session, *Record) error { return nil }
	}
	var err error
	switch {
	case f.Agent == Codex:
		var r io.Reader
		var closeR func()
		if r, closeR, err = open(f.Path); err != nil {
			return s, err
		}
		err = readCodex(ctx, r, s, mode, fn)
		closeR()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = nil
		}
		if err != nil && !errors.Is(err, ErrStop) {
			err = fmt.Errorf("read session %s: %w", f.Path, err)
		}
	case f.Agent == Gemini && strings.HasSuffix(f.Path, ".json"):
		err = readGeminiJSON(ctx, f.Path, s, fn)
	case f.Agent == Gemini:
		err = readGeminiLines(ctx, f.Path, s, fn)
	default:
		return s, fmt.Errorf("read session %s: %w %q", f.Path, ErrAgent, f.Agent)
	}
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return s, err
}

// ErrStop may be returned by Read's callback to stop reading early.
var ErrStop = errors.New("stop reading")

// Head reads a session file only as far as what it says of its session:
// Codex's session_meta line, a Gemini file up to its first message.
func Head(ctx context.Context, f File) (*Session, error) {
	return read(ctx, f, codexHead, func(*Session, *Record) error { return ErrStop })
}

// Dirs are where the CLIs keep their files.
type Dirs struct {
	// Codex is the Codex CLI's home (CodexHome), Gemini the Gemini CLI's
	// folder (GeminiDir).
	Codex, Gemini string
}

// DirsFrom finds the CLIs' folders from the environment: HOME, CODEX_HOME,
// GEMINI_CLI_HOME.
func DirsFrom(getenv func(string) string) Dirs {
	home := getenv("HOME")
	return Dirs{Codex: CodexHome(home, getenv("CODEX_HOME")), Gemini: GeminiDir(home, getenv("GEMINI_CLI_HOME"))}
}

// Files lists agent a's session files whose sessions ran in one of roots
// or below (nil roots: every session's), sorted by path. A Codex file says
// where it ran in its first line, which is read; one that cannot be read
// is left out.
func Files(ctx context.Context, a Agent, d Dirs, roots []string) ([]File, error) {
	switch a {
	case Codex:
		files, err := CodexFiles(d.Codex)
		if err != nil || roots == nil {
			return files, err
		}
		var out []File
		for _, f := range files {
			s, err := Head(ctx, f)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			if Within(s.Cwd, roots) {
				f.Cwd = s.Cwd
				out = append(out, f)
			}
		}
		return out, nil
	case Gemini:
		return GeminiFiles(d.Gemini, roots)
	}
	return nil, fmt.Errorf("list sessions: %w %q", ErrAgent, a)
}

// CodexHome is where the Codex CLI keeps its files: $CODEX_HOME, else
// ~/.codex.
func CodexHome(home, codexHome string) string {
	if codexHome != "" {
		return codexHome
	}
	return filepath.Join(home, ".codex")
}

// GeminiDir is where the Gemini CLI keeps its files: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func GeminiDir(home, geminiHome string) string {
	if geminiHome != "" {
		home = geminiHome
	}
	return filepath.Join(home, ".gemini")
}

// CodexFiles lists the Codex CLI's session files under its home:
// sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/rollout-*.jsonl,
// each also as .jsonl.zst; where both a plain and a compressed file of the
// same name exist the plain one is read. Missing folders are skipped.
func CodexFiles(codexHome string) ([]File, error) {
	var paths []string
	for _, sub := range []string{"sessions", "archived_sessions"} {
		root := filepath.Join(codexHome, sub)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || p != root {
					return nil
				}
				return err
			}
			name := d.Name()
			if d.Type().IsRegular() && strings.HasPrefix(name, "rollout-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst")) {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list codex sessions: %w", err)
		}
	}
	return preferred(Codex, paths, func(p string) string {
		plain, _ := strings.CutSuffix(p, ".zst")
		return plain
	}), nil
}

// preferred makes Files of paths, sorted, leaving out each path for which
// better names another path listed: the copy that wins over it.
func preferred(a Agent, paths []string, better func(string) string) []File {
	have := map[string]bool{}
	for _, p := range paths {
		have[p] = true
	}
	slices.Sort(paths)
	var out []File
	for _, p := range paths {
		if b := better(p); b != p && have[b] {
			continue
		}
		out = append(out, File{Agent: a, Path: p})
	}
	return out
}

// GeminiFiles lists the Gemini CLI's session files,
// <gemini dir>/tmp/<project>/chats/session-*.jsonl (and older .json ones,
// where no .jsonl of the same name was carried over), each with the folder
// its project is: the one projects.json names for the project's short
// name, or its .project_root marker, or, for the hashed folders of older
// CLIs, the folder of roots whose path hashes to the name. With roots only
// the sessions that ran in one of them or below are listed.
func GeminiFiles(geminiDir string, roots []string) ([]File, error) {
	tmp := filepath.Join(geminiDir, "tmp")
	byName := map[string]string{}
	for p, slug := range geminiProjects(geminiDir) {
		byName[slug] = p
	}
	for _, r := range roots {
		sum := sha256.Sum256([]byte(filepath.Clean(r)))
		byName[hex.EncodeToString(sum[:])] = filepath.Clean(r)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list gemini sessions: %w", err)
	}
	var out []File
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(tmp, e.Name())
		cwd := byName[e.Name()]
		if b, err := os.ReadFile(filepath.Join(d, ".project_root")); err == nil && len(b) < 4096 {
			cwd = strings.TrimSpace(string(b))
		}
		if roots != nil && !Within(cwd, roots) {
			continue
		}
		chats, err := os.ReadDir(filepath.Join(d, "chats"))
		if err != nil {
			continue
		}
		var paths []string
		for _, c := range chats {
			name := c.Name()
			if c.Type().IsRegular() && strings.HasPrefix(name, "session-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")) {
				paths = append(paths, filepath.Join(d, "chats", name))
			}
		}
		// A carried-over session-x.json became session-x.jsonl.
		for _, f := range preferred(Gemini, paths, func(p string) string {
			if strings.HasSuffix(p, ".json") {
				return p + "l"
			}
			return p
		}) {
			f.Cwd = cwd
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// geminiProjects reads projects.json: project folder -> short name.
func geminiProjects(geminiDir string) map[string]string {
	b, err := os.ReadFile(filepath.Join(geminiDir, "projects.json"))
	if err != nil || len(b) > 16<<20 {
		return nil
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(b, &reg) != nil {
		return nil
	}
	out := make(map[string]string, len(reg.Projects))
	for p, slug := range reg.Projects {
		out[filepath.Clean(p)] = slug
	}
	return out
}
