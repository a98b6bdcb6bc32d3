package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker/github"
	"github.com/baton-cli/baton/internal/worker"
)

// WorkerOptions are the inputs of `baton worker …`.
type WorkerOptions struct {
	Factory *Factory
	Lang    string
	JSON    bool
	Verbose bool
	// Limit is how many finished runs status lists.
	Limit int
	// Systemd and Launchd pick the service file to print.
	Systemd, Launchd bool
}

// NewCmdWorker builds `baton worker`, which turns labelled issues into pull
// requests. runF, when set, replaces the work of every subcommand (its name
// is passed along).
func NewCmdWorker(f *Factory, runF func(context.Context, string, *WorkerOptions) error) *cobra.Command {
	opts := &WorkerOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Turn labelled issues into pull requests with the agent",
		Long: "The worker takes open issues labelled ai/impl (worker.repositories[].labels.trigger) that\n" +
			"an owner, member or collaborator wrote, and runs the agent on each in a fresh git worktree\n" +
			"with a wall-clock budget (worker.execution.timeout_minutes). When the agent ends without a\n" +
			"pull request, its session is resumed once; when there is still none but it committed, a\n" +
			"draft pull request is opened from its commits. The issue ends labelled done or failed,\n" +
			"with a comment saying why. Configure it under `worker:` in ~/.config/baton/config.yaml.",
		Args: cobra.NoArgs,
	}
	sub := func(name, short, long string, run func(context.Context, *WorkerOptions) error) *cobra.Command {
		c := &cobra.Command{
			Use:   name,
			Short: short,
			Long:  long,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				if runF != nil {
					return runF(c.Context(), name, opts)
				}
				return run(c.Context(), opts)
			},
		}
		c.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
		return c
	}
	once := sub("once", "Run one cycle: enqueue the eligible issues once, work the queue until it is empty, then exit",
		"Polls GitHub once (at most worker.execution.max_issues_per_repo jobs of a repository queued at\n"+
			"once), then works the queue's jobs, max_parallel at a time, until none is left. A first\n"+
			"SIGINT or SIGTERM stops taking jobs; a second stops the runs, checkpoints them and puts their\n"+
			"jobs back in the queue and their issues back to the trigger label.", workerOnceRun)
	once.Flags().BoolVar(&opts.JSON, "json", false, "print the cycle's result as JSON")
	once.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "log each step to stderr")
	run := sub("run", "Work the queue until stopped; the leader polls every worker.execution.interval_minutes",
		"Runs this host's River client on the queue (worker.queue.url or BATON_QUEUE_URL; else this\n"+
			"machine's SQLite file) until SIGINT or SIGTERM. The first signal stops taking jobs and lets the\n"+
			"runs in progress go on to their deadline (one that reaches it goes back to the queue); a second\n"+
			"stops them at once, checkpoints them and puts them back in the queue and to the trigger label.", workerRunRun)
	status := sub("status", "Show the runs in progress and the recent ones", "", workerStatusRun)
	status.Flags().BoolVar(&opts.JSON, "json", false, "print the runs as JSON")
	status.Flags().IntVar(&opts.Limit, "limit", 20, "how many finished runs to show")
	service := sub("service", "Print a systemd unit or launchd agent that runs `baton worker run`",
		"Prints the file to stdout; where to put it and how to start it is on stderr.", workerServiceRun)
	service.Flags().BoolVar(&opts.Systemd, "systemd", false, "print a systemd user unit")
	service.Flags().BoolVar(&opts.Launchd, "launchd", false, "print a launchd agent plist")
	migrate := sub("migrate", "Create or update the queue's tables (River's and baton's)",
		"Runs River's migrations and creates baton's checkpoint table in the queue's database:\n"+
			"worker.queue.url (or BATON_QUEUE_URL), else this machine's SQLite file. Run it once per\n"+
			"shared database, and after upgrading baton.", workerMigrateRun)
	setup := sub("setup", "Create the worker's labels in each repository (colour and description)",
		"Creates the trigger, in-progress, done and failed labels of every worker.repositories entry\n"+
			"that lacks them; labels that exist are left as they are.", workerSetupRun)
	cmd.AddCommand(once, run, status, service, migrate, setup)
	return cmd
}

var (
	msgWorkerNoRepos       = i18n.Msg{JA: "ワーカーの対象リポジトリがありません。%s の worker.repositories に追加してください。", EN: "No repositories for the worker: add them under worker.repositories in %s."}
	msgWorkerDone          = i18n.Msg{JA: "%s#%d: 完了 — %s", EN: "%s#%d: done — %s"}
	msgWorkerDraft         = i18n.Msg{JA: "%s#%d: 完了（コミットからドラフトを作成）— %s", EN: "%s#%d: done (draft opened from the commits) — %s"}
	msgWorkerFailed        = i18n.Msg{JA: "%s#%d: 失敗（%s）", EN: "%s#%d: failed (%s)"}
	msgWorkerInterrupted   = i18n.Msg{JA: "%s#%d: 中断。Issue はトリガーラベルに戻しました", EN: "%s#%d: interrupted; the issue is back to the trigger label"}
	msgWorkerPending       = i18n.Msg{JA: "  GitHub への反映が残っています（次のサイクルで再試行）: %s", EN: "  not yet on GitHub (retried next cycle): %s"}
	msgWorkerSkipped       = i18n.Msg{JA: "%s#%d: 見送り（%s）", EN: "%s#%d: skipped (%s)"}
	msgWorkerRecovered     = i18n.Msg{JA: "%s#%d: 前回の実行（%s）を片付けました: %s", EN: "%s#%d: settled the earlier run %s: %s"}
	msgWorkerNothing       = i18n.Msg{JA: "実行できる Issue はありませんでした。", EN: "No eligible issues."}
	msgWorkerError         = i18n.Msg{JA: "エラー: %s", EN: "error: %s"}
	msgWorkerStopping      = i18n.Msg{JA: "停止します: 新しい Issue は取りません。実行中のものは期限までに終わります（もう一度シグナルを送ると即座に止めます）。", EN: "Stopping: no new issues are taken; runs in progress finish by their deadline (signal again to stop them now)."}
	msgWorkerRunning       = i18n.Msg{JA: "実行中:", EN: "Running:"}
	msgWorkerRecent        = i18n.Msg{JA: "最近の実行:", EN: "Recent runs:"}
	msgWorkerNone          = i18n.Msg{JA: "  （なし）", EN: "  (none)"}
	msgWorkerRunLine       = i18n.Msg{JA: "  %s#%d  %s から、期限 %s、段階 %s、ブランチ %s", EN: "  %s#%d  since %s, deadline %s, step %s, branch %s"}
	msgWorkerStatusPending = i18n.Msg{JA: "（GitHub への反映待ち）", EN: " (GitHub update pending)"}
	msgWorkerServiceFlag   = i18n.Msg{JA: "--systemd か --launchd のどちらか一方を指定してください", EN: "give exactly one of --systemd and --launchd"}
	msgWorkerServiceQueue  = i18n.Msg{JA: "BATON_QUEUE_URL（キューのパスワードを含みます）をこのファイルに書きました。ファイルは自分だけが読めるようにしてください（chmod 600）。", EN: "BATON_QUEUE_URL (with the queue's password) is written into this file: keep it readable by you alone (chmod 600)."}
	msgWorkerSystemdHint   = i18n.Msg{JA: "~/.config/systemd/user/baton-worker.service に保存し、`systemctl --user daemon-reload && systemctl --user enable --now baton-worker` で起動してください。", EN: "Save it as ~/.config/systemd/user/baton-worker.service, then start it with `systemctl --user daemon-reload && systemctl --user enable --now baton-worker`."}
	msgWorkerLaunchdHint   = i18n.Msg{JA: "~/Library/LaunchAgents/baton-worker.plist に保存し、`launchctl load ~/Library/LaunchAgents/baton-worker.plist` で起動してください。", EN: "Save it as ~/Library/LaunchAgents/baton-worker.plist, then start it with `launchctl load ~/Library/LaunchAgents/baton-worker.plist`."}
)

// workerSetup loads the configuration and language of a worker command.
// With needRepos it refuses a configuration that names no repository.
func workerSetup(opts *WorkerOptions, needRepos bool) (*config.Config, i18n.Lang, error) {
	f := opts.Factory
	cfg, err := f.Config("")
	if err != nil {
		return nil, "", err
	}
	lang, err := flagLang(opts.Lang, cfg, f.Getenv)
	if err != nil {
		return nil, "", err
	}
	if needRepos && len(cfg.Worker.Repositories) == 0 {
		return nil, "", errors.New(msgWorkerNoRepos.Format(lang, config.UserPath(f.Getenv)))
	}
	return cfg, lang, nil
}

// workerDataDir is ${XDG_DATA_HOME:-~/.local/share}/baton/worker.
func workerDataDir(f *Factory) string { return filepath.Join(dataDir(f), "worker") }

// dataDir is baton's data folder, ${XDG_DATA_HOME:-~/.local/share}/baton.
func dataDir(f *Factory) string {
	dir := f.Getenv("XDG_DATA_HOME")
	if dir == "" {
		dir = filepath.Join(f.Getenv("HOME"), ".local", "share")
	}
	return filepath.Join(dir, "baton")
}

// queueURL is the queue's database: BATON_QUEUE_URL, else
// worker.queue.url; empty for the local SQLite queue.
func queueURL(f *Factory, cfg *config.Config) string {
	if u := f.Getenv("BATON_QUEUE_URL"); u != "" {
		return u
	}
	return cfg.Worker.Queue.URL
}

// openQueue opens the worker's queue (the local one migrated, see
// worker.OpenQueueReady) and checks that it answers and is migrated.
func openQueue(ctx context.Context, f *Factory, cfg *config.Config, lang i18n.Lang) (*worker.Queue, error) {
	q, err := worker.OpenQueueReady(ctx, queueURL(f, cfg), workerDataDir(f), lang)
	if err != nil {
		return nil, err
	}
	if err := q.Check(ctx, lang); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// workerMinute is the length of a configured minute: one minute, or
// BATON_WORKER_MINUTE (a Go duration) in tests that cannot wait minutes.
func workerMinute(f *Factory) time.Duration {
	if d, err := time.ParseDuration(f.Getenv("BATON_WORKER_MINUTE")); err == nil && d > 0 {
		return d
	}
	return time.Minute
}

// buildWorker builds the worker of the process.
func buildWorker(opts *WorkerOptions, cfg *config.Config, lang i18n.Lang, log *slog.Logger, q *worker.Queue) (*worker.Worker, error) {
	f := opts.Factory
	host, _ := os.Hostname()
	if h := f.Getenv("BATON_WORKER_HOST"); h != "" {
		host = h
	}
	// The agent runs under baton itself as its reaper (see
	// worker.ReaperMain).
	reaper, _ := f.Executable()
	return worker.New(worker.Options{
		Reaper:    reaper,
		Queue:     q,
		Minute:    workerMinute(f),
		Config:    cfg,
		Lang:      lang,
		DataDir:   workerDataDir(f),
		PromptDir: filepath.Join(filepath.Dir(config.UserPath(f.Getenv)), "prompts"),
		Home:      f.Getenv("HOME"),
		Environ:   f.Environ(),
		Host:      host,
		PID:       os.Getpid(),
		Now:       f.Now,
		Logger:    log,
		Client: func(ctx context.Context, repo config.WorkerRepo) (*github.Client, error) {
			getenv := func(k string) string {
				if k == "GH_REPO" {
					return repo.Repo
				}
				return f.Getenv(k)
			}
			gc, err := github.Resolve(ctx, github.Env{Getenv: getenv, Dir: repo.Path})
			if err != nil {
				return nil, err
			}
			gc.UserAgent = "baton/" + Version()
			return github.New(gc)
		},
	})
}

// workerSignals turns SIGINT and SIGTERM into the worker's two stops: the
// first closes stop (claim nothing more), the second cancels the returned
// context (stop the runs now). The context does not inherit ctx's
// cancellation, which the process may tie to the first signal.
func workerSignals(ctx context.Context, errOut io.Writer, lang i18n.Lang) (context.Context, <-chan struct{}, func()) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(errOut, msgWorkerStopping.In(lang))
		close(stop)
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	return runCtx, stop, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

func workerOnceRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, true)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if opts.Verbose {
		level = slog.LevelInfo
	}
	q, err := openQueue(ctx, f, cfg, lang)
	if err != nil {
		return err
	}
	defer q.Close()
	w, err := buildWorker(opts, cfg, lang, slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: level})), q)
	if err != nil {
		return err
	}
	runCtx, stop, release := workerSignals(ctx, f.IO.ErrOut, lang)
	defer release()
	res, err := w.Cycle(runCtx, stop)
	if opts.JSON {
		if err := workerJSON(f.IO.Out, res); err != nil {
			return err
		}
	} else {
		printCycle(f.IO.Out, lang, res, false)
	}
	if err != nil || len(res.Errors) > 0 {
		if !opts.JSON {
			for _, e := range res.Errors {
				fmt.Fprintln(f.IO.ErrOut, msgWorkerError.Format(lang, e))
			}
		}
		return errSilent
	}
	return nil
}

func workerRunRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, true)
	if err != nil {
		return err
	}
	q, err := openQueue(ctx, f, cfg, lang)
	if err != nil {
		return err
	}
	defer q.Close()
	w, err := buildWorker(opts, cfg, lang, slog.New(slog.NewTextHandler(f.IO.ErrOut, nil)), q)
	if err != nil {
		return err
	}
	runCtx, stop, release := workerSignals(ctx, f.IO.ErrOut, lang)
	defer release()
	err = w.Run(runCtx, stop, func(res *worker.CycleResult) {
		// Every interval: only what happened, not the issues left alone.
		printCycle(f.IO.Out, lang, &worker.CycleResult{Runs: res.Runs, Recovered: res.Recovered, Errors: res.Errors}, true)
		for _, e := range res.Errors {
			fmt.Fprintln(f.IO.ErrOut, msgWorkerError.Format(lang, e))
		}
	})
	if errors.Is(err, context.Canceled) {
		return nil // stopped by the second signal; the runs were put back
	}
	return err
}

var (
	msgWorkerLabelMade  = i18n.Msg{JA: "%s: ラベル %q を作成しました", EN: "%s: created label %q"}
	msgWorkerLabelHad   = i18n.Msg{JA: "%s: ラベル %q はあります", EN: "%s: label %q exists"}
	msgWorkerQueue      = i18n.Msg{JA: "キュー（%s）:", EN: "Queue (%s):"}
	msgWorkerQueueState = i18n.Msg{JA: "  %-10s %d 件%s", EN: "  %-10s %d%s"}
	msgWorkerQueueBad   = i18n.Msg{JA: "キューを読めません: %s", EN: "cannot read the queue: %s"}
	msgWorkerThisHost   = i18n.Msg{JA: "このマシンの実行:", EN: "This machine's runs:"}
)

func workerSetupRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, true)
	if err != nil {
		return err
	}
	w, err := buildWorker(opts, cfg, lang, nil, nil)
	if err != nil {
		return err
	}
	states, err := w.Labels(ctx, true)
	for _, s := range states {
		if s.Existed {
			fmt.Fprintln(f.IO.Out, msgWorkerLabelHad.Format(lang, s.Repo, s.Label))
		} else {
			fmt.Fprintln(f.IO.Out, msgWorkerLabelMade.Format(lang, s.Repo, s.Label))
		}
	}
	return err
}

// printQueue prints the queue's jobs by state, and by host within a state.
func printQueue(out io.Writer, lang i18n.Lang, st *worker.QueueStatus) {
	fmt.Fprintln(out, msgWorkerQueue.Format(lang, st.Where))
	if len(st.Counts) == 0 {
		fmt.Fprintln(out, msgWorkerNone.In(lang))
	}
	for _, c := range st.ByState() {
		detail := ""
		if len(c.Hosts) > 0 {
			detail = "  (" + strings.Join(c.Hosts, ", ") + ")"
		}
		fmt.Fprintln(out, msgWorkerQueueState.Format(lang, c.State, c.Total, detail))
	}
}

var msgWorkerMigrated = i18n.Msg{JA: "キューのデータベース %s を最新にしました。", EN: "The queue database %s is up to date."}

func workerMigrateRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, false)
	if err != nil {
		return err
	}
	q, err := worker.OpenQueue(ctx, queueURL(f, cfg), workerDataDir(f), lang)
	if err != nil {
		return err
	}
	defer q.Close()
	if err := q.Migrate(ctx, lang); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, msgWorkerMigrated.Format(lang, q.Where()))
	return nil
}

// printCycle prints one line per issue the cycle touched; unless quiet, a
// cycle that touched none says so.
func printCycle(out io.Writer, lang i18n.Lang, res *worker.CycleResult, quiet bool) {
	if res == nil {
		return
	}
	for _, r := range res.Recovered {
		fmt.Fprintln(out, msgWorkerRecovered.Format(lang, r.Repo, r.Issue, r.ID, r.State))
	}
	for _, r := range res.Runs {
		fmt.Fprintln(out, runLine(lang, r))
		if r.LabelsPending || r.CommentPending != "" {
			fmt.Fprintln(out, msgWorkerPending.Format(lang, strings.Join(r.Errors, "; ")))
		}
	}
	for _, s := range res.Skipped {
		fmt.Fprintln(out, msgWorkerSkipped.Format(lang, s.Repo, s.Issue, s.Reason))
	}
	if !quiet && len(res.Runs) == 0 && len(res.Recovered) == 0 && len(res.Skipped) == 0 && len(res.Errors) == 0 {
		fmt.Fprintln(out, msgWorkerNothing.In(lang))
	}
}

// runLine describes a finished run in one line.
func runLine(lang i18n.Lang, r *worker.Record) string {
	switch {
	case r.State == worker.StateDone && r.PullRequest != nil && r.PullRequest.Fallback:
		return msgWorkerDraft.Format(lang, r.Repo, r.Issue, r.PullRequest.URL)
	case r.State == worker.StateDone && r.PullRequest != nil:
		return msgWorkerDone.Format(lang, r.Repo, r.Issue, r.PullRequest.URL)
	case r.State == worker.StateFailed:
		return msgWorkerFailed.Format(lang, r.Repo, r.Issue, r.Category)
	}
	return msgWorkerInterrupted.Format(lang, r.Repo, r.Issue)
}

func workerStatusRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, false)
	if err != nil {
		return err
	}
	w, err := buildWorker(opts, cfg, lang, nil, nil)
	if err != nil {
		return err
	}
	st, err := w.Status(max(opts.Limit, 0))
	if err != nil {
		return err
	}
	var qs *worker.QueueStatus
	var qerr error
	if q, err := openQueue(ctx, f, cfg, lang); err != nil {
		qerr = err
	} else {
		qs, qerr = q.Status(ctx, max(opts.Limit, 0))
		q.Close()
	}
	if opts.JSON {
		return workerJSON(f.IO.Out, struct {
			Queue      *worker.QueueStatus `json:"queue,omitempty"`
			QueueError string              `json:"queue_error,omitempty"`
			*worker.Status
		}{qs, errText(qerr), st})
	}
	out := f.IO.Out
	if qerr != nil {
		fmt.Fprintln(f.IO.ErrOut, msgWorkerQueueBad.Format(lang, qerr))
	} else {
		printQueue(out, lang, qs)
	}
	fmt.Fprintln(out, msgWorkerThisHost.In(lang))
	fmt.Fprintln(out, msgWorkerRunning.In(lang))
	if len(st.Running) == 0 {
		fmt.Fprintln(out, msgWorkerNone.In(lang))
	}
	for _, r := range st.Running {
		fmt.Fprintln(out, msgWorkerRunLine.Format(lang, r.Repo, r.Issue, r.StartedAt.Local().Format(time.DateTime), deadlineText(r.Deadline), r.Step, r.Branch))
	}
	fmt.Fprintln(out, msgWorkerRecent.In(lang))
	if len(st.Recent) == 0 {
		fmt.Fprintln(out, msgWorkerNone.In(lang))
	}
	for _, r := range st.Recent {
		line := runLine(lang, r)
		if r.LabelsPending || r.CommentPending != "" {
			line += msgWorkerStatusPending.In(lang)
		}
		fmt.Fprintf(out, "  %s  %s\n", r.StartedAt.Local().Format(time.DateTime), line)
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func deadlineText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(time.DateTime)
}

func workerServiceRun(ctx context.Context, opts *WorkerOptions) error {
	f := opts.Factory
	cfg, lang, err := workerSetup(opts, false)
	if err != nil {
		return err
	}
	if opts.Systemd == opts.Launchd {
		return flagError{errors.New(msgWorkerServiceFlag.In(lang))}
	}
	exe, err := f.Executable()
	if err != nil {
		return fmt.Errorf("find the baton binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	s := worker.Service{
		Executable:         exe,
		Path:               f.Getenv("PATH"),
		StopTimeoutMinutes: cfg.Worker.Execution.Timeout() + 5,
		LogDir:             filepath.Join(workerDataDir(f), "logs"),
	}
	// The queue named by BATON_QUEUE_URL goes into the service too: without
	// it the service would quietly serve a queue of its own on this machine.
	for _, k := range []string{"BATON_QUEUE_URL", "GITHUB_API_URL", "GITHUB_GRAPHQL_URL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "LANG"} {
		if v := f.Getenv(k); v != "" {
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[k] = v
		}
	}
	if s.Env["BATON_QUEUE_URL"] != "" {
		fmt.Fprintln(f.IO.ErrOut, msgWorkerServiceQueue.In(lang))
	}
	if opts.Systemd {
		fmt.Fprint(f.IO.Out, worker.SystemdUnit(s))
		fmt.Fprintln(f.IO.ErrOut, msgWorkerSystemdHint.In(lang))
		return nil
	}
	fmt.Fprint(f.IO.Out, worker.LaunchdPlist(s))
	fmt.Fprintln(f.IO.ErrOut, msgWorkerLaunchdHint.In(lang))
	return nil
}

// workerJSON prints v indented.
func workerJSON(out io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\n", b)
	return err
}
