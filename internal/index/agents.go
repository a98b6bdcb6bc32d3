package index

import (
	"context"
	"fmt"
	"os"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
)

// Other agents' sessions (the Codex CLI's rollouts, the Gemini CLI's chat
// files) are indexed whole: a file whose size or time changed is read again
// and its documents replace the old ones (a Gemini file rewinds and rewrites
// its messages). Each request, answer and shell command is a document of
// the agent's kind; usage is not searchable. A Codex file of a session that
// ran outside the repository's worktrees is remembered as elsewhere, so its
// first line is not read again until it changes.
const sourceElsewhere = "elsewhere"

// agentKind is the kind of an agent's documents.
func agentKind(a agentlog.Agent) Kind {
	if a == agentlog.Gemini {
		return KindGemini
	}
	return KindCodex
}

// agentSourceKind reports the source kinds of agents' session files.
func agentSourceKind(k string) bool {
	return k == string(KindCodex) || k == string(KindGemini) || k == sourceElsewhere
}

// agentFiles lists the session files of the other agents' CLIs that may
// belong to the repository: every Codex file (each says where it ran) and
// the Gemini files of the worktrees' projects.
func (ix *Index) agentFiles() []agentlog.File {
	src := ix.opts.Sources
	var out []agentlog.File
	if src.Agents.Codex != "" {
		if files, err := agentlog.CodexFiles(src.Agents.Codex); err == nil {
			out = append(out, files...)
		}
	}
	if src.Agents.Gemini != "" && len(src.Worktrees) > 0 {
		if files, err := agentlog.GeminiFiles(src.Agents.Gemini, src.Worktrees); err == nil {
			out = append(out, files...)
		}
	}
	return out
}

// agentSession indexes one session file again when it changed.
func (w *writer) agentSession(ctx context.Context, f agentlog.File, known source) error {
	fi, err := os.Stat(f.Path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	cur := source{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if known.known && cur.size == known.size && cur.mtime == known.mtime {
		return nil
	}
	roots := w.ix.opts.Sources.Worktrees
	if f.Agent == agentlog.Codex {
		s, err := agentlog.Head(ctx, f)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil || !agentlog.Within(s.Cwd, roots) {
			if known.known && known.kind != sourceElsewhere {
				if err := w.dropSession(ctx, f.Path); err != nil {
					return err
				}
			}
			return w.saveSource(ctx, f.Path, sourceElsewhere, cur)
		}
	}
	if known.known {
		if err := w.dropSession(ctx, f.Path); err != nil {
			return err
		}
	}
	kind := agentKind(f.Agent)
	var werr error // the index's own error, which stops the catch-up
	_, err = agentlog.Read(ctx, f, func(s *agentlog.Session, r *agentlog.Record) error {
		d := agentDoc(kind, s, r, rootOf(s.Cwd, roots))
		if d == nil {
			return nil
		}
		if werr = w.add(ctx, d); werr != nil {
			return werr
		}
		a := w.session(s.ID)
		a.agent, a.transcript, a.worktree, a.branch = string(f.Agent), f.Path, d.worktree, s.Branch
		a.seen(r.Time)
		a.messages++
		switch r.Kind {
		case agentlog.Request:
			a.prompts++
		case agentlog.Command:
			a.tools++
		}
		return nil
	})
	switch {
	case werr != nil:
		return werr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// A file that could not be read to its end keeps what was read of it;
	// it is read again when it changes.
	w.advance(cur.size)
	return w.saveSource(ctx, f.Path, string(kind), cur)
}

// dropSession removes a session file's documents and the session it held,
// which is counted again as it is read.
func (w *writer) dropSession(ctx context.Context, path string) error {
	if err := w.drop(ctx, path); err != nil {
		return err
	}
	if _, err := w.tx.ExecContext(ctx, "DELETE FROM sessions WHERE transcript = ? AND agent != ''", path); err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	return nil
}

// rootOf is the worktree of roots that dir is in, or dir.
func rootOf(dir string, roots []string) string {
	for _, r := range roots {
		if agentlog.Within(dir, []string{r}) {
			return r
		}
	}
	return dir
}

// agentDoc is the document of one record of another agent's session: a
// request in the prompt column, an answer in the text column, a command and
// its output in the tool column; nil for usage.
func agentDoc(kind Kind, s *agentlog.Session, r *agentlog.Record, worktree string) *doc {
	role := r.Kind.String()
	d := &doc{kind: kind, source: s.Path, ref: fmt.Sprintf("%s:%d", s.Path, r.Offset), session: s.ID, ts: r.Time,
		worktree: worktree, branch: s.Branch, event: role, title: role}
	switch r.Kind {
	case agentlog.Request:
		d.body = redact.Redact(r.Text)
		d.addWritten(colPrompt, d.body)
	case agentlog.Answer:
		d.body = redact.Redact(r.Text)
		d.addWritten(colText, d.body)
	case agentlog.Command:
		in := redact.Redact(textcut.Bytes(r.Text, maxToolText))
		out := redact.Redact(textcut.Bytes(r.Output, maxToolText))
		d.tool = "shell"
		d.body = joinLines(in, out)
		d.setCol(colTool, in)
		d.setCol(colTool, out)
	default:
		return nil
	}
	if d.body == "" {
		return nil
	}
	d.setCol(colMeta, joinLines(role, string(kind), d.tool))
	return d
}
