package index

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/transcript"
)

// batchDocs is how many documents a catch-up writes per transaction.
const batchDocs = 5000

// headBytes is how much of a file's start is hashed to notice that it was
// replaced.
const headBytes = 1024

// lock takes the catch-up lock file: waiting for it, or failing with ErrBusy.
func (ix *Index) lock(ctx context.Context, wait bool) (func(), error) {
	fl := flock.New(ix.path + ".lock")
	var ok bool
	var err error
	if wait {
		ok, err = fl.TryLockContext(ctx, 20*time.Millisecond)
	} else {
		ok, err = fl.TryLock()
	}
	if err != nil {
		return nil, fmt.Errorf("lock index: %w", err)
	}
	if !ok {
		return nil, ErrBusy
	}
	return func() { fl.Unlock() }, nil
}

// source is what the index knows of one file.
type source struct {
	kind   string
	offset int64
	size   int64
	mtime  int64
	head   uint64
	known  bool
}

// doc is one document to write.
type doc struct {
	kind                     Kind
	source, ref              string
	session                  string
	ts                       time.Time
	worktree, branch, file   string
	issue                    int
	event, tool, title, body string
	// msg keys a prompt or an answer (messageKey), empty for other
	// documents.
	msg string
	// cols are the words of each column of docs_fts, when the reader
	// sorted them; nil puts title and body in the column of the kind.
	cols *[nCols]string
	// fts are the values of docs_fts's columns after the rowid, once
	// ftsArgs made them.
	fts []any
}

// ftsArgs returns the values of docs_fts's columns after the rowid: the
// columns' text folded and spaced as the index wants it, the kind and the
// session token. They are made once, where the document is read.
func (d *doc) ftsArgs() []any {
	if d.fts == nil {
		cols := d.columns()
		args := make([]any, 0, nCols+2)
		for _, c := range cols {
			args = append(args, ftsText(c))
		}
		d.fts = append(args, string(d.kind), sessionToken(d.session))
	}
	return d.fts
}

// sessionAcc gathers what a batch says about a session.
type sessionAcc struct {
	worktree, branch, transcript string
	first, last                  int64
	records, prompts, tools      int
	messages                     int
	// answers are Stop records that kept the agent's answer.
	answers int
	// agent is the CLI of another agent's session; "" for Claude Code.
	agent string
}

// writer holds a catch-up's connection and open transaction.
type writer struct {
	ix     *Index
	conn   *sql.Conn
	tx     *sql.Tx
	ins    *sql.Stmt
	insFTS *sql.Stmt
	// insStrong adds the strong tiers' columns to strong_fts.
	insStrong *sql.Stmt
	// twins find a message's document from the other source (twinQueries);
	// messages says which kinds have messages keyed (hasMessages).
	twins    [2]*sql.Stmt
	messages map[Kind]bool
	n        int
	sessions map[string]*sessionAcc
	// recount are sessions whose transcript was replaced: their messages
	// are counted again.
	recount map[string]bool

	progress    func(done, total int64)
	done, total int64
}

// Fresh reports whether the next CatchUp reads everything there is: the
// index has read nothing yet (a new one, or one that a newer baton emptied
// to read again), or a load of everything was cut short (interrupted, or
// out of time) and goes on.
func (ix *Index) Fresh(ctx context.Context) (bool, error) {
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM sources LIMIT 1)").Scan(&n); err != nil {
		return false, fmt.Errorf("index: %w", classify(err))
	}
	if n == 0 {
		return true, nil
	}
	return ix.loading(ctx)
}

// loading reports a load of everything that has not finished: it leaves
// FTS5's merging off until its end (bulkLoad).
func (ix *Index) loading(ctx context.Context) (bool, error) {
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM docs_fts_config WHERE k = 'automerge' AND v = 0").Scan(&n); err != nil {
		return false, fmt.Errorf("index: %w", classify(err))
	}
	return n > 0, nil
}

// CatchUp reads what the sources gained since the last call. progress, when
// not nil, is called now and then with the bytes read so far and the bytes
// to read in all. It returns ErrBusy at once when another process is
// catching up.
func (ix *Index) CatchUp(ctx context.Context, progress func(done, total int64)) error {
	unlock, err := ix.lock(ctx, false)
	if err != nil {
		return err
	}
	defer unlock()
	return cutShort(ctx, ix.catchUp(ctx, progress, false))
}

// cutShort names the cancellation of ctx as the cause of err when ctx ended:
// database/sql may report a statement cancelled under it as closed rather
// than cancelled, and the caller must be able to tell a cut-short catch-up
// (to go on with later) from a failed one.
func cutShort(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w (%v)", ctx.Err(), err)
}

// Rebuild empties the index and reads everything again, waiting for another
// process's catch-up to end first.
func (ix *Index) Rebuild(ctx context.Context, progress func(done, total int64)) error {
	if err := ix.Reset(ctx); err != nil {
		return err
	}
	unlock, err := ix.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	return cutShort(ctx, ix.catchUp(ctx, progress, true))
}

// Bulk loading. A catch-up writes through one connection with a larger page
// cache (within the 64 MiB a rebuild may use), and a rebuild does not sync
// the file at each commit: a crash in the middle leaves a database that the
// next Open finds damaged and rebuilds, which a rebuild is doing anyway.
const (
	catchUpCacheKiB = 4 << 10
	defaultCacheKiB = 2000 // SQLite's default
)

func (ix *Index) catchUp(ctx context.Context, progress func(done, total int64), rebuild bool) error {
	known, err := ix.sources(ctx)
	if err != nil {
		return err
	}
	// A catch-up of an index that has read nothing (a new one, or one a
	// newer schema emptied) reads everything, as a rebuild does, and
	// loads as a rebuild does; so does one that finds such a load cut
	// short, to its end. (This is Fresh, with the sources just read
	// rather than counted again.)
	if !rebuild {
		if rebuild = len(known) == 0; !rebuild {
			if rebuild, err = ix.loading(ctx); err != nil {
				return err
			}
		}
	}
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	defer conn.Close()
	pragmas := []string{fmt.Sprintf("PRAGMA cache_size = -%d", catchUpCacheKiB)}
	if rebuild {
		pragmas = append(pragmas, "PRAGMA synchronous = OFF")
	}
	for _, p := range pragmas {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	defer func() {
		// The connection goes back to the pool as it came.
		conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = -%d", defaultCacheKiB))
		conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
	}()
	w := &writer{ix: ix, conn: conn, sessions: map[string]*sessionAcc{}, recount: map[string]bool{}, messages: map[Kind]bool{}, progress: progress}
	src := ix.opts.Sources
	transcripts := ix.transcriptFiles(known)
	layers := layerFiles(src.State.Context())
	wholes := ix.wholeFiles()
	if progress != nil {
		w.total = ix.pending(known, transcripts, layers, wholes)
		progress(0, w.total)
	}
	if rebuild {
		if err := bulkLoad(ctx, conn); err != nil {
			return err
		}
	}
	if err := w.begin(ctx); err != nil {
		return err
	}
	defer func() {
		if w.tx != nil {
			w.tx.Rollback()
		}
	}()
	if src.State.Root != "" {
		if err := w.journal(ctx, known[journalSource]); err != nil {
			return err
		}
	}
	for _, t := range transcripts {
		if err := w.transcript(ctx, t, known[t.key]); err != nil {
			return err
		}
	}
	for _, l := range layers {
		if err := w.layer(ctx, l, known[l.path]); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, f := range wholes {
		seen[f.path] = true
		if err := w.whole(ctx, f, known[f.path]); err != nil {
			return err
		}
	}
	for _, f := range ix.agentFiles() {
		seen[f.Path] = true
		if err := w.agentSession(ctx, f, known[f.Path]); err != nil {
			return err
		}
	}
	// Whole files that are gone (a pending file emptied by a retry, a
	// pruned run record, another agent's deleted session) take their
	// documents with them.
	for p, s := range known {
		if (wholeKind(s.kind) || agentSourceKind(s.kind)) && !seen[p] {
			if err := w.dropSession(ctx, p); err != nil {
				return err
			}
		}
	}
	if err := w.commit(ctx); err != nil {
		return err
	}
	if rebuild {
		return bulkLoaded(ctx, conn)
	}
	return nil
}

// Loading the FTS5 index in a rebuild. FTS5 writes what is added as a
// segment whenever its buffer fills or a transaction commits, and by default
// merges segments as they accumulate, which rewrites each word's list again
// and again as the index grows (a fifth of a rebuild's time). A rebuild
// merges nothing while it loads (past ftsCrisisMerge segments of one level
// FTS5 still does) and everything once at the end ('optimize'): less work,
// and one segment for searches to read. FTS5 keeps these settings, so they
// are put back at the end; a load cut short leaves them, and the next
// catch-up, seeing them (Index.loading), goes on loading to the end.
const (
	ftsAutomerge     = 4 // FTS5's default
	ftsCrisisMerge   = 64
	ftsCrisisDefault = 16 // FTS5's default
)

// ftsTables are the full-text tables a catch-up writes.
var ftsTables = []string{"docs_fts", "strong_fts"}

// ftsSetting is one of an FTS5 table's settings and its value.
type ftsSetting struct {
	key string
	val int
}

// setFTS sets table's settings, in order.
func setFTS(ctx context.Context, conn *sql.Conn, table string, settings ...ftsSetting) error {
	for _, kv := range settings {
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+table+"("+table+", rank) VALUES(?, ?)", kv.key, kv.val); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	return nil
}

// bulkLoaded merges what a bulk load wrote and puts FTS5's merging back.
func bulkLoaded(ctx context.Context, conn *sql.Conn) error {
	for _, t := range ftsTables {
		if _, err := conn.ExecContext(ctx, "INSERT INTO "+t+"("+t+") VALUES('optimize')"); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	// docs_fts's setting last: it is what Index.loading reads.
	for i := len(ftsTables) - 1; i >= 0; i-- {
		if err := setFTS(ctx, conn, ftsTables[i], ftsSetting{"crisismerge", ftsCrisisDefault}, ftsSetting{"automerge", ftsAutomerge}); err != nil {
			return err
		}
	}
	return nil
}

// bulkLoad turns FTS5's merging off for a load of everything.
func bulkLoad(ctx context.Context, conn *sql.Conn) error {
	for _, t := range ftsTables {
		if err := setFTS(ctx, conn, t, ftsSetting{"automerge", 0}, ftsSetting{"crisismerge", ftsCrisisMerge}); err != nil {
			return err
		}
	}
	return nil
}

const journalSource = "journal"

func (ix *Index) sources(ctx context.Context) (map[string]source, error) {
	rows, err := ix.db.QueryContext(ctx, "SELECT path, kind, offset, size, mtime, head FROM sources")
	if err != nil {
		return nil, fmt.Errorf("catch up: %w", classify(err))
	}
	defer rows.Close()
	out := map[string]source{}
	for rows.Next() {
		var p string
		var s source
		var head int64
		if err := rows.Scan(&p, &s.kind, &s.offset, &s.size, &s.mtime, &head); err != nil {
			return nil, fmt.Errorf("catch up: %w", classify(err))
		}
		s.head, s.known = uint64(head), true
		out[p] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catch up: %w", classify(err))
	}
	return out, nil
}

// pending estimates the bytes a catch-up reads, for the progress bar.
func (ix *Index) pending(known map[string]source, transcripts []transcriptFile, layers []layerFile, wholes []wholeFile) int64 {
	var total int64
	add := func(path string, from int64) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > from {
			total += fi.Size() - from
		}
	}
	if root := ix.opts.Sources.State.Root; root != "" {
		var size int64
		if fi, err := os.Stat(ix.opts.Sources.State.Journal()); err == nil {
			size = fi.Size()
		}
		segs, _ := filepath.Glob(filepath.Join(ix.opts.Sources.State.Archive(), "auto-*"))
		for _, s := range segs {
			if fi, err := os.Stat(s); err == nil {
				size += fi.Size()
			}
		}
		total += max(0, size-known[journalSource].offset)
	}
	for _, t := range transcripts {
		add(t.read, known[t.key].offset)
	}
	for _, l := range layers {
		add(l.path, known[l.path].offset)
	}
	for _, f := range wholes {
		if s := known[f.path]; !s.known {
			add(f.path, 0)
		}
	}
	return total
}

func (w *writer) advance(n int64) {
	if w.progress == nil || n <= 0 {
		return
	}
	w.done = min(w.done+n, w.total)
	w.progress(w.done, w.total)
}

func (w *writer) begin(ctx context.Context) error {
	tx, err := w.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO docs(kind, source, ref, session, ts, worktree, branch, file, issue, event, tool, title, body, settles, msg, twin)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("catch up: %w", classify(err))
	}
	insFTS, err := tx.PrepareContext(ctx, "INSERT INTO docs_fts(rowid, hi, said, prompt, text, aside, tool, log, meta, kind, sid) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("catch up: %w", classify(err))
	}
	insStrong, err := tx.PrepareContext(ctx, "INSERT INTO strong_fts(rowid, hi, said, prompt, kind, sid) VALUES(?, ?, ?, ?, ?, ?)")
	if err != nil {
		tx.Rollback()
		return fmt.Errorf("catch up: %w", classify(err))
	}
	var twins [2]*sql.Stmt
	for i, q := range twinQueries {
		if twins[i], err = tx.PrepareContext(ctx, q); err != nil {
			tx.Rollback()
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	w.tx, w.ins, w.insFTS, w.insStrong, w.twins, w.n = tx, ins, insFTS, insStrong, twins, 0
	return nil
}

// commit writes the sessions gathered and commits the transaction.
func (w *writer) commit(ctx context.Context) error {
	if err := w.flushSessions(ctx); err != nil {
		return err
	}
	err := w.tx.Commit()
	w.tx = nil
	if err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	return nil
}

// maybeCommit commits and starts a new transaction once the batch is full;
// save records the source's position first.
func (w *writer) maybeCommit(ctx context.Context, save func() error) error {
	if w.n < batchDocs {
		return nil
	}
	if err := save(); err != nil {
		return err
	}
	if err := w.commit(ctx); err != nil {
		return err
	}
	return w.begin(ctx)
}

func (w *writer) add(ctx context.Context, d *doc) error {
	var ts int64
	if !d.ts.IsZero() {
		ts = d.ts.UnixMilli()
	}
	tw, err := w.twinOf(ctx, d)
	if err != nil {
		return err
	}
	if d.kind == KindTranscript {
		d.worktree, d.branch = cmp.Or(d.worktree, tw.worktree), cmp.Or(d.branch, tw.branch)
	}
	var twin int64
	if d.kind == KindJournal {
		twin = tw.id
	}
	res, err := w.ins.ExecContext(ctx, string(d.kind), d.source, d.ref, d.session, ts, d.worktree, d.branch, d.file, d.issue, d.event, d.tool, d.title, d.body, d.settles(), d.msg, twin)
	if err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	id, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("catch up: %w", err)
	}
	if err := w.pair(ctx, d, id, tw); err != nil {
		return err
	}
	if twin != 0 {
		w.n++
		return nil // the message is searched in its transcript
	}
	fts := d.ftsArgs()
	args := append(make([]any, 0, nCols+3), id)
	args = append(args, fts...)
	if _, err := w.insFTS.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	if fts[colHi] != "" || fts[colSaid] != "" || fts[colPrompt] != "" {
		if _, err := w.insStrong.ExecContext(ctx, id, fts[colHi], fts[colSaid], fts[colPrompt], fts[nCols], fts[nCols+1]); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	w.n++
	return nil
}

// twin is the document of the same message from the other source.
type twin struct {
	id               int64
	worktree, branch string
	// hidden is a journal document already out of the full-text tables
	// (its transcript document was replaced).
	hidden bool
}

// twinQueries find the document of a message (by its key) from the other
// source: a journal document's transcript twin, a transcript document's
// journal twin.
var twinQueries = [2]string{
	`SELECT t.id, '', '', 0 FROM docs t WHERE t.msg = ? AND t.kind = 'transcript'
		AND NOT EXISTS (SELECT 1 FROM docs j WHERE j.twin = t.id) ORDER BY t.id LIMIT 1`,
	`SELECT j.id, j.worktree, j.branch, j.twin != 0 FROM docs j WHERE j.msg = ? AND j.kind = 'journal'
		AND (j.twin = 0 OR NOT EXISTS (SELECT 1 FROM docs t WHERE t.id = j.twin)) ORDER BY j.id LIMIT 1`,
}

// twinOf finds the document of d's message from the other source: for a
// journal prompt or answer, its transcript document that no journal
// document claimed yet; for a transcript message, its journal document
// without a transcript document (or whose transcript document is gone).
func (w *writer) twinOf(ctx context.Context, d *doc) (twin, error) {
	var t twin
	if d.msg == "" {
		return t, nil
	}
	mine, other, q := KindJournal, KindTranscript, w.twins[0]
	if d.kind != KindJournal {
		mine, other, q = KindTranscript, KindJournal, w.twins[1]
	}
	has, err := w.hasMessages(ctx, other)
	w.messages[mine] = true
	if err != nil || !has {
		return t, err
	}
	err = q.QueryRowContext(ctx, d.msg).Scan(&t.id, &t.worktree, &t.branch, &t.hidden)
	if errors.Is(err, sql.ErrNoRows) {
		return twin{}, nil
	}
	if err != nil {
		return twin{}, fmt.Errorf("catch up: %w", classify(err))
	}
	return t, nil
}

// hasMessages reports whether the index holds a message of kind: when it
// holds none (a history of transcripts only, or before the journal is
// read), a message of the other kind has no twin to look up.
func (w *writer) hasMessages(ctx context.Context, kind Kind) (bool, error) {
	if has, ok := w.messages[kind]; ok {
		return has, nil
	}
	var has bool
	if err := w.tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM docs WHERE msg != '' AND kind = ?)", string(kind)).Scan(&has); err != nil {
		return false, fmt.Errorf("catch up: %w", classify(err))
	}
	w.messages[kind] = has
	return has, nil
}

// pair makes the message of d, just written as id, one document: a
// journal document lends its worktree and branch to its transcript twin; a
// transcript document takes its journal twin out of the full-text tables.
func (w *writer) pair(ctx context.Context, d *doc, id int64, t twin) error {
	if t.id == 0 {
		return nil
	}
	var qs []string
	var args [][]any
	if d.kind == KindJournal {
		qs = append(qs, `UPDATE docs SET worktree = CASE WHEN worktree = '' THEN ? ELSE worktree END,
			branch = CASE WHEN branch = '' THEN ? ELSE branch END WHERE id = ?`)
		args = append(args, []any{d.worktree, d.branch, t.id})
	} else {
		if !t.hidden {
			qs = append(qs, "DELETE FROM docs_fts WHERE rowid = ?", "DELETE FROM strong_fts WHERE rowid = ?")
			args = append(args, []any{t.id}, []any{t.id})
		}
		qs = append(qs, "UPDATE docs SET twin = ? WHERE id = ?")
		args = append(args, []any{id, t.id})
	}
	for i, q := range qs {
		if _, err := w.tx.ExecContext(ctx, q, args[i]...); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	return nil
}

func (w *writer) saveSource(ctx context.Context, path, kind string, s source) error {
	_, err := w.tx.ExecContext(ctx, `INSERT INTO sources(path, kind, offset, size, mtime, head) VALUES(?, ?, ?, ?, ?, ?)
		ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, offset = excluded.offset, size = excluded.size, mtime = excluded.mtime, head = excluded.head`,
		path, kind, s.offset, s.size, s.mtime, int64(s.head))
	if err != nil {
		return fmt.Errorf("catch up: %w", classify(err))
	}
	return nil
}

// drop removes a source's documents and what is known of it.
func (w *writer) drop(ctx context.Context, path string) error {
	for _, q := range []string{
		"DELETE FROM docs_fts WHERE rowid IN (SELECT id FROM docs WHERE source = ?)",
		"DELETE FROM strong_fts WHERE rowid IN (SELECT id FROM docs WHERE source = ?)",
		"DELETE FROM docs WHERE source = ?",
		"DELETE FROM sources WHERE path = ?",
	} {
		if _, err := w.tx.ExecContext(ctx, q, path); err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	return nil
}

func (w *writer) session(id string) *sessionAcc {
	a := w.sessions[id]
	if a == nil {
		a = &sessionAcc{}
		w.sessions[id] = a
	}
	return a
}

func (a *sessionAcc) seen(ts time.Time) {
	if ts.IsZero() {
		return
	}
	ms := ts.UnixMilli()
	if a.first == 0 || ms < a.first {
		a.first = ms
	}
	a.last = max(a.last, ms)
}

func (w *writer) flushSessions(ctx context.Context) error {
	for id, a := range w.sessions {
		_, err := w.tx.ExecContext(ctx, `INSERT INTO sessions(id, worktree, branch, first, last, records, prompts, tools, messages, answers, transcript, agent)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO UPDATE SET
				agent = CASE WHEN excluded.agent != '' THEN excluded.agent ELSE agent END,
				worktree = CASE WHEN excluded.worktree != '' THEN excluded.worktree ELSE worktree END,
				branch = CASE WHEN excluded.branch != '' THEN excluded.branch ELSE branch END,
				transcript = CASE WHEN excluded.transcript != '' THEN excluded.transcript ELSE transcript END,
				first = CASE WHEN first = 0 OR (excluded.first != 0 AND excluded.first < first) THEN excluded.first ELSE first END,
				last = max(last, excluded.last),
				records = records + excluded.records,
				prompts = prompts + excluded.prompts,
				tools = tools + excluded.tools,
				messages = messages + excluded.messages,
				answers = answers + excluded.answers`,
			id, a.worktree, a.branch, a.first, a.last, a.records, a.prompts, a.tools, a.messages, a.answers, a.transcript, a.agent)
		if err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	clear(w.sessions)
	for id := range w.recount {
		_, err := w.tx.ExecContext(ctx, `UPDATE sessions SET messages = (SELECT count(*) FROM docs WHERE session = ?1 AND kind = 'transcript' AND event != '`+eventTool+`') WHERE id = ?1`, id)
		if err != nil {
			return fmt.Errorf("catch up: %w", classify(err))
		}
	}
	clear(w.recount)
	return nil
}

// journal reads the journal from where the last catch-up stopped. Its
// Offsets stay valid across rotations; one outside the journal means it was
// replaced, and it is read again from the start.
func (w *writer) journal(ctx context.Context, known source) error {
	j := journal.Open(w.ix.opts.Sources.State.Root, journal.Options{MaxSize: -1})
	from := journal.Offset(known.offset)
	last := from
	save := func() error {
		return w.saveSource(ctx, journalSource, journalSource, source{offset: int64(last)})
	}
	scan := func() (journal.Offset, error) {
		return j.Scan(ctx, from, func(rec journal.Record, end journal.Offset) error {
			if err := w.add(ctx, journalDoc(&rec, end)); err != nil {
				return err
			}
			w.recordSession(&rec)
			w.advance(int64(end - last))
			last = end
			return w.maybeCommit(ctx, save)
		})
	}
	end, err := scan()
	if errors.Is(err, journal.ErrOffset) {
		if err := w.drop(ctx, journalSource); err != nil {
			return err
		}
		from, last = 0, 0
		end, err = scan()
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("catch up journal: %w", err)
	}
	last = end
	return save()
}

func (w *writer) recordSession(rec *journal.Record) {
	if rec.Session == "" {
		return
	}
	a := w.session(rec.Session)
	a.seen(rec.TS)
	a.records++
	if rec.Worktree != "" {
		a.worktree = rec.Worktree
	}
	if rec.Branch != "" {
		a.branch = rec.Branch
	}
	if rec.Transcript != "" {
		a.transcript = rec.Transcript
	}
	switch {
	case rec.Event == "UserPromptSubmit":
		a.prompts++
	case journal.ToolCall(rec.Event, rec.Tool):
		a.tools++
	case rec.Event == "Stop":
		if rec.Message != "" {
			a.answers++
		}
	}
}

func journalDoc(rec *journal.Record, end journal.Offset) *doc {
	title := rec.Event
	if rec.Tool != "" {
		title = strings.TrimSpace(title + " " + rec.Tool)
	}
	var body []string
	for _, s := range []string{rec.Desc, rec.Prompt, rec.Message, rec.Cmd, rec.Error, rec.File, rec.Reason, rec.Source, rec.Trigger} {
		if s != "" {
			body = append(body, s)
		}
	}
	d := &doc{
		kind: KindJournal, source: journalSource, ref: fmt.Sprintf("journal:%d", end),
		session: rec.Session, ts: rec.TS, worktree: rec.Worktree, branch: rec.Branch,
		file: rec.File, event: rec.Event, tool: rec.Tool, title: title, body: strings.Join(body, "\n"),
	}
	d.addWritten(colPrompt, rec.Prompt)
	d.addWritten(colText, rec.Message)
	switch rec.Event {
	case "UserPromptSubmit":
		d.msg = messageKey(rec.Session, rec.Prompt)
	case "Stop":
		d.msg = messageKey(rec.Session, rec.Message)
	}
	for _, s := range []string{rec.Desc, rec.Cmd, rec.Error, rec.File} {
		d.setCol(colTool, s)
	}
	meta := []string{title, rec.Reason, rec.Source, rec.Trigger}
	if rec.Exit != nil {
		meta = append(meta, fmt.Sprintf("exit %d", *rec.Exit))
	}
	d.setCol(colMeta, joinLines(meta...))
	return d
}

// transcriptFile is a transcript to read: key is its path as known to the
// index, read the file read (the same, or an archived copy unpacked when
// the original is gone).
type transcriptFile struct {
	key, read string
	archived  string
}

// transcriptFiles lists the transcripts of every worktree, and the archived
// ones whose original is gone and was never read.
func (ix *Index) transcriptFiles(known map[string]source) []transcriptFile {
	var out []transcriptFile
	live := map[string]bool{}
	for _, dir := range ix.opts.Sources.TranscriptDirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
				p := filepath.Join(dir, e.Name())
				live[p] = true
				out = append(out, transcriptFile{key: p, read: p})
			}
		}
	}
	if ix.opts.Sources.State.Root == "" {
		return out
	}
	archive := ArchiveDir(ix.opts.Sources.State)
	for _, dir := range ix.opts.Sources.TranscriptDirs {
		key := filepath.Base(dir)
		gzs, _ := filepath.Glob(filepath.Join(archive, key, "*.jsonl.gz"))
		for _, gz := range gzs {
			orig := filepath.Join(dir, strings.TrimSuffix(filepath.Base(gz), ".gz"))
			if live[orig] || known[orig].known {
				continue
			}
			out = append(out, transcriptFile{key: orig, read: gz, archived: gz})
		}
	}
	return out
}

// stat returns a file's size, time and first bytes' hash.
func stat(path string) (source, error) {
	f, err := os.Open(path)
	if err != nil {
		return source{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return source{}, err
	}
	s := source{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	buf := make([]byte, headBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return source{}, err
	}
	h := fnv.New64a()
	h.Write(buf[:n])
	s.head = h.Sum64()
	return s, nil
}

// transcript reads a transcript from where the last catch-up stopped, or
// from the start when it shrank or its first bytes changed.
func (w *writer) transcript(ctx context.Context, t transcriptFile, known source) error {
	if t.archived != "" {
		return w.archivedTranscript(ctx, t)
	}
	fi, err := os.Stat(t.read)
	if err != nil {
		return nil // gone since it was listed
	}
	// Unchanged and read to its end. (A catch-up cut short after a batch
	// committed in the middle of it left the size and time of the whole
	// file with the offset of that batch.)
	if known.known && fi.Size() == known.size && fi.ModTime().UnixNano() == known.mtime && known.offset >= known.size {
		return nil
	}
	cur, err := stat(t.read)
	if err != nil {
		return nil
	}
	from := known.offset
	if known.known && (cur.size < known.offset || cur.head != known.head) {
		if err := w.drop(ctx, t.key); err != nil {
			return err
		}
		w.recount[transcriptSession(t.key)] = true
		from = 0
	}
	return w.readTranscript(ctx, t.key, t.read, from, cur)
}

// transcriptSession is the session a transcript holds: its file's name.
func transcriptSession(key string) string {
	return strings.TrimSuffix(filepath.Base(key), ".jsonl")
}

func (w *writer) readTranscript(ctx context.Context, key, path string, from int64, cur source) error {
	session := transcriptSession(key)
	last := from
	save := func() error {
		s := cur
		s.offset = last
		return w.saveSource(ctx, key, string(KindTranscript), s)
	}
	w.session(session).transcript = key
	// The transcript is read and its documents made on another goroutine
	// while this one writes them: parsing, redaction and folding take
	// another core instead of waiting for SQLite. At most readAhead
	// batches wait, so memory stays flat.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []readMsg, readAhead)
	var end int64
	var rerr error
	go func() {
		defer close(batches)
		batch := make([]readMsg, 0, readBatch)
		send := func() bool {
			select {
			case batches <- batch:
				batch = make([]readMsg, 0, readBatch)
				return true
			case <-rctx.Done():
				return false
			}
		}
		end, rerr = transcript.Read(rctx, path, from, func(m *transcript.Message) error {
			r := readMsg{end: m.End, ts: m.Timestamp}
			if d := transcriptDoc(key, session, m); d.body != "" {
				d.ftsArgs()
				r.doc = d
			}
			if batch = append(batch, r); len(batch) == readBatch && !send() {
				return rctx.Err()
			}
			return nil
		})
		if rerr == nil && len(batch) > 0 && !send() {
			rerr = rctx.Err()
		}
	}()
	var werr error
	for batch := range batches {
		for _, r := range batch {
			if werr != nil {
				break // drained until the reader stops
			}
			if werr = w.addMessage(ctx, session, r, &last, save); werr != nil {
				cancel()
			}
		}
	}
	// The channel is closed: the reader is done and end, rerr are set.
	if werr != nil {
		return werr
	}
	err := rerr
	if errors.Is(err, transcript.ErrOffset) || errors.Is(err, fs.ErrNotExist) {
		return nil // replaced or removed while read: next time
	}
	if err != nil {
		return fmt.Errorf("catch up transcript: %w", err)
	}
	w.advance(end - last)
	last = end
	return save()
}

// Reading ahead of the writer: messages per batch, and batches waiting.
const (
	readBatch = 16
	readAhead = 1
)

// readMsg is a transcript message read: its document (nil when it holds no
// text), where its line ends and when it was written.
type readMsg struct {
	doc *doc
	end int64
	ts  time.Time
}

// addMessage writes a transcript message read, and commits when the batch is
// full.
func (w *writer) addMessage(ctx context.Context, session string, r readMsg, last *int64, save func() error) error {
	w.advance(r.end - *last)
	*last = r.end
	if r.doc == nil {
		return w.maybeCommit(ctx, save)
	}
	if err := w.add(ctx, r.doc); err != nil {
		return err
	}
	a := w.session(session)
	a.seen(r.ts)
	if r.doc.event != eventTool {
		a.messages++
	}
	return w.maybeCommit(ctx, save)
}

// maxToolText is how much of a tool's input or result a transcript document
// keeps.
const maxToolText = 1000

// eventTool is the event of a transcript message that holds only tool calls
// or their results: not a message of the conversation (a prompt or an
// answer), so the session's message count leaves it out. The event of the
// others is their role.
const eventTool = "tool"

func transcriptDoc(key, session string, m *transcript.Message) *doc {
	var body []string
	var tools []string
	d := &doc{kind: KindTranscript, source: key, ref: fmt.Sprintf("%s:%d", key, m.Offset),
		session: session, ts: m.Timestamp, event: m.Role, title: m.Role}
	said := false // a prompt or an answer, not only tool blocks
	for _, b := range m.Blocks {
		switch b.Type {
		case transcript.TextBlock:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			said = true
			text := redact.Redact(b.Text)
			body = append(body, text)
			if m.Role == transcript.User {
				d.addWritten(colPrompt, text)
			} else {
				d.addWritten(colText, text)
			}
		case transcript.ToolUseBlock:
			tools = append(tools, b.Name)
			in := b.Input
			if strings.Contains(in, `\u`) {
				// Escaped text (\u30d1…, as writers that escape all but
				// ASCII put it) is read decoded, or its secrets would hide
				// behind the escapes.
				in = string(redact.JSONLines([]byte(in)))
			}
			in = redact.Redact(b.Name + " " + textcut.Bytes(in, maxToolText))
			body = append(body, in)
			d.setCol(colTool, in)
		case transcript.ToolResultBlock:
			if b.Text != "" {
				out := redact.Redact(textcut.Bytes(b.Text, maxToolText))
				body = append(body, out)
				d.setCol(colTool, out)
			}
		}
	}
	d.tool = strings.Join(tools, ",")
	d.body = strings.Join(body, "\n")
	if len(tools) == 0 && d.body != "" {
		d.msg = messageKey(session, d.body)
	}
	d.setCol(colMeta, joinLines(m.Role, strings.Join(tools, " ")))
	if !said {
		d.event = eventTool
	}
	return d
}

// keyRunes is how much of a message's text its key holds: less than the
// journal keeps of a prompt or an answer.
const keyRunes = 200

// messageKey keys a prompt or an answer by its session and the start of its
// text, spaces collapsed: the same in the transcript and in the journal.
func messageKey(session, text string) string {
	if n := 8 * keyRunes; len(text) > n {
		// Enough bytes for keyRunes characters, spaces collapsed.
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	if session == "" || strings.TrimSpace(text) == "" {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(session))
	h.Write([]byte{0})
	runes := 0
	for word := range strings.FieldsSeq(text) {
		if runes > 0 {
			h.Write([]byte{' '})
			runes++
		}
		for i := range word {
			if runes == keyRunes {
				word = word[:i]
				break
			}
			runes++
		}
		h.Write([]byte(word))
		if runes >= keyRunes {
			break
		}
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// archivedTranscript reads the archived copy of a transcript whose original
// is gone: unpacked to a temporary file, then read as the original was.
func (w *writer) archivedTranscript(ctx context.Context, t transcriptFile) error {
	tmp, err := os.CreateTemp(filepath.Dir(w.ix.path), ".transcript-*.jsonl")
	if err != nil {
		return fmt.Errorf("catch up archived transcript: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := unpack(t.archived, tmp); err != nil {
		return nil // a damaged archive is skipped; `baton archive` rewrites it
	}
	cur, err := stat(tmp.Name())
	if err != nil {
		return fmt.Errorf("catch up archived transcript: %w", err)
	}
	return w.readTranscript(ctx, t.key, tmp.Name(), 0, cur)
}

// layerFile is a JSON-lines context layer.
type layerFile struct {
	path string
	kind string // l1, l2, decisions
}

// layerFiles lists every route's layer files and archived decisions.
func layerFiles(dir string) []layerFile {
	if dir == "" {
		return nil
	}
	var out []layerFile
	for _, d := range []string{dir, filepath.Join(dir, "archive")} {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			for _, k := range []string{"l1", "l2", "decisions"} {
				if name == k+".jsonl" || strings.HasSuffix(name, "-"+k+".jsonl") {
					out = append(out, layerFile{path: filepath.Join(d, name), kind: k})
				}
			}
		}
	}
	return out
}

// layer reads a layer file from the end of the last line read. Layers are
// appended to, but archiving decisions rewrites the active log: a file that
// shrank or changed at its start is read again.
func (w *writer) layer(ctx context.Context, l layerFile, known source) error {
	fi, err := os.Stat(l.path)
	if err != nil || (known.known && fi.Size() == known.size && fi.ModTime().UnixNano() == known.mtime) {
		return nil
	}
	cur, err := stat(l.path)
	if err != nil {
		return nil
	}
	from := known.offset
	if known.known && (cur.size < known.offset || cur.head != known.head) {
		if err := w.drop(ctx, l.path); err != nil {
			return err
		}
		from = 0
	}
	route := layerRoute(filepath.Base(l.path), l.kind)
	end, err := readLines(ctx, l.path, from, func(line []byte, off int64) error {
		d := layerDoc(l, route, line, off)
		if d == nil {
			return nil
		}
		return w.add(ctx, d)
	})
	if err != nil {
		return fmt.Errorf("catch up %s: %w", l.path, err)
	}
	w.advance(end - from)
	cur.offset = end
	return w.saveSource(ctx, l.path, "layer", cur)
}

func layerRoute(name, kind string) string {
	if r, ok := strings.CutSuffix(name, "-"+kind+".jsonl"); ok {
		return r
	}
	return "default"
}

// readLines calls fn with each complete line of path from the offset from
// and returns the offset just past the last one.
func readLines(ctx context.Context, path string, from int64, fn func(line []byte, off int64) error) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return from, err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return from, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	off := from
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			rest, err2 := r.ReadBytes('\n')
			line = append(slices.Clone(line), rest...)
			err = err2
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return off, nil // a partial last line waits for its end
			}
			return off, err
		}
		if err := ctx.Err(); err != nil {
			return off, err
		}
		if err := fn(bytes.TrimSpace(line), off); err != nil {
			return off, err
		}
		off += int64(len(line))
	}
}

// wholeFile is a small file read whole whenever it changes.
type wholeFile struct {
	path string
	kind string // pending, run, debate
}

func wholeKind(k string) bool { return k == "pending" || k == "run" || k == "debate" }

func (ix *Index) wholeFiles() []wholeFile {
	var out []wholeFile
	src := ix.opts.Sources
	if src.State.Root != "" {
		ps, _ := filepath.Glob(filepath.Join(src.State.Sessions(), "*.pending-decisions.json"))
		for _, p := range ps {
			out = append(out, wholeFile{path: p, kind: "pending"})
		}
	}
	if src.WorkerDir != "" {
		rs, _ := filepath.Glob(filepath.Join(src.WorkerDir, "runs", "*.json"))
		for _, p := range rs {
			out = append(out, wholeFile{path: p, kind: "run"})
		}
	}
	if src.DebatesDir != "" {
		ds, _ := filepath.Glob(filepath.Join(src.DebatesDir, "*.md"))
		for _, p := range ds {
			out = append(out, wholeFile{path: p, kind: "debate"})
		}
	}
	return out
}

// whole reads a small file again when its size or time changed, replacing
// its documents.
func (w *writer) whole(ctx context.Context, f wholeFile, known source) error {
	fi, err := os.Stat(f.path)
	if err != nil || (known.known && fi.Size() == known.size && fi.ModTime().UnixNano() == known.mtime) {
		return nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return nil
	}
	if known.known {
		if err := w.drop(ctx, f.path); err != nil {
			return err
		}
	}
	var docs []*doc
	switch f.kind {
	case "pending":
		docs = pendingDocs(f.path, data)
	case "run":
		docs = runDocs(f.path, data)
	case "debate":
		docs = debateDocs(f.path, data, fi.ModTime())
	}
	for _, d := range docs {
		if err := w.add(ctx, d); err != nil {
			return err
		}
	}
	w.advance(fi.Size())
	return w.saveSource(ctx, f.path, f.kind, source{size: fi.Size(), mtime: fi.ModTime().UnixNano()})
}
