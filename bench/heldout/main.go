// Command heldout runs the held-out ranking corpus (internal/index/testdata/heldout)
// through `baton search` and, when given its binary, deja-vu's `deja search`, each
// as a person runs it: the whole process, over the same Claude Code transcripts
// under a HOME of its own. For every query it prints where each tool ranks the
// deciding session among the sessions it returns, then each tool's count of
// deciding sessions ranked first and in the top three.
//
//	go run ./bench/heldout -baton ./baton -deja ./deja
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/baton-cli/baton/internal/index"
)

type query struct{ text, session, lang string }

// tool runs one query and returns the session ids of its answer, best first,
// and a word on how it matched.
type tool struct {
	name string
	run  func(q string) (sessions []string, how string, err error)
}

func main() {
	baton := flag.String("baton", "", "baton binary (empty: not run)")
	deja := flag.String("deja", "", "deja-vu's deja binary (empty: not run)")
	corpus := flag.String("corpus", "internal/index/testdata/heldout", "the held-out corpus")
	work := flag.String("work", "", "folder for the HOME and the repository (default: a new temporary one)")
	flag.Parse()
	if err := run(*baton, *deja, *corpus, *work); err != nil {
		fmt.Fprintln(os.Stderr, "heldout:", err)
		os.Exit(1)
	}
}

func run(baton, deja, corpus, work string) error {
	qs, err := readQueries(filepath.Join(corpus, "queries.tsv"))
	if err != nil {
		return err
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "heldout-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	home := filepath.Join(work, "home")
	repo := filepath.Join(work, "ledgerd")
	projects := index.TranscriptDirs(home, []string{repo})[0]
	if err := os.MkdirAll(projects, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(corpus, "transcripts", "*.jsonl"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no transcripts in %s (%v)", corpus, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(projects, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	env := isolated(home)

	var tools []tool
	if baton != "" {
		tools = append(tools, tool{"baton", func(q string) ([]string, string, error) { return batonSearch(baton, repo, env, q) }})
	}
	if deja != "" {
		if out, err := command(deja, repo, env, "index").CombinedOutput(); err != nil {
			return fmt.Errorf("deja index: %v\n%s", err, out)
		}
		tools = append(tools, tool{"deja", func(q string) ([]string, string, error) { return dejaSearch(deja, repo, env, q) }})
	}
	if len(tools) == 0 {
		return fmt.Errorf("give -baton, -deja or both")
	}

	fmt.Printf("%d queries, %d sessions; rank = place of the deciding session among the sessions returned\n\n", len(qs), len(files))
	fmt.Printf("%-4s %-34s", "lang", "query")
	for _, t := range tools {
		fmt.Printf("  %-22s", t.name)
	}
	fmt.Println()
	first := make([]int, len(tools))
	top3 := make([]int, len(tools))
	for _, q := range qs {
		fmt.Printf("%-4s %-34s", q.lang, q.text)
		for i, t := range tools {
			sessions, how, err := t.run(q.text)
			if err != nil {
				return fmt.Errorf("%s %q: %w", t.name, q.text, err)
			}
			r := rank(sessions, q.session)
			if r == 1 {
				first[i]++
			}
			if r >= 1 && r <= 3 {
				top3[i]++
			}
			shown := "-"
			if r > 0 {
				shown = fmt.Sprint(r)
			}
			fmt.Printf("  %-22s", shown+" "+how)
		}
		fmt.Println()
	}
	fmt.Println()
	for i, t := range tools {
		fmt.Printf("%s: deciding session first %d/%d, in the top 3 %d/%d\n", t.name, first[i], len(qs), top3[i], len(qs))
	}
	return nil
}

// rank is where session comes among the distinct sessions, 1 first; 0 when
// it is not there.
func rank(sessions []string, session string) int {
	seen := map[string]bool{}
	for _, s := range sessions {
		seen[s] = true
		if s == session {
			return len(seen)
		}
	}
	return 0
}

func batonSearch(bin, repo string, env []string, q string) ([]string, string, error) {
	out, err := command(bin, repo, env, "search", "--json", "--limit", "20", q).Output()
	if err != nil {
		return nil, "", commandError(err)
	}
	var res struct {
		Relaxed bool `json:"relaxed"`
		Hits    []struct {
			Session string `json:"session"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, "", err
	}
	var ss []string
	for _, h := range res.Hits {
		ss = append(ss, h.Session)
	}
	how := "(all words)"
	if res.Relaxed {
		how = "(relaxed)"
	}
	return ss, how, nil
}

func dejaSearch(bin, repo string, env []string, q string) ([]string, string, error) {
	out, err := command(bin, repo, env, "search", "--json", "--no-embed", "--limit", "15", q).Output()
	if err != nil {
		return nil, "", commandError(err)
	}
	var res struct {
		Tier string `json:"tier"`
		Hits []struct {
			Session struct {
				ID string `json:"id"`
			} `json:"session"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, "", err
	}
	var ss []string
	for _, h := range res.Hits {
		ss = append(ss, h.Session.ID)
	}
	return ss, "(" + res.Tier + ")", nil
}

func command(bin, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	return cmd
}

func commandError(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}

// isolated is this process's environment with HOME and the XDG folders under
// home, and none of baton's or deja's own settings, so that neither tool reads
// or writes the person's files.
func isolated(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "BATON_") || strings.HasPrefix(k, "DEJA_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
}

// readQueries reads queries.tsv: a header line, then query, deciding
// session, language and note, tab-separated.
func readQueries(path string) ([]query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var qs []query
	for n, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 fields, got %d", path, n+2, len(f))
		}
		qs = append(qs, query{text: f[0], session: f[1], lang: f[2]})
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return qs, nil
}
