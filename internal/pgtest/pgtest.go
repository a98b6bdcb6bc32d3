// Package pgtest gives tests a real PostgreSQL database: each test its own
// database on the throwaway cluster that ./scripts/test starts (its URL in
// BATON_TEST_PG_URL), dropped when the test ends, or a private cluster of
// its own for tests that stop or restart the server. Without a cluster a
// test is skipped, except in CI (CI=true), where that is a failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URLEnv is the variable that holds the shared cluster's URL.
const URLEnv = "BATON_TEST_PG_URL"

// missing skips the test, or fails it in CI, when PostgreSQL is not there.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL is required in CI: %s (run the tests with ./scripts/test)", why)
	}
	t.Skipf("no PostgreSQL: %s (./scripts/test starts one)", why)
}

// DB creates an empty database on the shared cluster and returns its URL.
// The database is dropped when the test ends.
func DB(t testing.TB) string {
	t.Helper()
	base := os.Getenv(URLEnv)
	if base == "" {
		missing(t, URLEnv+" is not set")
	}
	return newDB(t, base)
}

func newDB(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", URLEnv, err)
	}
	u.Path = "/" + name
	return u.String()
}

// Cluster is a private PostgreSQL cluster, started by scripts/pg-cluster.
type Cluster struct {
	// URL is the cluster's maintenance database.
	URL string
	dir string
}

// NewCluster starts a private cluster, removed when the test ends. Use it
// only for tests that stop or restart the server; DB is much cheaper.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	if os.Getenv(URLEnv) == "" {
		missing(t, URLEnv+" is not set")
	}
	dir, err := os.MkdirTemp("", "baton-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{dir: dir}
	out, err := c.script("start")
	t.Cleanup(func() {
		if _, err := c.script("stop"); err != nil {
			t.Logf("stop cluster: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	c.URL = strings.TrimSpace(out)
	return c
}

// DB creates an empty database on the cluster and returns its URL.
func (c *Cluster) DB(t testing.TB) string {
	t.Helper()
	return newDB(t, c.URL)
}

// Restart stops the server (fast: connections are cut) and starts it again
// on the same port.
func (c *Cluster) Restart() error {
	_, err := c.script("restart")
	return err
}

func (c *Cluster) script(cmd string) (string, error) {
	out, err := exec.Command(script(), cmd, c.dir).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return "", &scriptError{cmd: cmd, err: err, stderr: string(ee.Stderr)}
	}
	return string(out), err
}

type scriptError struct {
	cmd, stderr string
	err         error
}

func (e *scriptError) Error() string {
	return "pg-cluster " + e.cmd + ": " + e.err.Error() + ": " + strings.TrimSpace(e.stderr)
}

// script is the path of scripts/pg-cluster in this source tree.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pg-cluster")
}
