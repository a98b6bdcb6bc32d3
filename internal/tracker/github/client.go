// Package github is baton's GitHub client: issues, comments and labels for
// the tracker.Tracker interface, plus what the worker needs (pull requests,
// linked pull requests through GraphQL, labels). It talks REST through
// go-github and GraphQL through one small hand-written POST, both over one
// *http.Client built from small RoundTrippers: the token (sent to the API's
// hosts only), the user agent, and bounded retries of transient failures
// (see retryTransport) honouring Retry-After and X-RateLimit-Reset.
//
// Text it sends (issue titles and bodies, comments, pull requests) goes
// through redact.Redact first, whatever the caller did: nothing secret
// leaves the machine through it.
//
// Every error it returns is a *tracker.Error, classified once here:
// 401 and 403 without rate-limit signs are auth; 429, 403 with
// X-RateLimit-Remaining: 0 and secondary limits are rate-limit; DNS,
// refused, reset and timed-out connections are network; 404 is not-found;
// anything else, including answers that cannot be decoded, unknown.
//
// Where it points comes from Resolve (GITHUB_API_URL, GITHUB_GRAPHQL_URL,
// GH_TOKEN/GITHUB_TOKEN or `gh auth token`, GH_REPO or the origin remote),
// so tests point it at internal/githubtest.
package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/tracker"
)

// perPage is the page size of every list: GitHub's largest.
const perPage = 100

// Client is a GitHub repository's issue tracker.
type Client struct {
	gh          *gh.Client
	http        *http.Client
	graphqlURL  string
	owner, repo string
	now         func() time.Time
}

var _ tracker.Tracker = (*Client)(nil)

// New builds a client from cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Owner == "" || cfg.Repo == "" {
		return nil, errors.New("github: no repository")
	}
	api, err := url.Parse(cfg.APIURL)
	if err != nil || api.Host == "" {
		return nil, fmt.Errorf("github: API URL %q: not an absolute URL", cfg.APIURL)
	}
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	graphqlURL := cfg.GraphQLURL
	if graphqlURL == "" {
		graphqlURL = defaultGraphQLURL(api)
	}
	gql, err := url.Parse(graphqlURL)
	if err != nil || gql.Host == "" {
		return nil, fmt.Errorf("github: GraphQL URL %q: not an absolute URL", graphqlURL)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	sleep := cfg.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = "baton"
	}
	var rt http.RoundTripper = &userAgentTransport{base: base, userAgent: ua}
	if cfg.Token != "" {
		rt = &authTransport{base: rt, token: cfg.Token, hosts: []string{api.Host, gql.Host}}
	}
	rt = &retryTransport{base: rt, retry: cfg.Retry.withDefaults(), sleep: sleep, now: now}
	hc := &http.Client{Transport: rt}

	c := gh.NewClient(hc)
	c.BaseURL = api
	c.UserAgent = ua
	return &Client{gh: c, http: hc, graphqlURL: gql.String(), owner: cfg.Owner, repo: cfg.Repo, now: now}, nil
}

// defaultGraphQLURL is <api>/graphql, or /api/graphql on a GitHub
// Enterprise host whose REST base is /api/v3/.
func defaultGraphQLURL(api *url.URL) string {
	u := *api
	if strings.HasSuffix(u.Path, "/api/v3/") {
		u.Path = strings.TrimSuffix(u.Path, "v3/") + "graphql"
	} else {
		u.Path += "graphql"
	}
	return u.String()
}

// Repo names the client's repository.
func (c *Client) Repo() (owner, name string) { return c.owner, c.repo }

// fail turns an error from go-github or the transport into a classified
// *tracker.Error. A nil error stays nil.
func (c *Client) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var te *tracker.Error
	if errors.As(err, &te) {
		return err
	}
	e := &tracker.Error{Op: op, Err: err}
	var (
		rl    *gh.RateLimitError
		abuse *gh.AbuseRateLimitError
		er    *gh.ErrorResponse
		ue    *url.Error
	)
	switch {
	case errors.As(err, &rl):
		e.Kind, e.Status = tracker.KindRateLimit, statusOf(rl.Response)
		e.Err = fmt.Errorf("%d %s", e.Status, rl.Message)
		if !rl.Rate.Reset.IsZero() {
			e.RetryAfter = max(rl.Rate.Reset.Sub(c.now()), 0) + time.Second
		}
	case errors.As(err, &abuse):
		e.Kind, e.Status = tracker.KindRateLimit, statusOf(abuse.Response)
		e.Err = fmt.Errorf("%d %s", e.Status, abuse.Message)
		if abuse.RetryAfter != nil {
			e.RetryAfter = *abuse.RetryAfter
		}
	case errors.As(err, &er):
		e.Status = statusOf(er.Response)
		var header http.Header
		if er.Response != nil {
			header = er.Response.Header
		}
		body := fmt.Appendf(nil, `{"message":%q,"documentation_url":%q}`, er.Message, er.DocumentationURL)
		e.Kind, e.RetryAfter = classify(e.Status, header, body, c.now())
		e.Err = fmt.Errorf("%d %s", e.Status, cmp.Or(er.Message, http.StatusText(e.Status)))
	case errors.As(err, &ue), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		e.Kind = tracker.KindOf(err)
	default:
		// Neither an answer with an error status nor a transport failure:
		// the answer arrived whole but is not the JSON it should be.
		e.Kind, e.Err = tracker.KindUnknown, fmt.Errorf("malformed answer: %w", err)
	}
	return e
}

func statusOf(r *http.Response) int {
	if r == nil {
		return 0
	}
	return r.StatusCode
}

// Issue returns issue number.
func (c *Client) Issue(ctx context.Context, number int) (*tracker.Issue, error) {
	is, _, err := c.gh.Issues.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return nil, c.fail(fmt.Sprintf("get issue #%d", number), err)
	}
	return issueOf(is), nil
}

// ListIssues returns the matching issues from every page, lowest number
// first. Pull requests, which GitHub lists among issues, are left out.
func (c *Client) ListIssues(ctx context.Context, opts tracker.ListOptions) ([]*tracker.Issue, error) {
	state, ok := tracker.NormalizeState(opts.State)
	if !ok {
		return nil, &tracker.Error{Kind: tracker.KindUnknown, Op: "list issues", Err: fmt.Errorf("state %q is not open, closed or all", opts.State)}
	}
	lo := &gh.IssueListByRepoOptions{State: state, Labels: opts.Labels, Sort: "created", Direction: "asc",
		ListOptions: gh.ListOptions{PerPage: perPage}}
	var out []*tracker.Issue
	for {
		page, resp, err := c.gh.Issues.ListByRepo(ctx, c.owner, c.repo, lo)
		if err != nil {
			return nil, c.fail("list issues", err)
		}
		for _, is := range page {
			if !is.IsPullRequest() {
				out = append(out, issueOf(is))
			}
		}
		// GitHub pages this list by number or, lately, by cursor.
		switch {
		case resp.NextPage != 0:
			lo.ListOptions.Page = resp.NextPage
		case resp.After != "":
			lo.After = resp.After
		default:
			slices.SortFunc(out, func(a, b *tracker.Issue) int { return a.Number - b.Number })
			return out, nil
		}
	}
}

// CreateIssue opens an issue.
func (c *Client) CreateIssue(ctx context.Context, in tracker.NewIssue) (*tracker.Issue, error) {
	title, body := redact.Redact(in.Title), redact.Redact(in.Body)
	req := &gh.IssueRequest{Title: &title, Body: &body}
	if len(in.Labels) > 0 {
		req.Labels = &in.Labels
	}
	is, _, err := c.gh.Issues.Create(ctx, c.owner, c.repo, req)
	if err != nil {
		return nil, c.fail("create issue", err)
	}
	return issueOf(is), nil
}

// Comments returns all of an issue's comments, oldest first.
func (c *Client) Comments(ctx context.Context, number int) ([]*tracker.Comment, error) {
	lo := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage}}
	var out []*tracker.Comment
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, lo)
		if err != nil {
			return nil, c.fail(fmt.Sprintf("list comments of #%d", number), err)
		}
		for _, cm := range page {
			out = append(out, commentOf(cm))
		}
		if resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return out, nil
}

// AddComment posts a comment on issue number.
func (c *Client) AddComment(ctx context.Context, number int, body string) (*tracker.Comment, error) {
	body = redact.Redact(body)
	cm, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, &gh.IssueComment{Body: &body})
	if err != nil {
		return nil, c.fail(fmt.Sprintf("comment on #%d", number), err)
	}
	return commentOf(cm), nil
}

// DeleteComment deletes a comment by id.
func (c *Client) DeleteComment(ctx context.Context, id int64) error {
	_, err := c.gh.Issues.DeleteComment(ctx, c.owner, c.repo, id)
	return c.fail(fmt.Sprintf("delete comment %d", id), err)
}

// AddLabels adds labels to issue number; GitHub creates the ones the
// repository lacks.
func (c *Client) AddLabels(ctx context.Context, number int, labels ...string) error {
	if len(labels) == 0 {
		return nil
	}
	_, _, err := c.gh.Issues.AddLabelsToIssue(retrySafe(ctx), c.owner, c.repo, number, labels)
	return c.fail(fmt.Sprintf("add labels %v to #%d", labels, number), err)
}

// RemoveLabel takes label off issue number; a label it does not have is not
// an error.
func (c *Client) RemoveLabel(ctx context.Context, number int, label string) error {
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, c.owner, c.repo, number, url.PathEscape(label))
	var er *gh.ErrorResponse
	if errors.As(err, &er) && statusOf(er.Response) == http.StatusNotFound && er.Message == "Label does not exist" {
		return nil
	}
	return c.fail(fmt.Sprintf("remove label %q from #%d", label, number), err)
}

// Login returns the login of the token's user (GET /user): the identity
// whose comments are this client's own.
func (c *Client) Login(ctx context.Context) (string, error) {
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		return "", c.fail("read the token's user", err)
	}
	return u.GetLogin(), nil
}

// Labels returns the repository's labels by name.
func (c *Client) Labels(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	opts := &gh.ListOptions{PerPage: perPage}
	for {
		page, resp, err := c.gh.Issues.ListLabels(ctx, c.owner, c.repo, opts)
		if err != nil {
			return nil, c.fail("list labels", err)
		}
		for _, l := range page {
			out[l.GetName()] = true
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// EnsureLabel creates a repository label unless one of that name exists.
func (c *Client) EnsureLabel(ctx context.Context, name, color, description string) error {
	l := &gh.Label{Name: &name}
	if color != "" {
		l.Color = &color
	}
	if description != "" {
		l.Description = &description
	}
	_, _, err := c.gh.Issues.CreateLabel(retrySafe(ctx), c.owner, c.repo, l)
	var er *gh.ErrorResponse
	if errors.As(err, &er) && statusOf(er.Response) == http.StatusUnprocessableEntity &&
		slices.ContainsFunc(er.Errors, func(e gh.Error) bool { return e.Code == "already_exists" }) {
		return nil
	}
	return c.fail(fmt.Sprintf("create label %q", name), err)
}

func issueOf(is *gh.Issue) *tracker.Issue {
	out := &tracker.Issue{
		Number:            is.GetNumber(),
		Title:             is.GetTitle(),
		Body:              is.GetBody(),
		State:             is.GetState(),
		Author:            is.GetUser().GetLogin(),
		AuthorAssociation: is.GetAuthorAssociation(),
		URL:               is.GetHTMLURL(),
		CreatedAt:         is.GetCreatedAt().Time,
		UpdatedAt:         is.GetUpdatedAt().Time,
	}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

func commentOf(cm *gh.IssueComment) *tracker.Comment {
	return &tracker.Comment{
		ID:        cm.GetID(),
		Body:      cm.GetBody(),
		Author:    cm.GetUser().GetLogin(),
		CreatedAt: cm.GetCreatedAt().Time,
		URL:       cm.GetHTMLURL(),
	}
}
