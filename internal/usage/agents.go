package usage

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/baton-cli/baton/internal/agentlog"
)

// ScanAgent counts the usage in other agents' session files (Codex CLI,
// Gemini CLI, as package agentlog reads them), in the rows a Scan makes:
// each response once, its input read from the cache as CacheRead, the rest
// of its input as Input, its output with the reasoning tokens in it as
// Output (as the CLIs bill them, not twice). Codex counts what each
// token_count event says the last response used (ccusage's rule); Gemini
// the last copy of each message. A file gone since it was listed is
// skipped; one that cannot be read is an error.
func ScanAgent(ctx context.Context, files []agentlog.File, opts Options) (*Report, error) {
	if opts.By == "" {
		opts.By = Daily
	}
	if opts.Loc == nil {
		opts.Loc = time.UTC
	}
	t := newTable()
	for _, f := range files {
		_, err := agentlog.ReadUsage(ctx, f, func(s *agentlog.Session, r *agentlog.Record) error {
			if r.Time.IsZero() {
				return nil
			}
			t.push(&resp{ts: r.Time.UnixMilli(), session: s.ID, model: r.Model,
				tokens: Tokens{Input: r.Tokens.Input, Output: r.Tokens.Output, CacheRead: r.Tokens.Cached}})
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	r := t.report(opts)
	r.Files = len(files)
	return r, nil
}
