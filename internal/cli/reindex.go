package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
)

// ReindexOptions are the inputs of `baton reindex`.
type ReindexOptions struct {
	Factory *Factory
	Lang    string
}

// NewCmdReindex builds `baton reindex`.
func NewCmdReindex(f *Factory, runF func(context.Context, *ReindexOptions) error) *cobra.Command {
	opts := &ReindexOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index (index.db) from the files baton keeps",
		Long: "The index is derived from the journal, the transcripts of every worktree, the decisions,\n" +
			"the context layers, the worker's runs and the debates; deleting it loses nothing.\n" +
			"Commands that read it catch it up on their own; reindex reads everything again,\n" +
			"showing its progress on a terminal.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reindexRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgReindexed    = i18n.Msg{JA: "%s を作り直しました（%s、%.1f 秒）", EN: "Rebuilt %s (%s, %.1fs)"}
	msgIndexMoved   = i18n.Msg{JA: "壊れていた索引を %s に移し、作り直します", EN: "the index was damaged: moved it to %s and rebuilding"}
	msgIndexFresh   = i18n.Msg{JA: "検索用の索引を作っています（初回かアップグレードの後に一度だけ）", EN: "building the search index (once, on first use or after an upgrade)"}
	msgIndexBusy    = i18n.Msg{JA: "別のプロセスが索引を更新中のため、今ある内容から検索します", EN: "another process is updating the index; searching what it holds now"}
	msgIndexCounted = i18n.Msg{JA: "%s %d 件", EN: "%d %s"}
)

// reindexMemoryLimit keeps the garbage collector working before the heap
// outgrows what a rebuild holds (documents read ahead of the writer), so
// that with SQLite's page cache and FTS5's buffer the process stays within
// 64 MiB.
const reindexMemoryLimit = 16 << 20

// freshBarBytes is how much a first catch-up reads before it is worth a
// line and a bar: about a second's reading.
const freshBarBytes = 16 << 20

func reindexRun(ctx context.Context, opts *ReindexOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}
	start := time.Now()
	ix, err := openIndex(ctx, f, w, cfg, lang)
	if err != nil {
		return err
	}
	defer ix.Close()
	defer limitMemory(reindexMemoryLimit)()
	var bar *progressBar
	if barShown(f) {
		bar = &progressBar{w: f.IO.ErrOut}
	}
	err = ix.Rebuild(ctx, bar.update)
	bar.finish()
	if errors.Is(err, index.ErrCorrupt) {
		if err = rebuildDamaged(ctx, f, &ix, w, cfg, lang); err == nil {
			err = ix.Rebuild(ctx, nil)
		}
	}
	if err != nil {
		return err
	}
	counts, err := ix.Stats(ctx)
	if err != nil {
		return err
	}
	// The recall file is derived from the same files: rebuild it too.
	rebuildRecallFile(ctx, f, w, cfg, lang)
	var parts []string
	for _, k := range index.Kinds() {
		if lang == i18n.JA {
			parts = append(parts, fmt.Sprintf(msgIndexCounted.In(lang), k, counts[k]))
		} else {
			parts = append(parts, fmt.Sprintf(msgIndexCounted.In(lang), counts[k], k))
		}
	}
	fmt.Fprintln(f.IO.Out, msgReindexed.Format(lang, displayRel(ix.Path(), w.root), strings.Join(parts, ", "), time.Since(start).Seconds()))
	return nil
}

// indexSources are the files the repository's index is made from.
func indexSources(f *Factory, w workspace, cfg *config.Config) index.Sources {
	home := f.Getenv("HOME")
	worktrees := workspaceWorktrees(f, w)
	return index.Sources{
		State:          w.state,
		TranscriptDirs: index.TranscriptDirs(home, worktrees),
		WorkerDir:      workerDataDir(f),
		DebatesDir:     cfg.DebateDir(f.Getenv),
		Agents:         agentlog.DirsFrom(f.Getenv),
		Worktrees:      worktrees,
	}
}

// workspaceTranscriptDirs are the transcript folders of every worktree of
// the repository (of the folder itself outside one).
func workspaceTranscriptDirs(f *Factory, w workspace, home string) []string {
	return index.TranscriptDirs(home, workspaceWorktrees(f, w))
}

// workspaceWorktrees are the repository's worktrees, or outside git the
// project folder.
func workspaceWorktrees(f *Factory, w workspace) []string {
	if repo, err := f.Repo(); err == nil {
		return index.Worktrees(repo)
	}
	return []string{w.root}
}

// openIndex opens the repository's index, saying so when a damaged one was
// moved aside.
func openIndex(ctx context.Context, f *Factory, w workspace, cfg *config.Config, lang i18n.Lang) (*index.Index, error) {
	ix, err := index.Open(ctx, w.state.Index(), index.Options{Now: f.Now, Sources: indexSources(f, w, cfg)})
	if err != nil {
		return nil, err
	}
	if ix.Moved != "" {
		fmt.Fprintln(f.IO.ErrOut, "baton: "+msgIndexMoved.Format(lang, displayRel(ix.Moved, w.root)))
	}
	return ix, nil
}

// rebuildDamaged moves aside an index found damaged after it was opened and
// opens a new one in its place.
func rebuildDamaged(ctx context.Context, f *Factory, ix **index.Index, w workspace, cfg *config.Config, lang i18n.Lang) error {
	(*ix).Close()
	moved, err := index.Discard(w.state.Index(), f.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IO.ErrOut, "baton: "+msgIndexMoved.Format(lang, displayRel(moved, w.root)))
	n, err := openIndex(ctx, f, w, cfg, lang)
	if err != nil {
		return err
	}
	*ix = n
	return nil
}

// catchUpIndex brings the index up to date before a read. Another process
// catching up is not an error: the read sees what is there.
func catchUpIndex(ctx context.Context, f *Factory, ix **index.Index, w workspace, cfg *config.Config, lang i18n.Lang) error {
	err := catchUpShown(ctx, f, *ix, lang)
	if errors.Is(err, index.ErrCorrupt) {
		if err = rebuildDamaged(ctx, f, ix, w, cfg, lang); err == nil {
			err = catchUpShown(ctx, f, *ix, lang)
		}
	}
	if errors.Is(err, index.ErrBusy) {
		fmt.Fprintln(f.IO.ErrOut, "baton: "+msgIndexBusy.In(lang))
		return nil
	}
	return err
}

// catchUpShown runs one catch-up. One that reads everything (first use, an
// upgrade, a damaged index, or such a load cut short) takes seconds on a
// large history: it is read within reindex's memory, and on a terminal,
// when there is more than freshBarBytes to read, with a line saying so and
// a progress bar.
func catchUpShown(ctx context.Context, f *Factory, ix *index.Index, lang i18n.Lang) error {
	if fresh, err := ix.Fresh(ctx); err != nil || !fresh {
		return ix.CatchUp(ctx, nil)
	}
	defer limitMemory(reindexMemoryLimit)()
	var bar *progressBar
	var progress func(done, total int64)
	if barShown(f) {
		bar = &progressBar{w: f.IO.ErrOut, title: "baton: " + msgIndexFresh.In(lang), least: freshBarBytes}
		progress = bar.update
	}
	err := ix.CatchUp(ctx, progress)
	bar.finish()
	return err
}

// memoryLimit is the heap limit of the loads running at once (the MCP
// server answers requests side by side): the first sets it, the last puts
// back what was there before.
var memoryLimit struct {
	sync.Mutex
	n    int
	prev int64
}

// limitMemory holds the heap to limit until the returned func is called.
func limitMemory(limit int64) (restore func()) {
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if memoryLimit.n == 0 {
		memoryLimit.prev = debug.SetMemoryLimit(limit)
	}
	memoryLimit.n++
	return func() {
		memoryLimit.Lock()
		defer memoryLimit.Unlock()
		if memoryLimit.n--; memoryLimit.n == 0 {
			debug.SetMemoryLimit(memoryLimit.prev)
		}
	}
}

// barShown reports whether a progress bar may be drawn: it goes to the
// standard error, and only when that is a terminal, never into a pipe or a
// file (whatever the standard output is).
func barShown(f *Factory) bool {
	errOut, ok := f.IO.ErrOut.(io.Reader)
	return ok && isTerminal(errOut)
}

// progressBar draws a one-line bar on a terminal. A nil bar draws nothing.
type progressBar struct {
	w io.Writer
	// title is a line written above the bar, and least the bytes to read
	// for the bar to be drawn at all.
	title string
	least int64
	last  int
	shown bool
}

func (b *progressBar) update(done, total int64) {
	if b == nil || total < b.least {
		return
	}
	if !b.shown && b.title != "" {
		fmt.Fprintln(b.w, b.title)
	}
	pct := 100
	if total > 0 {
		pct = int(done * 100 / total)
	}
	if b.shown && pct == b.last {
		return
	}
	b.last, b.shown = pct, true
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(b.w, "\r[%s%s] %3d%% %s / %s", strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct, mib(done), mib(total))
}

func (b *progressBar) finish() {
	if b != nil && b.shown {
		fmt.Fprintln(b.w)
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
