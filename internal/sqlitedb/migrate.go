// Package sqlitedb holds what baton's SQLite databases (the search index,
// the local tracker) share: applying their embedded schema migrations.
package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
)

// NewerSchemaError reports a database migrated by a newer baton: it has more
// migrations applied than this one knows.
type NewerSchemaError struct {
	Version, Known int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("schema version %d is newer than this baton knows (%d)", e.Version, e.Known)
}

// Migrate applies, in one transaction, the migrations of scripts (files
// matching pattern, applied in name order) that db has not seen. PRAGMA
// user_version counts the ones applied.
func Migrate(ctx context.Context, db *sql.DB, scripts fs.FS, pattern string) error {
	names, err := fs.Glob(scripts, pattern)
	if err != nil {
		return err
	}
	slices.Sort(names)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if version > len(names) {
		return &NewerSchemaError{Version: version, Known: len(names)}
	}
	if version == len(names) {
		return nil
	}
	for _, name := range names[version:] {
		script, err := fs.ReadFile(scripts, name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(script)); err != nil {
			return fmt.Errorf("migrate %s: %w", path.Base(name), err)
		}
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(len(names))); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return tx.Commit()
}
