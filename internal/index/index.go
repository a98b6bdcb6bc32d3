// Package index keeps index.db, the SQLite index in a repository's state
// folder that `baton search`, `baton usage`'s session view and the dashboard
// read. It is derived from files that stay the source of truth: the journal
// segments, the Claude Code transcripts of every worktree (and their archived
// copies), the decision files (pending decisions, the approved-decision log),
// the context layers, the worker's run records and the debate files.
// Deleting index.db loses nothing; Reset and CatchUp rebuild it.
//
// # Catching up
//
// CatchUp reads what was added since the last call, by file and byte offset:
// the journal from its Offset (valid across rotations), JSON-lines files from
// the end of the last line read, and whole small files again when their size
// or time changed. A file that shrank, or whose first bytes changed, was
// replaced: its documents are dropped and it is read from the start. One
// process catches up at a time (a lock file next to the database); another
// that finds the lock taken gets ErrBusy and may search what is there.
// Writes are committed in batches, so an interrupted catch-up keeps its
// progress. Readers are never blocked (WAL).
//
// A database that is not SQLite, or that SQLite finds corrupt, is moved aside
// to index.db.corrupt-<time> and rebuilt; errors met later wrap ErrCorrupt so
// that the caller can do the same (Discard).
//
// # Search
//
// Search takes FTS5 query syntax (words, "phrases", prefix*, AND, OR, NOT,
// parentheses). A word with characters FTS5 does not allow in a bare word
// (a path, a file name) is searched as a phrase, and Japanese and Chinese
// text is found by any run of its characters. Text and queries are folded
// alike (package textnorm: ＡＰＩ finds API, ｶﾀｶﾅ finds カタカナ) and English
// words are stemmed (retry finds retries). A query FTS5 cannot read wraps
// ErrQuery.
//
// Hits come best first, tier by tier: by where the words were written
// (approved decisions and summaries first, then messages that settle
// something — a decision, a fix, a pin, a root cause —, then what a person
// wrote, what the agent wrote, their questions and lists of links or topics, tool
// calls and output, and logs, code and repeated lines pasted into a prompt
// or an answer last), a document in the tier of the weakest column its match
// needs; within a tier bm25 weighted the same way, the sessions that made a
// matching approved decision or settled something about the query boosted,
// newer first among equals; or newest first on request. Every match is
// counted; a weaker tier is ranked only when the stronger ones do not fill
// the page. A plain query that no document holds whole — a question in plain
// words — is asked again for its content words, any of them
// (Results.Relaxed).
//
// Hit.Snippet is a short excerpt of the document as Spans, the matches marked:
// a terminal writes them with «» or colour, a web page with <mark> around the
// escaped text (Marked does the former).
package index

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/sqlitedb"
	"github.com/baton-cli/baton/internal/state"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Kind is what a document is.
type Kind string

// Kinds of documents.
const (
	KindJournal    Kind = "journal"
	KindTranscript Kind = "transcript"
	KindDecision   Kind = "decision"
	KindSummary    Kind = "summary"
	KindRun        Kind = "run"
	KindDebate     Kind = "debate"
	// KindCodex and KindGemini are the requests, answers and commands of
	// the Codex CLI's and the Gemini CLI's sessions.
	KindCodex  Kind = "codex"
	KindGemini Kind = "gemini"
)

// Kinds returns every kind, in the order a person reads them.
func Kinds() []Kind {
	return []Kind{KindJournal, KindTranscript, KindDecision, KindSummary, KindRun, KindDebate, KindCodex, KindGemini}
}

// AgentKinds are the kinds of documents agent's sessions made: Claude
// Code's every kind but the other agents'.
func AgentKinds(a agentlog.Agent) []Kind {
	switch a {
	case agentlog.Codex:
		return []Kind{KindCodex}
	case agentlog.Gemini:
		return []Kind{KindGemini}
	}
	return []Kind{KindJournal, KindTranscript, KindDecision, KindSummary, KindRun, KindDebate}
}

// Agent is the agent whose session a document of kind k came from.
func (k Kind) Agent() agentlog.Agent {
	switch k {
	case KindCodex:
		return agentlog.Codex
	case KindGemini:
		return agentlog.Gemini
	}
	return agentlog.Claude
}

// ParseKind checks a kind's name.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(Kinds(), k) {
		return k, nil
	}
	return "", fmt.Errorf("unknown kind %q", s)
}

var (
	// ErrQuery marks a search query FTS5 cannot read; its text says why.
	ErrQuery = errors.New("invalid search query")
	// ErrCorrupt marks an operation that found the database damaged.
	ErrCorrupt = errors.New("index database is damaged")
	// ErrBusy means another process is catching the index up.
	ErrBusy = errors.New("index is being updated by another process")
)

// Options configure an Index.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sources are the files the index is derived from.
	Sources Sources
	// BusyTimeout is how long a statement waits for another process's
	// write; 0 means 5 s.
	BusyTimeout time.Duration
}

// Index is an open index.db. Its methods are safe for concurrent use.
type Index struct {
	db   *sql.DB
	path string
	opts Options
	// Moved is where a damaged file found by Open was moved; empty when
	// none was.
	Moved string
}

// Open opens the index at path (state.Dir.Index()), creating it and bringing
// its schema up to date. A file that is not a usable SQLite database is moved
// aside and a new one created; Moved says where it went.
func Open(ctx context.Context, path string, opts Options) (*Index, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	// SQLite opens its files by name: check that none of them, nor a
	// folder on the way below the state folder's parent, is a link.
	root := state.Dir{Root: filepath.Dir(path)}.Base()
	if err := safepath.MkdirAll(root, filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := safepath.Check(root, p); err != nil {
			return nil, fmt.Errorf("open index: %w", err)
		}
	}
	ix, err := open(ctx, path, opts)
	if err == nil || !errors.Is(err, ErrCorrupt) {
		return ix, err
	}
	moved, derr := Discard(path, opts.Now())
	if derr != nil {
		return nil, fmt.Errorf("open index: %w (and moving it aside: %v)", err, derr)
	}
	ix, err = open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	ix.Moved = moved
	return ix, nil
}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// quickCheckMax is the largest file Open runs PRAGMA quick_check on; larger
// ones are trusted until a read says otherwise.
const quickCheckMax = 32 << 20

func open(ctx context.Context, path string, opts Options) (*Index, error) {
	size, err := checkHeader(path)
	if err != nil {
		return nil, err
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	dsn := "file:" + path + "?_txlock=immediate" +
		"&_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	ix := &Index{db: db, path: path, opts: opts}
	if err := ix.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open index %s: %w", path, classify(err))
	}
	if size > 0 && size <= quickCheckMax {
		var res string
		if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil || res != "ok" {
			db.Close()
			if err == nil {
				err = errors.New(res)
			}
			return nil, fmt.Errorf("open index %s: %w: %v", path, ErrCorrupt, err)
		}
	}
	return ix, nil
}

// checkHeader returns the file's size, and ErrCorrupt when a non-empty file
// does not start as a SQLite database.
func checkHeader(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("open index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("open index: %w", err)
	}
	if fi.Size() == 0 {
		return 0, nil
	}
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteMagic {
		return 0, fmt.Errorf("open index %s: %w: not a SQLite database", path, ErrCorrupt)
	}
	return fi.Size(), nil
}

// Discard moves a damaged index (and its WAL files) aside to
// <path>.corrupt-<time> and returns where it went.
func Discard(path string, now time.Time) (string, error) {
	dest := path + ".corrupt-" + now.UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(path, dest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("move index aside: %w", err)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, dest+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("move index aside: %w", err)
		}
	}
	return dest, nil
}

// classify wraps SQLite's "corrupt" and "not a database" errors in
// ErrCorrupt.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return err
}

// Close closes the database.
func (ix *Index) Close() error { return ix.db.Close() }

// Path is the database file.
func (ix *Index) Path() string { return ix.path }

// migrate applies the embedded migrations the file has not seen.
func (ix *Index) migrate(ctx context.Context) error {
	err := sqlitedb.Migrate(ctx, ix.db, migrations, "migrations/*.sql")
	var newer *sqlitedb.NewerSchemaError
	if errors.As(err, &newer) {
		return fmt.Errorf("index %w: upgrade baton or delete the index", err)
	}
	return err
}

// Reset empties the index, so that the next CatchUp reads everything again.
// Searches running meanwhile see the old contents until it commits.
func (ix *Index) Reset(ctx context.Context) error {
	unlock, err := ix.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reset index: %w", classify(err))
	}
	defer tx.Rollback()
	for _, q := range []string{
		"DELETE FROM docs", "DELETE FROM sources", "DELETE FROM sessions",
		"INSERT INTO docs_fts(docs_fts) VALUES('delete-all')",
		"INSERT INTO strong_fts(strong_fts) VALUES('delete-all')",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reset index: %w", classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reset index: %w", classify(err))
	}
	return nil
}

// Stats counts the documents of each kind.
func (ix *Index) Stats(ctx context.Context) (map[Kind]int, error) {
	rows, err := ix.db.QueryContext(ctx, "SELECT kind, count(*) FROM docs GROUP BY kind")
	if err != nil {
		return nil, fmt.Errorf("index stats: %w", classify(err))
	}
	defer rows.Close()
	out := map[Kind]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("index stats: %w", classify(err))
		}
		out[Kind(k)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index stats: %w", classify(err))
	}
	return out, nil
}
