package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
)

// labelSpec is one of the worker's labels as `baton worker setup` creates it.
type labelSpec struct {
	name, color string
	desc        i18n.Msg
}

func labelSpecs(l config.WorkerLabels) []labelSpec {
	return []labelSpec{
		{l.Trigger, "1d76db", i18n.Msg{JA: "baton worker に実装を頼む", EN: "Ask baton worker to implement this"}},
		{l.InProgress, "fbca04", i18n.Msg{JA: "baton worker が作業中", EN: "baton worker is working on this"}},
		{l.Done, "0e8a16", i18n.Msg{JA: "baton worker がプルリクエストを作成済み", EN: "baton worker opened a pull request"}},
		{l.Failed, "d93f0b", i18n.Msg{JA: "baton worker が失敗（コメント参照）", EN: "baton worker gave up (see its comment)"}},
	}
}

// LabelState is one label of one repository.
type LabelState struct {
	Repo  string `json:"repo"`
	Label string `json:"label"`
	// Existed: the repository had it; otherwise it was created (setup) or
	// is missing (check).
	Existed bool `json:"existed"`
}

// Labels checks each repository's worker labels; with create, the missing
// ones are created with their colour and description.
func (w *Worker) Labels(ctx context.Context, create bool) ([]LabelState, error) {
	var out []LabelState
	for _, repo := range w.opts.Config.Worker.Repositories {
		client, err := w.opts.Client(ctx, repo)
		if err != nil {
			return out, fmt.Errorf("%s: github client: %w", repo.Repo, err)
		}
		have, err := client.Labels(ctx)
		if err != nil {
			return out, fmt.Errorf("%s: %w", repo.Repo, err)
		}
		for _, s := range labelSpecs(repo.LabelSet()) {
			st := LabelState{Repo: repo.Repo, Label: s.name, Existed: have[s.name]}
			if !st.Existed && create {
				if err := client.EnsureLabel(ctx, s.name, s.color, s.desc.In(w.opts.Lang)); err != nil {
					return out, fmt.Errorf("%s: %w", repo.Repo, err)
				}
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// JobView is one issue job as `baton worker status` shows it.
type JobView struct {
	ID      int64  `json:"id"`
	Repo    string `json:"repo"`
	Issue   int    `json:"issue"`
	State   string `json:"state"`
	Host    string `json:"host,omitempty"`
	Attempt int    `json:"attempt"`
	// At is when the job last changed: finished, attempted or created.
	At time.Time `json:"at"`
}

// QueueStatus is the queue's issue jobs.
type QueueStatus struct {
	Where string `json:"where"`
	// Counts are jobs by state, then by host ("" for none yet).
	Counts map[string]map[string]int `json:"counts"`
	// Jobs are the latest jobs, newest first.
	Jobs []JobView `json:"jobs"`
}

// Status lists the queue's issue jobs: counts by state and host, counted
// by the database over all of them, and the latest limit jobs.
func (q *Queue) Status(ctx context.Context, limit int) (*QueueStatus, error) {
	st := &QueueStatus{Where: q.where, Counts: map[string]map[string]int{}, Jobs: []JobView{}}
	lastBy := "attempted_by[cardinality(attempted_by)]"
	if q.SQLite() {
		lastBy = "json_extract(attempted_by, '$[#-1]')"
	}
	rows, err := q.db.QueryContext(ctx, "SELECT state, COALESCE("+lastBy+", ''), count(*) FROM river_job WHERE kind = $1 GROUP BY 1, 2",
		IssueArgs{}.Kind())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			state, by string
			n         int
		)
		if err := rows.Scan(&state, &by, &n); err != nil {
			return nil, err
		}
		if st.Counts[state] == nil {
			st.Counts[state] = map[string]int{}
		}
		st.Counts[state][HostOf(by)] += n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	client, err := q.newClient(&river.Config{})
	if err != nil {
		return nil, err
	}
	res, err := client.JobList(ctx, river.NewJobListParams().Kinds(IssueArgs{}.Kind()).
		OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(max(limit, 1)))
	if err != nil {
		return nil, err
	}
	for _, j := range res.Jobs {
		if len(st.Jobs) < limit {
			st.Jobs = append(st.Jobs, jobView(j))
		}
	}
	return st, nil
}

// StateCount is the jobs of one state.
type StateCount struct {
	State string
	Total int
	// Hosts are "host n" for each host that took jobs of the state, sorted.
	Hosts []string
}

// ByState returns the job counts of the states that have jobs, in the
// order of States.
func (st *QueueStatus) ByState() []StateCount {
	var out []StateCount
	for _, state := range States() {
		byHost := st.Counts[state]
		if len(byHost) == 0 {
			continue
		}
		c := StateCount{State: state}
		for h, n := range byHost {
			c.Total += n
			if h != "" {
				c.Hosts = append(c.Hosts, fmt.Sprintf("%s %d", h, n))
			}
		}
		slices.Sort(c.Hosts)
		out = append(out, c)
	}
	return out
}

func jobView(j *rivertype.JobRow) JobView {
	var a IssueArgs
	_ = json.Unmarshal(j.EncodedArgs, &a)
	v := JobView{ID: j.ID, Repo: a.Repo, Issue: a.Issue, State: string(j.State), Attempt: j.Attempt, At: j.CreatedAt}
	if n := len(j.AttemptedBy); n > 0 {
		v.Host = HostOf(j.AttemptedBy[n-1])
	}
	for _, t := range []*time.Time{j.FinalizedAt, j.AttemptedAt} {
		if t != nil && t.After(v.At) {
			v.At = *t
		}
	}
	return v
}

// States lists the job states in the order status shows them.
func States() []string {
	return []string{"running", "available", "scheduled", "retryable", "pending", "completed", "cancelled", "discarded"}
}
