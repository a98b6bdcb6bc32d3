package github

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v84/github"

	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/tracker"
)

// PullRequest is a pull request as the worker needs it.
type PullRequest struct {
	Number int
	Title  string
	URL    string
	// State is "open", "closed" or "merged".
	State string
	Draft bool
	// Head and Base are branch names.
	Head, Base string
	// HeadRepo is the head branch's repository as "owner/name": a fork's
	// when the pull request comes from one.
	HeadRepo string
	// Author is the login of the user who opened the pull request.
	Author string
}

// NewPullRequest is what opening a pull request takes. Head is a branch of
// the client's repository.
type NewPullRequest struct {
	Title, Body string
	Head, Base  string
	Draft       bool
}

// PullRequestsForBranch returns the open pull requests whose head is branch
// in the client's repository, newest first.
func (c *Client) PullRequestsForBranch(ctx context.Context, branch string) ([]PullRequest, error) {
	lo := &gh.PullRequestListOptions{State: "open", Head: c.owner + ":" + branch, ListOptions: gh.ListOptions{PerPage: perPage}}
	var out []PullRequest
	for {
		page, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, lo)
		if err != nil {
			return nil, c.fail(fmt.Sprintf("list pull requests of %s", branch), err)
		}
		for _, p := range page {
			out = append(out, pullOf(p))
		}
		if resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return out, nil
}

// SameLogin reports whether two logins name one account. GitHub's GraphQL
// API names an app by its slug where REST adds "[bot]".
func SameLogin(a, b string) bool {
	return a != "" && strings.EqualFold(strings.TrimSuffix(a, "[bot]"), strings.TrimSuffix(b, "[bot]"))
}

// CreatePullRequest opens a pull request.
func (c *Client) CreatePullRequest(ctx context.Context, in NewPullRequest) (*PullRequest, error) {
	title, body := redact.Redact(in.Title), redact.Redact(in.Body)
	p, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.repo, &gh.NewPullRequest{
		Title: &title, Body: &body, Head: &in.Head, Base: &in.Base, Draft: &in.Draft,
	})
	if err != nil {
		return nil, c.fail(fmt.Sprintf("open pull request from %s", in.Head), err)
	}
	pr := pullOf(p)
	return &pr, nil
}

func pullOf(p *gh.PullRequest) PullRequest {
	state := p.GetState()
	if p.GetMerged() || p.MergedAt != nil {
		state = "merged"
	}
	return PullRequest{
		Number: p.GetNumber(), Title: p.GetTitle(), URL: p.GetHTMLURL(), State: state, Draft: p.GetDraft(),
		Head: p.GetHead().GetRef(), Base: p.GetBase().GetRef(),
		HeadRepo: p.GetHead().GetRepo().GetFullName(), Author: p.GetUser().GetLogin(),
	}
}

// linkedQuery asks for the pull requests that close an issue when merged.
const linkedQuery = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      closedByPullRequestsReferences(first: 50, includeClosedPrs: true) {
        nodes {
          number title url state isDraft headRefName baseRefName
          author { login }
          headRepository { nameWithOwner }
        }
      }
    }
  }
}`

// LinkedPullRequests returns the pull requests that will close issue when
// merged (GraphQL closedByPullRequestsReferences), open, closed and merged.
func (c *Client) LinkedPullRequests(ctx context.Context, issue int) ([]PullRequest, error) {
	op := fmt.Sprintf("find pull requests linked to #%d", issue)
	var data struct {
		Repository *struct {
			Issue *struct {
				Closed struct {
					Nodes []struct {
						Number      int    `json:"number"`
						Title       string `json:"title"`
						URL         string `json:"url"`
						State       string `json:"state"`
						IsDraft     bool   `json:"isDraft"`
						HeadRefName string `json:"headRefName"`
						BaseRefName string `json:"baseRefName"`
						Author      *struct {
							Login string `json:"login"`
						} `json:"author"`
						HeadRepository *struct {
							NameWithOwner string `json:"nameWithOwner"`
						} `json:"headRepository"`
					} `json:"nodes"`
				} `json:"closedByPullRequestsReferences"`
			} `json:"issue"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": c.owner, "name": c.repo, "number": issue}
	if err := c.graphql(ctx, op, linkedQuery, vars, &data); err != nil {
		return nil, err
	}
	if data.Repository == nil || data.Repository.Issue == nil {
		return nil, &tracker.Error{Kind: tracker.KindNotFound, Op: op, Err: fmt.Errorf("no issue #%d in %s/%s", issue, c.owner, c.repo)}
	}
	var out []PullRequest
	for _, n := range data.Repository.Issue.Closed.Nodes {
		p := PullRequest{Number: n.Number, Title: n.Title, URL: n.URL, State: strings.ToLower(n.State),
			Draft: n.IsDraft, Head: n.HeadRefName, Base: n.BaseRefName}
		// A deleted account or fork comes back null: empty, trusted by no one.
		if n.Author != nil {
			p.Author = n.Author.Login
		}
		if n.HeadRepository != nil {
			p.HeadRepo = n.HeadRepository.NameWithOwner
		}
		out = append(out, p)
	}
	return out, nil
}

// graphql posts one query and decodes its data into out. GraphQL answers
// 200 with an "errors" list for most failures; their "type" is classified
// like REST statuses.
func (c *Client) graphql(ctx context.Context, op, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: err}
	}
	req, err := http.NewRequestWithContext(retrySafe(ctx), http.MethodPost, c.graphqlURL, bytes.NewReader(body))
	if err != nil {
		return &tracker.Error{Kind: tracker.KindUnknown, Op: op, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.fail(op, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return c.fail(op, &url.Error{Op: "read", URL: c.graphqlURL, Err: err})
	}
	if resp.StatusCode != http.StatusOK {
		kind, wait := classify(resp.StatusCode, resp.Header, raw, c.now())
		var doc struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &doc)
		return &tracker.Error{Kind: kind, Status: resp.StatusCode, Op: op, RetryAfter: wait,
			Err: fmt.Errorf("%d %s", resp.StatusCode, cmp.Or(doc.Message, http.StatusText(resp.StatusCode)))}
	}
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return &tracker.Error{Kind: tracker.KindUnknown, Status: resp.StatusCode, Op: op, Err: fmt.Errorf("malformed answer: %w", err)}
	}
	if len(env.Errors) > 0 {
		kind := tracker.KindUnknown
		switch env.Errors[0].Type {
		case "NOT_FOUND":
			kind = tracker.KindNotFound
		case "RATE_LIMITED":
			kind = tracker.KindRateLimit
		case "FORBIDDEN":
			kind = tracker.KindAuth
		}
		return &tracker.Error{Kind: kind, Status: resp.StatusCode, Op: op, Err: fmt.Errorf("graphql: %s", env.Errors[0].Message)}
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return &tracker.Error{Kind: tracker.KindUnknown, Status: resp.StatusCode, Op: op, Err: fmt.Errorf("malformed answer: %w", err)}
	}
	return nil
}
