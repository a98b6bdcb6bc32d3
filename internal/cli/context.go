package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/cue"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/llm/anthropic"
	"github.com/baton-cli/baton/internal/llm/openai"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
)

// NewCmdContext builds `baton context`, the context layers' commands.
func NewCmdContext(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Make, show and push the context layers (recent, daily, approved decisions)",
		Long: "baton keeps three context layers per route under .claude/session-state/context/:\n" +
			"L1 the recent summary (made when a session compacts or ends), L2 the daily summary\n" +
			"(`baton context daily`, e.g. from cron), and L3 the approved decisions. At every session\n" +
			"start they are injected, L3 first, within the context limit. Hosts that start the agent\n" +
			"themselves get the same text from `baton context build`.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(
		NewCmdContextL1(f, nil),
		NewCmdContextDaily(f, nil),
		NewCmdContextApprove(f, nil),
		NewCmdContextCandidates(f, nil),
		NewCmdContextBuild(f, nil),
		NewCmdContextShow(f, nil),
		NewCmdContextRecall(f, nil),
	)
	return cmd
}

// contextFlags are the flags every context command takes.
type contextFlags struct {
	Route string
	Lang  string
	JSON  bool
}

func (c *contextFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.Route, "route", "", "context route (default: context.route, else default)")
	cmd.Flags().StringVar(&c.Lang, "lang", "", "message language: ja or en")
	cmd.Flags().BoolVar(&c.JSON, "json", false, "print JSON")
}

// contextEnv is what a context command works with.
type contextEnv struct {
	w     workspace
	cfg   *config.Config
	lang  i18n.Lang
	files recall.Files
	// own is set when the route is the repository's own sessions, whose
	// records are in the journal.
	own bool
}

func newContextEnv(f *Factory, c contextFlags) (*contextEnv, error) {
	w, cfg, lang, err := openWorkspace(f, c.Lang)
	if err != nil {
		return nil, err
	}
	route := c.Route
	if route == "" {
		route = cfg.ContextRoute()
	}
	files, err := recall.FilesFor(w.state, route)
	if err != nil {
		return nil, flagError{err}
	}
	return &contextEnv{w: w, cfg: cfg, lang: lang, files: files, own: route == cfg.ContextRoute()}, nil
}

func (e *contextEnv) journal() *journal.Journal {
	return journal.Open(e.w.state.Root, journal.Options{MaxSize: e.cfg.JournalMaxSize()})
}

// modelClient is the model named by a configured use ("claude",
// "anthropic" or "openai"; nil for any other), with model and maxTokens
// (zero: the client's default). The agent CLI runs with the user's own
// login in a fresh temporary folder, with no tools and no saved session,
// and with JobEnv, so that its own session's hooks start no summary.
func modelClient(f *Factory, cfg *config.Config, use, model string, maxTokens int) llm.Client {
	switch use {
	case config.SummarizerClaude:
		return llm.ClaudeCLI{
			Command: cfg.AgentCommand(), Model: model,
			Args: []string{"--tools", "", "--no-session-persistence"},
			Env:  append(f.Environ(), recall.JobEnv+"=1"),
		}
	case config.SummarizerAnthropic:
		return anthropic.Client{Model: model, MaxTokens: maxTokens, APIKey: f.Getenv("ANTHROPIC_API_KEY"), BaseURL: f.Getenv("ANTHROPIC_BASE_URL")}
	case config.SummarizerOpenAI:
		return openai.Client{Model: model, MaxTokens: maxTokens, APIKey: f.Getenv("OPENAI_API_KEY"), BaseURL: f.Getenv("OPENAI_BASE_URL")}
	}
	return nil
}

// summarizer is the configured summarizer of layer, kept within the
// route's daily token budget.
func (e *contextEnv) summarizer(f *Factory, layer string, log *slog.Logger) recall.Summarizer {
	s := e.cfg.ContextSummarizer(layer)
	client := modelClient(f, e.cfg, s.Use, s.Model, s.MaxTokens)
	if client == nil {
		return recall.Extractive{}
	}
	return recall.Budgeted{
		Inner: recall.ModelSummarizer{Client: client}, Fallback: recall.Extractive{}, Log: log,
		Budget: recall.Budget{Files: e.files, Limit: e.cfg.ContextDailyTokens(e.files.Route), Now: f.Now},
	}
}

// timeout bounds a command that may ask a model.
func (e *contextEnv) timeout(layer string) time.Duration {
	return e.cfg.ContextSummarizer(layer).Timeout + 30*time.Second
}

func (e *contextEnv) maker(f *Factory, log *slog.Logger) *recall.Maker {
	m := &recall.Maker{
		Files: e.files, Recent: e.summarizer(f, "l1", log), Daily: e.summarizer(f, "l2", log),
		Phrases: e.cfg.ContextApprovalPhrases(), Records: e.cfg.ContextRecords(), Lang: e.lang, Now: f.Now, Log: log,
	}
	if e.own {
		m.Journal = e.journal()
	}
	return m
}

// archive moves old decisions out of the active log; a failure is logged,
// it does not fail the command that made a summary.
func (e *contextEnv) archive(f *Factory, log *slog.Logger) {
	if _, err := recall.ArchiveDecisions(e.files, f.Now(), e.cfg.ContextArchiveAfter()); err != nil {
		log.Warn("archive decisions", "route", e.files.Route, "err", err)
	}
}

// refreshRecall rewrites the recall file the hooks read at prompts and tool
// calls. Only the repository's own route has one; a failure is logged and
// does not fail the command.
func (e *contextEnv) refreshRecall(ctx context.Context, f *Factory, log *slog.Logger) {
	if !e.own {
		return
	}
	if _, err := e.buildRecall(ctx, f); err != nil {
		log.Warn("build recall file", "err", err)
	}
}

// buildRecall rewrites the recall file from the route's layers and the
// journal.
func (e *contextEnv) buildRecall(ctx context.Context, f *Factory) (cue.Built, error) {
	return buildRecallFile(ctx, f, e.w.state, e.files.Route, e.journal(), e.lang)
}

// rebuildRecallFile rewrites the workspace's recall file after a command
// changed what it is made of; a failure is logged, it does not fail the
// command.
func rebuildRecallFile(ctx context.Context, f *Factory, w workspace, cfg *config.Config, lang i18n.Lang) {
	j := journal.Open(w.state.Root, journal.Options{MaxSize: cfg.JournalMaxSize()})
	if _, err := buildRecallFile(ctx, f, w.state, cfg.ContextRoute(), j, lang); err != nil {
		log, closer := w.state.Logger(f.Getenv)
		log.Warn("build recall file", "err", err)
		closer.Close()
	}
}

// buildRecallFile rewrites the recall file of the state folder d from the
// route's layers, what teammates shared and the journal j.
func buildRecallFile(ctx context.Context, f *Factory, d state.Dir, route string, j *journal.Journal, lang i18n.Lang) (cue.Built, error) {
	o := cue.BuildOptions{State: d, Route: route, Journal: j, Now: f.Now()}
	if route == "" || route == recall.DefaultRoute {
		shared, err := resume.ReadShared(d, lang, f.Now().Location())
		if err != nil {
			return cue.Built{Path: cue.Path(d)}, err
		}
		o.Shared, o.Hide = shared.Decisions, shared.Hide
	}
	return cue.Build(ctx, o)
}

// readLog reads a host's session log for --log.
func readLog(path string, n int) ([]recall.Entry, error) {
	if path == "" {
		return nil, nil
	}
	entries, err := recall.ReadSessionLog(path, n)
	if err != nil {
		return nil, flagError{err}
	}
	if entries == nil {
		entries = []recall.Entry{}
	}
	return entries, nil
}

var (
	msgL1Written   = i18n.Msg{JA: "直近の要約 (L1) を書きました（%s、記録 %d 件）:", EN: "Wrote the recent summary (L1) (%s, %d records):"}
	msgL1Nothing   = i18n.Msg{JA: "新しい記録がないため、直近の要約 (L1) は変えていません。", EN: "No new records: the recent summary (L1) is unchanged."}
	msgL2Written   = i18n.Msg{JA: "%s の日次の要約 (L2) を書きました（%s、記録 %d 件）:", EN: "Wrote the daily summary (L2) of %s (%s, %d records):"}
	msgL2Nothing   = i18n.Msg{JA: "%s の日次の要約 (L2) は変えていません（記録がないか、作り直せる内容が既にあります）。", EN: "The daily summary (L2) of %s is unchanged (no records, or the existing one is as complete)."}
	msgNeedSession = i18n.Msg{JA: "--session、--all か --log のどれかを指定してください", EN: "give --session, --all or --log"}
	msgBadDate     = i18n.Msg{JA: "--date %q は YYYY-MM-DD で指定してください", EN: "--date %q: want YYYY-MM-DD"}
	msgBadBudget   = i18n.Msg{JA: "--budget %d は 1 から %d の間で指定してください", EN: "--budget %d: want 1 to %d"}
	msgBadSource   = i18n.Msg{JA: "--source %q は startup, resume, compact, clear, crash, switch のどれかです", EN: "--source %q: want startup, resume, compact, clear, crash or switch"}
	msgNoSuchCand  = i18n.Msg{JA: "承認待ちの候補 %q はありません（一覧は `baton context approve`）", EN: "no pending candidate %q (list them with `baton context approve`)"}
	msgCandAmbig   = i18n.Msg{JA: "%q に当てはまる候補が複数あります。id をもっと長く指定してください", EN: "%q fits more than one candidate: give more of the id"}
)

// candidateError says what is wrong with a candidate id, in lang.
func candidateError(err error, id string, lang i18n.Lang) error {
	switch {
	case errors.Is(err, recall.ErrAmbiguous):
		return errors.New(msgCandAmbig.Format(lang, id))
	case errors.Is(err, recall.ErrNoCandidate):
		return errors.New(msgNoSuchCand.Format(lang, id))
	}
	return err
}

// ContextL1Options are the inputs of `baton context l1`.
type ContextL1Options struct {
	Factory *Factory
	contextFlags
	Session string
	All     bool
	Trigger string
	Log     string
}

// NewCmdContextL1 builds `baton context l1`, which makes the recent summary.
func NewCmdContextL1(f *Factory, runF func(context.Context, *ContextL1Options) error) *cobra.Command {
	opts := &ContextL1Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "l1",
		Short: "Make the recent summary (L1) from a session's newest records",
		Long: "Makes an L1 entry (Goal, Recent Actions, Open Loops) from the newest records of a session\n" +
			"in the journal (--session), of the whole route (--all), or of a host's own session log\n" +
			"(--log FILE, JSON lines with ts, thread, prompt, response). Approval phrases in prompts\n" +
			"become candidates for `baton context approve`. Run by the hooks at PreCompact and\n" +
			"SessionEnd, in the background.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextL1Run(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session whose records to summarize")
	cmd.Flags().BoolVar(&opts.All, "all", false, "summarize the route's newest records, whatever their session")
	cmd.Flags().StringVar(&opts.Trigger, "trigger", "manual", "what asked for the summary (PreCompact, SessionEnd, manual)")
	cmd.Flags().StringVar(&opts.Log, "log", "", "a host's session log (JSON lines) to summarize instead of the journal")
	return cmd
}

func contextL1Run(ctx context.Context, opts *ContextL1Options) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	if opts.Session == "" && !opts.All && opts.Log == "" {
		return flagError{errors.New(msgNeedSession.In(e.lang))}
	}
	log, closer := e.w.state.Logger(f.Getenv)
	defer closer.Close()
	entries, err := readLog(opts.Log, e.cfg.ContextRecords()*40)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout("l1"))
	defer cancel()
	m := e.maker(f, log)
	if entries == nil && !e.own {
		// Another route's records are not in this repository's journal.
		entries = []recall.Entry{}
	}
	// Archiving first leaves the new entry as the job's last write.
	e.archive(f, log)
	ro := recall.RecentOptions{Session: opts.Session, Trigger: opts.Trigger, Entries: entries}
	if e.own && opts.Log == "" {
		// The repository's own sessions work on the worktree's task.
		if b, err := resume.Build(ctx, resumeOptions(e.w, e.cfg, f)); err == nil {
			ro.Task = b.Task
		} else {
			log.Warn("context l1: the worktree's task", "err", err)
		}
	}
	r, ok, err := m.MakeRecent(ctx, ro)
	if err != nil {
		log.Warn("context l1", "route", e.files.Route, "session", opts.Session, "err", err)
		return err
	}
	e.refreshRecall(ctx, f, log)
	switch {
	case opts.JSON:
		return printJSON(f, map[string]any{"written": ok, "entry": r})
	case ok:
		fmt.Fprintln(f.IO.Out, msgL1Written.Format(e.lang, r.Summarizer, r.Records))
		fmt.Fprintln(f.IO.Out, r.Text())
	default:
		fmt.Fprintln(f.IO.Out, msgL1Nothing.In(e.lang))
	}
	return nil
}

// ContextDailyOptions are the inputs of `baton context daily`.
type ContextDailyOptions struct {
	Factory *Factory
	contextFlags
	Date string
	Log  string
}

// NewCmdContextDaily builds `baton context daily`, which makes the daily
// summary.
func NewCmdContextDaily(f *Factory, runF func(context.Context, *ContextDailyOptions) error) *cobra.Command {
	opts := &ContextDailyOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "daily",
		Short: "Make the daily summary (L2) of a day, yesterday by default",
		Long: "Makes the L2 entry of a day (Daily Goal, Threads Engaged, Decisions Made, Pending Tasks)\n" +
			"from the previous day's entry and the day's records, recent summaries and decisions.\n" +
			"Meant for cron or a systemd timer, e.g. `0 6 * * * cd /repo && baton context daily`;\n" +
			"running it twice for a day replaces nothing it cannot rebuild. It also runs by itself,\n" +
			"in the background, at the first session start of a new day, and archives decisions\n" +
			"older than context.archive_after_days.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextDailyRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Date, "date", "", "the day, YYYY-MM-DD (default yesterday)")
	cmd.Flags().StringVar(&opts.Log, "log", "", "a host's session log (JSON lines) instead of the journal")
	return cmd
}

func contextDailyRun(ctx context.Context, opts *ContextDailyOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	day := opts.Date
	if day == "" {
		day = f.Now().AddDate(0, 0, -1).Format(recall.DateLayout)
	} else if _, err := time.Parse(recall.DateLayout, day); err != nil {
		return flagError{errors.New(msgBadDate.Format(e.lang, day))}
	}
	log, closer := e.w.state.Logger(f.Getenv)
	defer closer.Close()
	entries, err := readLog(opts.Log, 1<<20)
	if err != nil {
		return err
	}
	if entries == nil && !e.own {
		entries = []recall.Entry{}
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout("l2"))
	defer cancel()
	e.archive(f, log)
	d, ok, err := e.maker(f, log).MakeDaily(ctx, recall.DailyOptions{Day: day, Entries: entries})
	if err != nil {
		log.Warn("context daily", "route", e.files.Route, "day", day, "err", err)
		return err
	}
	switch {
	case opts.JSON:
		return printJSON(f, map[string]any{"written": ok, "entry": d})
	case ok:
		fmt.Fprintln(f.IO.Out, msgL2Written.Format(e.lang, day, d.Summarizer, d.Records))
		fmt.Fprintln(f.IO.Out, d.Text())
	default:
		fmt.Fprintln(f.IO.Out, msgL2Nothing.Format(e.lang, day))
	}
	return nil
}

// ContextApproveOptions are the inputs of `baton context approve`.
type ContextApproveOptions struct {
	Factory *Factory
	contextFlags
	ID      string
	Summary string
	Source  string
	Reject  bool
}

var (
	msgNoCandidates      = i18n.Msg{JA: "承認待ちの候補はありません。", EN: "No candidates waiting for approval."}
	msgCandidates        = i18n.Msg{JA: "承認待ちの候補（`baton context approve <id>` で決定に、--reject で却下）:", EN: "Candidates waiting (`baton context approve <id>` logs the decision, --reject drops it):"}
	msgApproved          = i18n.Msg{JA: "承認済みの決定に追加しました:", EN: "Added to the approved decisions:"}
	msgCandidateRejected = i18n.Msg{JA: "候補 %s を却下しました。", EN: "Rejected candidate %s."}
	msgRejectNeedID      = i18n.Msg{JA: "--reject には候補の id が要ります", EN: "--reject needs a candidate id"}
	msgSourceNeeds       = i18n.Msg{JA: "--source は id なしで --summary を使うときだけ指定できます", EN: "--source only goes with --summary and no id"}
)

// NewCmdContextApprove builds `baton context approve`, with which a person
// confirms a decision.
func NewCmdContextApprove(f *Factory, runF func(context.Context, *ContextApproveOptions) error) *cobra.Command {
	opts := &ContextApproveOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "approve [id]",
		Short: "Confirm an approval candidate as a decision (L3), or list the candidates",
		Long: "An approval phrase in a prompt (承認, OK, 決定, 進めて, approved, LGTM, go ahead, or\n" +
			"context.approval_phrases) after a proposal makes a candidate; it reaches the approved\n" +
			"decisions only when a person confirms it here. Without an id, lists the candidates.\n" +
			"With an id (or its first characters), logs the decision: --summary gives its text, else\n" +
			"the L3 summarizer writes it from the proposal. --reject drops the candidate.\n" +
			"--summary without an id logs a decision stated directly (--source says where from).",
		Example: "  baton context approve\n  baton context approve 3fa2 --summary \"Export CSV as UTF-8 with a BOM\"\n" +
			"  baton context approve --summary \"Release on Fridays\" --source \"issue #12\"",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextApproveRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Summary, "summary", "", "the decision, one line")
	cmd.Flags().StringVar(&opts.Source, "source", "", "where a decision given with --summary and no id was made")
	cmd.Flags().BoolVar(&opts.Reject, "reject", false, "drop the candidate instead")
	return cmd
}

func contextApproveRun(ctx context.Context, opts *ContextApproveOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	now := f.Now()
	switch {
	case opts.Reject && opts.ID == "":
		return flagError{errors.New(msgRejectNeedID.In(e.lang))}
	case opts.Source != "" && (opts.ID != "" || opts.Summary == ""):
		return flagError{errors.New(msgSourceNeeds.In(e.lang))}
	case opts.Reject:
		c, err := recall.Settle(e.files, opts.ID, recall.StatusRejected, now)
		if err != nil {
			return candidateError(err, opts.ID, e.lang)
		}
		if opts.JSON {
			return printJSON(f, c)
		}
		fmt.Fprintln(f.IO.Out, msgCandidateRejected.Format(e.lang, c.ID))
		return nil
	case opts.ID == "" && opts.Summary != "":
		if err := e.w.createState(); err != nil {
			return err
		}
		d := recall.Decision{Date: now.Format(recall.DateLayout), TS: now, Summary: opts.Summary, Source: opts.Source}
		if d.Source == "" {
			d.Source = "person"
		}
		if _, err := recall.AppendDecisions(e.files, d); err != nil {
			return err
		}
		log, closer := e.w.state.Logger(f.Getenv)
		defer closer.Close()
		e.refreshRecall(ctx, f, log)
		return printDecision(f, e, d, opts.JSON)
	case opts.ID == "":
		pending, err := recall.Pending(e.files)
		if err != nil {
			return err
		}
		if opts.JSON {
			if pending == nil {
				pending = []recall.Candidate{}
			}
			return printJSON(f, pending)
		}
		if len(pending) == 0 {
			fmt.Fprintln(f.IO.Out, msgNoCandidates.In(e.lang))
			return nil
		}
		fmt.Fprintln(f.IO.Out, msgCandidates.In(e.lang))
		for _, c := range pending {
			fmt.Fprintf(f.IO.Out, "  %s  %s  %s  ← %q\n", c.ID, c.TS.In(now.Location()).Format("2006-01-02 15:04"),
				oneLine(c.Proposal, 100), oneLine(c.Approval, 40))
		}
		return nil
	}
	log, closer := e.w.state.Logger(f.Getenv)
	defer closer.Close()
	ctx, cancel := context.WithTimeout(ctx, e.timeout("l3"))
	defer cancel()
	d, err := recall.Approve(ctx, e.files, opts.ID, opts.Summary, e.summarizer(f, "l3", log), recall.Input{Lang: e.lang, Route: e.files.Route}, now)
	if err != nil {
		return candidateError(err, opts.ID, e.lang)
	}
	e.refreshRecall(ctx, f, log)
	return printDecision(f, e, d, opts.JSON)
}

func printDecision(f *Factory, e *contextEnv, d recall.Decision, asJSON bool) error {
	if asJSON {
		return printJSON(f, d)
	}
	fmt.Fprintln(f.IO.Out, msgApproved.In(e.lang))
	fmt.Fprintln(f.IO.Out, d.Line())
	return nil
}

// ContextBuildOptions are the inputs of `baton context build`.
type ContextBuildOptions struct {
	Factory *Factory
	contextFlags
	Budget  int
	Session string
	Source  string
	// Hook prints the text as a SessionStart hook's output, for other
	// agents' CLIs (baton init --agent), and fails open as a hook does.
	Hook bool
}

// NewCmdContextBuild builds `baton context build`, the push text for hosts
// that start the agent themselves.
func NewCmdContextBuild(f *Factory, runF func(context.Context, *ContextBuildOptions) error) *cobra.Command {
	opts := &ContextBuildOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Print the context pushed at a restart, for hosts that start the agent themselves",
		Long: "Prints what a session start injects. For the repository's own route that is the\n" +
			"briefing `baton resume` prints (task, approved decisions, where the worktree left off,\n" +
			"summaries); for another route, the restart case, then the approved decisions (L3), the\n" +
			"recent summary (L1) and the daily summary (L2). Both within --budget characters, whole\n" +
			"entries only, saying what was left out. A bot that runs `claude -p` itself puts this\n" +
			"before its first prompt after a restart. --source names the restart (startup, resume,\n" +
			"compact, clear, crash, switch).",
		Example: "  baton context build --route sales --session \"$SESSION\" --source crash",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextBuildRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().IntVar(&opts.Budget, "budget", hook.MaxContext, "the most characters (UTF-16 units) to print")
	cmd.Flags().StringVar(&opts.Session, "session", "", "the starting session's id")
	cmd.Flags().StringVar(&opts.Source, "source", "", "why the session starts: startup, resume, compact, clear, crash or switch")
	cmd.Flags().BoolVar(&opts.Hook, "hook", false, "print a SessionStart hook's JSON output (as the Gemini and Codex CLIs read it); errors go to baton.log, not to the agent")
	return cmd
}

func contextBuildRun(ctx context.Context, opts *ContextBuildOptions) error {
	err := contextBuild(ctx, opts)
	if err == nil || !opts.Hook {
		return err
	}
	// A hook fails open: the other agent starts without the briefing and
	// the error goes to baton.log, where baton doctor shows it.
	f := opts.Factory
	if w, werr := findWorkspace(f); werr == nil {
		log, closer := w.state.Logger(f.Getenv)
		log.Error("context build --hook", "err", err)
		closer.Close()
	}
	return nil
}

func contextBuild(ctx context.Context, opts *ContextBuildOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	if opts.Budget < 1 || opts.Budget > 1<<20 {
		return flagError{errors.New(msgBadBudget.Format(e.lang, opts.Budget, 1<<20))}
	}
	switch opts.Source {
	case "", "startup", "resume", "compact", "clear", "crash", "switch":
	default:
		return flagError{errors.New(msgBadSource.Format(e.lang, opts.Source))}
	}
	if e.own {
		// The repository's own route: the briefing a session start gets,
		// and the recall file its prompts and tool calls will read.
		log, closer := e.w.state.Logger(f.Getenv)
		defer closer.Close()
		e.refreshRecall(ctx, f, log)
		o := resume.BriefConfigured(e.cfg, f.Getenv, e.lang)
		o.Options = resumeOptions(e.w, e.cfg, f)
		o.Session, o.Source, o.Budget, o.Route = opts.Session, opts.Source, opts.Budget, e.files.Route
		o.Pulls = recall.PullsFor(f.Getenv("HOME"), o.Worktree)
		br, err := resume.BuildBrief(ctx, o)
		if err != nil {
			return err
		}
		if opts.JSON {
			return printJSON(f, map[string]any{
				"text": br.Text, "case": br.Case, "kept": br.Kept, "left": br.Left, "characters": hook.Len(br.Text),
			})
		}
		if opts.Hook {
			if br.Text == "" {
				return nil
			}
			return hook.WriteOutput(f.IO.Out, hook.SessionStart, br.Text)
		}
		if br.Text != "" {
			fmt.Fprintln(f.IO.Out, br.Text)
		}
		return nil
	}
	o := recall.PushOptions{State: e.w.state, Route: e.files.Route, Session: opts.Session, Source: opts.Source, Now: f.Now(), Lang: e.lang, Budget: opts.Budget}
	p, err := recall.Push(ctx, o)
	if err != nil {
		return err
	}
	if opts.JSON {
		return printJSON(f, map[string]any{
			"text": p.Text, "case": p.Restart.Case, "previous": p.Restart.Previous,
			"kept": p.Kept, "left": p.Left, "characters": hook.Len(p.Text),
		})
	}
	if p.Text != "" {
		fmt.Fprintln(f.IO.Out, p.Text)
	}
	return nil
}

// ContextShowOptions are the inputs of `baton context show`.
type ContextShowOptions struct {
	Factory *Factory
	contextFlags
	Layer    string
	Archived bool
	Entries  int
}

var (
	msgShowL3         = i18n.Msg{JA: "== 承認済みの決定 (L3): %d 件 ==", EN: "== Approved decisions (L3): %d =="}
	msgShowL1         = i18n.Msg{JA: "== 直近の要約 (L1): 新しい順に %d/%d 件 ==", EN: "== Recent summaries (L1): newest %d of %d =="}
	msgShowL2         = i18n.Msg{JA: "== 日次の要約 (L2): 新しい順に %d/%d 件 ==", EN: "== Daily summaries (L2): newest %d of %d =="}
	msgShowShared     = i18n.Msg{JA: "== チームメイトが共有した決定: %d 件（%s に同期。行頭は `baton sync --retract` に渡す id） ==", EN: "== Decisions teammates shared: %d (synced %s; each line starts with the id `baton sync --retract` takes) =="}
	msgShowCandidates = i18n.Msg{JA: "== 承認待ちの候補: %d 件 ==", EN: "== Candidates waiting for approval: %d =="}
	msgShowUsage      = i18n.Msg{JA: "今日の LLM トークン: %d / %d", EN: "LLM tokens today: %d of %d"}
	msgShowLayer      = i18n.Msg{JA: "--layer は l1, l2, l3, candidates のどれかです", EN: "--layer must be l1, l2, l3 or candidates"}
)

// NewCmdContextShow builds `baton context show`, which prints each layer.
func NewCmdContextShow(f *Factory, runF func(context.Context, *ContextShowOptions) error) *cobra.Command {
	opts := &ContextShowOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the context layers of a route",
		Long: "Prints the approved decisions (L3; with --archived the archived ones too), the newest\n" +
			"recent (L1) and daily (L2) summaries, the approval candidates and today's LLM token use.\n" +
			"--layer prints one layer only.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextShowRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Layer, "layer", "", "only this layer: l1, l2, l3 or candidates")
	cmd.Flags().BoolVar(&opts.Archived, "archived", false, "include archived decisions")
	cmd.Flags().IntVar(&opts.Entries, "entries", 3, "how many of the newest L1 and L2 entries")
	return cmd
}

func contextShowRun(_ context.Context, opts *ContextShowOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	switch opts.Layer {
	case "", "l1", "l2", "l3", "candidates":
	default:
		return flagError{errors.New(msgShowLayer.In(e.lang))}
	}
	show := func(l string) bool { return opts.Layer == "" || opts.Layer == l }
	l, err := recall.ReadLayers(e.files, opts.Archived)
	if err != nil {
		return err
	}
	used, _ := recall.Budget{Files: e.files, Now: f.Now}.Used()
	limit := e.cfg.ContextDailyTokens(e.files.Route)
	var shared resume.Shared
	if e.files.Route == recall.DefaultRoute {
		if shared, err = resume.ReadShared(e.w.state, e.lang, f.Now().Location()); err != nil {
			return err
		}
		if shared.View.Branches, err = teammem.DirOf(e.w.state).ReadBranches(); err != nil {
			return err
		}
		if shared.Hide != nil {
			l.Decisions = slices.DeleteFunc(l.Decisions, func(d recall.Decision) bool { return shared.Hide(&d) })
		}
	}
	if opts.JSON {
		out := map[string]any{"route": e.files.Route, "tokens_today": used, "token_budget": limit}
		if show("l3") {
			out["decisions"] = nonNilSlice(l.Decisions)
			out["shared"] = map[string]any{"synced_at": shared.View.SyncedAt, "decisions": nonNilSlice(shared.View.Decisions), "branches": shared.View.Branches}
		}
		if show("l1") {
			out["recent"] = nonNilSlice(l.Recent)
		}
		if show("l2") {
			out["daily"] = nonNilSlice(l.Daily)
		}
		if show("candidates") {
			out["candidates"] = nonNilSlice(l.Candidates)
		}
		return printJSON(f, out)
	}
	w := f.IO.Out
	loc := f.Now().Location()
	n := max(opts.Entries, 1)
	if opts.Layer != "" {
		n = 1 << 30
	}
	if show("l3") {
		fmt.Fprintln(w, msgShowL3.Format(e.lang, len(l.Decisions)))
		for _, d := range l.Decisions {
			fmt.Fprintln(w, d.Line())
		}
		fmt.Fprintln(w)
		if v := shared.View; !v.SyncedAt.IsZero() {
			fmt.Fprintln(w, msgShowShared.Format(e.lang, len(v.Decisions), v.SyncedAt.In(loc).Format("2006-01-02 15:04")))
			for i, d := range shared.Decisions {
				fmt.Fprintln(w, teammem.ShortID(v.Decisions[i].ID)+" "+d.Line())
			}
			for _, b := range slices.Sorted(maps.Keys(v.Branches)) {
				s := v.Branches[b]
				fmt.Fprintf(w, "%s [%s] %s: %s (%s)\n", teammem.ShortID(s.ID), s.TS.In(loc).Format("2006-01-02 15:04"), b, teammem.Describe(s), s.Author)
			}
			fmt.Fprintln(w)
		}
	}
	if show("l1") {
		k := min(n, len(l.Recent))
		fmt.Fprintln(w, msgShowL1.Format(e.lang, k, len(l.Recent)))
		for i := len(l.Recent) - 1; i >= len(l.Recent)-k; i-- {
			r := l.Recent[i]
			fmt.Fprintf(w, "[%s · %s · %s · %s]\n%s\n\n", r.TS.In(loc).Format("2006-01-02 15:04"), cmp.Or(r.Session, "-"), cmp.Or(r.Trigger, "-"), r.Summarizer, r.Text())
		}
	}
	if show("l2") {
		k := min(n, len(l.Daily))
		fmt.Fprintln(w, msgShowL2.Format(e.lang, k, len(l.Daily)))
		for i := len(l.Daily) - 1; i >= len(l.Daily)-k; i-- {
			d := l.Daily[i]
			fmt.Fprintf(w, "[%s · %s]\n%s\n\n", d.Date, d.Summarizer, d.Text())
		}
	}
	if show("candidates") {
		fmt.Fprintln(w, msgShowCandidates.Format(e.lang, len(l.Candidates)))
		for _, c := range l.Candidates {
			fmt.Fprintf(w, "  %s  %s  ← %q\n", c.ID, oneLine(c.Proposal, 100), oneLine(c.Approval, 40))
		}
		fmt.Fprintln(w)
	}
	if opts.Layer == "" {
		fmt.Fprintln(w, msgShowUsage.Format(e.lang, used, limit))
	}
	return nil
}

// ContextRecallOptions are the inputs of `baton context recall`.
type ContextRecallOptions struct {
	Factory *Factory
	contextFlags
	Quiet bool
}

var msgRecallBuilt = i18n.Msg{
	JA: "想起ファイル %s を書きました（決定 %d 件、セッション %d 件、失敗したコマンド %d 件、失敗したファイル %d 件、%d バイト）",
	EN: "Wrote the recall file %s (%d decisions, %d sessions, %d failed commands, %d failed files, %d bytes)",
}

var msgRecallOwnRoute = i18n.Msg{
	JA: "想起ファイルはこのリポジトリ自身のルート（%s）からだけ作ります。--route を外してください",
	EN: "the recall file is made from this repository's own route (%s) only: leave out --route",
}

// NewCmdContextRecall builds `baton context recall`, which rewrites the
// recall file the hooks read at prompts and tool calls.
func NewCmdContextRecall(f *Factory, runF func(context.Context, *ContextRecallOptions) error) *cobra.Command {
	opts := &ContextRecallOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "recall",
		Short: "Rewrite the recall file the hooks read at prompts and tool calls",
		Long: "The prompt and tool hooks answer a prompt that touches earlier work (an approved decision,\n" +
			"an earlier session, a file or command with history) from a small file,\n" +
			".claude/session-state/context/recall.idx, and note a command that failed before it runs\n" +
			"again. The file is rewritten in the background when a session compacts or ends, when a\n" +
			"decision is approved, every few minutes while a session works, by `baton context build`\n" +
			"and by `baton reindex`; this command rewrites it now. context.recall: false turns the\n" +
			"recall off.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextRecallRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().BoolVar(&opts.Quiet, "quiet", false, "print nothing")
	return cmd
}

func contextRecallRun(ctx context.Context, opts *ContextRecallOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	// The hooks read one recall file, made from the repository's own
	// route: another route's would replace it.
	if !e.own {
		return flagError{errors.New(msgRecallOwnRoute.Format(e.lang, e.cfg.ContextRoute()))}
	}
	b, err := e.buildRecall(ctx, f)
	if err != nil {
		return err
	}
	switch {
	case opts.JSON:
		return printJSON(f, b)
	case !opts.Quiet:
		fmt.Fprintln(f.IO.Out, msgRecallBuilt.Format(e.lang, b.Path, b.Decisions, b.Sessions, b.Commands, b.Files, b.Bytes))
	}
	return nil
}

// ContextCandidatesOptions are the inputs of `baton context candidates`.
type ContextCandidatesOptions struct {
	Factory *Factory
	contextFlags
	Session string
	Quiet   bool
}

var (
	msgCandidatesFound    = i18n.Msg{JA: "承認の候補を %d 件追加しました（`baton context approve` で確認できます）。", EN: "Added %d approval candidate(s) (see them with `baton context approve`)."}
	msgCandidatesOwnRoute = i18n.Msg{
		JA: "承認の候補はこのリポジトリ自身のルート（%s）のセッションからだけ探します。--route を外してください",
		EN: "approval candidates are found in the sessions of this repository's own route (%s) only: leave out --route",
	}
)

// NewCmdContextCandidates builds `baton context candidates`, which finds
// the approvals in a session's newest records.
func NewCmdContextCandidates(f *Factory, runF func(context.Context, *ContextCandidatesOptions) error) *cobra.Command {
	opts := &ContextCandidatesOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "candidates",
		Short: "Find the approvals in a session's newest records and make them candidates",
		Long: "A prompt with an approval phrase (see `baton context approve`) after the agent's proposal\n" +
			"makes that proposal a candidate for `baton context approve`. The Stop hook runs this in\n" +
			"the background after such a prompt, so the candidate is there as soon as the agent has\n" +
			"answered; the recent summary at PreCompact and SessionEnd finds them too.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextCandidatesRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session whose records to look through")
	cmd.Flags().BoolVar(&opts.Quiet, "quiet", false, "print nothing")
	_ = cmd.MarkFlagRequired("session")
	return cmd
}

func contextCandidatesRun(ctx context.Context, opts *ContextCandidatesOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	if !e.own {
		// Another route's records are not in this repository's journal.
		return flagError{errors.New(msgCandidatesOwnRoute.Format(e.lang, e.cfg.ContextRoute()))}
	}
	log, closer := e.w.state.Logger(f.Getenv)
	defer closer.Close()
	n, err := e.maker(f, log).FindApprovals(ctx, opts.Session)
	if err != nil {
		log.Warn("context candidates", "session", opts.Session, "err", err)
		return err
	}
	switch {
	case opts.JSON:
		return printJSON(f, map[string]any{"added": n})
	case !opts.Quiet:
		fmt.Fprintln(f.IO.Out, msgCandidatesFound.Format(e.lang, n))
	}
	return nil
}
