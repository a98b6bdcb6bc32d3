package worker

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river"
	"go.yaml.in/yaml/v3"

	"github.com/baton-cli/baton/internal/claudetest"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/modelserver"
	"github.com/baton-cli/baton/internal/pgtest"
)

// These tests run several `baton worker run` processes, each a host of its
// own (HOME, data folder, clone), on one Postgres queue.

// fleetHost is one worker host.
type fleetHost struct {
	name  string
	home  string
	clone string
	cmd   *exec.Cmd
	out   *syncBuffer
}

// newHost makes a host: a home folder and a clone of the harness's remote.
func (h *harness) newHost(t testing.TB, name string) *fleetHost {
	t.Helper()
	fh := &fleetHost{name: name, home: filepath.Join(t.TempDir(), name)}
	fh.clone = filepath.Join(fh.home, "clone")
	if err := os.MkdirAll(fh.home, 0o700); err != nil {
		t.Fatal(err)
	}
	h.git(t, fh.home, "clone", "-q", h.bare, fh.clone)
	return fh
}

// store is the host's run records, in the data folder its XDG_DATA_HOME
// gives.
func (fh *fleetHost) store() Store {
	return Store{Dir: filepath.Join(fh.home, ".local", "share", "baton", "worker")}
}

// fleetSetup is what a host's configuration and environment hold.
type fleetSetup struct {
	queueURL string
	agent    config.WorkerAgentSetup
	exec     map[string]any
	// env overrides the harness's environment (later entries win).
	env []string
}

// start starts `baton worker run` on the host.
func (h *harness) start(t testing.TB, bin string, fh *fleetHost, s fleetSetup) {
	t.Helper()
	cfgDir := filepath.Join(fh.home, ".config", "baton")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	x := map[string]any{"min_resume_minutes": 240, "timeout_minutes": 30, "interval_minutes": 2, "max_parallel": 2, "max_issues_per_repo": 20}
	for k, v := range s.exec {
		x[k] = v
	}
	doc := map[string]any{"worker": map[string]any{
		"repositories": []map[string]any{{"repo": "acme/widgets", "path": fh.clone}},
		"agent":        map[string]any{"command": s.agent.Command, "args": s.agent.Args, "env": s.agent.Env},
		"execution":    x,
		"queue":        map[string]any{"url": s.queueURL, "rescue_margin_seconds": 3},
	}}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "baton"), "worker", "run")
	cmd.Env = append(append(append([]string(nil), h.gitEnv...),
		"HOME="+fh.home,
		"XDG_CONFIG_HOME="+filepath.Join(fh.home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(fh.home, ".local", "share"),
		"BATON_WORKER_HOST="+fh.name,
		// A configured minute lasts a second.
		"BATON_WORKER_MINUTE=1s",
		"LANG=C.UTF-8"), s.env...)
	fh.cmd = cmd
	fh.out = startWithOutput(t, cmd)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("host %s output:\n%s", fh.name, fh.out.String())
		}
	})
}

// stop stops a host with one SIGTERM and waits for it.
func (fh *fleetHost) stop(t testing.TB) {
	t.Helper()
	fh.cmd.Process.Signal(syscall.SIGTERM)
	if err := fh.cmd.Wait(); err != nil {
		t.Errorf("host %s: %v\n%s", fh.name, err, fh.out.String())
	}
}

// migrate runs `baton worker migrate` against url.
func migrateQueue(t testing.TB, url string) {
	t.Helper()
	q, err := OpenQueue(t.Context(), url, t.TempDir(), i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Migrate(t.Context(), i18n.EN); err != nil {
		t.Fatal(err)
	}
}

// claimPosts counts the claim comments posted on each issue, deleted or
// not.
func (h *harness) claimPosts() map[int]int {
	out := map[int]int{}
	re := regexp.MustCompile(`/issues/(\d+)/comments$`)
	for _, r := range h.gh.Requests() {
		if r.Route != githubtest.RouteCreateComment || !strings.Contains(string(r.Body), "baton:claim ") {
			continue
		}
		if m := re.FindStringSubmatch(r.Path); m != nil {
			n, _ := strconv.Atoi(m[1])
			out[n]++
		}
	}
	return out
}

// agentStarts counts the fake agent's runs on each issue (from its
// worktree's name).
func (h *harness) agentStarts(t testing.TB) map[int]int {
	out := map[int]int{}
	for _, inv := range readInvocations(t, h.agentLog()) {
		num, _, _ := strings.Cut(filepath.Base(inv.Dir), "-")
		n, _ := strconv.Atoi(num)
		out[n]++
	}
	return out
}

// waitLabelled waits until every issue carries label.
func (h *harness) waitLabelled(t testing.TB, issues []int, label string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := 0
		for _, n := range issues {
			if !slices.Contains(h.labels(t, n), label) {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d issues still lack %s after %s", left, len(issues), label, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fakeAgentSetup is the fake agent with the given first-run actions.
func (h *harness) fakeAgentSetup(t testing.TB, fh *fleetHost, first string) config.WorkerAgentSetup {
	return config.WorkerAgentSetup{Command: testBinary(t), Env: map[string]string{
		"BATON_TEST_AGENT": "1",
		"BATON_TEST_FIRST": first,
		"BATON_TEST_LOG":   h.agentLog(),
		"BATON_TEST_PIDS":  filepath.Join(fh.home, "pids"),
	}}
}

// prsByIssue counts the pull requests from each issue's run branches.
func (h *harness) prsByIssue() map[int]int {
	prs := map[int]int{}
	for _, p := range h.gh.PullRequests() {
		if m := branchIssue.FindStringSubmatch(p.Head); m != nil {
			n, _ := strconv.Atoi(m[1])
			prs[n]++
		}
	}
	return prs
}

// addIssues adds k eligible issues, "Change 0" to "Change k-1".
func (h *harness) addIssues(k int) []int {
	var issues []int
	for i := range k {
		issues = append(issues, h.addIssue(fmt.Sprintf("Change %d", i), "body"))
	}
	return issues
}

// checkOnce fails t unless every issue was started and claimed exactly
// once, and got exactly one pull request.
func (h *harness) checkOnce(t testing.TB, issues []int) {
	t.Helper()
	starts, claims, prs := h.agentStarts(t), h.claimPosts(), h.prsByIssue()
	for _, n := range issues {
		if starts[n] != 1 || claims[n] != 1 || prs[n] != 1 {
			t.Errorf("issue %d: agent started %d times, claimed %d times, %d pull requests; want 1, 1, 1", n, starts[n], claims[n], prs[n])
		}
		h.wantLabels(t, n, doneLabels, activeLabels)
	}
}

func TestFleetThreeHostsThirtyIssues(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	issues := h.addIssues(30)
	var hosts []*fleetHost
	for i := range 3 {
		fh := h.newHost(t, "host-"+strconv.Itoa(i))
		h.start(t, bin, fh, fleetSetup{queueURL: url, agent: h.fakeAgentSetup(t, fh, "log,pr")})
		hosts = append(hosts, fh)
	}
	h.waitLabelled(t, issues, config.DefaultWorkerDone, 3*time.Minute)
	for _, fh := range hosts {
		fh.stop(t)
	}
	h.checkOnce(t, issues)
	// Every host took part.
	byHost := map[string]int{}
	for _, n := range issues {
		for _, c := range h.workerComments(n) {
			if m := regexp.MustCompile(`\*\*Host:\*\* (\S+)`).FindStringSubmatch(c.Body); m != nil {
				byHost[m[1]]++
			}
		}
	}
	if len(byHost) != 3 {
		t.Errorf("runs by host = %v; want all three hosts working", byHost)
	}
}

func TestFleetPostgresRestart(t *testing.T) {
	t.Parallel()
	cluster := pgtest.NewCluster(t)
	url := cluster.DB(t)
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	issues := h.addIssues(12)
	var hosts []*fleetHost
	for i := range 2 {
		fh := h.newHost(t, "host-"+strconv.Itoa(i))
		// Each run takes a moment, so that the restart falls mid-cycle.
		h.start(t, bin, fh, fleetSetup{queueURL: url, agent: h.fakeAgentSetup(t, fh, "log,pr,nap=300ms"),
			exec: map[string]any{"max_parallel": 1}})
		hosts = append(hosts, fh)
	}
	// Once some issues are done, the database restarts under the hosts.
	deadline := time.Now().Add(2 * time.Minute)
	for len(h.agentStarts(t)) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("no run started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cluster.Restart(); err != nil {
		t.Fatal(err)
	}
	h.waitLabelled(t, issues, config.DefaultWorkerDone, 3*time.Minute)
	for _, fh := range hosts {
		fh.stop(t)
	}
	h.checkOnce(t, issues)
}

func TestQueueErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	t.Run("unreachable", func(t *testing.T) {
		q, err := OpenQueue(ctx, "postgres://baton:s3cret-pass@127.0.0.1:1/nowhere?sslmode=disable", t.TempDir(), i18n.EN)
		if err == nil {
			defer q.Close()
			err = q.Check(ctx, i18n.EN)
		}
		if err == nil {
			t.Fatal("no error for an unreachable database")
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cret-pass") || !strings.Contains(msg, "127.0.0.1:1/nowhere") || !strings.Contains(msg, "worker.queue.url") {
			t.Errorf("error = %q; want the URL without its password, and what to check", msg)
		}
	})
	t.Run("unmigrated", func(t *testing.T) {
		url := pgtest.DB(t)
		q, err := OpenQueue(ctx, url, t.TempDir(), i18n.EN)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		err = q.Check(ctx, i18n.EN)
		if err == nil || !strings.Contains(err.Error(), "baton worker migrate") {
			t.Fatalf("error = %v; want the fix, baton worker migrate", err)
		}
		if err := q.Migrate(ctx, i18n.EN); err != nil {
			t.Fatal(err)
		}
		if err := q.Check(ctx, i18n.EN); err != nil {
			t.Errorf("after migrate: %v", err)
		}
	})
}

// queueDB opens the queue's database for a test's own queries.
func queueDB(t testing.TB, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// waitCheckpoint waits until the queue holds a checkpoint with a
// transcript and the remote has its branch, and returns the branch.
func (h *harness) waitCheckpoint(t testing.TB, db *sql.DB, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var branch string
		var size int
		err := db.QueryRowContext(context.Background(), "SELECT branch, coalesce(length(transcript), 0) FROM baton_checkpoint LIMIT 1").Scan(&branch, &size)
		if err == nil && size > 0 && h.remoteHas(branch) {
			return branch
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint with a transcript and a pushed branch after %s (last: %q %d %v)", within, branch, size, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestFleetKilledHostResumedFromCheckpoint(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	claudetest.Binary(t) // skip early when the CLI is missing
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	n := h.addIssue("Add a change file", "Add change.txt to the repository.")
	s := modelserver.New(t,
		// Host A commits, then works on until it is killed.
		bash(commitCommand),
		bash("timeout 90 tail -f /dev/null"),
		// Host B, resuming A's conversation on A's branch, pushes it and
		// opens the pull request (A's commit is there already).
		bash(strings.TrimPrefix(openPRCommand(n), commitCommand+" && ")),
		modelserver.Text("Opened the pull request."),
	)
	setup := func(fh *fleetHost) fleetSetup {
		e := claudetest.New(t, s)
		return fleetSetup{
			queueURL: url,
			agent:    config.WorkerAgentSetup{Command: e.Bin, Args: []string{"--allowedTools", "Bash"}},
			exec:     map[string]any{"timeout_minutes": 15},
			env:      e.Environ(),
		}
	}
	a, b := h.newHost(t, "host-a"), h.newHost(t, "host-b")
	h.start(t, bin, a, setup(a))
	db := queueDB(t, url)
	branch := h.waitCheckpoint(t, db, 90*time.Second)

	// Host A dies: SIGKILL to the worker and to its agent's group.
	recs, err := a.store().List()
	if err != nil || len(recs) != 1 || len(recs[0].Attempts) == 0 {
		t.Fatalf("host A's records = %v, %v; want its run", recs, err)
	}
	a.cmd.Process.Kill()
	a.cmd.Wait()
	if pid := recs[0].Attempts[0].PID; pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	mainBefore := len(s.Requests())

	h.start(t, bin, b, setup(b))
	h.waitLabelled(t, []int{n}, config.DefaultWorkerDone, 3*time.Minute)
	b.stop(t)

	prs := h.gh.PullRequests()
	if len(prs) != 1 || prs[0].Head != branch {
		t.Fatalf("pull requests = %+v; want one from the checkpoint's branch %s", prs, branch)
	}
	if log := h.git(t, h.bare, "log", "--format=%s", branch); !strings.Contains(log, "Add change.txt") {
		t.Errorf("branch %s log = %q; want host A's commit on it", branch, log)
	}
	reqs := s.Requests()
	if len(reqs) <= mainBefore {
		t.Fatalf("host B sent no request to the model")
	}
	first := reqs[mainBefore]
	if !strings.Contains(first.Text(), "Add change.txt to the repository.") || !strings.Contains(string(first.Body), "git commit -qm") {
		t.Errorf("host B's first request does not carry host A's conversation:\n%s", first.Text())
	}
	comments := h.workerComments(n)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "host-a") || !strings.Contains(comments[0].Body, "**Host:** host-b") {
		t.Errorf("comments = %v; want one success comment saying host-b continued host-a's run", comments)
		recs, _ := b.store().List()
		for _, r := range recs {
			for _, at := range r.Attempts {
				t.Logf("host B attempt %s: exit %d stdout %s stderr %s", at.Kind, at.ExitCode, at.Stdout, at.Stderr)
			}
		}
		for i, r := range s.Requests() {
			t.Logf("main request %d: prompt %q", i, lastChars(r.Prompt(), 200))
		}
	}
	if c := h.claimPosts()[n]; c != 2 {
		t.Errorf("claim comments posted = %d; want 2 (host A's, then host B's)", c)
	}
	if left := h.claimComments(n); len(left) != 0 {
		t.Errorf("claim comments left: %v", left)
	}
}

// BenchmarkFleet runs 100 scripted issues on 3 hosts × 2 workers over one
// Postgres queue and reports jobs per minute, the time a job spends beyond
// its agent (queue, git, GitHub, checkpoint), the wait before a job is
// picked up, and GitHub requests per issue. One iteration is a whole
// fleet run: use -benchtime 1x.
//
//	./scripts/test -run '^$' -bench BenchmarkFleet -benchtime 1x ./internal/worker
func BenchmarkFleet(b *testing.B) {
	const issues, hostCount = 100, 3
	for range b.N {
		b.StopTimer()
		url := pgtest.DB(b)
		bin := claudetest.BuildBaton(b)
		h := newHarness(b)
		migrateQueue(b, url)
		var nums []int
		for i := range issues {
			nums = append(nums, h.addIssue(fmt.Sprintf("Change %d", i), "body"))
		}
		var hosts []*fleetHost
		for i := range hostCount {
			hosts = append(hosts, h.newHost(b, "host-"+strconv.Itoa(i)))
		}
		b.StartTimer()
		start := time.Now()
		for _, fh := range hosts {
			h.start(b, bin, fh, fleetSetup{queueURL: url, agent: h.fakeAgentSetup(b, fh, "log,pr"),
				exec: map[string]any{"max_parallel": 2, "interval_minutes": 1}})
		}
		h.waitLabelled(b, nums, config.DefaultWorkerDone, 10*time.Minute)
		wall := time.Since(start)
		b.StopTimer()
		for _, fh := range hosts {
			fh.stop(b)
		}

		// Per job: River's time from pick-up to completion, less the
		// agent's own time; and the wait from available to picked up.
		db := queueDB(b, url)
		rows, err := db.Query(`SELECT id, attempted_at, finalized_at, scheduled_at FROM river_job WHERE kind = 'baton_issue' AND state = 'completed'`)
		if err != nil {
			b.Fatal(err)
		}
		jobTime := map[int64]time.Duration{}
		var waits []time.Duration
		for rows.Next() {
			var id int64
			var attempted, finalized, scheduled time.Time
			if err := rows.Scan(&id, &attempted, &finalized, &scheduled); err != nil {
				b.Fatal(err)
			}
			jobTime[id] = finalized.Sub(attempted)
			waits = append(waits, attempted.Sub(scheduled))
		}
		rows.Close()
		var overhead []time.Duration
		for _, fh := range hosts {
			recs, _ := fh.store().List()
			for _, r := range recs {
				var agent time.Duration
				for _, a := range r.Attempts {
					agent += a.EndedAt.Sub(a.StartedAt)
				}
				if d, ok := jobTime[r.JobID]; ok {
					overhead = append(overhead, d-agent)
				}
			}
		}
		if len(jobTime) != issues || len(overhead) != issues {
			b.Fatalf("%d completed jobs, %d run records; want %d", len(jobTime), len(overhead), issues)
		}
		b.ReportMetric(float64(issues)/wall.Minutes(), "jobs/min")
		b.ReportMetric(median(overhead).Seconds()*1000, "ms-beyond-agent/job")
		b.ReportMetric(median(waits).Seconds()*1000, "ms-pickup-wait/job")
		b.ReportMetric(float64(len(h.gh.Requests()))/issues, "github-requests/issue")
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestFleetStaleAttemptIgnored: host A is thought dead while its agent
// runs (its job goes back to the queue) and host B takes the job over;
// then A's agent ends with a pull request. A's end is ignored, by baton
// (no labels, no comment) and by the queue (the job stays B's), and B's
// run settles the issue.
func TestFleetStaleAttemptIgnored(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	h := newHarness(t)
	migrateQueue(t, url)
	n := h.addIssue("Add export", "body")
	db := queueDB(t, url)
	pids := filepath.Join(h.home, "pids")
	host := func(name string) (Options, string) {
		q, err := OpenQueue(t.Context(), url, t.TempDir(), i18n.EN)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.Close)
		goOn := filepath.Join(h.home, "go-"+name)
		opts := h.options(t, "log,pid,wait="+goOn+",pr,result=opened", "log")
		opts.Host, opts.Queue, opts.DataDir = name, q, filepath.Join(t.TempDir(), name)
		// Each host has a clone of its own.
		opts.Config.Worker.Repositories = slices.Clone(opts.Config.Worker.Repositories)
		opts.Config.Worker.Repositories[0].Path = h.newHost(t, name).clone
		return opts, goOn
	}
	optsA, goA := host("host-a")
	optsB, goB := host("host-b")
	results := make(chan *CycleResult, 2)
	run := func(opts Options) {
		res, err := newWorker(t, opts).Cycle(t.Context(), nil)
		if err != nil {
			t.Error(err)
		}
		results <- res
	}
	go run(optsA)
	waitPIDs(t, pids, 1)
	// Host A is thought dead: its job goes back to the queue.
	if _, err := db.ExecContext(t.Context(), "UPDATE river_job SET state = 'available' WHERE kind = 'baton_issue' AND state = 'running'"); err != nil {
		t.Fatal(err)
	}
	go run(optsB)
	waitPIDs(t, pids, 2)
	// A's agent ends with its pull request while B's runs.
	if err := os.WriteFile(goA, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	storeA := Store{Dir: optsA.DataDir}
	waitFor(t, "host A's run to end", func() bool {
		recs, _ := storeA.List()
		return len(recs) == 1 && (recs[0].Stale || recs[0].CommentURL != "")
	})
	recsA, _ := storeA.List()
	if r := recsA[0]; !r.Stale || r.State != StateInterrupted {
		t.Errorf("host A's record = %s stale %v (%s); want interrupted, stale", r.State, r.Stale, r.Summary)
	}
	var state string
	var attempt int
	if err := db.QueryRowContext(t.Context(), "SELECT state, attempt FROM river_job WHERE kind = 'baton_issue'").Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	if state != "running" || attempt != 2 {
		t.Errorf("job after A's end = %s, attempt %d; want running, attempt 2 (B's)", state, attempt)
	}
	if c := h.workerComments(n); len(c) != 1 || !strings.Contains(c[0].Body, "baton:claim") {
		t.Errorf("comments after A's end = %v; want B's claim alone", c)
	}
	h.wantLabels(t, n, []string{config.DefaultWorkerInProgress}, []string{config.DefaultWorkerDone})

	if err := os.WriteFile(goB, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	<-results
	<-results
	h.wantLabels(t, n, doneLabels, activeLabels)
	comments := h.workerComments(n)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "**Host:** host-b") {
		t.Errorf("comments = %v; want host B's success comment alone", comments)
	}
	if err := db.QueryRowContext(t.Context(), "SELECT state, attempt FROM river_job WHERE kind = 'baton_issue'").Scan(&state, &attempt); err != nil || state != "completed" || attempt != 2 {
		t.Errorf("job = %s, attempt %d, %v; want completed by attempt 2", state, attempt, err)
	}
}

// TestFleetHostKilledMidRun runs 12 issues on 3 hosts with a 30-minute
// budget and kills one host (SIGKILL) while it runs two jobs, whose agents
// have opened their pull requests and work on: the agents die with their
// host, its jobs are taken up by the other hosts within a minute of the
// rescue margin, which settle them on the pull requests already there, and
// every issue is done once with exactly one pull request.
func TestFleetHostKilledMidRun(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	issues := h.addIssues(12)
	var hosts []*fleetHost
	for i := range 3 {
		fh := h.newHost(t, "host-"+strconv.Itoa(i))
		h.start(t, bin, fh, fleetSetup{queueURL: url, agent: h.fakeAgentSetup(t, fh, "log,pr,nap=3s"),
			exec: map[string]any{"max_parallel": 2, "timeout_minutes": 30}})
		hosts = append(hosts, fh)
	}
	victim := hosts[0]
	var running []*Record
	waitFor(t, "host-0 to run two agents that opened their pull requests", func() bool {
		recs, _ := victim.store().List()
		heads := map[string]bool{}
		for _, p := range h.gh.PullRequests() {
			heads[p.Head] = true
		}
		running = running[:0]
		for _, r := range recs {
			if r.State == StateRunning && len(r.Attempts) > 0 && r.Attempts[len(r.Attempts)-1].PID > 0 && heads[r.Branch] {
				running = append(running, r)
			}
		}
		return len(running) == 2
	})
	victim.cmd.Process.Kill()
	killed := time.Now()
	victim.cmd.Wait()
	for _, r := range running {
		pid := r.Attempts[len(r.Attempts)-1].PID
		waitFor(t, fmt.Sprintf("agent %d of the killed host to die", pid), func() bool { return !alive(pid) })
	}

	h.waitLabelled(t, issues, config.DefaultWorkerDone, 4*time.Minute)
	for _, fh := range hosts[1:] {
		fh.stop(t)
	}
	prs, starts := h.prsByIssue(), h.agentStarts(t)
	lost := map[int]bool{running[0].Issue: true, running[1].Issue: true}
	for _, n := range issues {
		h.wantLabels(t, n, doneLabels, activeLabels)
		if prs[n] != 1 {
			t.Errorf("issue %d: %d pull requests; want exactly 1", n, prs[n])
		}
		if starts[n] != 1 {
			t.Errorf("issue %d: agent started %d times; want once", n, starts[n])
		}
		if c := h.workerComments(n); len(c) != 1 {
			t.Errorf("issue %d: %d worker comments; want the success comment alone", n, len(c))
		}
	}
	// The killed host's jobs ran elsewhere within a minute of the margin.
	for _, fh := range hosts[1:] {
		recs, _ := fh.store().List()
		for _, r := range recs {
			if !lost[r.Issue] || r.RescuedFrom != victim.name {
				continue
			}
			delete(lost, r.Issue)
			if d := r.StartedAt.Sub(killed); d > 3*time.Second+time.Minute {
				t.Errorf("issue %d ran again %s after the kill; want within a minute of the 3 s margin", r.Issue, d)
			}
		}
	}
	if len(lost) != 0 {
		t.Errorf("issues of the killed host not continued by another host: %v", lost)
	}
}

// BenchmarkFleetRescue kills a host (SIGKILL) while it runs a job, ten
// times, and reports the median time from its death to its job running on
// the other host, with a rescue margin of 3 s. One iteration is the ten
// kills: use -benchtime 1x.
//
//	./scripts/test -run '^$' -bench BenchmarkFleetRescue -benchtime 1x ./internal/worker
func BenchmarkFleetRescue(b *testing.B) {
	const kills = 10
	for range b.N {
		b.StopTimer()
		url := pgtest.DB(b)
		bin := claudetest.BuildBaton(b)
		h := newHarness(b)
		migrateQueue(b, url)
		db := queueDB(b, url)
		var ds []time.Duration
		for i := range kills {
			n := h.addIssue(fmt.Sprintf("Change %d", i), "body")
			a, other := h.newHost(b, fmt.Sprintf("a-%d", i)), h.newHost(b, fmt.Sprintf("b-%d", i))
			// The agent opens its pull request at the end, long after.
			setup := func(fh *fleetHost) fleetSetup {
				return fleetSetup{queueURL: url, agent: h.fakeAgentSetup(b, fh, "log,pid,nap=60s,pr")}
			}
			h.start(b, bin, a, setup(a))
			waitPIDs(b, filepath.Join(a.home, "pids"), 1)
			h.start(b, bin, other, setup(other))
			a.cmd.Process.Kill()
			died := time.Now()
			a.cmd.Wait()
			deadline := died.Add(2 * time.Minute)
			for {
				var by string
				err := db.QueryRow(`SELECT attempted_by[array_length(attempted_by, 1)] FROM river_job
					WHERE kind = 'baton_issue' AND state = 'running' AND args->>'issue' = $1`, strconv.Itoa(n)).Scan(&by)
				if err == nil && strings.HasPrefix(by, other.name+"/") {
					ds = append(ds, time.Since(died))
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("kill %d: the job did not run on %s within 2 minutes (last %q, %v)", i, other.name, by, err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			other.cmd.Process.Kill()
			other.cmd.Wait()
			// The next round starts with no job running.
			if _, err := db.Exec(`UPDATE river_job SET state = 'cancelled', finalized_at = now() WHERE kind = 'baton_issue' AND state <> 'completed'`); err != nil {
				b.Fatal(err)
			}
		}
		slices.Sort(ds)
		b.Logf("death to running elsewhere, %d kills: %v", kills, ds)
		b.ReportMetric(median(ds).Seconds(), "s-death-to-running-elsewhere")
		b.ReportMetric(ds[0].Seconds(), "s-min")
		b.ReportMetric(ds[len(ds)-1].Seconds(), "s-max")
	}
}

// TestFleetHostLostOnLastAttempt kills a host on its job's last attempt:
// the other host ends the job, labels the issue failed with a comment
// saying why, runs no agent and enqueues nothing again.
func TestFleetHostLostOnLastAttempt(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	db := queueDB(t, url)
	n := h.addIssue("Add export", "body")
	a, b := h.newHost(t, "host-a"), h.newHost(t, "host-b")
	setup := func(fh *fleetHost) fleetSetup {
		return fleetSetup{queueURL: url, agent: h.fakeAgentSetup(t, fh, "log,pid,nap=60s,pr")}
	}
	h.start(t, bin, a, setup(a))
	waitPIDs(t, filepath.Join(a.home, "pids"), 1)
	// This attempt is the job's last.
	if _, err := db.ExecContext(t.Context(), "UPDATE river_job SET max_attempts = attempt WHERE kind = 'baton_issue'"); err != nil {
		t.Fatal(err)
	}
	a.cmd.Process.Kill()
	a.cmd.Wait()
	h.start(t, bin, b, setup(b))
	h.waitLabelled(t, []int{n}, config.DefaultWorkerFailed, time.Minute)
	// Two polls of host B later, nothing was enqueued again.
	polls := func() int {
		var c int
		db.QueryRowContext(t.Context(), "SELECT count(*) FROM river_job WHERE kind = 'baton_poll' AND state = 'completed'").Scan(&c)
		return c
	}
	p0 := polls()
	waitFor(t, "two more polls", func() bool { return polls() >= p0+2 })
	b.stop(t)

	var jobs int
	var state string
	if err := db.QueryRowContext(t.Context(), "SELECT count(*), min(state::text) FROM river_job WHERE kind = 'baton_issue'").Scan(&jobs, &state); err != nil || jobs != 1 || state != "discarded" {
		t.Errorf("issue jobs = %d, state %s, %v; want the one job, discarded", jobs, state, err)
	}
	if got := h.agentStarts(t)[n]; got != 1 {
		t.Errorf("agent started %d times; want once, on host A", got)
	}
	h.wantLabels(t, n, failedLabels, append([]string{config.DefaultWorkerDone}, activeLabels...))
	comments := h.workerComments(n)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, string(HostLost)) || !strings.Contains(comments[0].Body, "host-a") {
		t.Errorf("worker comments = %v; want one failure comment naming %s and host-a", comments, HostLost)
	}
}

// TestFleetConcurrentEnqueuesOneJobPerIssue: three hosts, each with its own
// connections to one Postgres queue, enqueue the same 12 issues at once:
// the queue holds one job per issue, and each was inserted by one host.
func TestFleetConcurrentEnqueuesOneJobPerIssue(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	migrateQueue(t, url)
	const issues, hosts = 12, 3
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		inserted = map[int]int{}
		start    = make(chan struct{})
		db       *sql.DB
	)
	for i := range hosts {
		q, err := OpenQueue(t.Context(), url, t.TempDir(), i18n.EN)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		db = q.db
		client, err := q.newClient(&river.Config{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			for k := range issues {
				// The hosts go through the issues from different ends.
				n := 1 + (k+i*issues/hosts)%issues
				res, err := enqueueIssue(t.Context(), client, "acme/widgets", n)
				if err != nil {
					t.Errorf("host %d: enqueue #%d: %v", i, n, err)
					return
				}
				if !res.UniqueSkippedAsDuplicate {
					mu.Lock()
					inserted[n]++
					mu.Unlock()
				}
			}
		})
	}
	close(start)
	wg.Wait()
	rows, err := db.QueryContext(t.Context(), "SELECT (args->>'issue')::int, count(*) FROM river_job WHERE kind = $1 GROUP BY 1", IssueArgs{}.Kind())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	jobs := map[int]int{}
	for rows.Next() {
		var n, c int
		if err := rows.Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		jobs[n] = c
	}
	for n := 1; n <= issues; n++ {
		if jobs[n] != 1 || inserted[n] != 1 {
			t.Errorf("issue %d: %d jobs in the queue, %d inserts reported; want 1 and 1", n, jobs[n], inserted[n])
		}
	}
}

// TestFleetPerRepoCap runs three hosts of two workers each with
// max_issues_per_repo 1: the agent runs of the repository's issues, timed
// by the agent itself, never overlap, and every issue is done once.
func TestFleetPerRepoCap(t *testing.T) {
	t.Parallel()
	url := pgtest.DB(t)
	bin := buildBaton(t)
	h := newHarness(t)
	migrateQueue(t, url)
	issues := h.addIssues(4)
	marks := filepath.Join(h.home, "marks")
	var hosts []*fleetHost
	for i := range 3 {
		fh := h.newHost(t, "host-"+strconv.Itoa(i))
		agent := h.fakeAgentSetup(t, fh, "log,mark=start,nap=1500ms,pr,mark=end")
		agent.Env["BATON_TEST_MARKS"] = marks
		h.start(t, bin, fh, fleetSetup{queueURL: url, agent: agent,
			exec: map[string]any{"max_issues_per_repo": 1, "interval_minutes": 1}})
		hosts = append(hosts, fh)
	}
	h.waitLabelled(t, issues, config.DefaultWorkerDone, 3*time.Minute)
	for _, fh := range hosts {
		fh.stop(t)
	}
	h.checkOnce(t, issues)
	b, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ start, end int64 }
	spans := map[string]*span{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("mark line %q", line)
		}
		at, _ := strconv.ParseInt(f[1], 10, 64)
		sp := spans[f[2]]
		if sp == nil {
			sp = &span{}
			spans[f[2]] = sp
		}
		if f[0] == "start" {
			sp.start = at
		} else {
			sp.end = at
		}
	}
	var all []span
	for dir, sp := range spans {
		if sp.start == 0 || sp.end == 0 {
			t.Errorf("agent run in %s: start %d, end %d; want both", dir, sp.start, sp.end)
		}
		all = append(all, *sp)
	}
	slices.SortFunc(all, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(all); i++ {
		if all[i].start < all[i-1].end {
			t.Errorf("agent runs overlap: one started %s before the one before it ended; max_issues_per_repo 1 allows one at a time",
				time.Duration(all[i-1].end-all[i].start))
		}
	}
	if len(all) != len(issues) {
		t.Errorf("%d agent runs; want %d", len(all), len(issues))
	}
}
