// Command agentusage checks `baton usage --agent codex` against ccusage
// 20.0.24's `ccusage codex daily` on generated Codex CLI histories of the
// shape the 0.169.0 CLI writes (session_meta, turn_context with a model
// switch, token_count events with last_token_usage, with only
// total_token_usage, with no info, repeated; item_completed messages and
// commands; archived_sessions): the totals per day — input not cached,
// cached input, output with its reasoning tokens — must be equal. It then
// times both tools on a 200 MB history and prints wall time and peak RSS.
//
//	go run ./bench/agentusage [-dir /tmp/baton-bench] [-ccusage <binary>] [-runs 3]
//
// ccusage is the native binary bench/usage installs (<dir>/ccusage/…); both
// tools run with HOME and CODEX_HOME pointed at the corpus and TZ=UTC,
// under /usr/bin/time.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/agentlog/codextest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/agentusage:", err)
		os.Exit(1)
	}
}

type day struct {
	Input, Cached, Output, Reasoning int64
}

func run() error {
	dir := flag.String("dir", envOr("BATON_BENCH_DIR", filepath.Join(os.TempDir(), "baton-bench")), "cache folder of the corpora and the baton binary")
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	cc := flag.String("ccusage", "", "the ccusage 20.0.24 native binary (default: the one bench/usage installs under -dir)")
	runs := flag.Int("runs", 3, "timed runs of each tool on the large history")
	flag.Parse()
	if *cc == "" {
		*cc = filepath.Join(*dir, "ccusage", "node_modules", "@ccusage", "ccusage-"+runtime.GOOS+"-"+arch, "bin", "ccusage")
	}
	if _, err := os.Stat(*cc); err != nil {
		return fmt.Errorf("ccusage: %w (run go run ./bench/usage once, or pass -ccusage)", err)
	}
	baton := filepath.Join(*dir, "agentusage-baton")
	if out, err := exec.Command("go", "build", "-o", baton, "./cmd/baton").CombinedOutput(); err != nil {
		return fmt.Errorf("build baton: %v\n%s", err, out)
	}
	small := filepath.Join(*dir, "agentusage-small")
	if err := generate(small, 40, 3<<20, 1); err != nil {
		return err
	}
	if err := compare("varied corpus (40 sessions)", small, baton, *cc); err != nil {
		return err
	}
	large := filepath.Join(*dir, "agentusage-large")
	if err := generate(large, 1, 200<<20, 2); err != nil {
		return err
	}
	if err := compare("one 200 MB history", large, baton, *cc); err != nil {
		return err
	}
	fmt.Println("\nwhole process on the 200 MB history (medians of", *runs, "runs; peak RSS the largest):")
	for _, tool := range []struct {
		name string
		args []string
	}{
		{"ccusage 20.0.24", []string{*cc, "codex", "daily", "--json", "--offline"}},
		{"baton", []string{baton, "usage", "--agent", "codex", "--all", "--json"}},
	} {
		var walls []float64
		var rss int64
		for range *runs {
			w, r, _, err := timed(large, tool.args...)
			if err != nil {
				return err
			}
			walls = append(walls, w)
			rss = max(rss, r)
		}
		slices.Sort(walls)
		fmt.Printf("  %-16s wall %.2f s   peak RSS %d MiB\n", tool.name, walls[len(walls)/2], rss>>10)
	}
	return nil
}

// compare runs both tools on the corpus and checks every day's totals.
func compare(name, home, baton, cc string) error {
	_, _, ccOut, err := timed(home, cc, "codex", "daily", "--json", "--offline")
	if err != nil {
		return err
	}
	_, _, btOut, err := timed(home, baton, "usage", "--agent", "codex", "--all", "--json")
	if err != nil {
		return err
	}
	var ccRep struct {
		Daily []struct {
			Date                                                              string
			InputTokens, CacheReadTokens, OutputTokens, ReasoningOutputTokens int64
		}
	}
	if err := json.Unmarshal(ccOut, &ccRep); err != nil {
		return fmt.Errorf("ccusage output: %v\n%s", err, ccOut)
	}
	var btRep struct {
		Rows []struct {
			Key                                        string
			InputTokens, CacheReadTokens, OutputTokens int64 `json:"-"`
			In                                         int64 `json:"input_tokens"`
			Read                                       int64 `json:"cache_read_tokens"`
			Out                                        int64 `json:"output_tokens"`
		}
		Responses int
	}
	if err := json.Unmarshal(btOut, &btRep); err != nil {
		return fmt.Errorf("baton output: %v\n%s", err, btOut)
	}
	fmt.Printf("%s: %d days\n", name, len(ccRep.Daily))
	bt := map[string][3]int64{}
	for _, r := range btRep.Rows {
		bt[r.Key] = [3]int64{r.In, r.Read, r.Out}
	}
	var diffs []string
	var tot [3]int64
	for _, d := range ccRep.Daily {
		key := ccDate(d.Date)
		want := [3]int64{d.InputTokens, d.CacheReadTokens, d.OutputTokens}
		for i := range tot {
			tot[i] += want[i]
		}
		if got := bt[key]; got != want {
			diffs = append(diffs, fmt.Sprintf("  %s: ccusage input/cached/output %v, baton %v", key, want, got))
		}
		delete(bt, key)
	}
	for k, v := range bt {
		diffs = append(diffs, fmt.Sprintf("  %s: only baton counts it: %v", k, v))
	}
	fmt.Printf("  totals: input %d, cached input %d, output %d (reasoning inside)\n", tot[0], tot[1], tot[2])
	if len(diffs) > 0 {
		return fmt.Errorf("%s: totals differ:\n%s", name, strings.Join(diffs, "\n"))
	}
	fmt.Println("  every day equal")
	return nil
}

// ccDate turns ccusage's date ("Sep 10, 2025" or "2025-09-10") into
// baton's key.
func ccDate(s string) string {
	for _, layout := range []string{time.DateOnly, "Jan 02, 2006", "Jan 2, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly)
		}
	}
	return s
}

// timed runs a tool with HOME and CODEX_HOME at home, under /usr/bin/time.
func timed(home string, args ...string) (wall float64, rssKiB int64, stdout []byte, err error) {
	tf, err := os.CreateTemp("", "agentusage-time-")
	if err != nil {
		return 0, 0, nil, err
	}
	tf.Close()
	defer os.Remove(tf.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%e %M", "-o", tf.Name()}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"), "TZ=UTC", "NO_COLOR=1")
	cmd.Dir = home
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	b, err := os.ReadFile(tf.Name())
	if err != nil {
		return 0, 0, nil, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, nil, errors.New("time wrote nothing")
	}
	wall, _ = strconv.ParseFloat(f[len(f)-2], 64)
	rssKiB, _ = strconv.ParseInt(f[len(f)-1], 10, 64)
	return wall, rssKiB, out, nil
}

// generate writes sessions Codex histories of about size bytes each under
// home/.codex (every fourth in archived_sessions), unless a stamp says
// they are there.
func generate(home string, sessions int, size int64, seed uint64) error {
	stamp := filepath.Join(home, ".gen")
	want := fmt.Sprintf("v1 %d %d %d", sessions, size, seed)
	if b, err := os.ReadFile(stamp); err == nil && string(b) == want {
		return nil
	}
	if err := os.RemoveAll(home); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Date(2025, 9, 10, 8, 0, 0, 0, time.UTC)
	for s := range sessions {
		start := t0.Add(time.Duration(s) * 7 * time.Hour)
		sub := filepath.Join("sessions", start.Format("2006/01/02"))
		if s%4 == 3 {
			sub = "archived_sessions"
		}
		path := filepath.Join(home, ".codex", sub, fmt.Sprintf("rollout-%s-%08d.jsonl", start.Format("2006-01-02T15-04-05"), s))
		if err := writeSession(path, start, size, r, s); err != nil {
			return err
		}
	}
	return os.WriteFile(stamp, []byte(want), 0o644)
}

func writeSession(path string, start time.Time, size int64, r *rand.Rand, s int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	ts := start
	line := func(typ string, payload any) {
		ts = ts.Add(time.Duration(500+r.IntN(4000)) * time.Millisecond)
		b := codextest.Line(ts, typ, payload)
		w.Write(b)
		w.WriteByte('\n')
		n += int64(len(b) + 1)
	}
	line("session_meta", map[string]any{"id": fmt.Sprintf("bench-%d", s), "timestamp": start.Format(time.RFC3339), "cwd": "/work/repo",
		"cli_version": "0.169.0", "source": "cli", "git": map[string]string{"branch": "main", "commit_hash": "0123abcd"}})
	models := []string{"gpt-5-codex", "gpt-5", "gpt-5.1-codex"}
	var total [4]int64
	usage := func(u [4]int64) map[string]int64 {
		return map[string]int64{"input_tokens": u[0], "cached_input_tokens": u[1], "output_tokens": u[2], "reasoning_output_tokens": u[3], "total_tokens": u[0] + u[2]}
	}
	out := strings.Repeat("ok: tests passed in the queue package; ", 40)
	for turn := 0; n < size; turn++ {
		if turn%7 == 0 {
			line("turn_context", map[string]any{"cwd": "/work/repo", "model": models[r.IntN(len(models))]})
		}
		line("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "UserMessage", "id": fmt.Sprint("u", turn),
			"content": []map[string]string{{"type": "text", "text": "run the queue tests again"}}}})
		line("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": fmt.Sprint("c", turn),
			"command": []string{"/bin/bash", "-lc", "go test ./queue/"}, "status": "completed", "exit_code": 0, "aggregated_output": out}})
		in := int64(2000 + r.IntN(50000))
		cached := in * int64(r.IntN(95)) / 100
		o := int64(10 + r.IntN(3000))
		reason := o * int64(r.IntN(60)) / 100
		last := [4]int64{in, cached, o, reason}
		for i := range total {
			total[i] += last[i]
		}
		switch turn % 10 {
		case 3: // only the running total
			line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": usage(total)}})
		case 5: // no info yet, then the usage
			line("event_msg", map[string]any{"type": "token_count", "info": nil})
			line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": usage(last), "total_token_usage": usage(total)}})
		default:
			line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": usage(last), "total_token_usage": usage(total)}})
		}
		line("event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "AgentMessage", "id": fmt.Sprint("m", turn),
			"content": []map[string]string{{"type": "Text", "text": "The queue tests pass."}}}})
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
