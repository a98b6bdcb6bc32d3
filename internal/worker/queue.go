package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	_ "modernc.org/sqlite" // the local queue's database

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/redact"
)

// Queue is the worker's job queue: River over Postgres when several hosts
// share it (worker.queue.url), over a SQLite file in the data folder on one
// machine. River holds the jobs and their leases; baton adds two tables of
// its own, baton_checkpoint for the runs' checkpoints and baton_host for the
// hosts' heartbeats (see liveness.go), and a trigger that fences attempts.
type Queue struct {
	// where names the database in messages: the URL with its password
	// redacted, or the SQLite file.
	where string
	// pool is the Postgres pool (nil for SQLite).
	pool *pgxpool.Pool
	// db is the same database through database/sql, for baton's table
	// (and River's SQLite driver).
	db *sql.DB
}

// QueueFile is the local queue's file in the worker's data folder.
const QueueFile = "queue.db"

var (
	msgQueueUnreachable = i18n.Msg{
		JA: "キューのデータベース %s に接続できません: %s\nデータベースが動いているか、worker.queue.url（または BATON_QUEUE_URL）が正しいか確認してください。",
		EN: "cannot reach the queue database %s: %s\nCheck that the database is running and that worker.queue.url (or BATON_QUEUE_URL) is right.",
	}
	msgQueueUnmigrated = i18n.Msg{
		JA: "キューのデータベース %s のテーブルが最新ではありません（%s）。`baton worker migrate` を実行してください。",
		EN: "the queue database %s is not migrated (%s): run `baton worker migrate`.",
	}
	msgQueueBadURL = i18n.Msg{
		JA: "worker.queue.url %s は postgres:// の URL ではありません（空ならこのマシンの SQLite を使います）",
		EN: "worker.queue.url %s is not a postgres:// URL (leave it empty for this machine's SQLite queue)",
	}
)

// RedactURL returns u with its password replaced, for messages.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// OpenQueue opens the queue named by rawURL: a postgres:// URL, or "" for
// the SQLite file in dataDir. It does not check that the database answers
// or is migrated; Check does.
func OpenQueue(ctx context.Context, rawURL, dataDir string, lang i18n.Lang) (*Queue, error) {
	if rawURL == "" {
		path := filepath.Join(dataDir, QueueFile)
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("open queue %s: %w", path, err)
		}
		// River's SQLite driver wants one connection: SQLite has one
		// writer, and River's transactions must not wait on each other.
		dsn := "file:" + path + "?_txlock=immediate&_pragma=busy_timeout(10000)" +
			"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open queue %s: %w", path, err)
		}
		db.SetMaxOpenConns(1)
		return &Queue{where: path, db: db}, nil
	}
	if !strings.HasPrefix(rawURL, "postgres://") && !strings.HasPrefix(rawURL, "postgresql://") {
		return nil, errors.New(msgQueueBadURL.Format(lang, RedactURL(rawURL)))
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, errors.New(msgQueueUnreachable.Format(lang, RedactURL(rawURL), "bad URL"))
	}
	cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, errors.New(msgQueueUnreachable.Format(lang, RedactURL(rawURL), err.Error()))
	}
	return &Queue{where: RedactURL(rawURL), pool: pool, db: stdlib.OpenDBFromPool(pool)}, nil
}

// OpenQueueReady opens the queue as OpenQueue does and, when it is the local
// SQLite file (this machine's own), migrates it on the spot; a shared
// Postgres queue is migrated by `baton worker migrate`.
func OpenQueueReady(ctx context.Context, rawURL, dataDir string, lang i18n.Lang) (*Queue, error) {
	q, err := OpenQueue(ctx, rawURL, dataDir, lang)
	if err != nil {
		return nil, err
	}
	if q.SQLite() {
		if err := q.Migrate(ctx, lang); err != nil {
			q.Close()
			return nil, err
		}
	}
	return q, nil
}

// Where names the queue's database, password redacted.
func (q *Queue) Where() string { return q.where }

// SQLite reports whether the queue is the local SQLite file.
func (q *Queue) SQLite() bool { return q.pool == nil }

// Close closes the queue's connections.
func (q *Queue) Close() {
	q.db.Close()
	if q.pool != nil {
		q.pool.Close()
	}
}

// checkpointSchema is baton's table beside River's. Times are Unix
// seconds, the same in both databases.
func (q *Queue) checkpointSchema() string {
	blob := "BYTEA"
	if q.SQLite() {
		blob = "BLOB"
	}
	return `CREATE TABLE IF NOT EXISTS baton_checkpoint (
	job_id BIGINT PRIMARY KEY,
	repo TEXT NOT NULL,
	issue INTEGER NOT NULL,
	branch TEXT NOT NULL,
	host TEXT NOT NULL,
	session_id TEXT NOT NULL DEFAULT '',
	transcript ` + blob + `,
	deadline BIGINT NOT NULL DEFAULT 0,
	updated_at BIGINT NOT NULL,
	attempt INTEGER NOT NULL DEFAULT 0,
	outcome TEXT NOT NULL DEFAULT ''
)`
}

// checkpointColumns are the columns added to baton_checkpoint after its
// first version, with their definitions: Migrate adds those a database
// lacks.
var checkpointColumns = [][2]string{
	{"attempt", "INTEGER NOT NULL DEFAULT 0"},
	{"outcome", "TEXT NOT NULL DEFAULT ''"},
}

// hasColumn reports whether baton_checkpoint has the column.
func (q *Queue) hasColumn(ctx context.Context, name string) bool {
	rows, err := q.db.QueryContext(ctx, "SELECT "+name+" FROM baton_checkpoint WHERE 1 = 0")
	if err != nil {
		return false
	}
	rows.Close()
	return true
}

// Migrate brings River's tables and baton's up to date.
func (q *Queue) Migrate(ctx context.Context, lang i18n.Lang) error {
	var err error
	if q.SQLite() {
		// Two processes starting at once on this machine take turns.
		lock := flock.New(q.where + ".lock")
		if _, err := lock.TryLockContext(ctx, 50*time.Millisecond); err != nil {
			return q.reachError(lang, err)
		}
		defer lock.Unlock()
		err = migrate(ctx, riversqlite.New(q.db))
	} else {
		err = migrate(ctx, riverpgxv5.New(q.pool))
	}
	if err != nil {
		return q.reachError(lang, err)
	}
	for _, schema := range []string{q.checkpointSchema(), hostSchema} {
		if _, err := q.db.ExecContext(ctx, schema); err != nil {
			return q.reachError(lang, err)
		}
	}
	for _, c := range checkpointColumns {
		if q.hasColumn(ctx, c[0]) {
			continue
		}
		if _, err := q.db.ExecContext(ctx, "ALTER TABLE baton_checkpoint ADD COLUMN "+c[0]+" "+c[1]); err != nil {
			return q.reachError(lang, err)
		}
	}
	for _, stmt := range q.fenceTrigger() {
		if _, err := q.db.ExecContext(ctx, stmt); err != nil {
			return q.reachError(lang, err)
		}
	}
	return nil
}

func migrate[TTx any](ctx context.Context, d riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(d, nil)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// Check tells whether the queue's database answers and is migrated, with
// the fix in the error.
func (q *Queue) Check(ctx context.Context, lang i18n.Lang) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := q.db.PingContext(ctx); err != nil {
		return q.reachError(lang, err)
	}
	var res *rivermigrate.ValidateResult
	var err error
	if q.SQLite() {
		res, err = validate(ctx, riversqlite.New(q.db))
	} else {
		res, err = validate(ctx, riverpgxv5.New(q.pool))
	}
	if err != nil {
		return q.reachError(lang, err)
	}
	if !res.OK {
		return errors.New(msgQueueUnmigrated.Format(lang, q.where, strings.Join(res.Messages, "; ")))
	}
	var n int
	if err := q.db.QueryRowContext(ctx, "SELECT count(*) FROM baton_checkpoint WHERE job_id = 0").Scan(&n); err != nil {
		return errors.New(msgQueueUnmigrated.Format(lang, q.where, "no baton_checkpoint table"))
	}
	for _, c := range checkpointColumns {
		if !q.hasColumn(ctx, c[0]) {
			return errors.New(msgQueueUnmigrated.Format(lang, q.where, "baton_checkpoint has no column "+c[0]))
		}
	}
	if err := q.db.QueryRowContext(ctx, "SELECT count(*) FROM baton_host WHERE client_id = ''").Scan(&n); err != nil {
		return errors.New(msgQueueUnmigrated.Format(lang, q.where, "no baton_host table"))
	}
	if !q.hasFence(ctx) {
		return errors.New(msgQueueUnmigrated.Format(lang, q.where, "no baton_fence_job trigger on river_job"))
	}
	return nil
}

func validate[TTx any](ctx context.Context, d riverdriver.Driver[TTx]) (*rivermigrate.ValidateResult, error) {
	m, err := rivermigrate.New(d, nil)
	if err != nil {
		return nil, err
	}
	return m.Validate(ctx, nil)
}

// reachError is a failure to use the database, named and explained.
func (q *Queue) reachError(lang i18n.Lang, err error) error {
	return errors.New(msgQueueUnreachable.Format(lang, q.where, redact.Redact(err.Error())))
}

// riverClient is what the worker uses of a River client; the Postgres and
// SQLite clients differ only in their transaction type, which the worker
// never sees.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Stopped() <-chan struct{}
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// newClient makes a River client on the queue's database.
func (q *Queue) newClient(cfg *river.Config) (riverClient, error) {
	if q.SQLite() {
		return river.NewClient(riversqlite.New(q.db), cfg)
	}
	return river.NewClient(riverpgxv5.New(q.pool), cfg)
}

// checkpoint is what a run saved for a host that takes its job over.
type checkpoint struct {
	JobID int64
	// Attempt is the job's attempt that saved it: a later attempt's
	// checkpoint is never replaced by an earlier one's.
	Attempt    int
	Repo       string
	Issue      int
	Branch     string
	Host       string
	SessionID  string
	Transcript []byte
	Deadline   time.Time
	// Outcome is the record of a run that ended but whose labels or
	// comment did not reach GitHub (JSON): the next attempt settles it
	// instead of running the issue again.
	Outcome []byte
}

// errStaleAttempt is why a host's write for a job is refused: another
// attempt of the job has started since.
var errStaleAttempt = errors.New("a later attempt of the job runs")

// saveCheckpoint stores (or replaces) the checkpoint of a job, unless a
// later attempt's is stored (errStaleAttempt).
func (q *Queue) saveCheckpoint(ctx context.Context, c *checkpoint, now time.Time) error {
	var deadline int64
	if !c.Deadline.IsZero() {
		deadline = c.Deadline.Unix()
	}
	res, err := q.db.ExecContext(ctx, `INSERT INTO baton_checkpoint
	(job_id, repo, issue, branch, host, session_id, transcript, deadline, updated_at, attempt, outcome)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT (job_id) DO UPDATE SET repo = excluded.repo, issue = excluded.issue,
	branch = excluded.branch, host = excluded.host, session_id = excluded.session_id,
	transcript = excluded.transcript, deadline = excluded.deadline, updated_at = excluded.updated_at,
	attempt = excluded.attempt, outcome = excluded.outcome
	WHERE baton_checkpoint.attempt <= excluded.attempt`,
		c.JobID, c.Repo, c.Issue, c.Branch, c.Host, c.SessionID, c.Transcript, deadline, now.Unix(), c.Attempt, string(c.Outcome))
	if err != nil {
		return fmt.Errorf("save checkpoint of job %d: %w", c.JobID, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("save checkpoint of job %d attempt %d: %w", c.JobID, c.Attempt, errStaleAttempt)
	}
	return nil
}

// loadCheckpoint returns the checkpoint of a job, or nil when it has none.
func (q *Queue) loadCheckpoint(ctx context.Context, jobID int64) (*checkpoint, error) {
	c := &checkpoint{JobID: jobID}
	var deadline int64
	var outcome string
	err := q.db.QueryRowContext(ctx, `SELECT repo, issue, branch, host, session_id, transcript, deadline, attempt, outcome
	FROM baton_checkpoint WHERE job_id = $1`, jobID).
		Scan(&c.Repo, &c.Issue, &c.Branch, &c.Host, &c.SessionID, &c.Transcript, &deadline, &c.Attempt, &outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load checkpoint of job %d: %w", jobID, err)
	}
	if deadline != 0 {
		c.Deadline = time.Unix(deadline, 0)
	}
	if outcome != "" {
		c.Outcome = []byte(outcome)
	}
	return c, nil
}

// deleteCheckpoint forgets a finished job's checkpoint, unless a later
// attempt saved it.
func (q *Queue) deleteCheckpoint(ctx context.Context, jobID int64, attempt int) error {
	_, err := q.db.ExecContext(ctx, "DELETE FROM baton_checkpoint WHERE job_id = $1 AND attempt <= $2", jobID, attempt)
	return err
}

// fenceKey is the job metadata key that names the attempt whose end River
// is writing; see fenceTrigger.
const fenceKey = "baton_attempt"

// running reports whether attempt is the job's attempt in progress: a host
// whose job was given to another one (it was thought dead) is not.
func (q *Queue) running(ctx context.Context, jobID int64, attempt int) (bool, error) {
	var n int
	err := q.db.QueryRowContext(ctx, "SELECT count(*) FROM river_job WHERE id = $1 AND attempt = $2 AND state = 'running'", jobID, attempt).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("check attempt %d of job %d: %w", attempt, jobID, err)
	}
	return n == 1, nil
}

// fenceTrigger returns the statements that make the database ignore a
// stale attempt's end. River writes a job's end (completed, retryable,
// snoozed) when its state is running, whichever attempt runs, so a host
// that was thought dead and comes back would end the attempt another host
// now runs. Each attempt names itself in the metadata River merges at its
// end (fenceKey); an update that brings an attempt number other than the
// job's is skipped.
func (q *Queue) fenceTrigger() []string {
	if q.SQLite() {
		return []string{`CREATE TRIGGER IF NOT EXISTS baton_fence_job BEFORE UPDATE ON river_job FOR EACH ROW
WHEN json_extract(NEW.metadata, '$.` + fenceKey + `') IS NOT NULL
	AND json_extract(NEW.metadata, '$.` + fenceKey + `') IS NOT json_extract(OLD.metadata, '$.` + fenceKey + `')
	AND json_extract(NEW.metadata, '$.` + fenceKey + `') <> OLD.attempt
BEGIN SELECT RAISE(IGNORE); END`}
	}
	return []string{`CREATE OR REPLACE FUNCTION baton_fence_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.metadata ? '` + fenceKey + `'
		AND NEW.metadata->'` + fenceKey + `' IS DISTINCT FROM OLD.metadata->'` + fenceKey + `'
		AND (NEW.metadata->>'` + fenceKey + `')::int <> OLD.attempt THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END
$$`,
		`DROP TRIGGER IF EXISTS baton_fence_job ON river_job`,
		`CREATE TRIGGER baton_fence_job BEFORE UPDATE ON river_job FOR EACH ROW EXECUTE FUNCTION baton_fence_job()`}
}

// hasFence reports whether the database has the trigger of fenceTrigger.
func (q *Queue) hasFence(ctx context.Context) bool {
	query := "SELECT count(*) FROM pg_trigger WHERE tgname = 'baton_fence_job'"
	if q.SQLite() {
		query = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'baton_fence_job'"
	}
	var n int
	return q.db.QueryRowContext(ctx, query).Scan(&n) == nil && n > 0
}
