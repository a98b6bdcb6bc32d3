package githubtest

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Defaults of a new Server.
const (
	// DefaultOwner and DefaultRepo name the one repository the server holds.
	DefaultOwner = "acme"
	DefaultRepo  = "widgets"
	// DefaultToken is the token requests must carry. It has the shape of a
	// real personal access token, so redaction applies to it.
	DefaultToken = "ghp_b4t0nT3stT0k3nF4k3G1tHubS3rv3r0000"
	// DefaultLogin is the user the token belongs to: the author of what
	// the API creates.
	DefaultLogin = "baton-bot"
	// DefaultAuthor is the author of seeded issues and comments that name
	// none.
	DefaultAuthor = "octocat"
	// RateLimit is the X-RateLimit-Limit of every answer.
	RateLimit = 5000
)

// Issue is an issue as the server keeps it. Zero fields of an issue given to
// AddIssue take defaults: State "open", Author DefaultAuthor,
// AuthorAssociation "OWNER", times now.
type Issue struct {
	Number            int
	Title, Body       string
	State             string
	Labels            []string
	Author            string
	AuthorAssociation string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Comment is an issue comment. Zero fields given to AddComment take
// defaults: Author DefaultAuthor, AuthorAssociation "OWNER", times now.
type Comment struct {
	ID                int64
	Issue             int
	Body              string
	Author            string
	AuthorAssociation string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Label is a repository label.
type Label struct {
	Name        string
	Color       string
	Description string
}

// PullRequest is a pull request. Zero fields given to AddPullRequest take
// defaults: State "open", Base "main", Author DefaultLogin, HeadOwner the
// server's Owner, times now.
type PullRequest struct {
	Number      int
	Title, Body string
	// Head and Base are branch names (no owner prefix).
	Head, Base string
	// HeadOwner owns the head repository: another owner than the server's
	// makes the pull request come from a fork of the same name.
	HeadOwner string
	// State is "open" or "closed"; Merged marks a closed one as merged.
	State  string
	Merged bool
	Draft  bool
	Author string
	// Closes lists the issues this pull request closes when merged: the
	// ones its body names with a closing keyword, plus any given here or
	// through LinkPullRequest.
	Closes    []int
	Labels    []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Request is one request the server received.
type Request struct {
	Route  Route
	Method string
	// Path is the unescaped path; RawPath keeps escapes ("ai%2Fimpl").
	Path, RawPath string
	Query         url.Values
	Header        http.Header
	Body          []byte
}

// Server is a running fake GitHub. Its methods are safe for concurrent use.
type Server struct {
	// URL is the REST API base, with a trailing slash: the value of
	// GITHUB_API_URL.
	URL string
	// GraphQLURL is the GraphQL endpoint: the value of GITHUB_GRAPHQL_URL.
	GraphQLURL string
	// Token is the token requests must carry.
	Token string
	// Owner and Repo name the repository; Login is the token's user. A
	// Login ending in "[bot]" makes the token a GitHub App installation
	// token of that bot: GET /user then answers 403 "Resource not
	// accessible by integration", as the real API does.
	Owner, Repo, Login string

	ts     *httptest.Server
	done   chan struct{}
	close  sync.Once
	routes []route
	reset  time.Time

	mu          sync.Mutex
	nextNumber  int
	nextComment int64
	issues      map[int]*Issue
	pulls       map[int]*PullRequest
	comments    []*Comment
	labels      []*Label
	faults      map[Route][]*Fault
	requests    []Request
	used        int
}

// New starts a server holding an empty DefaultOwner/DefaultRepo, closed when
// the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		Token:       DefaultToken,
		Owner:       DefaultOwner,
		Repo:        DefaultRepo,
		Login:       DefaultLogin,
		done:        make(chan struct{}),
		reset:       time.Now().Add(time.Hour).Truncate(time.Second),
		nextNumber:  1,
		nextComment: 1_000_001,
		issues:      map[int]*Issue{},
		pulls:       map[int]*PullRequest{},
		faults:      map[Route][]*Fault{},
	}
	s.routes = s.restRoutes()
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.ts.URL + "/"
	s.GraphQLURL = s.ts.URL + "/graphql"
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; requests held by a Slow fault are let go first.
// Tests need not call it: New registers it with t.Cleanup.
func (s *Server) Close() {
	s.close.Do(func() {
		close(s.done)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Env returns the environment that points baton at the server:
// GITHUB_API_URL, GITHUB_GRAPHQL_URL, GH_TOKEN and GH_REPO, as KEY=value.
func (s *Server) Env() []string {
	return []string{
		"GITHUB_API_URL=" + s.URL,
		"GITHUB_GRAPHQL_URL=" + s.GraphQLURL,
		"GH_TOKEN=" + s.Token,
		"GH_REPO=" + s.Owner + "/" + s.Repo,
	}
}

// Getenv looks up the variables of Env, and nothing else: a getenv for code
// that takes one.
func (s *Server) Getenv(key string) string {
	for _, kv := range s.Env() {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

func (s *Server) now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// AddIssue stores an issue and returns its number. A zero Number takes the
// next free one; labels the repository lacks are created.
func (s *Server) AddIssue(is Issue) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	is.Number = s.number(is.Number)
	is.State = cmp.Or(is.State, "open")
	is.Author = cmp.Or(is.Author, DefaultAuthor)
	is.AuthorAssociation = cmp.Or(is.AuthorAssociation, "OWNER")
	is.CreatedAt = orTime(is.CreatedAt, now)
	is.UpdatedAt = orTime(is.UpdatedAt, is.CreatedAt)
	is.Labels = s.ensureLabels(is.Labels)
	s.issues[is.Number] = &is
	return is.Number
}

// AddComment stores a comment on c.Issue and returns its id, which is higher
// than every earlier comment's.
func (s *Server) AddComment(c Comment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	c.ID = s.nextComment
	s.nextComment++
	c.Author = cmp.Or(c.Author, DefaultAuthor)
	c.AuthorAssociation = cmp.Or(c.AuthorAssociation, "OWNER")
	c.CreatedAt = orTime(c.CreatedAt, now)
	c.UpdatedAt = orTime(c.UpdatedAt, c.CreatedAt)
	s.comments = append(s.comments, &c)
	return c.ID
}

// AddLabel creates a repository label, or updates the one with that name.
func (s *Server) AddLabel(l Label) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.label(l.Name); old != nil {
		*old = l
		return
	}
	l.Color = cmp.Or(l.Color, "ededed")
	s.labels = append(s.labels, &l)
}

// AddPullRequest stores a pull request and returns its number, taken from
// the sequence issues use when Number is zero.
func (s *Server) AddPullRequest(pr PullRequest) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	pr.Number = s.number(pr.Number)
	pr.State = cmp.Or(pr.State, "open")
	pr.Base = cmp.Or(pr.Base, "main")
	pr.Author = cmp.Or(pr.Author, s.Login)
	pr.HeadOwner = cmp.Or(pr.HeadOwner, s.Owner)
	pr.CreatedAt = orTime(pr.CreatedAt, now)
	pr.UpdatedAt = orTime(pr.UpdatedAt, pr.CreatedAt)
	pr.Labels = s.ensureLabels(pr.Labels)
	pr.Closes = closingRefs(pr.Body, pr.Closes)
	s.pulls[pr.Number] = &pr
	return pr.Number
}

// LinkPullRequest records that pull request pr closes issue.
func (s *Server) LinkPullRequest(pr, issue int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pulls[pr]; p != nil && !slices.Contains(p.Closes, issue) {
		p.Closes = append(p.Closes, issue)
	}
}

// SetIssueState sets an issue's state to "open" or "closed".
func (s *Server) SetIssueState(number int, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issues[number]; is != nil {
		is.State = state
		is.UpdatedAt = s.now()
	}
}

// Issue returns a copy of issue number.
func (s *Server) Issue(number int) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.issues[number]
	if is == nil {
		return Issue{}, false
	}
	return copyIssue(is), true
}

// Issues returns copies of all issues (not pull requests), by number.
func (s *Server) Issues() []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, n := range sortedKeys(s.issues) {
		out = append(out, copyIssue(s.issues[n]))
	}
	return out
}

// Comments returns copies of an issue's comments, oldest first.
func (s *Server) Comments(issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

// Labels returns copies of the repository's labels, in creation order.
func (s *Server) Labels() []Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Label, len(s.labels))
	for i, l := range s.labels {
		out[i] = *l
	}
	return out
}

// PullRequests returns copies of all pull requests, by number.
func (s *Server) PullRequests() []PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PullRequest
	for _, n := range sortedKeys(s.pulls) {
		p := *s.pulls[n]
		p.Closes = slices.Clone(p.Closes)
		p.Labels = slices.Clone(p.Labels)
		out = append(out, p)
	}
	return out
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Calls counts the requests received for route (RouteAny: all of them).
func (s *Server) Calls(route Route) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if route == RouteAny || r.Route == route {
			n++
		}
	}
	return n
}

// Fail makes the next n requests to route fail with f (after the f.PassFirst
// requests it lets through). n < 0 keeps failing until ClearFaults. Faults
// given for one route apply one after the other, in the order given; faults
// for a route apply before those for RouteAny.
func (s *Server) Fail(route Route, n int, f Fault) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f.left = n
	s.faults[route] = append(s.faults[route], &f)
}

// ClearFaults removes every fault still pending.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

// serve records the request, applies rate-limit headers and faults, checks
// the token and hands the request to its route.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	rt, params := s.match(r)

	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Route: rt.id, Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(),
		Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
	})
	s.used++
	used := s.used
	fault := s.takeFault(rt.id)
	s.mu.Unlock()

	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("BA70:%04X:%06X", used, used*7919))
	h.Set("X-RateLimit-Limit", strconv.Itoa(RateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(RateLimit-used, 1)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.reset.Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	if rt.id == RouteGraphQL {
		h.Set("X-RateLimit-Resource", "graphql")
	} else {
		h.Set("X-RateLimit-Resource", "core")
	}

	if fault != nil && s.apply(w, r, fault) {
		return
	}
	if !s.authorized(r) {
		doc := "https://docs.github.com/rest"
		if rt.id == RouteGraphQL {
			doc = "https://docs.github.com/graphql"
		}
		msg := "Bad credentials"
		if r.Header.Get("Authorization") == "" {
			msg = "Requires authentication"
		}
		writeError(w, http.StatusUnauthorized, msg, doc)
		return
	}
	if rt.handle == nil {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
		return
	}
	if rt.id != RouteGraphQL && rt.id != RouteUser &&
		(!strings.EqualFold(params["owner"], s.Owner) || !strings.EqualFold(params["repo"], s.Repo)) {
		writeError(w, http.StatusNotFound, "Not Found", rt.doc)
		return
	}
	rt.handle(w, r, params)
}

// authorized reports whether r carries the server's token.
func (s *Server) authorized(r *http.Request) bool {
	scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok {
		return false
	}
	scheme = strings.ToLower(scheme)
	return (scheme == "bearer" || scheme == "token") && strings.TrimSpace(cred) == s.Token
}

// number hands out n, or the next free number, and moves the sequence past it.
func (s *Server) number(n int) int {
	if n == 0 {
		n = s.nextNumber
	}
	s.nextNumber = max(s.nextNumber, n+1)
	return n
}

// label finds a repository label by name, ignoring case as GitHub does.
func (s *Server) label(name string) *Label {
	for _, l := range s.labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

// ensureLabels creates the labels the repository lacks and returns the names
// as the repository spells them, without duplicates.
func (s *Server) ensureLabels(names []string) []string {
	var out []string
	for _, n := range names {
		l := s.label(n)
		if l == nil {
			l = &Label{Name: n, Color: "ededed"}
			s.labels = append(s.labels, l)
		}
		if !slices.Contains(out, l.Name) {
			out = append(out, l.Name)
		}
	}
	return out
}

func copyIssue(is *Issue) Issue {
	c := *is
	c.Labels = slices.Clone(is.Labels)
	return c
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func orTime(v, def time.Time) time.Time {
	if v.IsZero() {
		return def
	}
	return v.UTC()
}
