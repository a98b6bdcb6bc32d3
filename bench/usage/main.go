// Command usage checks `baton usage` against ccusage 20.0.24 on generated
// transcripts: the four token totals must be equal, and baton must be at
// least twice as fast, with a peak memory of at most 64 MiB on a 700 MB
// transcript. It prints both tools' wall time and peak RSS side by side.
//
// It then compares the cost per day, and per model within each day, on
// transcripts made to exercise prices (bench/gen -pricing: eight Claude
// models, 1-hour cache writes, fast mode, pauses of hours): without
// requests over 200,000 tokens of context every day must be within 0.5% of
// ccusage's offline figure; with them the differences are printed (ccusage
// bills only the tokens of a kind past 200,000 at the long-context rate,
// Anthropic the whole request).
//
//	go run ./bench/usage [-dir /tmp/baton-bench] [-runs 5] [-cost]
//
// It installs ccusage with npm into <dir>/ccusage (the package ships a native
// binary, run directly so that no Node process is measured), generates the
// corpora with bench/gen when missing or made by another version of it
// (3,000 files of 300 MiB in all, and one 700 MiB file), builds baton, and
// runs each tool with HOME and CLAUDE_CONFIG_DIR pointed at the corpus and
// TZ=UTC, timed by /usr/bin/time (Debian's `time` package), the two tools
// taking turns. The median wall and CPU (user + system) times and the largest
// peak RSS of the runs are reported; the budget is checked on wall time.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

const ccusageVersion = "20.0.24"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/usage:", err)
		os.Exit(1)
	}
}

type corpus struct {
	name string
	gen  []string // bench/gen arguments, -out excluded
	out  string   // -out, relative to the corpus's HOME
}

type tokens struct{ Input, Output, CacheCreation, CacheRead int64 }

type measure struct {
	wall []time.Duration
	cpu  []time.Duration // user + system
	rss  int64           // KiB, the largest of the runs
	tok  tokens
}

func run() error {
	dir := flag.String("dir", envOr("BATON_BENCH_DIR", filepath.Join(os.TempDir(), "baton-bench")), "cache folder for ccusage, the corpora and the baton binary")
	runs := flag.Int("runs", 5, "runs of each tool on each corpus, taking turns")
	costOnly := flag.Bool("cost", false, "only compare the costs, not the speed")
	flag.Parse()
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return errors.New("/usr/bin/time is missing: apt-get install time")
	}
	ccusage, err := installCcusage(filepath.Join(*dir, "ccusage"))
	if err != nil {
		return err
	}
	baton := filepath.Join(*dir, "baton")
	if out, err := exec.Command("go", "build", "-o", baton, "./cmd/baton").CombinedOutput(); err != nil {
		return fmt.Errorf("build baton: %v\n%s", err, out)
	}
	corpora := []corpus{
		{name: "3000 files, 300 MiB", gen: []string{"transcripts", "-files", "3000", "-size", "300MiB"}, out: ".claude/projects"},
		{name: "one file, 700 MiB", gen: []string{"transcript", "-size", "700MiB"}, out: ".claude/projects/-home-dev-project/session.jsonl"},
	}
	if *costOnly {
		corpora = nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	if len(corpora) > 0 {
		fmt.Fprintln(tw, "corpus\ttool\twall (median)\tCPU (median)\tpeak RSS\tinput\toutput\tcache create\tcache read\t")
	}
	var failures []string
	for i, c := range corpora {
		home := filepath.Join(*dir, "usage", fmt.Sprintf("corpus-%d", i))
		if err := generate(home, c); err != nil {
			return err
		}
		empty, err := os.MkdirTemp("", "bench-usage-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(empty)
		env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "TZ=UTC", "NO_COLOR=1")
		// The two tools take turns, so that both meet the same load on a
		// shared machine.
		cc, bt := &measure{}, &measure{}
		for i := range *runs {
			if err := measureRun(cc, i, env, empty, ccusageTotals, ccusage, "claude", "daily", "--json", "--offline"); err != nil {
				return fmt.Errorf("ccusage on %s: %w", c.name, err)
			}
			if err := measureRun(bt, i, env, empty, batonTotals, baton, "usage", "--all", "--json"); err != nil {
				return fmt.Errorf("baton on %s: %w", c.name, err)
			}
		}
		for _, m := range []struct {
			tool string
			m    *measure
		}{{"ccusage " + ccusageVersion, cc}, {"baton", bt}} {
			t := m.m.tok
			fmt.Fprintf(tw, "%s\t%s\t%.2fs\t%.2fs\t%.1f MiB\t%d\t%d\t%d\t%d\t\n", c.name, m.tool, median(m.m.wall).Seconds(),
				median(m.m.cpu).Seconds(), float64(m.m.rss)/1024, t.Input, t.Output, t.CacheCreation, t.CacheRead)
		}
		speedup := median(cc.wall).Seconds() / median(bt.wall).Seconds()
		cpuRatio := median(cc.cpu).Seconds() / median(bt.cpu).Seconds()
		fmt.Fprintf(tw, "%s\t\tbaton %.1f× faster\t%.1f× less CPU\t\t\t\t\t\t\n", c.name, speedup, cpuRatio)
		if cc.tok != bt.tok {
			failures = append(failures, fmt.Sprintf("%s: totals differ: ccusage %+v, baton %+v", c.name, cc.tok, bt.tok))
		}
		if speedup < 2 {
			failures = append(failures, fmt.Sprintf("%s: baton only %.2f× faster; want at least 2×", c.name, speedup))
		}
		if c.gen[0] == "transcript" && bt.rss > 64*1024 {
			failures = append(failures, fmt.Sprintf("%s: baton peak RSS %.1f MiB; want at most 64 MiB", c.name, float64(bt.rss)/1024))
		}
	}
	tw.Flush()
	if len(corpora) > 0 {
		fmt.Printf("GOMAXPROCS %d, %d runs each\n\n", runtime.GOMAXPROCS(0), *runs)
	}

	priced := []corpus{
		{name: "priced, no long context", gen: []string{"transcripts", "-pricing", "-long", "0", "-files", "300", "-size", "60MiB"}, out: ".claude/projects"},
		{name: "priced, 1 in 60 long", gen: []string{"transcripts", "-pricing", "-files", "300", "-size", "60MiB"}, out: ".claude/projects"},
	}
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "corpus\tdays\tmodel-days\tccusage total\tbaton total\tworst day\tworst model-day\t")
	for i, c := range priced {
		home := filepath.Join(*dir, "usage", fmt.Sprintf("priced-%d", i))
		if err := generate(home, c); err != nil {
			return err
		}
		cmp, err := compareCost(home, ccusage, baton)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t$%.2f\t$%.2f\t%s\t%s\t\n", c.name, cmp.days, cmp.modelDays, cmp.ccTotal, cmp.btTotal,
			cmp.worstDay, cmp.worstModel)
		if i == 0 {
			blocks, err := compareBlocks(home, ccusage, baton)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			defer fmt.Println(blocks.summary)
			failures = append(failures, blocks.problems...)
		}
		if i == 0 && cmp.worstDayRel > 0.005 {
			failures = append(failures, fmt.Sprintf("%s: a day's cost differs from ccusage's by %.3f%%; want at most 0.5%%", c.name, 100*cmp.worstDayRel))
		}
		failures = append(failures, cmp.problems...)
	}
	tw.Flush()
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "\n"))
	}
	fmt.Println("ok: equal totals, at least 2× faster, within 64 MiB; costs per day within 0.5%")
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// installCcusage installs the pinned ccusage into dir and returns its native
// binary.
func installCcusage(dir string) (string, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	bin := filepath.Join(dir, "node_modules", "@ccusage", "ccusage-"+runtime.GOOS+"-"+arch, "bin", "ccusage")
	if _, err := os.Stat(bin); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "ccusage@"+ccusageVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install ccusage@%s: %v\n%s", ccusageVersion, err, out)
		}
	}
	// The package's launcher makes the binary executable on first use;
	// it is run directly here.
	if err := os.Chmod(bin, 0o755); err != nil {
		return "", fmt.Errorf("ccusage native binary: %w", err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), ccusageVersion) {
		return "", fmt.Errorf("ccusage --version = %q, %v; want %s", out, err, ccusageVersion)
	}
	return bin, nil
}

// generate makes the corpus under home unless it is there, made by this
// version of bench/gen with the same arguments.
func generate(home string, c corpus) error {
	src, err := os.ReadFile(filepath.Join("bench", "gen", "main.go"))
	if err != nil {
		return fmt.Errorf("run from the repository's root: %w", err)
	}
	sum := sha256.Sum256(append(src, []byte(strings.Join(c.gen, " "))...))
	stamp := hex.EncodeToString(sum[:])
	stampFile := filepath.Join(home, ".gen")
	if b, err := os.ReadFile(stampFile); err == nil && string(b) == stamp {
		return nil
	}
	if err := os.RemoveAll(home); err != nil {
		return err
	}
	args := append([]string{"run", "./bench/gen"}, c.gen...)
	args = append(args, "-out", filepath.Join(home, c.out))
	fmt.Fprintf(os.Stderr, "generating %s…\n", c.name)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("generate %s: %v\n%s", c.name, err, out)
	}
	return os.WriteFile(stampFile, []byte(stamp), 0o644)
}

// measureRun runs a tool once under /usr/bin/time and adds the run to m.
func measureRun(m *measure, i int, env []string, dir string, totals func([]byte) (tokens, error), name string, args ...string) error {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "bench-usage %e %M %U %S", name}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v\n%s", err, tail(stderr.String()))
	}
	wall, cpu, rss, err := parseTime(stderr.String())
	if err != nil {
		return err
	}
	m.wall = append(m.wall, wall)
	m.cpu = append(m.cpu, cpu)
	m.rss = max(m.rss, rss)
	tok, err := totals(stdout.Bytes())
	if err != nil {
		return err
	}
	if i > 0 && tok != m.tok {
		return fmt.Errorf("totals changed between runs: %+v then %+v", m.tok, tok)
	}
	m.tok = tok
	return nil
}

func parseTime(stderr string) (wall, cpu time.Duration, rss int64, err error) {
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != "bench-usage" {
			continue
		}
		var secs [3]float64
		for i, s := range []string{f[1], f[3], f[4]} {
			if secs[i], err = strconv.ParseFloat(s, 64); err != nil {
				return 0, 0, 0, fmt.Errorf("timing %q: %w", line, err)
			}
		}
		if rss, err = strconv.ParseInt(f[2], 10, 64); err != nil {
			return 0, 0, 0, fmt.Errorf("timing %q: %w", line, err)
		}
		return seconds(secs[0]), seconds(secs[1] + secs[2]), rss, nil
	}
	return 0, 0, 0, fmt.Errorf("no timing in %q", tail(stderr))
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func ccusageTotals(out []byte) (tokens, error) {
	var r struct {
		Totals struct {
			Input         int64 `json:"inputTokens"`
			Output        int64 `json:"outputTokens"`
			CacheCreation int64 `json:"cacheCreationTokens"`
			CacheRead     int64 `json:"cacheReadTokens"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return tokens{}, fmt.Errorf("ccusage output: %w", err)
	}
	t := r.Totals
	return tokens{t.Input, t.Output, t.CacheCreation, t.CacheRead}, nil
}

func batonTotals(out []byte) (tokens, error) {
	var r struct {
		Total struct {
			Input         int64 `json:"input_tokens"`
			Output        int64 `json:"output_tokens"`
			CacheCreation int64 `json:"cache_creation_tokens"`
			CacheRead     int64 `json:"cache_read_tokens"`
		} `json:"total"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return tokens{}, fmt.Errorf("baton output: %w", err)
	}
	t := r.Total
	return tokens{t.Input, t.Output, t.CacheCreation, t.CacheRead}, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// costComparison is how baton's costs compare with ccusage's on a corpus.
type costComparison struct {
	days, modelDays      int
	ccTotal, btTotal     float64
	worstDayRel          float64
	worstDay, worstModel string
	// problems are days or models one tool has and the other does not.
	problems []string
}

// compareCost runs both tools once on the corpus under home and compares
// the cost of each day, and of each model both price within each day.
func compareCost(home, ccusage, baton string) (*costComparison, error) {
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "TZ=UTC", "NO_COLOR=1")
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, os.TempDir()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", name, err, tail(stderr.String()))
		}
		return out, nil
	}
	ccOut, err := run(ccusage, "claude", "daily", "--json", "--offline")
	if err != nil {
		return nil, err
	}
	btOut, err := run(baton, "usage", "--all", "--json")
	if err != nil {
		return nil, err
	}
	var cc struct {
		Daily []struct {
			Date      string  `json:"date"`
			TotalCost float64 `json:"totalCost"`
			Models    []struct {
				Name string  `json:"modelName"`
				Cost float64 `json:"cost"`
			} `json:"modelBreakdowns"`
		} `json:"daily"`
	}
	var bt struct {
		Rows []struct {
			Key    string  `json:"key"`
			Cost   float64 `json:"cost_usd"`
			Models []struct {
				Model string   `json:"model"`
				Cost  *float64 `json:"cost_usd"`
			} `json:"models"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(ccOut, &cc); err != nil {
		return nil, fmt.Errorf("ccusage output: %w", err)
	}
	if err := json.Unmarshal(btOut, &bt); err != nil {
		return nil, fmt.Errorf("baton output: %w", err)
	}
	c := &costComparison{worstDay: "-", worstModel: "-"}
	ccDays := map[string]int{}
	for i, d := range cc.Daily {
		ccDays[d.Date] = i
		c.ccTotal += d.TotalCost
	}
	var worstModelRel float64
	for _, r := range bt.Rows {
		c.btTotal += r.Cost
		i, ok := ccDays[r.Key]
		if !ok {
			c.problems = append(c.problems, fmt.Sprintf("day %s: baton has it, ccusage not", r.Key))
			continue
		}
		d := cc.Daily[i]
		delete(ccDays, r.Key)
		c.days++
		if rel := relDiff(r.Cost, d.TotalCost); rel >= c.worstDayRel {
			c.worstDayRel = rel
			c.worstDay = fmt.Sprintf("%s %.3f%% ($%.4f vs $%.4f)", r.Key, 100*rel, r.Cost, d.TotalCost)
		}
		ccModels := map[string]float64{}
		for _, m := range d.Models {
			ccModels[m.Name] = m.Cost
		}
		for _, m := range r.Models {
			want, ok := ccModels[m.Model]
			if !ok || m.Cost == nil {
				c.problems = append(c.problems, fmt.Sprintf("day %s model %s: priced by one tool only", r.Key, m.Model))
				continue
			}
			c.modelDays++
			if rel := relDiff(*m.Cost, want); rel >= worstModelRel {
				worstModelRel = rel
				c.worstModel = fmt.Sprintf("%s %s %.3f%%", r.Key, m.Model, 100*rel)
			}
		}
	}
	for day := range ccDays {
		c.problems = append(c.problems, fmt.Sprintf("day %s: ccusage has it, baton not", day))
	}
	return c, nil
}

func relDiff(got, want float64) float64 {
	if want == 0 {
		if got == 0 {
			return 0
		}
		return 1
	}
	return math.Abs(got-want) / want
}

// blockComparison is how baton's 5-hour blocks compare with ccusage's.
type blockComparison struct {
	summary  string
	problems []string
}

// compareBlocks runs both tools' blocks report on the corpus under home:
// every window must start and end at the same times, every gap start at
// the same time. A gap ends at the next response, and the two tools' blocks
// do not count the same responses: ccusage's blocks report counts a message
// written without a request id once, where its daily report (and baton)
// count each of its lines; so gap ends and block sums are only printed.
func compareBlocks(home, ccusage, baton string) (*blockComparison, error) {
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "TZ=UTC", "NO_COLOR=1")
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, os.TempDir()
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return out, nil
	}
	ccOut, err := run(ccusage, "claude", "blocks", "--json", "--offline")
	if err != nil {
		return nil, err
	}
	btOut, err := run(baton, "usage", "--all", "--blocks", "--json")
	if err != nil {
		return nil, err
	}
	var cc struct {
		Blocks []struct {
			Start   time.Time `json:"startTime"`
			End     time.Time `json:"endTime"`
			Gap     bool      `json:"isGap"`
			Entries int       `json:"entries"`
			Tokens  int64     `json:"totalTokens"`
			Cost    float64   `json:"costUSD"`
		} `json:"blocks"`
	}
	var bt struct {
		Rows []struct {
			Input         int64   `json:"input_tokens"`
			Output        int64   `json:"output_tokens"`
			CacheCreation int64   `json:"cache_creation_tokens"`
			CacheRead     int64   `json:"cache_read_tokens"`
			Cost          float64 `json:"cost_usd"`
			Block         struct {
				Start     time.Time `json:"start"`
				End       time.Time `json:"end"`
				Gap       bool      `json:"gap"`
				Responses int       `json:"responses"`
			} `json:"block"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(ccOut, &cc); err != nil {
		return nil, fmt.Errorf("ccusage blocks: %w", err)
	}
	if err := json.Unmarshal(btOut, &bt); err != nil {
		return nil, fmt.Errorf("baton blocks: %w", err)
	}
	// ccusage lists a gap after the window that follows it when that
	// window's hour is earlier than the gap's start; compare as sets.
	type span struct {
		start, end int64
		gap        bool
	}
	want := map[span]bool{}
	var ccEntries int
	var ccCost float64
	key := func(start, end time.Time, gap bool) span {
		if gap {
			end = time.Time{}
		}
		return span{start.UnixMilli(), end.UnixMilli(), gap}
	}
	for _, b := range cc.Blocks {
		want[key(b.Start, b.End, b.Gap)] = true
		ccEntries += b.Entries
		ccCost += b.Cost
	}
	c := &blockComparison{}
	var btResponses int
	var btCost float64
	same := 0
	for _, r := range bt.Rows {
		k := key(r.Block.Start, r.Block.End, r.Block.Gap)
		if !want[k] {
			c.problems = append(c.problems, fmt.Sprintf("block %s–%s (gap %v): baton has it, ccusage not", r.Block.Start, r.Block.End, r.Block.Gap))
			continue
		}
		delete(want, k)
		same++
		btResponses += r.Block.Responses
		btCost += r.Cost
	}
	for k := range want {
		c.problems = append(c.problems, fmt.Sprintf("block %s (gap %v): ccusage has it, baton not", time.UnixMilli(k.start).UTC(), k.gap))
	}
	c.summary = fmt.Sprintf("blocks: %d windows and gaps, %d the same in both; responses in them: ccusage %d, baton %d; cost: ccusage $%.2f, baton $%.2f",
		len(cc.Blocks), same, ccEntries, btResponses, ccCost, btCost)
	return c, nil
}
