package githubtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Route names one endpoint, written as GitHub's documentation writes it.
type Route string

// The routes the server answers.
const (
	RouteListIssues    Route = "GET /repos/{owner}/{repo}/issues"
	RouteCreateIssue   Route = "POST /repos/{owner}/{repo}/issues"
	RouteGetIssue      Route = "GET /repos/{owner}/{repo}/issues/{number}"
	RouteListComments  Route = "GET /repos/{owner}/{repo}/issues/{number}/comments"
	RouteCreateComment Route = "POST /repos/{owner}/{repo}/issues/{number}/comments"
	RouteGetComment    Route = "GET /repos/{owner}/{repo}/issues/comments/{id}"
	RouteDeleteComment Route = "DELETE /repos/{owner}/{repo}/issues/comments/{id}"
	RouteAddLabels     Route = "POST /repos/{owner}/{repo}/issues/{number}/labels"
	RouteRemoveLabel   Route = "DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}"
	RouteListLabels    Route = "GET /repos/{owner}/{repo}/labels"
	RouteGetLabel      Route = "GET /repos/{owner}/{repo}/labels/{name}"
	RouteCreateLabel   Route = "POST /repos/{owner}/{repo}/labels"
	RouteListPulls     Route = "GET /repos/{owner}/{repo}/pulls"
	RouteCreatePull    Route = "POST /repos/{owner}/{repo}/pulls"
	RouteGraphQL       Route = "POST /graphql"
	RouteUser          Route = "GET /user"
	// RouteAny matches every request, for Fail and Calls. Requests that
	// match no route are recorded with RouteUnknown.
	RouteAny     Route = "*"
	RouteUnknown Route = "?"
)

// MaxCommentLength is the longest comment body GitHub accepts, in characters.
const MaxCommentLength = 65536

type handler func(w http.ResponseWriter, r *http.Request, p map[string]string)

type route struct {
	id     Route
	method string
	segs   []string
	doc    string
	handle handler
}

func (s *Server) restRoutes() []route {
	const d = "https://docs.github.com/rest/"
	table := []struct {
		id  Route
		doc string
		h   handler
	}{
		{RouteListIssues, d + "issues/issues#list-repository-issues", s.listIssues},
		{RouteCreateIssue, d + "issues/issues#create-an-issue", s.createIssue},
		{RouteGetIssue, d + "issues/issues#get-an-issue", s.getIssue},
		{RouteListComments, d + "issues/comments#list-issue-comments", s.listComments},
		{RouteCreateComment, d + "issues/comments#create-an-issue-comment", s.createComment},
		{RouteGetComment, d + "issues/comments#get-an-issue-comment", s.getComment},
		{RouteDeleteComment, d + "issues/comments#delete-an-issue-comment", s.deleteComment},
		{RouteAddLabels, d + "issues/labels#add-labels-to-an-issue", s.addLabels},
		{RouteRemoveLabel, d + "issues/labels#remove-a-label-from-an-issue", s.removeLabel},
		{RouteListLabels, d + "issues/labels#list-labels-for-a-repository", s.listLabels},
		{RouteGetLabel, d + "issues/labels#get-a-label", s.getLabel},
		{RouteCreateLabel, d + "issues/labels#create-a-label", s.createLabel},
		{RouteListPulls, d + "pulls/pulls#list-pull-requests", s.listPulls},
		{RouteCreatePull, d + "pulls/pulls#create-a-pull-request", s.createPull},
		{RouteGraphQL, "https://docs.github.com/graphql", s.graphql},
		{RouteUser, d + "users/users#get-the-authenticated-user", s.user},
	}
	routes := make([]route, len(table))
	for i, e := range table {
		method, path, _ := strings.Cut(string(e.id), " ")
		routes[i] = route{id: e.id, method: method, segs: strings.Split(strings.Trim(path, "/"), "/"), doc: e.doc, handle: e.h}
	}
	return routes
}

// match finds r's route and its path parameters, unescaped. Literal segments
// win over parameters, so /issues/comments/1 is a comment, not issue
// "comments".
func (s *Server) match(r *http.Request) (route, map[string]string) {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	best, bestLiterals := route{id: RouteUnknown}, -1
	var bestParams map[string]string
	for _, rt := range s.routes {
		if rt.method != r.Method || len(rt.segs) != len(segs) {
			continue
		}
		params, literals, ok := map[string]string{}, 0, true
		for i, want := range rt.segs {
			if strings.HasPrefix(want, "{") {
				v, err := url.PathUnescape(segs[i])
				if err != nil {
					ok = false
					break
				}
				params[strings.Trim(want, "{}")] = v
				continue
			}
			if want != segs[i] {
				ok = false
				break
			}
			literals++
		}
		if ok && literals > bestLiterals {
			best, bestLiterals, bestParams = rt, literals, params
		}
	}
	return best, bestParams
}

// The JSON shapes, with the fields GitHub sends that clients read.

type userJSON struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
}

type labelJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

type pullRefJSON struct {
	URL      string     `json:"url"`
	HTMLURL  string     `json:"html_url"`
	DiffURL  string     `json:"diff_url"`
	PatchURL string     `json:"patch_url"`
	MergedAt *time.Time `json:"merged_at"`
}

type issueJSON struct {
	ID                int64        `json:"id"`
	NodeID            string       `json:"node_id"`
	URL               string       `json:"url"`
	RepositoryURL     string       `json:"repository_url"`
	CommentsURL       string       `json:"comments_url"`
	HTMLURL           string       `json:"html_url"`
	Number            int          `json:"number"`
	State             string       `json:"state"`
	StateReason       *string      `json:"state_reason"`
	Title             string       `json:"title"`
	Body              *string      `json:"body"`
	User              userJSON     `json:"user"`
	Labels            []labelJSON  `json:"labels"`
	Assignees         []userJSON   `json:"assignees"`
	Locked            bool         `json:"locked"`
	Comments          int          `json:"comments"`
	PullRequest       *pullRefJSON `json:"pull_request,omitempty"`
	ClosedAt          *time.Time   `json:"closed_at"`
	CreatedAt         time.Time    `json:"created_at"`
	UpdatedAt         time.Time    `json:"updated_at"`
	AuthorAssociation string       `json:"author_association"`
}

type commentJSON struct {
	ID                int64     `json:"id"`
	NodeID            string    `json:"node_id"`
	URL               string    `json:"url"`
	HTMLURL           string    `json:"html_url"`
	IssueURL          string    `json:"issue_url"`
	Body              string    `json:"body"`
	User              userJSON  `json:"user"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	AuthorAssociation string    `json:"author_association"`
}

type branchJSON struct {
	Label string    `json:"label"`
	Ref   string    `json:"ref"`
	SHA   string    `json:"sha"`
	User  userJSON  `json:"user"`
	Repo  *repoJSON `json:"repo"`
}

// repoJSON is the short repository object of a pull request's head and
// base.
type repoJSON struct {
	ID       int64    `json:"id"`
	NodeID   string   `json:"node_id"`
	Name     string   `json:"name"`
	FullName string   `json:"full_name"`
	Owner    userJSON `json:"owner"`
	Private  bool     `json:"private"`
	Fork     bool     `json:"fork"`
	URL      string   `json:"url"`
	HTMLURL  string   `json:"html_url"`
}

type pullJSON struct {
	ID        int64       `json:"id"`
	NodeID    string      `json:"node_id"`
	URL       string      `json:"url"`
	HTMLURL   string      `json:"html_url"`
	IssueURL  string      `json:"issue_url"`
	Number    int         `json:"number"`
	State     string      `json:"state"`
	Title     string      `json:"title"`
	Body      *string     `json:"body"`
	User      userJSON    `json:"user"`
	Labels    []labelJSON `json:"labels"`
	Draft     bool        `json:"draft"`
	Merged    bool        `json:"merged"`
	Head      branchJSON  `json:"head"`
	Base      branchJSON  `json:"base"`
	CreatedAt time.Time   `json:"created_at"`
	UpdatedAt time.Time   `json:"updated_at"`
	ClosedAt  *time.Time  `json:"closed_at"`
	MergedAt  *time.Time  `json:"merged_at"`
}

type errorJSON struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

type fieldError struct {
	Resource string `json:"resource"`
	Code     string `json:"code"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message,omitempty"`
}

// base is the server's root URL as the client reached it.
func base(r *http.Request) string { return "http://" + r.Host }

func (s *Server) repoAPI(r *http.Request) string {
	return base(r) + "/repos/" + s.Owner + "/" + s.Repo
}

func (s *Server) repoHTML(r *http.Request) string {
	return base(r) + "/" + s.Owner + "/" + s.Repo
}

func userOf(r *http.Request, login string) userJSON {
	h := fnv.New32a()
	h.Write([]byte(login))
	id := int64(h.Sum32()%9_000_000) + 1_000_000
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return userJSON{Login: login, ID: id, NodeID: fmt.Sprintf("U_%d", id), Type: typ,
		URL: base(r) + "/users/" + login, HTMLURL: base(r) + "/" + login}
}

func (s *Server) labelJSONs(r *http.Request, names []string) []labelJSON {
	out := []labelJSON{}
	for _, n := range names {
		l := s.label(n)
		if l == nil {
			continue
		}
		out = append(out, s.labelJSON(r, l))
	}
	return out
}

func (s *Server) labelJSON(r *http.Request, l *Label) labelJSON {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(l.Name)))
	id := int64(h.Sum32())
	var desc *string
	if l.Description != "" {
		desc = &l.Description
	}
	return labelJSON{ID: id, NodeID: fmt.Sprintf("LA_%d", id), URL: s.repoAPI(r) + "/labels/" + url.PathEscape(l.Name),
		Name: l.Name, Color: l.Color, Description: desc}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) issueJSON(r *http.Request, is *Issue) issueJSON {
	api := fmt.Sprintf("%s/issues/%d", s.repoAPI(r), is.Number)
	out := issueJSON{
		ID: int64(is.Number) + 2_000_000_000, NodeID: fmt.Sprintf("I_%d", is.Number),
		URL: api, RepositoryURL: s.repoAPI(r), CommentsURL: api + "/comments",
		HTMLURL: fmt.Sprintf("%s/issues/%d", s.repoHTML(r), is.Number),
		Number:  is.Number, State: is.State, Title: is.Title, Body: nullable(is.Body),
		User: userOf(r, is.Author), Labels: s.labelJSONs(r, is.Labels), Assignees: []userJSON{},
		Comments: s.commentCount(is.Number), CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
		AuthorAssociation: is.AuthorAssociation,
	}
	if is.State == "closed" {
		reason := "completed"
		out.StateReason, out.ClosedAt = &reason, &is.UpdatedAt
	}
	return out
}

// pullAsIssue is a pull request as the issues API shows it.
func (s *Server) pullAsIssue(r *http.Request, p *PullRequest) issueJSON {
	is := &Issue{Number: p.Number, Title: p.Title, Body: p.Body, State: p.State, Labels: p.Labels,
		Author: p.Author, AuthorAssociation: "OWNER", CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	out := s.issueJSON(r, is)
	pj := s.pullJSON(r, p)
	out.HTMLURL = pj.HTMLURL
	out.PullRequest = &pullRefJSON{URL: pj.URL, HTMLURL: pj.HTMLURL, DiffURL: pj.HTMLURL + ".diff", PatchURL: pj.HTMLURL + ".patch", MergedAt: pj.MergedAt}
	return out
}

func (s *Server) pullJSON(r *http.Request, p *PullRequest) pullJSON {
	out := pullJSON{
		ID: int64(p.Number) + 3_000_000_000, NodeID: fmt.Sprintf("PR_%d", p.Number),
		URL:      fmt.Sprintf("%s/pulls/%d", s.repoAPI(r), p.Number),
		HTMLURL:  fmt.Sprintf("%s/pull/%d", s.repoHTML(r), p.Number),
		IssueURL: fmt.Sprintf("%s/issues/%d", s.repoAPI(r), p.Number),
		Number:   p.Number, State: p.State, Title: p.Title, Body: nullable(p.Body),
		User: userOf(r, p.Author), Labels: s.labelJSONs(r, p.Labels), Draft: p.Draft, Merged: p.Merged,
		Head: branchJSON{Label: p.HeadOwner + ":" + p.Head, Ref: p.Head, SHA: fakeSHA(p.Head),
			User: userOf(r, p.HeadOwner), Repo: s.repoJSON(r, p.HeadOwner)},
		Base: branchJSON{Label: s.Owner + ":" + p.Base, Ref: p.Base, SHA: fakeSHA(p.Base),
			User: userOf(r, s.Owner), Repo: s.repoJSON(r, s.Owner)},
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if p.State == "closed" {
		out.ClosedAt = &p.UpdatedAt
		if p.Merged {
			out.MergedAt = &p.UpdatedAt
		}
	}
	return out
}

// repoJSON is the server's repository as owner has it: the repository
// itself, or owner's fork of it.
func (s *Server) repoJSON(r *http.Request, owner string) *repoJSON {
	full := owner + "/" + s.Repo
	h := fnv.New32a()
	h.Write([]byte(full))
	id := int64(h.Sum32()%900_000_000) + 100_000_000
	return &repoJSON{ID: id, NodeID: fmt.Sprintf("R_%d", id), Name: s.Repo, FullName: full,
		Owner: userOf(r, owner), Fork: !strings.EqualFold(owner, s.Owner),
		URL: base(r) + "/repos/" + full, HTMLURL: base(r) + "/" + full}
}

func fakeSHA(ref string) string {
	h := fnv.New64a()
	h.Write([]byte(ref))
	return fmt.Sprintf("%016x%016x%08x", h.Sum64(), h.Sum64()^0x5bd1e995, uint32(h.Sum64()))
}

func (s *Server) commentJSON(r *http.Request, c *Comment) commentJSON {
	return commentJSON{
		ID: c.ID, NodeID: fmt.Sprintf("IC_%d", c.ID),
		URL:      fmt.Sprintf("%s/issues/comments/%d", s.repoAPI(r), c.ID),
		HTMLURL:  fmt.Sprintf("%s/issues/%d#issuecomment-%d", s.repoHTML(r), c.Issue, c.ID),
		IssueURL: fmt.Sprintf("%s/issues/%d", s.repoAPI(r), c.Issue),
		Body:     c.Body, User: userOf(r, c.Author), CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		AuthorAssociation: c.AuthorAssociation,
	}
}

func (s *Server) commentCount(issue int) int {
	n := 0
	for _, c := range s.comments {
		if c.Issue == issue {
			n++
		}
	}
	return n
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("githubtest: " + err.Error())
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers status with GitHub's error document.
func writeError(w http.ResponseWriter, status int, message, doc string, errs ...fieldError) {
	if message == "" {
		message = defaultMessage(status)
	}
	if doc == "" {
		doc = "https://docs.github.com/rest"
	}
	writeJSON(w, status, errorJSON{Message: message, Errors: errs, DocumentationURL: doc, Status: strconv.Itoa(status)})
}

func defaultMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Bad credentials"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "Not Found"
	case http.StatusUnprocessableEntity:
		return "Validation Failed"
	case http.StatusInternalServerError, http.StatusBadGateway:
		return "Server Error"
	}
	return http.StatusText(status)
}

// paginate picks the page of n items the request asks for and sets the Link
// header to the other pages, as GitHub does.
func paginate(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	per = min(per, 100)
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	last := max((n+per-1)/per, 1)
	link := func(p int, rel string) string {
		q.Set("page", strconv.Itoa(p))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, base(r), r.URL.EscapedPath(), q.Encode(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(min(page-1, last), "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((page-1)*per, n)
	return lo, min(lo+per, n)
}

// decode reads the request's JSON body into v, answering 400 as GitHub does
// when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any, doc string) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return false
	}
	return true
}

func (s *Server) issueNumber(w http.ResponseWriter, p map[string]string, doc string) (int, bool) {
	n, err := strconv.Atoi(p["number"])
	if err != nil || n <= 0 {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return 0, false
	}
	return n, true
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, p map[string]string) {
	doc := s.doc(RouteGetIssue)
	n, ok := s.issueNumber(w, p, doc)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issues[n]; is != nil {
		writeJSON(w, http.StatusOK, s.issueJSON(r, is))
		return
	}
	if pr := s.pulls[n]; pr != nil {
		writeJSON(w, http.StatusOK, s.pullAsIssue(r, pr))
		return
	}
	writeError(w, http.StatusNotFound, "Not Found", doc)
}

func (s *Server) listIssues(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	q := r.URL.Query()
	state := cmp.Or(q.Get("state"), "open")
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	type item struct {
		created, updated time.Time
		number           int
		json             issueJSON
	}
	var items []item
	keep := func(st string, labels []string) bool {
		if state != "all" && st != state {
			return false
		}
		for _, l := range want {
			if !slices.ContainsFunc(labels, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(l)) }) {
				return false
			}
		}
		return true
	}
	for _, is := range s.issues {
		if keep(is.State, is.Labels) {
			items = append(items, item{is.CreatedAt, is.UpdatedAt, is.Number, s.issueJSON(r, is)})
		}
	}
	for _, pr := range s.pulls {
		if keep(pr.State, pr.Labels) {
			items = append(items, item{pr.CreatedAt, pr.UpdatedAt, pr.Number, s.pullAsIssue(r, pr)})
		}
	}
	byUpdated := q.Get("sort") == "updated"
	asc := q.Get("direction") == "asc"
	slices.SortFunc(items, func(a, b item) int {
		ka, kb := a.created, b.created
		if byUpdated {
			ka, kb = a.updated, b.updated
		}
		c := ka.Compare(kb)
		if c == 0 {
			c = a.number - b.number
		}
		if !asc {
			c = -c
		}
		return c
	})
	lo, hi := paginate(w, r, len(items))
	out := []issueJSON{}
	for _, it := range items[lo:hi] {
		out = append(out, it.json)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	doc := s.doc(RouteCreateIssue)
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if !decode(w, r, &in, doc) {
		return
	}
	if strings.TrimSpace(in.Title) == "" {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "Issue", Code: "missing_field", Field: "title"})
		return
	}
	n := s.AddIssue(Issue{Title: in.Title, Body: in.Body, Labels: in.Labels, Author: s.Login})
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.issueJSON(r, s.issues[n]))
}

// exists reports whether number is an issue or a pull request. The caller
// holds s.mu.
func (s *Server) exists(number int) bool {
	return s.issues[number] != nil || s.pulls[number] != nil
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request, p map[string]string) {
	doc := s.doc(RouteListComments)
	n, ok := s.issueNumber(w, p, doc)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists(n) {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	var all []*Comment
	for _, c := range s.comments {
		if c.Issue == n {
			all = append(all, c)
		}
	}
	lo, hi := paginate(w, r, len(all))
	out := []commentJSON{}
	for _, c := range all[lo:hi] {
		out = append(out, s.commentJSON(r, c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request, p map[string]string) {
	doc := s.doc(RouteCreateComment)
	n, ok := s.issueNumber(w, p, doc)
	if !ok {
		return
	}
	var in struct {
		Body *string `json:"body"`
	}
	if !decode(w, r, &in, doc) {
		return
	}
	s.mu.Lock()
	found := s.exists(n)
	s.mu.Unlock()
	switch {
	case !found:
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	case in.Body == nil || *in.Body == "":
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "IssueComment", Code: "missing_field", Field: "body"})
		return
	case utf8.RuneCountInString(*in.Body) > MaxCommentLength:
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "IssueComment", Code: "custom", Field: "body",
				Message: fmt.Sprintf("body is too long (maximum is %d characters)", MaxCommentLength)})
		return
	}
	id := s.AddComment(Comment{Issue: n, Body: *in.Body, Author: s.Login})
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.commentJSON(r, s.comment(id)))
}

// comment finds a comment by id. The caller holds s.mu.
func (s *Server) comment(id int64) *Comment {
	for _, c := range s.comments {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request, p map[string]string) {
	id, _ := strconv.ParseInt(p["id"], 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.comment(id)
	if c == nil {
		writeError(w, http.StatusNotFound, "Not Found", s.doc(RouteGetComment))
		return
	}
	writeJSON(w, http.StatusOK, s.commentJSON(r, c))
}

func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request, p map[string]string) {
	id, _ := strconv.ParseInt(p["id"], 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.comments, func(c *Comment) bool { return c.ID == id })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Not Found", s.doc(RouteDeleteComment))
		return
	}
	s.comments = slices.Delete(s.comments, i, i+1)
	w.WriteHeader(http.StatusNoContent)
}

// labelsOf returns the label list of an issue or pull request. The caller
// holds s.mu.
func (s *Server) labelsOf(number int) *[]string {
	if is := s.issues[number]; is != nil {
		return &is.Labels
	}
	if pr := s.pulls[number]; pr != nil {
		return &pr.Labels
	}
	return nil
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request, p map[string]string) {
	doc := s.doc(RouteAddLabels)
	n, ok := s.issueNumber(w, p, doc)
	if !ok {
		return
	}
	// GitHub takes {"labels": [...]} or a bare array.
	var raw json.RawMessage
	if !decode(w, r, &raw, doc) {
		return
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		var in struct {
			Labels []string `json:"labels"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
			return
		}
		names = in.Labels
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	labels := s.labelsOf(n)
	if labels == nil {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	*labels = s.ensureLabels(append(*labels, names...))
	s.touch(n)
	writeJSON(w, http.StatusOK, s.labelJSONs(r, *labels))
}

// touch moves an issue's or pull request's updated time. The caller holds
// s.mu.
func (s *Server) touch(number int) {
	if is := s.issues[number]; is != nil {
		is.UpdatedAt = s.now()
	}
	if pr := s.pulls[number]; pr != nil {
		pr.UpdatedAt = s.now()
	}
}

func (s *Server) removeLabel(w http.ResponseWriter, r *http.Request, p map[string]string) {
	doc := s.doc(RouteRemoveLabel)
	n, ok := s.issueNumber(w, p, doc)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	labels := s.labelsOf(n)
	if labels == nil {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	i := slices.IndexFunc(*labels, func(l string) bool { return strings.EqualFold(l, p["name"]) })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Label does not exist", doc)
		return
	}
	*labels = slices.Delete(*labels, i, i+1)
	s.touch(n)
	writeJSON(w, http.StatusOK, s.labelJSONs(r, *labels))
}

func (s *Server) listLabels(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo, hi := paginate(w, r, len(s.labels))
	out := []labelJSON{}
	for _, l := range s.labels[lo:hi] {
		out = append(out, s.labelJSON(r, l))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getLabel(w http.ResponseWriter, r *http.Request, p map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.label(p["name"])
	if l == nil {
		writeError(w, http.StatusNotFound, "Not Found", s.doc(RouteGetLabel))
		return
	}
	writeJSON(w, http.StatusOK, s.labelJSON(r, l))
}

var hexColor = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

func (s *Server) createLabel(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	doc := s.doc(RouteCreateLabel)
	var in struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !decode(w, r, &in, doc) {
		return
	}
	in.Color = strings.TrimPrefix(in.Color, "#")
	switch {
	case strings.TrimSpace(in.Name) == "":
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "Label", Code: "missing_field", Field: "name"})
		return
	case in.Color != "" && !hexColor.MatchString(in.Color):
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "Label", Code: "invalid", Field: "color"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.label(in.Name) != nil {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "Label", Code: "already_exists", Field: "name"})
		return
	}
	l := &Label{Name: in.Name, Color: cmp.Or(in.Color, "ededed"), Description: in.Description}
	s.labels = append(s.labels, l)
	writeJSON(w, http.StatusCreated, s.labelJSON(r, l))
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	q := r.URL.Query()
	state := cmp.Or(q.Get("state"), "open")
	head, headOwner := q.Get("head"), ""
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		head, headOwner = branch, owner
	}
	baseRef := q.Get("base")
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []*PullRequest
	for _, n := range sortedKeys(s.pulls) {
		pr := s.pulls[n]
		if (state == "all" || pr.State == state) && (head == "" || pr.Head == head) &&
			(headOwner == "" || strings.EqualFold(pr.HeadOwner, headOwner)) && (baseRef == "" || pr.Base == baseRef) {
			all = append(all, pr)
		}
	}
	slices.Reverse(all) // newest first, as GitHub sorts by default
	lo, hi := paginate(w, r, len(all))
	out := []pullJSON{}
	for _, pr := range all[lo:hi] {
		out = append(out, s.pullJSON(r, pr))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createPull(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	doc := s.doc(RouteCreatePull)
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !decode(w, r, &in, doc) {
		return
	}
	if _, branch, ok := strings.Cut(in.Head, ":"); ok {
		in.Head = branch
	}
	for _, f := range []struct{ name, value string }{{"title", in.Title}, {"head", in.Head}, {"base", in.Base}} {
		if strings.TrimSpace(f.value) == "" {
			writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
				fieldError{Resource: "PullRequest", Code: "missing_field", Field: f.name})
			return
		}
	}
	if in.Head == in.Base {
		writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
			fieldError{Resource: "PullRequest", Code: "custom", Message: "No commits between " + in.Base + " and " + in.Head})
		return
	}
	s.mu.Lock()
	for _, pr := range s.pulls {
		if pr.State == "open" && pr.Head == in.Head && pr.Base == in.Base {
			s.mu.Unlock()
			writeError(w, http.StatusUnprocessableEntity, "Validation Failed", doc,
				fieldError{Resource: "PullRequest", Code: "custom", Message: fmt.Sprintf("A pull request already exists for %s:%s.", s.Owner, in.Head)})
			return
		}
	}
	s.mu.Unlock()
	n := s.AddPullRequest(PullRequest{Title: in.Title, Body: in.Body, Head: in.Head, Base: in.Base, Draft: in.Draft, Author: s.Login})
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusCreated, s.pullJSON(r, s.pulls[n]))
}

func (s *Server) user(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	if strings.HasSuffix(s.Login, "[bot]") {
		// A bot's token is a GitHub App installation token, which the
		// real API refuses here.
		writeError(w, http.StatusForbidden, "Resource not accessible by integration", s.doc(RouteUser))
		return
	}
	writeJSON(w, http.StatusOK, userOf(r, s.Login))
}

func (s *Server) doc(id Route) string {
	for _, rt := range s.routes {
		if rt.id == id {
			return rt.doc
		}
	}
	return ""
}

// closingKeyword finds "Closes #12" and its kin in a pull request body.
var closingKeyword = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+#(\d+)\b`)

// closingRefs adds the issues body closes to refs, without duplicates.
func closingRefs(body string, refs []int) []int {
	out := slices.Clone(refs)
	for _, m := range closingKeyword.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[1])
		if err == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
