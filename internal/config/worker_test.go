package config

import (
	"strings"
	"testing"
)

func TestWorkerDefaults(t *testing.T) {
	p := write(t, t.TempDir(), "config.yaml", "worker:\n  repositories:\n    - repo: acme/widgets\n      path: /src/widgets\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Worker.Repositories[0]
	x := c.Worker.Execution
	got := []any{r.Branch(), r.LabelSet(), x.MaxParallelRuns(), x.IssuesPerRepo(), x.Timeout(), x.Interval(), x.MinResume(), x.Fallback(), c.WorkerAgentCommand()}
	want := []any{"main", WorkerLabels{"ai/impl", "ai/impl/in-progress", "ai/impl/done", "ai/impl/failed"}, 1, 1, 60, 10, 5, true, "claude"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("setting %d = %v; want %v", i, got[i], want[i])
		}
	}
	if owner, name := r.OwnerName(); owner != "acme" || name != "widgets" {
		t.Errorf("OwnerName = %s, %s; want acme, widgets", owner, name)
	}
}

func TestWorkerSettings(t *testing.T) {
	body := `agent:
  command: top-claude
worker:
  repositories:
    - repo: acme/widgets
      path: ~/src/widgets
      default_branch: trunk
      priority_labels: [p1, p3]
      labels: {trigger: go, in_progress: going, done: gone, failed: stuck}
  execution:
    max_parallel: 10
    max_issues_per_repo: 20
    timeout_minutes: 240
    interval_minutes: 1
    min_resume_minutes: 1
    pr_fallback: false
    keep_failed_worktrees: true
  agent:
    args: [--allowedTools, Bash]
    env: {CLAUDE_CODE_MAX_RETRIES: "3"}
  github:
    app_slug: baton-app
`
	c, err := Load(write(t, t.TempDir(), "config.yaml", body))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Worker.Repositories[0]
	x := c.Worker.Execution
	got := []any{r.Branch(), r.LabelSet(), x.MaxParallelRuns(), x.IssuesPerRepo(), x.Timeout(), x.Interval(), x.MinResume(), x.Fallback(), x.KeepFailedWorktrees, c.WorkerAgentCommand(), strings.Join(c.Worker.Agent.Args, " "), c.Worker.Agent.Env["CLAUDE_CODE_MAX_RETRIES"], c.Worker.GitHub.BotLogin()}
	want := []any{"trunk", WorkerLabels{"go", "going", "gone", "stuck"}, 10, 20, 240, 1, 1, false, true, "top-claude", "--allowedTools Bash", "3", "baton-app[bot]"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("setting %d = %v; want %v", i, got[i], want[i])
		}
	}
}

func TestWorkerRejected(t *testing.T) {
	repo := "worker:\n  repositories:\n    - repo: acme/widgets\n      path: /src/w\n"
	tests := []struct {
		name, body string
		want       []string
	}{
		{"max_parallel high", "worker:\n  execution:\n    max_parallel: 11\n", []string{"worker.execution.max_parallel", "11", "between 1 and 10"}},
		{"max_parallel negative", "worker:\n  execution:\n    max_parallel: -1\n", []string{"worker.execution.max_parallel", "between 1 and 10"}},
		{"issues per repo", "worker:\n  execution:\n    max_issues_per_repo: 21\n", []string{"worker.execution.max_issues_per_repo", "between 1 and 20"}},
		{"timeout", "worker:\n  execution:\n    timeout_minutes: 241\n", []string{"worker.execution.timeout_minutes", "between 1 and 240"}},
		{"interval", "worker:\n  execution:\n    interval_minutes: 1441\n", []string{"worker.execution.interval_minutes", "between 1 and 1440"}},
		{"min resume", "worker:\n  execution:\n    min_resume_minutes: 300\n", []string{"worker.execution.min_resume_minutes", "between 1 and 240"}},
		{"unknown key", "worker:\n  execution:\n    timeout: 3\n", []string{`unknown key "worker.execution.timeout"`}},
		{"unknown repo key", "worker:\n  repositories:\n    - repo: a/b\n      branch: x\n", []string{`unknown key "worker.repositories[0].branch"`}},
		{"repo shape", "worker:\n  repositories:\n    - repo: widgets\n      path: /x\n", []string{"worker.repositories[0].repo", "owner/name"}},
		{"repo twice", repo + "    - repo: Acme/Widgets\n      path: /y\n", []string{"worker.repositories[1].repo", "twice"}},
		{"no path", "worker:\n  repositories:\n    - repo: a/b\n", []string{"worker.repositories[0].path", "required"}},
		{"three priorities", "worker:\n  repositories:\n    - repo: a/b\n      path: /x\n      priority_labels: [a, b, c]\n", []string{"priority_labels", "at most 2"}},
		{"same labels", "worker:\n  repositories:\n    - repo: a/b\n      path: /x\n      labels: {done: ai/impl}\n", []string{"labels.trigger", "labels.done", "must differ"}},
		{"bad env", "worker:\n  agent:\n    env: {\"A B\": x}\n", []string{"worker.agent.env"}},
		{"app slug with bot", "worker:\n  github:\n    app_slug: baton-app[bot]\n", []string{"worker.github.app_slug", "without"}},
		{"bad branch", "worker:\n  repositories:\n    - repo: a/b\n      path: /x\n      default_branch: --force\n", []string{"default_branch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, t.TempDir(), "config.yaml", tt.body))
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
