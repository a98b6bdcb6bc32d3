package share

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
)

// BenchmarkSyncOneMore is a sync that pushes one more decision over a log
// and a ref of 10,000, with real git against a bare remote.
func BenchmarkSyncOneMore(b *testing.B) {
	root := b.TempDir()
	env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com"}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	remote, clone := filepath.Join(root, "r.git"), filepath.Join(root, "a")
	git(root, "init", "-q", "--bare", "-b", "main", remote)
	git(root, "clone", "-q", remote, clone)
	git(clone, "commit", "-q", "--allow-empty", "-m", "first")
	git(clone, "push", "-q", "origin", "main")
	repo, err := gitrepo.Find(clone)
	if err != nil {
		b.Fatal(err)
	}
	d := state.For(repo)
	if _, err := d.Create(&repo); err != nil {
		b.Fatal(err)
	}
	f, err := recall.FilesFor(d, "")
	if err != nil {
		b.Fatal(err)
	}
	add := func(from, n int) {
		var ds []recall.Decision
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := from; i < from+n; i++ {
			at := base.Add(time.Duration(i) * time.Minute)
			ds = append(ds, recall.Decision{Date: at.Format(recall.DateLayout), TS: at, Slug: fmt.Sprintf("d-%d", i), Summary: fmt.Sprintf("The exporter writes step %d through one buffered writer", i)})
		}
		if _, err := recall.AppendDecisions(f, ds...); err != nil {
			b.Fatal(err)
		}
	}
	add(0, 10000)
	o := Options{State: d, Repo: repo, Config: &config.Config{}, Env: env, DataDir: filepath.Join(root, "data"), Now: time.Now(), Push: true}
	ctx := context.Background()
	if _, err := Sync(ctx, o); err != nil {
		b.Fatal(err)
	}
	i := 10000
	b.ReportAllocs()
	for b.Loop() {
		add(i, 1)
		i++
		res, err := Sync(ctx, o)
		if err != nil || len(res.Went) != 1 {
			b.Fatalf("went %d, %v; want 1", len(res.Went), err)
		}
	}
}
