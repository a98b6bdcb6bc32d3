package statusline

import (
	"fmt"
	"os"
	"strconv"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Run prints the status line for the payload on f's stdin. lang is the
// --lang flag (empty: the configuration's, else the locale's). It never
// fails: a problem leaves parts out of the line, and the problem goes to
// baton.log.
func Run(f *cmdenv.Factory, lang string) {
	p, perr := ReadPayload(f.IO.In)
	l := Line{Payload: p, Now: f.Now()}
	dir := p.Dir()
	var sd state.Dir
	var root string
	if dir != "" {
		if repo, err := gitrepo.Find(dir); err == nil {
			sd, root = state.For(repo), repo.Worktree
			if _, err := os.Lstat(sd.Root); err == nil {
				ws, err := wtstate.At(sd.Base(), sd.WorktreeDir(repo.Worktree)).Read()
				if err == nil && (ws.Task != nil || len(ws.Sessions) > 0 || len(ws.Failing) > 0 || ws.Next != nil) {
					l.State = &ws
					l.Recorded = p.SessionID != "" && ws.Session(p.SessionID) != nil
				}
				l.Status = ReadStatus(sd)
				if l.Status == nil {
					// An empty status file asks the hook for the first
					// refresh (it refreshes only files that are there).
					if _, err := os.Lstat(Path(sd)); os.IsNotExist(err) {
						_ = WriteStatus(sd, &Status{})
					}
				}
			}
		}
	}
	st := Style{Lang: pickLang(f, lang, root), Color: colorOn(f), Width: widthOf(f)}
	fmt.Fprintln(f.IO.Out, Render(l, st))
	if perr != nil && sd.Root != "" {
		logger, closer := sd.Logger(f.Getenv)
		defer closer.Close()
		logger.Warn("status line", "session", p.SessionID, "err", perr)
	}
}

// pickLang is the flag's language, else the configuration's (the user's
// file and the repository's), else the locale's.
func pickLang(f *cmdenv.Factory, flag, root string) i18n.Lang {
	if l, err := i18n.Parse(flag); err == nil {
		return l
	}
	if cfg, err := f.Config(root); err == nil {
		return cfg.Language(f.Getenv)
	}
	return i18n.FromEnv(f.Getenv)
}

// colorOn: colour unless NO_COLOR is set or the terminal is dumb. Claude
// Code reads the command's stdout through a pipe and draws its colours, so
// a pipe is no reason to go plain; BATON_STATUSLINE_COLOR=0 or 1 decides.
func colorOn(f *cmdenv.Factory) bool {
	switch f.Getenv("BATON_STATUSLINE_COLOR") {
	case "0":
		return false
	case "1":
		return true
	}
	return f.Getenv("NO_COLOR") == "" && f.Getenv("TERM") != "dumb"
}

// widthOf is COLUMNS when set, else DefaultWidth.
func widthOf(f *cmdenv.Factory) int {
	if n, err := strconv.Atoi(f.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return DefaultWidth
}
