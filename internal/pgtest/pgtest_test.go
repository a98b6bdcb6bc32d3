package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestDBIsOwnAndEmpty(t *testing.T) {
	ctx := context.Background()
	a, b := DB(t), DB(t)
	if a == b {
		t.Fatalf("two tests got the same database %s", a)
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("new database has %d tables; want 0", n)
	}
}

func TestClusterRestart(t *testing.T) {
	ctx := context.Background()
	c := NewCluster(t)
	url := c.DB(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("a connection made before the restart still works; want it cut")
	}
	conn.Close(ctx)
	conn, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	defer conn.Close(ctx)
	var x int
	if err := conn.QueryRow(ctx, "SELECT x FROM kept").Scan(&x); err != nil || x != 7 {
		t.Fatalf("after restart: x=%d err=%v; want 7", x, err)
	}
}
