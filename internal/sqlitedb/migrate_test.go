package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"

	_ "modernc.org/sqlite"
)

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	one := fstest.MapFS{"m/001.sql": {Data: []byte("CREATE TABLE a (x);")}}
	two := fstest.MapFS{
		"m/001.sql": {Data: []byte("CREATE TABLE a (x);")},
		"m/002.sql": {Data: []byte("INSERT INTO a VALUES (1);")},
	}
	broken := fstest.MapFS{
		"m/001.sql": {Data: []byte("CREATE TABLE a (x);")},
		"m/002.sql": {Data: []byte("INSERT INTO a VALUES (1);")},
		"m/003.sql": {Data: []byte("INSERT INTO a VALUES (2); NOT SQL;")},
	}
	rows := func() (n int) {
		t.Helper()
		if err := db.QueryRow("SELECT count(*) FROM a").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	version := func() (v int) {
		t.Helper()
		if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	if err := Migrate(ctx, db, one, "m/*.sql"); err != nil || version() != 1 {
		t.Fatalf("first migration: %v, version %d; want version 1", err, version())
	}
	// Twice is once: only the new script runs.
	for range 2 {
		if err := Migrate(ctx, db, two, "m/*.sql"); err != nil {
			t.Fatal(err)
		}
	}
	if rows() != 1 || version() != 2 {
		t.Errorf("after the second migration: %d rows, version %d; want 1 row, version 2", rows(), version())
	}
	// A failing script leaves the database as it was.
	if err := Migrate(ctx, db, broken, "m/*.sql"); err == nil {
		t.Errorf("a broken script migrated")
	}
	if rows() != 1 || version() != 2 {
		t.Errorf("after a failed migration: %d rows, version %d; want 1 row, version 2", rows(), version())
	}
	// A database from a newer baton is refused.
	var newer *NewerSchemaError
	if err := Migrate(ctx, db, one, "m/*.sql"); !errors.As(err, &newer) || newer.Version != 2 || newer.Known != 1 {
		t.Errorf("older scripts: got %v; want NewerSchemaError{2, 1}", err)
	}
}
