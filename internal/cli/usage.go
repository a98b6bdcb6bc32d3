package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/pricing"
	"github.com/baton-cli/baton/internal/usage"
)

// UsageOptions are the inputs of `baton usage`.
type UsageOptions struct {
	Factory                 *Factory
	Daily, Session, Monthly bool
	// Blocks shows Claude's 5-hour usage windows.
	Blocks bool
	Since  string
	JSON   bool
	// All reads every project's transcripts, not only this repository's.
	All bool
	// Agents are the agents counted: claude, codex, gemini or all.
	Agents []string
	Lang   string
}

// NewCmdUsage builds `baton usage`.
func NewCmdUsage(f *Factory, runF func(context.Context, *UsageOptions) error) *cobra.Command {
	opts := &UsageOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show the tokens Claude Code, Codex CLI and Gemini CLI sessions used and what they cost, per day, session or month",
		Long: "Counts input, output, cache-creation and cache-read tokens per day (default), session or\n" +
			"month, and per model, from the transcripts of this repository's worktrees (and their\n" +
			"archived copies); --all reads every project. A response written several times (one line\n" +
			"per content block, a resumed session's copy, a sidechain replay) is counted once.\n" +
			"--agent codex or gemini counts the Codex CLI's or the Gemini CLI's sessions that ran in\n" +
			"the repository's worktrees instead (cached input as cache read, reasoning tokens inside\n" +
			"output); --agent all counts every agent, one table each.\n\n" +
			"Each response is priced in USD from the price table built into baton (its date is printed),\n" +
			"with 5-minute and 1-hour cache writes and long-context rates; usage.prices in your config\n" +
			"names a file of the same format that replaces or adds models. A model without a price is\n" +
			"named and left out of the cost, never guessed. Nothing is fetched from the network.\n\n" +
			"--blocks shows Claude's 5-hour usage windows as ccusage computes them: a window starts at the\n" +
			"hour of the first response after the last one ended or after a pause of more than 5 hours;\n" +
			"the one still open is marked active, with its time left, its burn rate and where it ends up\n" +
			"if that rate holds.",
		Example: "  baton usage\n  baton usage --session --since 7d\n  baton usage --monthly --all --json\n  baton usage --agent codex\n  baton usage --agent all --json\n  baton usage --blocks --since 1d",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return usageRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Daily, "daily", false, "one row per day (the default)")
	fl.BoolVar(&opts.Session, "session", false, "one row per session")
	fl.BoolVar(&opts.Monthly, "monthly", false, "one row per month")
	fl.BoolVar(&opts.Blocks, "blocks", false, "one row per 5-hour usage window, the active one with its burn rate and projection")
	fl.StringVar(&opts.Since, "since", "", "only usage since then: 7d, 12h, 2026-09-01")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVar(&opts.All, "all", false, "every project's transcripts, not only this repository's")
	fl.StringSliceVar(&opts.Agents, "agent", []string{"claude"}, "the agents counted: claude, codex, gemini or all")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	cmd.MarkFlagsMutuallyExclusive("daily", "session", "monthly", "blocks")
	return cmd
}

var (
	msgUsageHeadDaily   = i18n.Msg{JA: "日付", EN: "Date"}
	msgUsageHeadMonthly = i18n.Msg{JA: "月", EN: "Month"}
	msgUsageHeadSession = i18n.Msg{JA: "セッション", EN: "Session"}
	msgUsageHeads       = i18n.Msg{JA: "入力\t出力\tキャッシュ作成\tキャッシュ読込\t合計\t費用 (USD)\tモデル", EN: "Input\tOutput\tCache create\tCache read\tTotal\tCost (USD)\tModels"}
	msgUsageHeadBlocks  = i18n.Msg{JA: "5 時間枠の開始", EN: "5-hour block"}
	msgUsageGap         = i18n.Msg{JA: "%s 空き %s", EN: "%s gap of %s"}
	msgUsageActive      = i18n.Msg{JA: "%s 進行中、残り %s", EN: "%s active, %s left"}
	msgHoursMinutes     = i18n.Msg{JA: "%d時間%02d分", EN: "%dh %02dm"}
	msgUsageBurn        = i18n.Msg{JA: "進行中の枠: 1 時間あたり %s、毎分 %s トークン。このままなら終了時刻 %s に %s、%s トークン", EN: "active block: %s an hour, %s tokens a minute; at this rate it ends (%s) at %s and %s tokens"}
	msgUsageUnpriced    = i18n.Msg{JA: "価格表にないモデル（費用に含めていません）: %s", EN: "models without a price (left out of the cost): %s"}
	msgUsagePrices      = i18n.Msg{JA: "価格: %s 時点の価格表", EN: "prices: the table of %s"}
	msgUsagePricesOver  = i18n.Msg{JA: "価格: %s 時点の価格表、%s で上書き", EN: "prices: the table of %s, overridden by %s"}
	msgUsageTotal       = i18n.Msg{JA: "合計", EN: "Total"}
	msgUsageNone        = i18n.Msg{JA: "トランスクリプトに使用量の記録がありません（%d ファイルを読みました）", EN: "no usage recorded in the transcripts (%d files read)"}
	msgBadSince         = i18n.Msg{JA: "--since %q を解釈できません: 7d、12h、2026-09-01 のように指定してください", EN: "cannot read --since %q: give 7d, 12h or 2026-09-01"}
	msgBadAgent         = i18n.Msg{JA: "--agent %q を解釈できません: claude、codex、gemini、all のいずれかを指定してください", EN: "cannot read --agent %q: give claude, codex, gemini or all"}
	msgUsageAgentNone   = i18n.Msg{JA: "%s のセッションに使用量の記録がありません（%d ファイルを読みました）", EN: "no usage recorded in %s sessions (%d files read)"}
)

// agentNames are the agents' names as reports show them.
var agentNames = map[agentlog.Agent]string{agentlog.Claude: "Claude Code", agentlog.Codex: "Codex CLI", agentlog.Gemini: "Gemini CLI"}

// parseAgents reads --agent's values: names, comma lists, or all.
func parseAgents(vals []string) ([]agentlog.Agent, error) {
	var out []agentlog.Agent
	for _, v := range vals {
		if strings.TrimSpace(v) == "all" {
			return agentlog.Agents, nil
		}
		a, err := agentlog.ParseAgent(v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// agentReport is one agent's usage, as --json prints it for several.
type agentReport struct {
	Agent agentlog.Agent `json:"agent"`
	*usage.Report
}

// usageMemoryLimit keeps the garbage collector working harder than it would
// by default before the heap outgrows what counting needs.
const usageMemoryLimit = 24 << 20

func usageRun(ctx context.Context, opts *UsageOptions) error {
	f := opts.Factory
	w, err := findWorkspace(f)
	if err != nil {
		return err
	}
	lang, err := commandLang(f, opts.Lang, w.root)
	if err != nil {
		return err
	}
	var since time.Time
	if opts.Since != "" {
		if since, err = parseSince(opts.Since, f.Now()); err != nil {
			return flagError{errors.New(msgBadSince.Format(lang, opts.Since))}
		}
	}
	agents, err := parseAgents(opts.Agents)
	if err != nil {
		return flagError{errors.New(msgBadAgent.Format(lang, strings.Join(opts.Agents, ",")))}
	}
	by := usage.Daily
	switch {
	case opts.Session:
		by = usage.Session
	case opts.Monthly:
		by = usage.Monthly
	case opts.Blocks:
		by = usage.Blocks
	}
	prices, err := loadPrices(f, w.root)
	if err != nil {
		return err
	}
	uopts := usage.Options{By: by, Loc: time.Local, Since: since, Prices: prices, Now: f.Now()}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(usageMemoryLimit))
	var reps []agentReport
	for _, a := range agents {
		rep, err := scanUsage(ctx, f, w, a, opts.All, uopts)
		if err != nil {
			return err
		}
		reps = append(reps, agentReport{a, rep})
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if len(reps) == 1 {
			return enc.Encode(reps[0].Report)
		}
		return enc.Encode(map[string][]agentReport{"agents": reps})
	}
	for i, r := range reps {
		if len(reps) > 1 {
			if i > 0 {
				fmt.Fprintln(f.IO.Out)
			}
			fmt.Fprintf(f.IO.Out, "%s\n", agentNames[r.Agent])
		}
		if len(r.Rows) == 0 {
			if r.Agent == agentlog.Claude {
				fmt.Fprintln(f.IO.ErrOut, msgUsageNone.Format(lang, r.Files))
			} else {
				fmt.Fprintln(f.IO.ErrOut, msgUsageAgentNone.Format(lang, agentNames[r.Agent], r.Files))
			}
			continue
		}
		if err := writeUsage(f.IO.Out, r.Report, lang, f.Now()); err != nil {
			return err
		}
		writePricesNote(f.IO.Out, prices, r.Unpriced, lang)
	}
	return nil
}

// loadPrices reads the shipped price table and the override file the
// person's configuration names.
func loadPrices(f *Factory, root string) (*pricing.Table, error) {
	cfg, err := f.Config(root)
	if err != nil {
		return nil, err
	}
	return pricing.Load(cfg.UsagePrices(f.Getenv("HOME")))
}

// writePricesNote says which prices a cost comes from and which models it
// leaves out.
func writePricesNote(w io.Writer, prices *pricing.Table, unpriced []string, lang i18n.Lang) {
	if prices.Override != "" {
		fmt.Fprintln(w, msgUsagePricesOver.Format(lang, prices.Date, prices.Override))
	} else {
		fmt.Fprintln(w, msgUsagePrices.Format(lang, prices.Date))
	}
	if len(unpriced) > 0 {
		fmt.Fprintln(w, msgUsageUnpriced.Format(lang, strings.Join(unpriced, ", ")))
	}
}

// scanUsage counts one agent's usage: Claude Code's transcripts, or the
// other CLIs' sessions that ran in the repository's worktrees (with all,
// every one of them).
func scanUsage(ctx context.Context, f *Factory, w workspace, a agentlog.Agent, all bool, opts usage.Options) (*usage.Report, error) {
	if a == agentlog.Claude {
		files, err := usage.Files(usageDirs(f, w, all)...)
		if err != nil {
			return nil, err
		}
		return usage.Scan(ctx, files, opts)
	}
	var roots []string
	if !all {
		roots = workspaceWorktrees(f, w)
	}
	files, err := agentlog.Files(ctx, a, agentlog.DirsFrom(f.Getenv), roots)
	if err != nil {
		return nil, err
	}
	return usage.ScanAgent(ctx, files, opts)
}

// usageDirs are the folders `baton usage` reads: the repository's
// worktrees' transcripts and their archive, or with all every project's.
func usageDirs(f *Factory, w workspace, all bool) []string {
	home := f.Getenv("HOME")
	archive := index.ArchiveDir(w.state)
	if all {
		return append(claudecode.ProjectsDirs(home, f.Getenv("CLAUDE_CONFIG_DIR")), archive)
	}
	return append(workspaceTranscriptDirs(f, w, home), archive)
}

func writeUsage(out io.Writer, rep *usage.Report, lang i18n.Lang, now time.Time) error {
	head := msgUsageHeadDaily
	switch rep.By {
	case usage.Monthly:
		head = msgUsageHeadMonthly
	case usage.Session:
		head = msgUsageHeadSession
	case usage.Blocks:
		head = msgUsageHeadBlocks
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t%s\t\n", head.In(lang), msgUsageHeads.In(lang))
	for _, r := range rep.Rows {
		key := r.Key
		if b := r.Block; b != nil {
			key = blockCell(b, r.Last, lang, now)
			if b.Gap {
				fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t\n", key)
				continue
			}
		}
		models := make([]string, 0, len(r.Models))
		for _, m := range r.Models {
			models = append(models, m.Model)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", key, thousands(r.Input), thousands(r.Output),
			thousands(r.CacheCreation), thousands(r.CacheRead), thousands(r.Total()), pricing.USD(r.CostUSD), strings.Join(models, ", "))
	}
	t := rep.Total
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\n", msgUsageTotal.In(lang), thousands(t.Input), thousands(t.Output),
		thousands(t.CacheCreation), thousands(t.CacheRead), thousands(t.Total()), pricing.USD(rep.TotalCostUSD))
	if err := tw.Flush(); err != nil {
		return err
	}
	if a := rep.ActiveBlock(); a != nil && a.Block.BurnRate != nil {
		br, p := a.Block.BurnRate, a.Block.Projection
		fmt.Fprintln(out, msgUsageBurn.Format(lang, pricing.USD(br.CostPerHour), thousands(int64(math.Round(br.TokensPerMinute))),
			a.Block.End.Format("15:04"), pricing.USD(p.CostUSD), thousands(p.TotalTokens)))
	}
	return nil
}

// blockCell names a 5-hour window: its start, and how long it ran, how long
// it has left, or that it is a gap.
func blockCell(b *usage.Block, last time.Time, lang i18n.Lang, now time.Time) string {
	start := b.Start.Format("2006-01-02 15:04")
	switch {
	case b.Gap:
		return msgUsageGap.Format(lang, start, hoursMinutes(b.End.Sub(b.Start), lang))
	case b.Active:
		return msgUsageActive.Format(lang, start, hoursMinutes(b.End.Sub(now), lang))
	}
	return start + " (" + hoursMinutes(last.Sub(b.Start), lang) + ")"
}

// hoursMinutes writes a duration as 2h 05m (2時間05分).
func hoursMinutes(d time.Duration, lang i18n.Lang) string {
	m := max(int64(d/time.Minute), 0)
	return msgHoursMinutes.Format(lang, m/60, m%60)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// parseSince reads a start time: a duration back from now (30m, 12h, 7d,
// 2w) or a day (2006-01-02 or 20060102, local time).
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	if len(s) < 2 {
		return time.Time{}, fmt.Errorf("parse since %q", s)
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("parse since %q", s)
	}
	var unit time.Duration
	switch s[len(s)-1] {
	case 'm':
		unit = time.Minute
	case 'h':
		unit = time.Hour
	case 'd':
		unit = 24 * time.Hour
	case 'w':
		unit = 7 * 24 * time.Hour
	default:
		return time.Time{}, fmt.Errorf("parse since %q", s)
	}
	return now.Add(-time.Duration(n) * unit), nil
}
