// Package local is the issue tracker baton uses when no GitHub is
// configured: issues, comments and labels in a SQLite file,
// <state folder>/tracker.db. Unlike the search index, this file is a
// source of truth, not derived data: deleting it loses the issues.
//
// Several processes can use the file at once (WAL, a busy timeout, and
// every write in one immediate transaction). Issue numbers and comment ids
// are unique and increasing, never reused after a delete, so "the lowest
// claim comment wins" works as it does on GitHub. Every error it returns is a
// *tracker.Error: a missing issue or comment is KindNotFound, anything else
// KindUnknown.
package local

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/baton-cli/baton/internal/sqlitedb"
	"github.com/baton-cli/baton/internal/tracker"
	"github.com/gofrs/flock"
)

// FileName is the tracker's file in the state folder.
const FileName = "tracker.db"

// Path returns the tracker file of a state folder.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

//go:embed migrations/*.sql
var migrations embed.FS

// Options configure a Tracker.
type Options struct {
	// Author is recorded on what this tracker creates; empty: "local".
	Author string
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// BusyTimeout is how long a write waits for another process's write
	// to finish; 0: 10 s.
	BusyTimeout time.Duration
}

// Tracker is the local issue tracker.
type Tracker struct {
	db     *sql.DB
	author string
	now    func() time.Time
}

var _ tracker.Tracker = (*Tracker)(nil)

// Open opens (creating when needed) the tracker file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string, opts Options) (*Tracker, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open local tracker: %w", err)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 10 * time.Second
	}
	dsn := "file:" + path + "?_txlock=immediate" +
		"&_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open local tracker %s: %w", path, err)
	}
	t := &Tracker{db: db, author: opts.Author, now: opts.Now}
	if t.author == "" {
		t.author = "local"
	}
	if t.now == nil {
		t.now = time.Now
	}
	if err := t.firstOpen(ctx, path, busy); err != nil {
		db.Close()
		return nil, fmt.Errorf("open local tracker %s: %w", path, err)
	}
	return t, nil
}

// firstOpen makes the first connection and brings the schema up to date
// under a lock file beside the tracker, waiting up to busy for it. Two
// processes creating a new file at once must not both switch it to WAL and
// migrate it: SQLite answers one of them SQLITE_BUSY there without waiting,
// or a disk I/O error while the other sets up the WAL index.
func (t *Tracker) firstOpen(ctx context.Context, path string, busy time.Duration) error {
	lock := flock.New(path + ".lock")
	lctx, cancel := context.WithTimeout(ctx, busy)
	defer cancel()
	locked, err := lock.TryLockContext(lctx, 20*time.Millisecond)
	if err != nil || !locked {
		return fmt.Errorf("lock %s: %w", lock.Path(), cmp.Or(err, context.DeadlineExceeded))
	}
	defer lock.Unlock()
	return t.migrate(ctx)
}

// Close closes the file.
func (t *Tracker) Close() error { return t.db.Close() }

// migrate applies the embedded migrations the file has not seen.
func (t *Tracker) migrate(ctx context.Context) error {
	err := sqlitedb.Migrate(ctx, t.db, migrations, "migrations/*.sql")
	var newer *sqlitedb.NewerSchemaError
	if errors.As(err, &newer) {
		return fmt.Errorf("%w: upgrade baton", err)
	}
	return err
}

// stamp is how times are stored: UTC, fixed width, so text order is time
// order.
const stamp = "2006-01-02T15:04:05.000000000Z"

func (t *Tracker) stamp() string { return t.now().UTC().Format(stamp) }

func parseStamp(s string) time.Time {
	ts, _ := time.Parse(stamp, s)
	return ts
}

// fail wraps err as a classified tracker error.
func fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var te *tracker.Error
	if errors.As(err, &te) {
		return err
	}
	return &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: err}
}

func notFound(op, what string) error {
	return &tracker.Error{Kind: tracker.KindNotFound, Op: op, Err: errors.New(what + " not found")}
}

// read runs fn in a read-only transaction.
func (t *Tracker) read(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	tx, err := t.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(op, err)
	}
	defer tx.Rollback()
	return fail(op, fn(tx))
}

// write runs fn in an immediate transaction and commits it.
func (t *Tracker) write(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(op, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fail(op, err)
	}
	return fail(op, tx.Commit())
}

// CreateIssue opens an issue.
func (t *Tracker) CreateIssue(ctx context.Context, in tracker.NewIssue) (*tracker.Issue, error) {
	const op = "create issue"
	if strings.TrimSpace(in.Title) == "" {
		return nil, &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: errors.New("the title is empty")}
	}
	var out *tracker.Issue
	err := t.write(ctx, op, func(tx *sql.Tx) error {
		now := t.stamp()
		res, err := tx.ExecContext(ctx,
			`INSERT INTO issues (title, body, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			in.Title, in.Body, t.author, now, now)
		if err != nil {
			return err
		}
		number, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if err := t.link(ctx, tx, int(number), in.Labels); err != nil {
			return err
		}
		out, err = getIssue(ctx, tx, op, int(number))
		return err
	})
	return out, err
}

// Issue returns issue number.
func (t *Tracker) Issue(ctx context.Context, number int) (*tracker.Issue, error) {
	op := fmt.Sprintf("get issue #%d", number)
	var out *tracker.Issue
	err := t.read(ctx, op, func(tx *sql.Tx) (err error) {
		out, err = getIssue(ctx, tx, op, number)
		return err
	})
	return out, err
}

func getIssue(ctx context.Context, tx *sql.Tx, op string, number int) (*tracker.Issue, error) {
	rows, err := tx.QueryContext(ctx, issueQuery+` WHERE number = ?`, number)
	if err != nil {
		return nil, err
	}
	list, err := scanIssues(rows)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, notFound(op, fmt.Sprintf("issue #%d", number))
	}
	return list[0], labelsOf(ctx, tx, list)
}

const issueQuery = `SELECT number, title, body, state, author, created_at, updated_at FROM issues`

func scanIssues(rows *sql.Rows) ([]*tracker.Issue, error) {
	defer rows.Close()
	var out []*tracker.Issue
	for rows.Next() {
		var is tracker.Issue
		var created, updated string
		if err := rows.Scan(&is.Number, &is.Title, &is.Body, &is.State, &is.Author, &created, &updated); err != nil {
			return nil, err
		}
		is.AuthorAssociation = "OWNER"
		is.CreatedAt, is.UpdatedAt = parseStamp(created), parseStamp(updated)
		out = append(out, &is)
	}
	return out, rows.Err()
}

// labelsOf fills in the labels of issues, sorted by name.
func labelsOf(ctx context.Context, tx *sql.Tx, issues []*tracker.Issue) error {
	if len(issues) == 0 {
		return nil
	}
	byNumber := make(map[int]*tracker.Issue, len(issues))
	args := make([]any, len(issues))
	for i, is := range issues {
		byNumber[is.Number] = is
		args[i] = is.Number
	}
	q := `SELECT issue, label FROM issue_labels WHERE issue IN (?` + strings.Repeat(",?", len(issues)-1) + `) ORDER BY label COLLATE NOCASE`
	if len(issues) > 500 {
		q, args = `SELECT issue, label FROM issue_labels ORDER BY label COLLATE NOCASE`, nil
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		var label string
		if err := rows.Scan(&n, &label); err != nil {
			return err
		}
		if is := byNumber[n]; is != nil {
			is.Labels = append(is.Labels, label)
		}
	}
	return rows.Err()
}

// ListIssues returns the matching issues, lowest number first.
func (t *Tracker) ListIssues(ctx context.Context, opts tracker.ListOptions) ([]*tracker.Issue, error) {
	const op = "list issues"
	state, ok := tracker.NormalizeState(opts.State)
	if !ok {
		return nil, &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: fmt.Errorf("state %q is not open, closed or all", opts.State)}
	}
	var where []string
	var args []any
	if state != tracker.StateAll {
		where, args = append(where, "state = ?"), append(args, state)
	}
	labels := uniqueFold(opts.Labels)
	if len(labels) > 0 {
		where = append(where, `number IN (SELECT issue FROM issue_labels WHERE label IN (?`+
			strings.Repeat(",?", len(labels)-1)+`) GROUP BY issue HAVING count(*) = ?)`)
		for _, l := range labels {
			args = append(args, l)
		}
		args = append(args, len(labels))
	}
	q := issueQuery
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY number"
	var out []*tracker.Issue
	err := t.read(ctx, op, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		if out, err = scanIssues(rows); err != nil {
			return err
		}
		return labelsOf(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// uniqueFold drops empty names and names equal without case to an earlier
// one.
func uniqueFold(names []string) []string {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n != "" && !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n) }) {
			out = append(out, n)
		}
	}
	return out
}

// exists fails with KindNotFound when issue number does not exist.
func exists(ctx context.Context, tx *sql.Tx, op string, number int) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM issues WHERE number = ?`, number).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(op, fmt.Sprintf("issue #%d", number))
	}
	return err
}

// Comments returns an issue's comments, oldest first.
func (t *Tracker) Comments(ctx context.Context, number int) ([]*tracker.Comment, error) {
	op := fmt.Sprintf("list comments of #%d", number)
	var out []*tracker.Comment
	err := t.read(ctx, op, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, op, number); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, body, author, created_at FROM comments WHERE issue = ? ORDER BY id`, number)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c tracker.Comment
			var created string
			if err := rows.Scan(&c.ID, &c.Body, &c.Author, &created); err != nil {
				return err
			}
			c.CreatedAt = parseStamp(created)
			out = append(out, &c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddComment adds a comment to issue number.
func (t *Tracker) AddComment(ctx context.Context, number int, body string) (*tracker.Comment, error) {
	op := fmt.Sprintf("comment on #%d", number)
	var out *tracker.Comment
	err := t.write(ctx, op, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, op, number); err != nil {
			return err
		}
		now := t.stamp()
		res, err := tx.ExecContext(ctx, `INSERT INTO comments (issue, body, author, created_at) VALUES (?, ?, ?, ?)`,
			number, body, t.author, now)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if err := touch(ctx, tx, number, now); err != nil {
			return err
		}
		out = &tracker.Comment{ID: id, Body: body, Author: t.author, CreatedAt: parseStamp(now)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func touch(ctx context.Context, tx *sql.Tx, number int, now string) error {
	_, err := tx.ExecContext(ctx, `UPDATE issues SET updated_at = ? WHERE number = ?`, now, number)
	return err
}

// DeleteComment deletes a comment by id.
func (t *Tracker) DeleteComment(ctx context.Context, id int64) error {
	op := fmt.Sprintf("delete comment %d", id)
	return t.write(ctx, op, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM comments WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return notFound(op, fmt.Sprintf("comment %d", id))
		}
		return nil
	})
}

// AddLabels adds labels to issue number, creating the ones that do not
// exist yet.
func (t *Tracker) AddLabels(ctx context.Context, number int, labels ...string) error {
	op := fmt.Sprintf("add labels %v to #%d", labels, number)
	return t.write(ctx, op, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, op, number); err != nil {
			return err
		}
		return t.link(ctx, tx, number, labels)
	})
}

// link puts labels on an issue, creating missing labels and keeping the
// spelling a label was created with.
func (t *Tracker) link(ctx context.Context, tx *sql.Tx, number int, labels []string) error {
	labels = uniqueFold(labels)
	if len(labels) == 0 {
		return nil
	}
	now := t.stamp()
	for _, l := range labels {
		if _, err := tx.ExecContext(ctx, `INSERT INTO labels (name, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, l, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO issue_labels (issue, label) SELECT ?, name FROM labels WHERE name = ? ON CONFLICT DO NOTHING`, number, l); err != nil {
			return err
		}
	}
	return touch(ctx, tx, number, now)
}

// RemoveLabel takes label off issue number; a label it does not have is not
// an error.
func (t *Tracker) RemoveLabel(ctx context.Context, number int, label string) error {
	op := fmt.Sprintf("remove label %q from #%d", label, number)
	return t.write(ctx, op, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, op, number); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM issue_labels WHERE issue = ? AND label = ?`, number, label)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return touch(ctx, tx, number, t.stamp())
		}
		return nil
	})
}

// SetState opens or closes issue number.
func (t *Tracker) SetState(ctx context.Context, number int, state string) error {
	op := fmt.Sprintf("set #%d %s", number, state)
	if state != tracker.StateOpen && state != tracker.StateClosed {
		return &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: fmt.Errorf("state %q is not open or closed", state)}
	}
	return t.write(ctx, op, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, op, number); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE issues SET state = ?, updated_at = ? WHERE number = ?`, state, t.stamp(), number)
		return err
	})
}
