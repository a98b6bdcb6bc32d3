package github

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker"
)

// waits records the waits the retry transport asked for, without waiting.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(_ context.Context, d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d = append(w.d, d)
	return nil
}

func (w *waits) get() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

// newClient returns a client of srv whose retries record their waits.
func newClient(t *testing.T, srv *githubtest.Server, edit ...func(*Config)) (*Client, *waits) {
	t.Helper()
	cfg, err := Resolve(context.Background(), Env{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	w := &waits{}
	cfg.UserAgent = "baton/test"
	cfg.Sleep = w.sleep
	cfg.Retry = Retry{Timeout: 5 * time.Second}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

func TestIssues(t *testing.T) {
	ctx := context.Background()
	srv := githubtest.New(t)
	srv.AddIssue(githubtest.Issue{Title: "one", Body: "first", Labels: []string{"ai/impl"}, Author: "alice", AuthorAssociation: "MEMBER"})
	srv.AddPullRequest(githubtest.PullRequest{Title: "a pull request", Head: "x", Labels: []string{"ai/impl"}})
	srv.AddIssue(githubtest.Issue{Title: "three", State: "closed", Labels: []string{"ai/impl"}})
	srv.AddIssue(githubtest.Issue{Title: "four", Labels: []string{"ai/impl", "priority:high"}, AuthorAssociation: "NONE"})
	c, _ := newClient(t, srv)

	is, err := c.Issue(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if is.Title != "one" || is.Body != "first" || is.State != "open" || is.Author != "alice" || is.AuthorAssociation != "MEMBER" ||
		fmt.Sprint(is.Labels) != "[ai/impl]" || !strings.HasSuffix(is.URL, "/acme/widgets/issues/1") || is.CreatedAt.IsZero() {
		t.Errorf("Issue(1) = %+v; want the seeded issue", is)
	}

	tests := []struct {
		name string
		opts tracker.ListOptions
		want []int
	}{
		{"open by default, no pull requests", tracker.ListOptions{}, []int{1, 4}},
		{"all", tracker.ListOptions{State: "all"}, []int{1, 3, 4}},
		{"closed", tracker.ListOptions{State: "closed"}, []int{3}},
		{"every label must match", tracker.ListOptions{Labels: []string{"ai/impl", "priority:high"}}, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ListIssues(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var nums []int
			for _, is := range got {
				nums = append(nums, is.Number)
			}
			if fmt.Sprint(nums) != fmt.Sprint(tt.want) {
				t.Errorf("ListIssues(%+v) = %v; want %v", tt.opts, nums, tt.want)
			}
		})
	}
	if _, err := c.ListIssues(ctx, tracker.ListOptions{State: "merged"}); err == nil {
		t.Error("ListIssues(state merged) succeeded; want an error")
	}

	created, err := c.CreateIssue(ctx, tracker.NewIssue{Title: "new", Body: "b", Labels: []string{"fresh"}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Number != 5 || created.Author != githubtest.DefaultLogin || fmt.Sprint(created.Labels) != "[fresh]" {
		t.Errorf("CreateIssue = %+v; want #5 by %s labelled fresh", created, githubtest.DefaultLogin)
	}
}

func TestIssueListPagination(t *testing.T) {
	srv := githubtest.New(t)
	for i := range 230 {
		srv.AddIssue(githubtest.Issue{Title: fmt.Sprint("issue ", i)})
	}
	c, _ := newClient(t, srv)
	got, err := c.ListIssues(context.Background(), tracker.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 230 || got[0].Number != 1 || got[229].Number != 230 {
		t.Fatalf("got %d issues; want 230 from #1 to #230", len(got))
	}
	if n := srv.Calls(githubtest.RouteListIssues); n != 3 {
		t.Errorf("list requests = %d; want 3 pages of 100", n)
	}
}

func TestCommentsAcrossPages(t *testing.T) {
	ctx := context.Background()
	srv := githubtest.New(t)
	n := srv.AddIssue(githubtest.Issue{Title: "busy"})
	var ids []int64
	for i := range 250 {
		ids = append(ids, srv.AddComment(githubtest.Comment{Issue: n, Body: fmt.Sprint("comment ", i), Author: "github-actions[bot]", AuthorAssociation: "NONE"}))
	}
	c, _ := newClient(t, srv)
	got, err := c.Comments(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Fatalf("got %d comments; want 250", len(got))
	}
	for i, cm := range got {
		if cm.ID != ids[i] || cm.Body != fmt.Sprint("comment ", i) || cm.Author != "github-actions[bot]" || !strings.Contains(cm.URL, "#issuecomment-") {
			t.Fatalf("comment %d = %+v; want id %d, body %q, by the bot", i, cm, ids[i], fmt.Sprint("comment ", i))
		}
	}
	var pages []string
	for _, r := range srv.Requests() {
		if r.Route == githubtest.RouteListComments {
			pages = append(pages, r.Query.Get("page")+"/"+r.Query.Get("per_page"))
		}
	}
	if fmt.Sprint(pages) != "[/100 2/100 3/100]" {
		t.Errorf("pages requested (page/per_page) = %v; want [/100 2/100 3/100]", pages)
	}
}

func TestCommentsAndLabels(t *testing.T) {
	ctx := context.Background()
	srv := githubtest.New(t)
	n := srv.AddIssue(githubtest.Issue{Title: "x", Labels: []string{"ai/impl"}})
	c, _ := newClient(t, srv)

	cm, err := c.AddComment(ctx, n, "<!-- baton:claim run=1 -->")
	if err != nil {
		t.Fatal(err)
	}
	if cm.ID == 0 || cm.Author != githubtest.DefaultLogin || cm.Body != "<!-- baton:claim run=1 -->" {
		t.Errorf("AddComment = %+v; want the stored comment", cm)
	}
	secret := "ghp_" + strings.Repeat("Z9", 18)
	leaky, err := c.AddComment(ctx, n, "Decision: rotate "+secret)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Comments(n); len(got) != 2 || strings.Contains(got[1].Body, secret) || !strings.Contains(got[1].Body, "[REDACTED:github]") {
		t.Errorf("stored comments = %+v; want the token redacted before it left", got)
	}
	for _, id := range []int64{cm.ID, leaky.ID} {
		if err := c.DeleteComment(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := srv.Comments(n); len(got) != 0 {
		t.Errorf("comments after delete = %+v; want none", got)
	}
	if err := c.DeleteComment(ctx, cm.ID); tracker.KindOf(err) != tracker.KindNotFound {
		t.Errorf("delete twice: %v; want not-found", err)
	}

	if err := c.AddLabels(ctx, n, "ai/impl/in-progress", "status:in-progress"); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveLabel(ctx, n, "ai/impl"); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveLabel(ctx, n, "ai/impl"); err != nil {
		t.Errorf("removing an absent label: %v; want no error", err)
	}
	is, _ := srv.Issue(n)
	if fmt.Sprint(is.Labels) != "[ai/impl/in-progress status:in-progress]" {
		t.Errorf("labels = %v; want [ai/impl/in-progress status:in-progress]", is.Labels)
	}
	if err := c.RemoveLabel(ctx, 99, "x"); tracker.KindOf(err) != tracker.KindNotFound {
		t.Errorf("remove label from a missing issue: %v; want not-found", err)
	}
	for range 2 {
		if err := c.EnsureLabel(ctx, "ai/impl/done", "0e8a16", "baton finished"); err != nil {
			t.Fatalf("EnsureLabel: %v", err)
		}
	}
	if l := srv.Labels(); l[len(l)-1] != (githubtest.Label{Name: "ai/impl/done", Color: "0e8a16", Description: "baton finished"}) {
		t.Errorf("last label = %+v; want ai/impl/done created once with its color", l[len(l)-1])
	}
	for _, r := range srv.Requests() {
		if ua := r.Header.Get("User-Agent"); ua != "baton/test" {
			t.Fatalf("%s %s User-Agent = %q; want baton/test", r.Method, r.Path, ua)
		}
	}
}

func TestPullRequests(t *testing.T) {
	ctx := context.Background()
	srv := githubtest.New(t)
	issue := srv.AddIssue(githubtest.Issue{Title: "x"})
	c, _ := newClient(t, srv)

	linked, err := c.LinkedPullRequests(ctx, issue)
	if err != nil || len(linked) != 0 {
		t.Fatalf("LinkedPullRequests before = %v, %v; want none", linked, err)
	}
	pr, err := c.CreatePullRequest(ctx, NewPullRequest{Title: "Fix", Body: fmt.Sprintf("Closes #%d", issue), Head: "baton/1-x", Base: "main", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 2 || !pr.Draft || pr.State != "open" || pr.Head != "baton/1-x" || pr.Base != "main" || pr.URL == "" {
		t.Errorf("CreatePullRequest = %+v; want open draft #2 from baton/1-x", pr)
	}
	srv.AddPullRequest(githubtest.PullRequest{Title: "old", Head: "old", State: "closed", Merged: true, Closes: []int{issue}})
	linked, err = c.LinkedPullRequests(ctx, issue)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(linked) != fmt.Sprint([]PullRequest{*pr, {Number: 3, Title: "old", URL: linked[1].URL, State: "merged", Head: "old", Base: "main",
		HeadRepo: "acme/widgets", Author: srv.Login}}) {
		t.Errorf("LinkedPullRequests = %+v; want the new one and the merged one", linked)
	}
	if pr.HeadRepo != "acme/widgets" || pr.Author != srv.Login {
		t.Errorf("CreatePullRequest head repo, author = %q, %q; want acme/widgets, %q", pr.HeadRepo, pr.Author, srv.Login)
	}
	// A stranger's fork with a branch of the same name.
	srv.AddPullRequest(githubtest.PullRequest{Title: "forged", Head: "baton/1-x", HeadOwner: "mallory", Author: "mallory", Closes: []int{issue}})
	linked, err = c.LinkedPullRequests(ctx, issue)
	if err != nil {
		t.Fatal(err)
	}
	if len(linked) != 3 || linked[2].HeadRepo != "mallory/widgets" || linked[2].Author != "mallory" || linked[2].Head != "baton/1-x" {
		t.Errorf("LinkedPullRequests = %+v; want the fork's pull request third, head repo mallory/widgets by mallory", linked)
	}
	forBranch, err := c.PullRequestsForBranch(ctx, "baton/1-x")
	if err != nil || len(forBranch) != 1 || forBranch[0].Number != pr.Number {
		t.Errorf("PullRequestsForBranch = %+v, %v; want #%d", forBranch, err, pr.Number)
	}
	if got, err := c.PullRequestsForBranch(ctx, "old"); err != nil || len(got) != 0 {
		t.Errorf("PullRequestsForBranch(closed head) = %+v, %v; want none", got, err)
	}
	if _, err := c.CreatePullRequest(ctx, NewPullRequest{Title: "Fix", Head: "baton/1-x", Base: "main"}); tracker.KindOf(err) != tracker.KindUnknown || !strings.Contains(err.Error(), "422") {
		t.Errorf("second pull request for a head: %v; want a 422 failure", err)
	}
	if _, err := c.LinkedPullRequests(ctx, 99); tracker.KindOf(err) != tracker.KindNotFound {
		t.Errorf("LinkedPullRequests(99): %v; want not-found", err)
	}
	if owner, name := c.Repo(); owner != "acme" || name != "widgets" {
		t.Errorf("Repo() = %s/%s; want acme/widgets", owner, name)
	}
}

func TestFailures(t *testing.T) {
	const b = DefaultBaseDelay
	getIssue := func(ctx context.Context, c *Client) error { _, err := c.Issue(ctx, 1); return err }
	comments := func(ctx context.Context, c *Client) error { _, err := c.Comments(ctx, 1); return err }
	comment := func(ctx context.Context, c *Client) error { _, err := c.AddComment(ctx, 1, "decision"); return err }
	labels := func(ctx context.Context, c *Client) error { return c.AddLabels(ctx, 1, "ai/impl/done") }
	linked := func(ctx context.Context, c *Client) error { _, err := c.LinkedPullRequests(ctx, 1); return err }
	tests := []struct {
		name      string
		route     githubtest.Route
		n         int
		fault     githubtest.Fault
		timeout   time.Duration
		op        func(context.Context, *Client) error
		wantKind  tracker.Kind    // "" means success
		wantCalls int             // 0: not checked
		wantWaits []time.Duration // nil: not checked
		wantText  string
		wantRetry time.Duration
	}{
		{name: "401", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.BadCredentials(), op: getIssue,
			wantWaits: []time.Duration{}, wantKind: tracker.KindAuth, wantCalls: 1, wantText: "get issue #1: 401 Bad credentials"},
		{name: "403 without rate-limit headers", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.Forbidden(), op: getIssue,
			wantWaits: []time.Duration{}, wantKind: tracker.KindAuth, wantCalls: 1},
		{name: "403 rate limit used up", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.RateLimited(time.Now().Add(time.Hour)), op: getIssue,
			wantWaits: []time.Duration{}, wantKind: tracker.KindRateLimit, wantCalls: 1, wantRetry: time.Hour},
		{name: "403 secondary limit, then fine", route: githubtest.RouteListComments, n: 2, fault: githubtest.SecondaryRateLimit(time.Second), op: comments,
			wantCalls: 4, wantWaits: []time.Duration{time.Second, time.Second}},
		{name: "429 with Retry-After, then fine", route: githubtest.RouteGetIssue, n: 1, fault: githubtest.TooManyRequests(2 * time.Second), op: getIssue,
			wantCalls: 2, wantWaits: []time.Duration{2 * time.Second}},
		{name: "429 asking for more than the wait budget", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.TooManyRequests(100 * time.Second), op: getIssue,
			wantWaits: []time.Duration{}, wantKind: tracker.KindRateLimit, wantCalls: 1, wantRetry: 100 * time.Second},
		{name: "429 every time", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.TooManyRequests(time.Second), op: getIssue,
			wantKind: tracker.KindRateLimit, wantCalls: 3, wantWaits: []time.Duration{time.Second, time.Second}},
		{name: "500 once", route: githubtest.RouteGetIssue, n: 1, fault: githubtest.ServerError(500), op: getIssue,
			wantCalls: 2, wantWaits: []time.Duration{b}},
		{name: "502 every time", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.ServerError(502), op: getIssue,
			wantKind: tracker.KindUnknown, wantCalls: 3, wantWaits: []time.Duration{b, 2 * b}, wantText: "502"},
		{name: "404", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.Fault{Status: 404}, op: getIssue,
			wantWaits: []time.Duration{}, wantKind: tracker.KindNotFound, wantCalls: 1},
		{name: "comment not sent twice after a 502", route: githubtest.RouteCreateComment, n: 1, fault: githubtest.ServerError(502), op: comment,
			wantWaits: []time.Duration{}, wantKind: tracker.KindUnknown, wantCalls: 1},
		{name: "comment sent again after a 429", route: githubtest.RouteCreateComment, n: 1, fault: githubtest.TooManyRequests(time.Second), op: comment,
			wantCalls: 2, wantWaits: []time.Duration{time.Second}},
		{name: "labels sent again after a 502", route: githubtest.RouteAddLabels, n: 1, fault: githubtest.ServerError(502), op: labels,
			wantCalls: 2, wantWaits: []time.Duration{b}},
		{name: "connection reset every time", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.ResetConnection(), op: getIssue,
			wantKind: tracker.KindNetwork, wantWaits: []time.Duration{b, 2 * b}},
		{name: "connection reset once", route: githubtest.RouteGetIssue, n: 1, fault: githubtest.ResetConnection(), op: getIssue},
		{name: "slow past the timeout", route: githubtest.RouteGetIssue, n: -1, fault: githubtest.Slow(time.Hour), timeout: 50 * time.Millisecond, op: getIssue,
			wantKind: tracker.KindNetwork, wantCalls: 3, wantWaits: []time.Duration{b, 2 * b}, wantText: "no answer within 50ms"},
		{name: "malformed page of comments", route: githubtest.RouteListComments, n: 1, fault: githubtest.MalformedBody().After(1), op: comments,
			wantWaits: []time.Duration{}, wantKind: tracker.KindUnknown, wantCalls: 2, wantText: "malformed answer"},
		{name: "graphql 401", route: githubtest.RouteGraphQL, n: -1, fault: githubtest.BadCredentials(), op: linked,
			wantWaits: []time.Duration{}, wantKind: tracker.KindAuth, wantCalls: 1},
		{name: "graphql 502 then fine", route: githubtest.RouteGraphQL, n: 1, fault: githubtest.ServerError(502), op: linked,
			wantCalls: 2, wantWaits: []time.Duration{b}},
		{name: "graphql malformed", route: githubtest.RouteGraphQL, n: 1, fault: githubtest.MalformedBody(), op: linked,
			wantWaits: []time.Duration{}, wantKind: tracker.KindUnknown, wantCalls: 1, wantText: "malformed answer"},
		{name: "graphql rate limit", route: githubtest.RouteGraphQL, n: -1, fault: githubtest.RateLimited(time.Now().Add(time.Hour)), op: linked,
			wantWaits: []time.Duration{}, wantKind: tracker.KindRateLimit, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubtest.New(t)
			n := srv.AddIssue(githubtest.Issue{Title: "x"})
			for i := range 150 {
				srv.AddComment(githubtest.Comment{Issue: n, Body: fmt.Sprint(i)})
			}
			c, w := newClient(t, srv, func(cfg *Config) {
				if tt.timeout > 0 {
					cfg.Retry.Timeout = tt.timeout
				}
			})
			srv.Fail(tt.route, tt.n, tt.fault)
			err := tt.op(context.Background(), c)
			if got := tracker.KindOf(err); got != tt.wantKind {
				t.Fatalf("error = %v, kind %q; want kind %q", err, got, tt.wantKind)
			}
			if tt.wantCalls > 0 {
				if got := srv.Calls(tt.route); got != tt.wantCalls {
					t.Errorf("requests = %d; want %d", got, tt.wantCalls)
				}
			}
			if got := w.get(); tt.wantWaits != nil && fmt.Sprint(got) != fmt.Sprint(tt.wantWaits) {
				t.Errorf("waits = %v; want %v", got, tt.wantWaits)
			}
			if tt.wantText != "" && !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error = %q; want it to contain %q", err, tt.wantText)
			}
			if tt.wantRetry > 0 {
				var te *tracker.Error
				if !errorsAs(err, &te) || te.RetryAfter < tt.wantRetry-5*time.Second || te.RetryAfter > tt.wantRetry+5*time.Second {
					t.Errorf("RetryAfter of %v; want about %s", err, tt.wantRetry)
				}
			}
			if err != nil {
				s := tracker.Summary(err)
				if strings.Contains(s, srv.Token) || len([]rune(s)) > tracker.MaxSummary {
					t.Errorf("Summary = %q; want it short and without the token", s)
				}
			}
		})
	}
}

func TestWrongToken(t *testing.T) {
	srv := githubtest.New(t)
	srv.AddIssue(githubtest.Issue{Title: "x"})
	c, w := newClient(t, srv, func(cfg *Config) { cfg.Token = "ghp_" + strings.Repeat("x", 36) })
	_, err := c.Issue(context.Background(), 1)
	if tracker.KindOf(err) != tracker.KindAuth || len(w.get()) != 0 {
		t.Fatalf("error = %v, waits %v; want auth without retries", err, w.get())
	}
	if h := tracker.Hint(tracker.KindOf(err), i18n.EN); !strings.Contains(h, "gh auth login") {
		t.Errorf("hint = %q; want it to say how to log in", h)
	}
}

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	w := &waits{}
	c, err := New(Config{APIURL: "http://" + addr + "/", Owner: "acme", Repo: "widgets", Token: "t", Sleep: w.sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AddComment(context.Background(), 1, "x")
	if tracker.KindOf(err) != tracker.KindNetwork {
		t.Fatalf("error = %v; want network", err)
	}
	if got := w.get(); len(got) != 2 {
		t.Errorf("waits = %v; want 2 retries even for a POST, since nothing was sent", got)
	}
}

func TestTokenOnlyForTheAPIHosts(t *testing.T) {
	var got []string
	rt := &authTransport{token: "secret", hosts: []string{"api.example", "gql.example"},
		base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			got = append(got, r.URL.Host+"="+r.Header.Get("Authorization"))
			return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
		})}
	for _, u := range []string{"https://api.example/x", "https://gql.example/graphql", "https://elsewhere.example/x"} {
		req, _ := http.NewRequest("GET", u, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if req.Header.Get("Authorization") != "" {
			t.Errorf("the caller's request was changed: %v", req.Header)
		}
	}
	want := "[api.example=Bearer secret gql.example=Bearer secret elsewhere.example=]"
	if fmt.Sprint(got) != want {
		t.Errorf("sent %v; want %s", got, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func TestSameLogin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"octocat", "octocat", true},
		{"Octocat", "octocat", true},
		{"baton-app", "baton-app[bot]", true},
		{"baton-app[bot]", "baton-app[bot]", true},
		{"mallory", "octocat", false},
		{"", "", false},
		{"", "octocat", false},
	}
	for _, tt := range tests {
		if got := SameLogin(tt.a, tt.b); got != tt.want {
			t.Errorf("SameLogin(%q, %q) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
