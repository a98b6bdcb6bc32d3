package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// appSlug is a GitHub App's slug, as in github.com/apps/<slug>. Compiled
// on first use: the hook program links this package, and starts for every
// tool call.
var appSlug = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`) })

// Worker configures `baton worker`: which repositories it watches, how it
// runs the agent on their labelled issues, and with what budget.
type Worker struct {
	Repositories []WorkerRepo     `yaml:"repositories"`
	Execution    WorkerExecution  `yaml:"execution"`
	Agent        WorkerAgentSetup `yaml:"agent"`
	Queue        WorkerQueue      `yaml:"queue"`
	GitHub       WorkerGitHub     `yaml:"github"`
}

// WorkerGitHub says who the worker is on GitHub.
type WorkerGitHub struct {
	// AppSlug is the slug of the GitHub App whose installation token the
	// worker uses: the worker is then the app's bot, <slug>[bot]. Such a
	// token cannot ask GitHub for its user; empty means the token is a
	// user's and GitHub is asked.
	AppSlug string `yaml:"app_slug"`
}

// BotLogin returns the login of the app's bot, "" without an app slug.
func (g WorkerGitHub) BotLogin() string {
	if g.AppSlug == "" {
		return ""
	}
	return g.AppSlug + "[bot]"
}

// WorkerQueue is the job queue the worker hosts share.
type WorkerQueue struct {
	// URL is the queue's database: a postgres:// URL for several hosts;
	// empty for a SQLite file in the worker's data folder (one machine).
	// BATON_QUEUE_URL overrides it.
	URL string `yaml:"url"`
	// RescueMarginSeconds is added to a run's budget before the queue
	// gives the job of a host that stopped answering to another host
	// (0–3600, default 60).
	RescueMarginSeconds *int `yaml:"rescue_margin_seconds"`
}

// DefaultWorkerRescueMarginSeconds is the default of
// worker.queue.rescue_margin_seconds.
const DefaultWorkerRescueMarginSeconds = 60

// RescueMargin returns the rescue margin in seconds.
func (q WorkerQueue) RescueMargin() int {
	if q.RescueMarginSeconds == nil {
		return DefaultWorkerRescueMarginSeconds
	}
	return *q.RescueMarginSeconds
}

// WorkerRepo is one repository the worker takes issues from.
type WorkerRepo struct {
	// Repo is the GitHub repository, owner/name.
	Repo string `yaml:"repo"`
	// Path is the local clone the worker fetches into and makes worktrees
	// from; a leading ~/ means the home folder.
	Path string `yaml:"path"`
	// DefaultBranch is the branch work starts from and pull requests target
	// (default main).
	DefaultBranch string `yaml:"default_branch"`
	// PriorityLabels order the issues: the first label marks high priority,
	// the second low; issues with neither come between.
	PriorityLabels []string `yaml:"priority_labels"`
	// Labels are the labels that drive an issue through the worker.
	Labels WorkerLabels `yaml:"labels"`
}

// WorkerLabels name the labels of an issue's way through the worker.
type WorkerLabels struct {
	// Trigger asks the worker to take the issue (default ai/impl).
	Trigger string `yaml:"trigger"`
	// InProgress marks an issue a worker has claimed (default
	// ai/impl/in-progress).
	InProgress string `yaml:"in_progress"`
	// Done marks an issue that got a pull request (default ai/impl/done).
	Done string `yaml:"done"`
	// Failed marks an issue the worker gave up on (default ai/impl/failed).
	Failed string `yaml:"failed"`
}

// WorkerExecution bounds the worker's runs. Zero values mean the default.
type WorkerExecution struct {
	// MaxParallel is how many issues one host works on at once, its
	// River workers (1–10, default 1).
	MaxParallel int `yaml:"max_parallel"`
	// MaxIssuesPerRepo is how many jobs of one repository the queue holds
	// at once, queued or running (1–20, default 1).
	MaxIssuesPerRepo int `yaml:"max_issues_per_repo"`
	// TimeoutMinutes is the wall-clock budget of one issue, shared by the
	// agent's first run and its resumed session (1–240, default 60).
	TimeoutMinutes int `yaml:"timeout_minutes"`
	// IntervalMinutes is the time between the cycles of `baton worker run`
	// (1–1440, default 10).
	IntervalMinutes int `yaml:"interval_minutes"`
	// MinResumeMinutes is the least budget left for which a session that
	// ended without a pull request is resumed (1–240, default 5).
	MinResumeMinutes int `yaml:"min_resume_minutes"`
	// PRFallback opens a draft pull request from the run's commits when the
	// agent ended without one (default true).
	PRFallback *bool `yaml:"pr_fallback"`
	// KeepFailedWorktrees keeps the worktree of a failed run for a person
	// to look at (default false: it is removed; the branch stays).
	KeepFailedWorktrees bool `yaml:"keep_failed_worktrees"`
}

// WorkerAgentSetup is the agent command the worker runs.
type WorkerAgentSetup struct {
	// Command is the agent program (default: agent.command, else claude).
	Command string `yaml:"command"`
	// Args are added after "-p --output-format json", e.g. permission
	// flags such as --allowedTools.
	Args []string `yaml:"args"`
	// Env holds variables added to the agent's environment.
	Env map[string]string `yaml:"env"`
	// PassEnv names more variables of the worker's environment that the
	// agent gets, beyond the ones it always gets (PATH, HOME, language,
	// git, GitHub, Anthropic and Claude Code variables, proxies). baton's
	// own (BATON_…) are never passed.
	PassEnv []string `yaml:"pass_env"`
}

// Worker defaults.
const (
	DefaultWorkerBranch           = "main"
	DefaultWorkerTrigger          = "ai/impl"
	DefaultWorkerInProgress       = "ai/impl/in-progress"
	DefaultWorkerDone             = "ai/impl/done"
	DefaultWorkerFailed           = "ai/impl/failed"
	DefaultWorkerMaxParallel      = 1
	DefaultWorkerMaxIssuesPerRepo = 1
	DefaultWorkerTimeoutMinutes   = 60
	DefaultWorkerIntervalMinutes  = 10
	DefaultWorkerMinResumeMinutes = 5
)

// workerRange is the allowed range of an integer worker setting.
type workerRange struct {
	key      string
	value    int
	min, max int
}

// Branch returns the repository's default branch.
func (r WorkerRepo) Branch() string {
	return workerDefault(r.DefaultBranch, DefaultWorkerBranch)
}

// LabelSet returns the repository's labels with the defaults applied.
func (r WorkerRepo) LabelSet() WorkerLabels {
	return WorkerLabels{
		Trigger:    workerDefault(r.Labels.Trigger, DefaultWorkerTrigger),
		InProgress: workerDefault(r.Labels.InProgress, DefaultWorkerInProgress),
		Done:       workerDefault(r.Labels.Done, DefaultWorkerDone),
		Failed:     workerDefault(r.Labels.Failed, DefaultWorkerFailed),
	}
}

// OwnerName splits Repo into its owner and name.
func (r WorkerRepo) OwnerName() (owner, name string) {
	owner, name, _ = strings.Cut(r.Repo, "/")
	return owner, name
}

// MaxParallelRuns returns how many repositories are worked on at once.
func (e WorkerExecution) MaxParallelRuns() int {
	return workerDefaultInt(e.MaxParallel, DefaultWorkerMaxParallel)
}

// IssuesPerRepo returns how many issues of one repository a cycle takes.
func (e WorkerExecution) IssuesPerRepo() int {
	return workerDefaultInt(e.MaxIssuesPerRepo, DefaultWorkerMaxIssuesPerRepo)
}

// Timeout returns the budget of one issue in minutes.
func (e WorkerExecution) Timeout() int {
	return workerDefaultInt(e.TimeoutMinutes, DefaultWorkerTimeoutMinutes)
}

// Interval returns the minutes between cycles.
func (e WorkerExecution) Interval() int {
	return workerDefaultInt(e.IntervalMinutes, DefaultWorkerIntervalMinutes)
}

// MinResume returns the least budget, in minutes, worth a resumed session.
func (e WorkerExecution) MinResume() int {
	return workerDefaultInt(e.MinResumeMinutes, DefaultWorkerMinResumeMinutes)
}

// Fallback reports whether a draft pull request is opened from the run's
// commits when the agent opened none.
func (e WorkerExecution) Fallback() bool { return e.PRFallback == nil || *e.PRFallback }

// WorkerAgentCommand returns the program the worker runs as the agent.
func (c *Config) WorkerAgentCommand() string {
	return workerDefault(c.Worker.Agent.Command, c.AgentCommand())
}

func (w *Worker) validate() error {
	x := w.Execution
	for _, r := range []workerRange{
		{"max_parallel", x.MaxParallel, 1, 10},
		{"max_issues_per_repo", x.MaxIssuesPerRepo, 1, 20},
		{"timeout_minutes", x.TimeoutMinutes, 1, 240},
		{"interval_minutes", x.IntervalMinutes, 1, 1440},
		{"min_resume_minutes", x.MinResumeMinutes, 1, 240},
	} {
		if r.value != 0 && (r.value < r.min || r.value > r.max) {
			return fmt.Errorf("config: worker.execution.%s is %d; it must be between %d and %d", r.key, r.value, r.min, r.max)
		}
	}
	if m := w.Queue.RescueMargin(); m < 0 || m > 3600 {
		return fmt.Errorf("config: worker.queue.rescue_margin_seconds is %d; it must be between 0 and 3600", m)
	}
	if u := w.Queue.URL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return fmt.Errorf("config: worker.queue.url must be a postgres:// URL, or empty for the local SQLite queue")
	}
	if s := w.GitHub.AppSlug; s != "" && !appSlug().MatchString(s) {
		return fmt.Errorf("config: worker.github.app_slug is %q; it must be the app's slug as in its URL (lower-case letters, digits and hyphens, without \"[bot]\")", s)
	}
	if w.Agent.Command != "" && strings.TrimSpace(w.Agent.Command) == "" {
		return fmt.Errorf("config: worker.agent.command must not be blank")
	}
	for k := range w.Agent.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return fmt.Errorf("config: worker.agent.env: %q is not a variable name", k)
		}
	}
	seen := map[string]bool{}
	for i, r := range w.Repositories {
		key := fmt.Sprintf("config: worker.repositories[%d]", i)
		owner, name, ok := strings.Cut(r.Repo, "/")
		if !ok || owner == "" || name == "" || strings.ContainsAny(name, "/ ") || strings.ContainsAny(owner, " ") {
			return fmt.Errorf("%s.repo is %q; it must be owner/name", key, r.Repo)
		}
		if seen[strings.ToLower(r.Repo)] {
			return fmt.Errorf("%s.repo: %s is listed twice", key, r.Repo)
		}
		seen[strings.ToLower(r.Repo)] = true
		if strings.TrimSpace(r.Path) == "" {
			return fmt.Errorf("%s.path is required: the local clone of %s", key, r.Repo)
		}
		if strings.HasPrefix(r.Branch(), "-") || strings.ContainsAny(r.Branch(), " \t\n") {
			return fmt.Errorf("%s.default_branch %q is not a branch name", key, r.DefaultBranch)
		}
		if len(r.PriorityLabels) > 2 {
			return fmt.Errorf("%s.priority_labels has %d labels; it takes at most 2 (high, then low)", key, len(r.PriorityLabels))
		}
		l := r.LabelSet()
		names := map[string]string{}
		for _, p := range [][2]string{{"trigger", l.Trigger}, {"in_progress", l.InProgress}, {"done", l.Done}, {"failed", l.Failed}} {
			if strings.TrimSpace(p[1]) == "" {
				return fmt.Errorf("%s.labels.%s must not be blank", key, p[0])
			}
			if other, dup := names[p[1]]; dup {
				return fmt.Errorf("%s.labels.%s and labels.%s are both %q; they must differ", key, other, p[0], p[1])
			}
			names[p[1]] = p[0]
		}
	}
	return nil
}

func workerDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

func workerDefaultInt(n, def int) int {
	if n != 0 {
		return n
	}
	return def
}
