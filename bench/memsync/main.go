// Command memsync measures `baton sync` of the shared memory, whole
// process, with real git: a bare remote and two clones with their own
// HOMEs. A's log holds N approved decisions; A's first sync pushes them, B's
// first sync fetches them, B's second finds nothing new, and A's sync of
// one more decision pushes one. Wall time and baton's peak RSS, median of
// -runs fresh set-ups.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/baton-cli/baton/internal/recall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "memsync:", err)
		os.Exit(1)
	}
}

type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

func run() error {
	baton := flag.String("baton", "baton", "baton binary")
	n := flag.Int("entries", 10000, "approved decisions in A's log")
	runs := flag.Int("runs", 5, "fresh set-ups to take the median of")
	flag.Parse()

	steps := []string{"A pushes N", "B fetches N", "B, nothing new", "A pushes 1 more"}
	got := make([][]sample, len(steps))
	for range *runs {
		s, err := once(*baton, *n)
		if err != nil {
			return err
		}
		for i := range steps {
			got[i] = append(got[i], s[i])
		}
	}
	fmt.Printf("baton sync, %d entries, median of %d runs (wall, baton's peak RSS)\n", *n, *runs)
	for i, name := range steps {
		w := median(got[i], func(s sample) int64 { return int64(s.wall) })
		r := median(got[i], func(s sample) int64 { return s.rss })
		fmt.Printf("%-18s %9.1f ms %8.1f MiB\n", name, float64(w)/1e6, float64(r)/1024)
	}
	return nil
}

func median(s []sample, f func(sample) int64) int64 {
	v := make([]int64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// once sets up a remote and two clones and measures the four syncs.
func once(baton string, n int) ([]sample, error) {
	root, err := os.MkdirTemp("", "memsync-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	remote := filepath.Join(root, "remote.git")
	envOf := func(name string) []string {
		home := filepath.Join(root, "home-"+name)
		os.MkdirAll(home, 0o755)
		return []string{
			"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C.UTF-8",
			"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + name + "@example.com",
			"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + name + "@example.com",
		}
	}
	git := func(dir string, env []string, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	seed := envOf("seed")
	if err := git(root, seed, "init", "-q", "--bare", "-b", "main", remote); err != nil {
		return nil, err
	}
	if err := git(root, seed, "clone", "-q", remote, "seed"); err != nil {
		return nil, err
	}
	if err := git(filepath.Join(root, "seed"), seed, "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		return nil, err
	}
	if err := git(filepath.Join(root, "seed"), seed, "push", "-q", "origin", "main"); err != nil {
		return nil, err
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	ea, eb := envOf("alice"), envOf("bob")
	for _, c := range []struct {
		dir string
		env []string
	}{{a, ea}, {b, eb}} {
		if err := git(root, c.env, "clone", "-q", remote, c.dir); err != nil {
			return nil, err
		}
	}
	log := filepath.Join(a, ".claude", "session-state", "context", "decisions.jsonl")
	if err := os.MkdirAll(filepath.Dir(log), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(log, decisions(0, n), 0o600); err != nil {
		return nil, err
	}
	sync := func(dir string, env []string, want string) (sample, error) {
		cmd := exec.Command(baton, "sync")
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			return sample{}, fmt.Errorf("baton sync in %s: %v: %s", dir, err, out.String())
		}
		if !strings.Contains(out.String(), want) {
			return sample{}, fmt.Errorf("baton sync in %s said %q; want %q", dir, out.String(), want)
		}
		return sample{wall, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss}, nil
	}
	var out []sample
	for _, st := range []struct {
		dir  string
		env  []string
		want string
		more bool
	}{
		{a, ea, fmt.Sprintf("0 came, %d went", n), false},
		{b, eb, fmt.Sprintf("%d came", n), false},
		{b, eb, "0 came, 0 went", false},
		{a, ea, "0 came, 1 went", true},
	} {
		if st.more {
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return nil, err
			}
			f.Write(decisions(n, 1))
			f.Close()
		}
		s, err := sync(st.dir, st.env, st.want)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// decisions are the log lines of n decisions from the i-th on.
func decisions(from, n int) []byte {
	var b bytes.Buffer
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		at := base.Add(time.Duration(i) * time.Minute)
		line, _ := json.Marshal(recall.Decision{
			Date: at.Format(recall.DateLayout), TS: at, Slug: fmt.Sprintf("decision-%d", i),
			Summary: fmt.Sprintf("The exporter writes step %d through one buffered writer, flushed at the end", i),
			Source:  "issue", Issue: 100 + i%500, Route: "default",
		})
		b.Write(append(line, '\n'))
	}
	return b.Bytes()
}
