package agentlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// RecentFile is a session file and when it last changed.
type RecentFile struct {
	File
	Modified time.Time
}

// Recent lists the sessions of agent a (Codex or Gemini) that ran in one
// of roots or below and whose file changed after since, newest first. It is
// meant for a session start, so it looks only where a recent session can
// be: Codex's day folders of the last week (at most maxHeads first lines
// read), the roots' Gemini project folders.
func Recent(ctx context.Context, a Agent, d Dirs, roots []string, since time.Time) ([]RecentFile, error) {
	type cand struct {
		f     File
		mtime time.Time
	}
	var cands []cand
	add := func(f File) {
		fi, err := os.Stat(f.Path)
		if err == nil && fi.Mode().IsRegular() && fi.ModTime().After(since) {
			cands = append(cands, cand{f, fi.ModTime()})
		}
	}
	switch a {
	case Codex:
		if d.Codex == "" {
			return nil, nil
		}
		for _, dir := range codexDayDirs(d.Codex, 7) {
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			var paths []string
			for _, e := range entries {
				if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, "rollout-") && (strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.zst")) {
					paths = append(paths, filepath.Join(dir, n))
				}
			}
			for _, f := range preferred(Codex, paths, func(p string) string {
				plain, _ := strings.CutSuffix(p, ".zst")
				return plain
			}) {
				add(f)
			}
		}
	case Gemini:
		if d.Gemini == "" {
			return nil, nil
		}
		files, err := GeminiFiles(d.Gemini, roots)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			add(f)
		}
	default:
		return nil, fmt.Errorf("recent sessions: %w %q", ErrAgent, a)
	}
	slices.SortFunc(cands, func(x, y cand) int { return y.mtime.Compare(x.mtime) })
	var out []RecentFile
	for i, c := range cands {
		if i == maxHeads {
			break
		}
		if a == Codex { // Gemini's are listed by folder already
			s, err := Head(ctx, c.f)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			if !Within(s.Cwd, roots) {
				continue
			}
			c.f.Cwd = s.Cwd
		}
		out = append(out, RecentFile{c.f, c.mtime})
	}
	return out, nil
}

// maxHeads bounds the Codex files whose first line Recent reads.
const maxHeads = 16

// codexDayDirs are Codex's sessions/YYYY/MM/DD folders of the last days
// found, newest first.
func codexDayDirs(home string, days int) []string {
	var out []string
	walk := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		slices.Reverse(names)
		return names
	}
	root := filepath.Join(home, "sessions")
	for _, y := range walk(root) {
		for _, m := range walk(filepath.Join(root, y)) {
			for _, dd := range walk(filepath.Join(root, y, m)) {
				out = append(out, filepath.Join(root, y, m, dd))
				if len(out) == days {
					return out
				}
			}
		}
	}
	return out
}

// ReadTail is Read over only the last max bytes of a plain Codex file
// (from the first line that starts in them), so that a briefing reads a
// long history in bounded time; the Session still comes from the file's
// first line. Other files are read whole.
func ReadTail(ctx context.Context, f File, max int64, fn func(*Session, *Record) error) (*Session, error) {
	if f.Agent != Codex || strings.HasSuffix(f.Path, ".zst") {
		return Read(ctx, f, fn)
	}
	s, err := Head(ctx, f)
	if err != nil {
		return s, err
	}
	r, closeR, err := open(f.Path)
	if err != nil {
		return s, err
	}
	defer closeR()
	file := r.(*os.File)
	fi, err := file.Stat()
	if err != nil {
		return s, fmt.Errorf("read session %s: %w", f.Path, err)
	}
	if from := fi.Size() - max; from > 0 {
		if _, err := file.Seek(from-1, io.SeekStart); err != nil {
			return s, fmt.Errorf("read session %s: %w", f.Path, err)
		}
		// Skip to the start of the next line.
		buf := make([]byte, 64<<10)
		skipped := int64(0)
		for {
			n, err := file.Read(buf)
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				if _, err := file.Seek(from-1+skipped+int64(i)+1, io.SeekStart); err != nil {
					return s, fmt.Errorf("read session %s: %w", f.Path, err)
				}
				break
			}
			skipped += int64(n)
			if err != nil {
				return s, nil // no line starts in the tail
			}
		}
	}
	err = readCodex(ctx, file, s, codexAll, fn)
	if err == ErrStop || err == io.ErrUnexpectedEOF {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("read session %s: %w", f.Path, err)
	}
	return s, err
}
