package sessioncloser

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/safepath"
)

// readDeadline bounds one read of a transcript: a file on a stalled mount
// must not hold the skill.
const readDeadline = 30 * time.Second

var msgTranscriptOutside = i18n.Msg{
	JA: "transcript_path %s（リンクを解決すると %s）は Claude Code の projects フォルダ（%s）にも baton のトランスクリプト保管庫（%s）にもないため読みません",
	EN: "transcript_path %s (%s with its links resolved) is in neither Claude Code's projects folders (%s) nor baton's transcript archive (%s): not read",
}

// transcriptPath is the transcript a request names: its transcript_path
// (relative to the working folder), else the session's transcript in
// Claude Code's folder for the project. The path is answered with its
// links resolved, and only when it lies in one of Claude Code's projects
// folders or in baton's archive of the repository's transcripts: the
// request comes from a model, which a planted instruction can steer to
// /etc/shadow or ~/.ssh.
func (s *session) transcriptPath() (string, error) {
	path := s.req.TranscriptPath
	if path == "" {
		if err := decision.CheckSessionID(s.req.SessionID); err != nil {
			return "", fail(KindInternal, "transcript_path is missing and %v", err)
		}
		path = filepath.Join(claudecode.TranscriptDir(s.env.Getenv("HOME"), s.project), s.req.SessionID+".jsonl")
	}
	if !filepath.IsAbs(path) {
		wd, err := s.env.Getwd()
		if err != nil {
			return "", fail(KindInternal, "working directory: %v", err)
		}
		path = filepath.Join(wd, path)
	}
	resolved, err := resolveLinks(path)
	if err != nil {
		return "", fail(KindInternal, "transcript_path %s: %v", path, err)
	}
	projects, archive := s.transcriptRoots()
	for _, root := range append(projects, archive...) {
		if under(root, resolved) {
			return resolved, nil
		}
	}
	return "", fail(KindInternal, "%s", msgTranscriptOutside.Format(s.lang, path, resolved, strings.Join(projects, ", "), strings.Join(archive, ", ")))
}

// transcriptRoots are the folders transcripts are read from, links
// resolved: Claude Code's projects folders (the person's own, wherever
// their links lead) and the repository's transcript archive, which counts
// only when no link inside the repository leads to it.
func (s *session) transcriptRoots() (projects, archive []string) {
	home := s.env.Getenv("HOME")
	dirs := append(claudecode.ProjectsDirs(home, s.env.Getenv("CLAUDE_CONFIG_DIR")), filepath.Dir(claudecode.TranscriptDir(home, s.project)))
	for _, d := range dirs {
		if r, err := resolveLinks(d); err == nil && filepath.IsAbs(d) && !slices.Contains(projects, r) {
			projects = append(projects, r)
		}
	}
	anchor := s.repo.Main
	if anchor == "" {
		anchor = s.project
	}
	a := index.ArchiveDir(s.dir)
	if safepath.Check(anchor, a) == nil {
		if r, err := resolveLinks(a); err == nil {
			archive = append(archive, r)
		}
	}
	return projects, archive
}

// resolveLinks is path, absolute and clean, with every link resolved; the
// part of it that does not exist yet is kept as it is.
func resolveLinks(path string) (string, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := path; ; {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, fs.ErrNotExist) || parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// under reports whether path lies inside the folder root (not root
// itself); both are clean and absolute.
func under(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// within runs fn and answers its result, or an error once ctx ends or
// wait passes, whichever is first: a read stuck in the kernel then holds
// only its goroutine, not the response.
func within[T any](ctx context.Context, wait time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := fn(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("read transcript: %w", context.Cause(ctx))
	}
}
