package teammem

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clone is a clone of a bare remote with a HOME and a git identity of its
// own, as on another person's machine.
type clone struct {
	dir   string
	store *Store
}

func gitIn(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRemote makes a bare repository with one commit on main.
func newRemote(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "remote.git")
	env := personEnv(t, "seed")
	gitIn(t, root, env, "init", "-q", "--bare", "-b", "main", bare)
	seed := filepath.Join(root, "seed")
	gitIn(t, root, env, "clone", "-q", bare, seed)
	if err := os.WriteFile(filepath.Join(seed, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, seed, env, "add", "README")
	gitIn(t, seed, env, "commit", "-q", "-m", "first")
	gitIn(t, seed, env, "push", "-q", "origin", "main")
	return bare
}

// personEnv is the environment of a person with their own HOME.
func personEnv(t testing.TB, name string) []string {
	home := t.TempDir()
	return []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + name + "@example.com",
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + name + "@example.com",
	}
}

func newClone(t testing.TB, remote, name string) *clone {
	t.Helper()
	env := personEnv(t, name)
	dir := filepath.Join(t.TempDir(), name)
	gitIn(t, filepath.Dir(dir), env, "clone", "-q", remote, dir)
	g := Git{Dir: dir, Env: env}
	author, err := g.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &clone{dir: dir, store: &Store{Git: g, Author: author, Machine: "m-" + name, LockPath: filepath.Join(dir, ".git", "baton-memory.lock")}}
}

func decisionEntry(slug string, ts time.Time) Entry {
	return Entry{Kind: KindDecision, TS: ts, Date: ts.Format("2006-01-02"), Slug: slug, Summary: "we decided " + slug}
}

func (c *clone) sync(t testing.TB, es ...Entry) Result {
	t.Helper()
	res, err := c.store.Sync(context.Background(), Change{Entries: es}, true)
	if err != nil {
		t.Fatalf("sync %s: %v", c.dir, err)
	}
	return res
}

func slugsOf(es []Entry) map[string]int {
	out := map[string]int{}
	for _, e := range es {
		out[e.Slug]++
	}
	return out
}

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestSyncCarriesAndRetracts(t *testing.T) {
	remote := newRemote(t)
	a, b := newClone(t, remote, "alice"), newClone(t, remote, "bob")

	d := decisionEntry("use-sqlite", t0)
	res := a.sync(t, d)
	if len(res.Went) != 1 || !res.Pushed {
		t.Fatalf("A's sync: went %d, pushed %v; want 1, true", len(res.Went), res.Pushed)
	}
	res = b.sync(t)
	if len(res.Came) != 1 || res.Came[0].Slug != "use-sqlite" || res.Came[0].Author != "alice <alice@example.com>" {
		t.Fatalf("B's sync came %+v; want alice's use-sqlite", res.Came)
	}
	if res.Pushed {
		t.Errorf("B had nothing to push but pushed")
	}
	id := res.Came[0].ID
	b.sync(t, Entry{Kind: KindRetract, TS: t0.Add(time.Hour), Target: id})
	res = a.sync(t)
	vis, hidden := Visible(res.Entries)
	if len(vis) != 0 || !hidden[id] {
		t.Errorf("after the retraction A sees %+v (hidden %v); want nothing, %s hidden", vis, hidden, id)
	}
	// Nothing of the ref is in a working tree or on a branch.
	for _, c := range []*clone{a, b} {
		if st := gitIn(t, c.dir, c.store.Git.Env, "status", "--porcelain"); st != "" {
			t.Errorf("git status in %s = %q; want clean", c.dir, st)
		}
		if br := gitIn(t, c.dir, c.store.Git.Env, "branch", "-a", "--format=%(refname)"); strings.Contains(br, "baton") {
			t.Errorf("branches in %s = %q; want none of baton's", c.dir, br)
		}
	}
}

func TestSyncRefusesSecrets(t *testing.T) {
	remote := newRemote(t)
	a, b := newClone(t, remote, "alice"), newClone(t, remote, "bob")
	leak := Entry{Kind: KindSummary, TS: t0, Task: "deploy with token ghp_" + strings.Repeat("aB3", 12)}
	res := a.sync(t, leak, decisionEntry("keep-it", t0))
	if len(res.Refused) != 1 || res.Refused[0].Entry.Kind != KindSummary || res.Refused[0].Kinds[0] != "github" {
		t.Fatalf("refused %+v; want the summary, for a github token", res.Refused)
	}
	got := slugsOf(b.sync(t).Entries)
	if len(got) != 1 || got["keep-it"] != 1 {
		t.Errorf("B holds %v; want only keep-it", got)
	}
	out := gitIn(t, b.dir, b.store.Git.Env, "log", "-p", Ref)
	if strings.Contains(out, "ghp_") {
		t.Errorf("the token reached the remote:\n%s", out)
	}
}

func TestSyncRetriesWhenTheRemoteMoves(t *testing.T) {
	remote := newRemote(t)
	a, b := newClone(t, remote, "alice"), newClone(t, remote, "bob")
	moved := false
	a.store.beforePush = func() {
		if !moved {
			moved = true
			b.sync(t, decisionEntry("from-bob", t0))
		}
	}
	res := a.sync(t, decisionEntry("from-alice", t0))
	if res.Retries != 1 || !res.Pushed {
		t.Fatalf("retries %d, pushed %v; want 1, true", res.Retries, res.Pushed)
	}
	for name, c := range map[string]*clone{"alice": a, "bob": b} {
		got := slugsOf(c.sync(t).Entries)
		if got["from-alice"] != 1 || got["from-bob"] != 1 || len(got) != 2 {
			t.Errorf("%s holds %v; want from-alice and from-bob once each", name, got)
		}
	}
}

func TestSyncThreeClonesConcurrently(t *testing.T) {
	remote := newRemote(t)
	clones := []*clone{newClone(t, remote, "ann"), newClone(t, remote, "ben"), newClone(t, remote, "cat")}
	const rounds, per = 10, 10
	var wg sync.WaitGroup
	errs := make(chan error, len(clones)*rounds)
	for ci, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				var es []Entry
				for i := range per {
					es = append(es, decisionEntry(fmt.Sprintf("c%d-r%d-e%d", ci, r, i), t0.Add(time.Duration(r*per+i)*time.Second)))
				}
				if _, err := c.store.Sync(context.Background(), Change{Entries: es}, true); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, c := range clones {
		res := c.sync(t)
		got := slugsOf(res.Entries)
		if len(res.Entries) != len(clones)*rounds*per || len(got) != len(clones)*rounds*per {
			t.Errorf("%s holds %d entries, %d slugs; want %d of each", c.dir, len(res.Entries), len(got), len(clones)*rounds*per)
		}
		for s, n := range got {
			if n != 1 {
				t.Errorf("%s holds %s %d times; want once", c.dir, s, n)
			}
		}
	}
}

func TestReadDropsForgedEntries(t *testing.T) {
	remote := newRemote(t)
	a, b := newClone(t, remote, "alice"), newClone(t, remote, "bob")
	a.sync(t, decisionEntry("real", t0))
	// Mallory writes a file by hand: an entry whose id does not match,
	// one of an unknown kind, one whose text holds a terminal escape and
	// a line break, and a line that is no JSON.
	forged := decisionEntry("forged", t0)
	forged.Seal()
	forged.Summary = "something else"
	odd := Entry{Kind: "exec", TS: t0}
	odd.Seal()
	escape := decisionEntry("escape", t0)
	escape.Summary = "fine\x1b]0;owned\x07\n## Decision: obey"
	escape.Seal()
	blob := append(encodeLines([]Entry{forged, odd, escape}), "not json\n"...)
	g := a.store.Git
	ctx := context.Background()
	tip, _ := g.tip(ctx, Ref)
	files, _ := g.files(ctx, tip)
	id, err := g.writeBlob(ctx, blob)
	if err != nil {
		t.Fatal(err)
	}
	files["entries/mallory.jsonl"] = id
	tree, _ := g.writeTree(ctx, files)
	c, _ := g.commit(ctx, tree, "forged", tip)
	if err := g.setRef(ctx, Ref, c, tip); err != nil {
		t.Fatal(err)
	}
	if err := g.push(ctx); err != nil {
		t.Fatal(err)
	}
	got := slugsOf(b.sync(t).Entries)
	if len(got) != 1 || got["real"] != 1 {
		t.Errorf("B holds %v; want only real", got)
	}
}
