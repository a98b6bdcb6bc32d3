// Command hooklat measures whole-process latency of a hook call as Claude
// Code sees it (fork, exec, read stdin, append, exit): baton-hook and
// `baton hook` against a bare `cat >/dev/null` exec measured in the same run,
// interleaved so that all see the same machine load. It prints median and p95
// of each and their ratio to cat.
//
//	go build -o /tmp/bin/ ./cmd/...
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -baton /tmp/bin/baton -n 500
//	go run ./bench/hooklat -hook /tmp/bin/baton-hook -event SessionStart -journal /tmp/bench/auto-1g.jsonl
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hooklat:", err)
		os.Exit(1)
	}
}

func run() error {
	baton := flag.String("baton", "", "baton binary, to measure `baton hook` too")
	hookBin := flag.String("hook", "baton-hook", "baton-hook binary")
	n := flag.Int("n", 300, "runs of each command")
	event := flag.String("event", "PostToolUse", "hook event to send")
	journalFile := flag.String("journal", "", "journal to copy in as auto.jsonl first (e.g. a generated 1 GB one)")
	flag.Parse()

	repo, err := os.MkdirTemp("", "hooklat-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(repo)
	if out, err := exec.Command("git", "init", "-q", "-b", "main", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	stateDir := filepath.Join(repo, ".claude", "session-state")
	if *journalFile != "" {
		if err := os.MkdirAll(stateDir, 0o700); err != nil {
			return err
		}
		// A hard link or a copy. The hook only appends; the run's records
		// are cut off again at the end, so that the next run reads the
		// generated records and not this run's.
		dst := filepath.Join(stateDir, "auto.jsonl")
		fi, err := os.Stat(*journalFile)
		if err != nil {
			return err
		}
		if err := os.Link(*journalFile, dst); err != nil {
			if err := copyFile(*journalFile, dst); err != nil {
				return err
			}
		}
		defer os.Truncate(dst, fi.Size())
		// Keep the big file from rotating away during the run.
		if err := os.WriteFile(filepath.Join(repo, ".baton.yaml"), []byte("journal:\n  max_size: 64GiB\n"), 0o644); err != nil {
			return err
		}
	}
	payload := fmt.Sprintf(`{"session_id":"bench-session","transcript_path":"/nonexistent.jsonl","cwd":%q,"hook_event_name":%q,"source":"startup","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_response":{"stdout":"ok  \tgithub.com/example/pkg\t0.123s","stderr":"","interrupted":false}}`, repo, *event)

	env := append(os.Environ(), "HOME="+repo, "XDG_CONFIG_HOME="+filepath.Join(repo, ".config"))
	runOnce := func(name string, args ...string) (time.Duration, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = env
		cmd.Stdin = bytes.NewReader([]byte(payload))
		cmd.Stdout = io.Discard
		start := time.Now()
		err := cmd.Run()
		return time.Since(start), err
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		return err
	}
	cmds := [][]string{{cat}, {*hookBin}}
	names := []string{"cat >/dev/null", "baton-hook"}
	if *baton != "" {
		cmds = append(cmds, []string{*baton, "hook"})
		names = append(names, "baton hook")
	}
	// Warm up all (page cache, binary loading).
	for range 10 {
		for _, c := range cmds {
			runOnce(c[0], c[1:]...)
		}
	}
	times := make([][]time.Duration, len(cmds))
	for range *n {
		for i, c := range cmds {
			d, err := runOnce(c[0], c[1:]...)
			if err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
			times[i] = append(times[i], d)
		}
	}
	fmt.Printf("event %s, %d runs each, interleaved\n", *event, *n)
	catMedian, _ := stats(times[0])
	for i, name := range names {
		m, p := stats(times[i])
		fmt.Printf("%-16s median %8.3f ms   p95 %8.3f ms   ratio to cat %.2fx\n", name, ms(m), ms(p), float64(m)/float64(catMedian))
	}
	if fi, err := os.Stat(filepath.Join(stateDir, "baton.log")); err == nil && fi.Size() > 0 {
		b, _ := os.ReadFile(filepath.Join(stateDir, "baton.log"))
		return fmt.Errorf("the hook logged problems:\n%s", b)
	}
	return nil
}

func stats(d []time.Duration) (median, p95 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*95/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
