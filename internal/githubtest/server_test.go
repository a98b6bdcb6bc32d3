package githubtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// call sends one request with the server's token and returns the status,
// headers and body.
func call(t *testing.T, srv *Server, method, path, body string) (int, http.Header, []byte) {
	t.Helper()
	return callWith(t, srv, http.DefaultClient, "Bearer "+srv.Token, method, path, body)
}

func callWith(t *testing.T, srv *Server, c *http.Client, auth, method, path, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(srv.URL, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func decodeJSON[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestAuth(t *testing.T) {
	srv := New(t)
	srv.AddIssue(Issue{Title: "one"})
	tests := []struct {
		name, auth, wantMessage string
		wantStatus              int
	}{
		{"bearer", "Bearer " + srv.Token, "", 200},
		{"token scheme", "token " + srv.Token, "", 200},
		{"wrong token", "Bearer ghp_wrong", "Bad credentials", 401},
		{"no header", "", "Requires authentication", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := callWith(t, srv, http.DefaultClient, tt.auth, "GET", "/repos/acme/widgets/issues/1", "")
			if status != tt.wantStatus {
				t.Fatalf("status = %d; want %d (%s)", status, tt.wantStatus, body)
			}
			if h.Get("X-RateLimit-Remaining") == "" || h.Get("X-RateLimit-Reset") == "" || h.Get("X-RateLimit-Limit") != "5000" {
				t.Errorf("rate limit headers = %v; want Limit 5000, Remaining and Reset", h)
			}
			if tt.wantMessage != "" {
				e := decodeJSON[errorJSON](t, body)
				if e.Message != tt.wantMessage || e.DocumentationURL == "" || e.Status != "401" {
					t.Errorf("error body = %+v; want message %q with documentation_url and status", e, tt.wantMessage)
				}
			}
		})
	}
}

func TestOtherRepositoryIsNotFound(t *testing.T) {
	srv := New(t)
	srv.AddIssue(Issue{Title: "one"})
	status, _, body := call(t, srv, "GET", "/repos/acme/other/issues/1", "")
	if status != 404 || decodeJSON[errorJSON](t, body).Message != "Not Found" {
		t.Errorf("got %d %s; want 404 Not Found", status, body)
	}
}

func TestCommentPagination(t *testing.T) {
	srv := New(t)
	n := srv.AddIssue(Issue{Title: "many comments"})
	for i := range 65 {
		srv.AddComment(Comment{Issue: n, Body: fmt.Sprintf("c%d", i)})
	}
	tests := []struct {
		name      string
		query     string
		wantLen   int
		wantFirst string
		wantRels  []string
		noRels    []string
	}{
		{"first page", "?per_page=30", 30, "c0", []string{`page=2&per_page=30>; rel="next"`, `page=3&per_page=30>; rel="last"`}, []string{"prev", "first"}},
		{"middle page", "?per_page=30&page=2", 30, "c30", []string{`rel="prev"`, `page=3&per_page=30>; rel="next"`, `rel="first"`}, nil},
		{"last page", "?per_page=30&page=3", 5, "c60", []string{`page=2&per_page=30>; rel="prev"`, `page=1&per_page=30>; rel="first"`}, []string{"next", "last"}},
		{"default size", "", 30, "c0", []string{`page=2>; rel="next"`, `page=3>; rel="last"`}, nil},
		{"capped at 100", "?per_page=500", 65, "c0", nil, []string{"next"}},
		{"past the end", "?page=9", 0, "", []string{`rel="prev"`}, []string{"next"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := call(t, srv, "GET", fmt.Sprintf("/repos/acme/widgets/issues/%d/comments%s", n, tt.query), "")
			if status != 200 {
				t.Fatalf("status = %d; want 200", status)
			}
			got := decodeJSON[[]commentJSON](t, body)
			if len(got) != tt.wantLen {
				t.Fatalf("got %d comments; want %d", len(got), tt.wantLen)
			}
			if tt.wantLen > 0 && got[0].Body != tt.wantFirst {
				t.Errorf("first comment = %q; want %q", got[0].Body, tt.wantFirst)
			}
			link := h.Get("Link")
			for _, want := range tt.wantRels {
				if !strings.Contains(link, want) {
					t.Errorf("Link = %q; want it to contain %q", link, want)
				}
			}
			for _, rel := range tt.noRels {
				if strings.Contains(link, `rel="`+rel+`"`) {
					t.Errorf("Link = %q; want no rel=%q", link, rel)
				}
			}
		})
	}
}

func TestIssuesAndPullsShareNumbers(t *testing.T) {
	srv := New(t)
	i1 := srv.AddIssue(Issue{Title: "bug", Labels: []string{"ai/impl", "bug"}})
	pr := srv.AddPullRequest(PullRequest{Title: "fix", Head: "fix-1", Body: "Fixes #1"})
	i3 := srv.AddIssue(Issue{Title: "done", State: "closed", Labels: []string{"ai/impl"}})
	if i1 != 1 || pr != 2 || i3 != 3 {
		t.Fatalf("numbers = %d, %d, %d; want 1, 2, 3", i1, pr, i3)
	}
	tests := []struct {
		query string
		want  []int
	}{
		{"", []int{2, 1}},
		{"?state=all", []int{3, 2, 1}},
		{"?state=all&direction=asc", []int{1, 2, 3}},
		{"?state=all&labels=ai/impl", []int{3, 1}},
		{"?labels=AI/IMPL,bug", []int{1}},
		{"?state=closed", []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, _, body := call(t, srv, "GET", "/repos/acme/widgets/issues"+tt.query, "")
			got := decodeJSON[[]issueJSON](t, body)
			var nums []int
			for _, is := range got {
				nums = append(nums, is.Number)
				if (is.Number == pr) != (is.PullRequest != nil) {
					t.Errorf("#%d pull_request = %v; want it set only on the pull request", is.Number, is.PullRequest)
				}
			}
			if fmt.Sprint(nums) != fmt.Sprint(tt.want) {
				t.Errorf("numbers = %v; want %v", nums, tt.want)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	srv := New(t)
	n := srv.AddIssue(Issue{Title: "x"})
	status, _, body := call(t, srv, "POST", fmt.Sprintf("/repos/acme/widgets/issues/%d/labels", n), `{"labels":["ai/impl","status:in-progress"]}`)
	if status != 200 || len(decodeJSON[[]labelJSON](t, body)) != 2 {
		t.Fatalf("add labels: %d %s; want 200 with two labels", status, body)
	}
	if got := srv.Labels(); len(got) != 2 || got[0].Color != "ededed" {
		t.Errorf("repository labels = %+v; want the two created with color ededed", got)
	}
	status, _, body = call(t, srv, "DELETE", fmt.Sprintf("/repos/acme/widgets/issues/%d/labels/ai%%2Fimpl", n), "")
	if status != 200 {
		t.Fatalf("remove escaped label: %d %s; want 200", status, body)
	}
	if is, _ := srv.Issue(n); fmt.Sprint(is.Labels) != "[status:in-progress]" {
		t.Errorf("labels after removal = %v; want [status:in-progress]", is.Labels)
	}
	status, _, body = call(t, srv, "DELETE", fmt.Sprintf("/repos/acme/widgets/issues/%d/labels/ai%%2Fimpl", n), "")
	if status != 404 || decodeJSON[errorJSON](t, body).Message != "Label does not exist" {
		t.Errorf("remove absent label: %d %s; want 404 Label does not exist", status, body)
	}
	status, _, body = call(t, srv, "POST", "/repos/acme/widgets/labels", `{"name":"AI/IMPL","color":"ff0000"}`)
	if e := decodeJSON[errorJSON](t, body); status != 422 || len(e.Errors) != 1 || e.Errors[0].Code != "already_exists" {
		t.Errorf("create existing label: %d %s; want 422 already_exists", status, body)
	}
}

func TestCommentsCreateAndDelete(t *testing.T) {
	srv := New(t)
	n := srv.AddIssue(Issue{Title: "x"})
	status, _, body := call(t, srv, "POST", fmt.Sprintf("/repos/acme/widgets/issues/%d/comments", n), `{"body":"hello"}`)
	c := decodeJSON[commentJSON](t, body)
	if status != 201 || c.Body != "hello" || c.User.Login != DefaultLogin || !strings.Contains(c.HTMLURL, "#issuecomment-") {
		t.Fatalf("create: %d %+v; want 201 by %s with an html_url", status, c, DefaultLogin)
	}
	long, _ := json.Marshal(map[string]string{"body": strings.Repeat("x", MaxCommentLength+1)})
	if status, _, _ := call(t, srv, "POST", fmt.Sprintf("/repos/acme/widgets/issues/%d/comments", n), string(long)); status != 422 {
		t.Errorf("create too long: %d; want 422", status)
	}
	if status, _, _ := call(t, srv, "POST", "/repos/acme/widgets/issues/99/comments", `{"body":"x"}`); status != 404 {
		t.Errorf("create on missing issue: %d; want 404", status)
	}
	if status, _, _ := call(t, srv, "DELETE", fmt.Sprintf("/repos/acme/widgets/issues/comments/%d", c.ID), ""); status != 204 {
		t.Errorf("delete: %d; want 204", status)
	}
	if got := srv.Comments(n); len(got) != 0 {
		t.Errorf("comments after delete = %+v; want none", got)
	}
	if status, _, _ := call(t, srv, "DELETE", fmt.Sprintf("/repos/acme/widgets/issues/comments/%d", c.ID), ""); status != 404 {
		t.Errorf("delete again: %d; want 404", status)
	}
}

func TestPullRequests(t *testing.T) {
	srv := New(t)
	issue := srv.AddIssue(Issue{Title: "x"})
	body := fmt.Sprintf(`{"title":"Fix","head":"acme:baton/%d-x","base":"main","body":"Closes #%d","draft":true}`, issue, issue)
	status, _, out := call(t, srv, "POST", "/repos/acme/widgets/pulls", body)
	if status != 201 || !decodeJSON[pullJSON](t, out).Draft {
		t.Fatalf("create: %d %s; want 201 draft", status, out)
	}
	if status, _, out := call(t, srv, "POST", "/repos/acme/widgets/pulls", body); status != 422 || !strings.Contains(string(out), "already exists") {
		t.Errorf("create again: %d %s; want 422 already exists", status, out)
	}
	_, _, out = call(t, srv, "GET", "/repos/acme/widgets/pulls?head=acme:baton/1-x", "")
	if got := decodeJSON[[]pullJSON](t, out); len(got) != 1 || got[0].Head.Ref != "baton/1-x" {
		t.Errorf("list by head = %s; want the one pull request", out)
	}
	_, _, out = call(t, srv, "GET", "/repos/acme/widgets/pulls?head=other:baton/1-x", "")
	if got := decodeJSON[[]pullJSON](t, out); len(got) != 0 {
		t.Errorf("list by another owner's head = %s; want none", out)
	}
}

func TestGraphQLLinkedPullRequests(t *testing.T) {
	srv := New(t)
	issue := srv.AddIssue(Issue{Title: "x"})
	srv.AddPullRequest(PullRequest{Title: "open one", Head: "a", Body: "resolves #1"})
	srv.AddPullRequest(PullRequest{Title: "merged one", Head: "b", State: "closed", Merged: true, Closes: []int{issue}})
	srv.AddPullRequest(PullRequest{Title: "unrelated", Head: "c"})
	type result struct {
		Data struct {
			Repository *struct {
				Issue *struct {
					Closed struct {
						Nodes []linkedPullJSON `json:"nodes"`
					} `json:"closedByPullRequestsReferences"`
				} `json:"issue"`
			} `json:"repository"`
		} `json:"data"`
		Errors []graphqlError `json:"errors"`
	}
	const q = `query($owner:String!,$name:String!,$number:Int!){repository(owner:$owner,name:$name){issue(number:$number){closedByPullRequestsReferences(first:20%s){nodes{number state}}}}}`
	tests := []struct {
		name      string
		query     string
		vars      map[string]any
		wantNodes string
		wantErr   string
	}{
		{"open only", fmt.Sprintf(q, ""), map[string]any{"owner": "acme", "name": "widgets", "number": issue}, "[2:OPEN]", ""},
		{"with closed", fmt.Sprintf(q, ",includeClosedPrs:true"), map[string]any{"owner": "acme", "name": "widgets", "number": issue}, "[2:OPEN 3:MERGED]", ""},
		{"literal arguments", `{repository(owner:"acme", name:"widgets"){issue(number: 1){closedByPullRequestsReferences(first:5){nodes{number}}}}}`, nil, "[2:OPEN]", ""},
		{"missing issue", fmt.Sprintf(q, ""), map[string]any{"owner": "acme", "name": "widgets", "number": 99}, "", "NOT_FOUND"},
		{"other repository", fmt.Sprintf(q, ""), map[string]any{"owner": "acme", "name": "nope", "number": 1}, "", "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"query": tt.query, "variables": tt.vars})
			status, _, out := call(t, srv, "POST", "/graphql", string(in))
			if status != 200 {
				t.Fatalf("status = %d; want 200", status)
			}
			res := decodeJSON[result](t, out)
			if tt.wantErr != "" {
				if len(res.Errors) != 1 || res.Errors[0].Type != tt.wantErr {
					t.Errorf("errors = %+v; want one %s", res.Errors, tt.wantErr)
				}
				return
			}
			var got []string
			for _, n := range res.Data.Repository.Issue.Closed.Nodes {
				got = append(got, fmt.Sprintf("%d:%s", n.Number, n.State))
			}
			if fmt.Sprint(got) != tt.wantNodes {
				t.Errorf("nodes = %v; want %s", got, tt.wantNodes)
			}
		})
	}
}

func TestFaults(t *testing.T) {
	srv := New(t)
	srv.AddIssue(Issue{Title: "x"})
	const path = "/repos/acme/widgets/issues/1"
	t.Run("next n calls, then normal", func(t *testing.T) {
		srv.Fail(RouteGetIssue, 2, ServerError(502))
		var got []int
		for range 3 {
			status, _, _ := call(t, srv, "GET", path, "")
			got = append(got, status)
		}
		if fmt.Sprint(got) != "[502 502 200]" {
			t.Errorf("statuses = %v; want [502 502 200]", got)
		}
	})
	t.Run("after", func(t *testing.T) {
		srv.Fail(RouteGetIssue, 1, BadCredentials().After(1))
		a, _, _ := call(t, srv, "GET", path, "")
		b, _, body := call(t, srv, "GET", path, "")
		if a != 200 || b != 401 || decodeJSON[errorJSON](t, body).Message != "Bad credentials" {
			t.Errorf("statuses = %d, %d (%s); want 200, then 401 Bad credentials", a, b, body)
		}
	})
	t.Run("rate limit headers", func(t *testing.T) {
		reset := time.Now().Add(10 * time.Minute)
		srv.Fail(RouteAny, 1, RateLimited(reset))
		status, h, _ := call(t, srv, "GET", path, "")
		if status != 403 || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") != fmt.Sprint(reset.Unix()) {
			t.Errorf("got %d %v; want 403 with Remaining 0 and Reset %d", status, h, reset.Unix())
		}
		srv.Fail(RouteGetIssue, 1, SecondaryRateLimit(1500*time.Millisecond))
		status, h, body := call(t, srv, "GET", path, "")
		if status != 403 || h.Get("Retry-After") != "2" || !strings.Contains(string(body), "secondary rate limit") || h.Get("X-RateLimit-Remaining") == "0" {
			t.Errorf("got %d %v %s; want 403, Retry-After 2, a secondary limit message", status, h, body)
		}
		srv.Fail(RouteGetIssue, 1, TooManyRequests(3*time.Second))
		if status, h, _ := call(t, srv, "GET", path, ""); status != 429 || h.Get("Retry-After") != "3" {
			t.Errorf("got %d %v; want 429 with Retry-After 3", status, h)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		srv.Fail(RouteGetIssue, 1, MalformedBody())
		status, _, body := call(t, srv, "GET", path, "")
		var v any
		if status != 200 || json.Unmarshal(body, &v) == nil {
			t.Errorf("got %d %s; want 200 with a body that is not JSON", status, body)
		}
	})
	t.Run("reset", func(t *testing.T) {
		srv.Fail(RouteGetIssue, 1, ResetConnection())
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		req, _ := http.NewRequest("GET", strings.TrimSuffix(srv.URL, "/")+path, nil)
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("got status %d; want a connection error", resp.StatusCode)
		}
		if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
			t.Errorf("error = %v; want a connection reset", err)
		}
	})
	t.Run("slow past the client's timeout", func(t *testing.T) {
		srv.Fail(RouteGetIssue, 1, Slow(time.Hour))
		c := &http.Client{Timeout: 50 * time.Millisecond}
		req, _ := http.NewRequest("GET", strings.TrimSuffix(srv.URL, "/")+path, nil)
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			t.Fatal("slow answer arrived; want a timeout")
		}
		if status, _, _ := call(t, srv, "GET", path, ""); status != 200 {
			t.Errorf("next call: %d; want 200", status)
		}
	})
	t.Run("forever until cleared", func(t *testing.T) {
		srv.Fail(RouteAny, -1, Forbidden())
		for range 3 {
			if status, _, _ := call(t, srv, "GET", path, ""); status != 403 {
				t.Fatalf("status = %d; want 403", status)
			}
		}
		srv.ClearFaults()
		if status, _, _ := call(t, srv, "GET", path, ""); status != 200 {
			t.Errorf("after ClearFaults: %d; want 200", status)
		}
	})
}

func TestRequestsAreRecorded(t *testing.T) {
	srv := New(t)
	n := srv.AddIssue(Issue{Title: "x"})
	call(t, srv, "POST", fmt.Sprintf("/repos/acme/widgets/issues/%d/comments", n), `{"body":"recorded"}`)
	call(t, srv, "GET", "/nowhere", "")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests; want 2", len(reqs))
	}
	if reqs[0].Route != RouteCreateComment || !bytes.Contains(reqs[0].Body, []byte("recorded")) || reqs[0].Header.Get("Authorization") == "" {
		t.Errorf("first request = %+v; want the comment creation with its body and headers", reqs[0])
	}
	if reqs[1].Route != RouteUnknown {
		t.Errorf("second route = %q; want %q", reqs[1].Route, RouteUnknown)
	}
	if got := srv.Calls(RouteCreateComment); got != 1 {
		t.Errorf("Calls(create comment) = %d; want 1", got)
	}
}

func TestCloseReleasesSlowRequests(t *testing.T) {
	srv := New(t)
	srv.Fail(RouteAny, -1, Slow(time.Hour))
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("GET", srv.URL+"user", nil)
		req.Header.Set("Authorization", "Bearer "+srv.Token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Calls(RouteUser) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	srv.Close()
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("request held by a slow fault outlived Close")
	}
}

// TestUserOfInstallationToken: GET /user answers the token's user, and a
// bot's (a GitHub App installation token) is refused as the real API does.
func TestUserOfInstallationToken(t *testing.T) {
	srv := New(t)
	status, _, body := call(t, srv, "GET", "/user", "")
	if u := decodeJSON[userJSON](t, body); status != 200 || u.Login != DefaultLogin {
		t.Errorf("user: %d %s; want 200 %s", status, body, DefaultLogin)
	}
	srv.Login = "baton-app[bot]"
	status, _, body = call(t, srv, "GET", "/user", "")
	if e := decodeJSON[errorJSON](t, body); status != 403 || e.Message != "Resource not accessible by integration" {
		t.Errorf("user of an installation token: %d %s; want 403 Resource not accessible by integration", status, body)
	}
}
