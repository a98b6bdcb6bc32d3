package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/usage"
)

// UsageOptions are the inputs of `baton usage`.
type UsageOptions struct {
	Factory                 *Factory
	Daily, Session, Monthly bool
	Since                   string
	JSON                    bool
	// All reads every project's transcripts, not only this repository's.
	All  bool
	Lang string
}

// NewCmdUsage builds `baton usage`.
func NewCmdUsage(f *Factory, runF func(context.Context, *UsageOptions) error) *cobra.Command {
	opts := &UsageOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show the tokens Claude Code sessions used, per day, session or month",
		Long: "Counts input, output, cache-creation and cache-read tokens per day (default), session or\n" +
			"month, and per model, from the transcripts of this repository's worktrees (and their\n" +
			"archived copies); --all reads every project. A response written several times (one line\n" +
			"per content block, a resumed session's copy, a sidechain replay) is counted once.",
		Example: "  baton usage\n  baton usage --session --since 7d\n  baton usage --monthly --all --json",
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
	fl.StringVar(&opts.Since, "since", "", "only usage since then: 7d, 12h, 2026-09-01")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.BoolVar(&opts.All, "all", false, "every project's transcripts, not only this repository's")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	cmd.MarkFlagsMutuallyExclusive("daily", "session", "monthly")
	return cmd
}

var (
	msgUsageHeadDaily   = i18n.Msg{JA: "日付", EN: "Date"}
	msgUsageHeadMonthly = i18n.Msg{JA: "月", EN: "Month"}
	msgUsageHeadSession = i18n.Msg{JA: "セッション", EN: "Session"}
	msgUsageHeads       = i18n.Msg{JA: "入力\t出力\tキャッシュ作成\tキャッシュ読込\t合計\tモデル", EN: "Input\tOutput\tCache create\tCache read\tTotal\tModels"}
	msgUsageTotal       = i18n.Msg{JA: "合計", EN: "Total"}
	msgUsageNone        = i18n.Msg{JA: "トランスクリプトに使用量の記録がありません（%d ファイルを読みました）", EN: "no usage recorded in the transcripts (%d files read)"}
	msgBadSince         = i18n.Msg{JA: "--since %q を解釈できません: 7d、12h、2026-09-01 のように指定してください", EN: "cannot read --since %q: give 7d, 12h or 2026-09-01"}
)

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
	by := usage.Daily
	switch {
	case opts.Session:
		by = usage.Session
	case opts.Monthly:
		by = usage.Monthly
	}
	dirs := usageDirs(f, w, opts.All)
	files, err := usage.Files(dirs...)
	if err != nil {
		return err
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(usageMemoryLimit))
	rep, err := usage.Scan(ctx, files, usage.Options{By: by, Loc: time.Local, Since: since})
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if len(rep.Rows) == 0 {
		fmt.Fprintln(f.IO.ErrOut, msgUsageNone.Format(lang, rep.Files))
		return nil
	}
	return writeUsage(f.IO.Out, rep, lang)
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

func writeUsage(out io.Writer, rep *usage.Report, lang i18n.Lang) error {
	head := msgUsageHeadDaily
	switch rep.By {
	case usage.Monthly:
		head = msgUsageHeadMonthly
	case usage.Session:
		head = msgUsageHeadSession
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t%s\t\n", head.In(lang), msgUsageHeads.In(lang))
	for _, r := range rep.Rows {
		models := make([]string, 0, len(r.Models))
		for _, m := range r.Models {
			models = append(models, m.Model)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Key, thousands(r.Input), thousands(r.Output),
			thousands(r.CacheCreation), thousands(r.CacheRead), thousands(r.Total()), strings.Join(models, ", "))
	}
	t := rep.Total
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\t\n", msgUsageTotal.In(lang), thousands(t.Input), thousands(t.Output),
		thousands(t.CacheCreation), thousands(t.CacheRead), thousands(t.Total()))
	return tw.Flush()
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
