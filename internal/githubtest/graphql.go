package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// graphqlError is one entry of a GraphQL "errors" list.
type graphqlError struct {
	Type      string           `json:"type,omitempty"`
	Path      []string         `json:"path,omitempty"`
	Locations []map[string]int `json:"locations,omitempty"`
	Message   string           `json:"message"`
}

type linkedPullJSON struct {
	Number            int          `json:"number"`
	Title             string       `json:"title"`
	URL               string       `json:"url"`
	State             string       `json:"state"`
	IsDraft           bool         `json:"isDraft"`
	HeadRefName       string       `json:"headRefName"`
	BaseRefName       string       `json:"baseRefName"`
	CreatedAt         time.Time    `json:"createdAt"`
	Author            graphqlLogin `json:"author"`
	IsCrossRepository bool         `json:"isCrossRepository"`
	HeadRepository    graphqlRepo  `json:"headRepository"`
}

// graphqlLogin is an Actor or RepositoryOwner reduced to its login.
type graphqlLogin struct {
	Login string `json:"login"`
}

// graphqlRepo is a Repository reduced to its names.
type graphqlRepo struct {
	Name          string       `json:"name"`
	NameWithOwner string       `json:"nameWithOwner"`
	Owner         graphqlLogin `json:"owner"`
}

// Literal arguments, for queries that do not use variables.
var (
	literalRepo   = regexp.MustCompile(`repository\s*\(\s*owner\s*:\s*"([^"]*)"\s*,\s*name\s*:\s*"([^"]*)"`)
	literalNumber = regexp.MustCompile(`issue\s*\(\s*number\s*:\s*(\d+)`)
	includeClosed = regexp.MustCompile(`includeClosedPrs\s*:\s*true`)
)

// graphql answers closedByPullRequestsReferences for one issue, in the shape
// GitHub's GraphQL API answers it. Other queries get a GraphQL error.
func (s *Server) graphql(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", "https://docs.github.com/graphql")
		return
	}
	if !strings.Contains(in.Query, "closedByPullRequestsReferences") {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []graphqlError{{
			Message: "githubtest: this fake answers only closedByPullRequestsReferences of an issue",
		}}})
		return
	}
	owner, name := stringVar(in.Variables, "owner"), stringVar(in.Variables, "name", "repo")
	if m := literalRepo.FindStringSubmatch(in.Query); m != nil && owner == "" {
		owner, name = m[1], m[2]
	}
	number := intVar(in.Variables, "number", "issue", "issueNumber")
	if m := literalNumber.FindStringSubmatch(in.Query); m != nil && number == 0 {
		number, _ = strconv.Atoi(m[1])
	}
	withClosed := includeClosed.MatchString(in.Query) || in.Variables["includeClosedPrs"] == true

	loc := []map[string]int{{"line": 2, "column": 3}}
	if !strings.EqualFold(owner, s.Owner) || !strings.EqualFold(name, s.Repo) {
		writeJSON(w, http.StatusOK, map[string]any{
			"data": map[string]any{"repository": nil},
			"errors": []graphqlError{{Type: "NOT_FOUND", Path: []string{"repository"}, Locations: loc,
				Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name)}},
		})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issues[number] == nil {
		writeJSON(w, http.StatusOK, map[string]any{
			"data": map[string]any{"repository": map[string]any{"issue": nil}},
			"errors": []graphqlError{{Type: "NOT_FOUND", Path: []string{"repository", "issue"}, Locations: loc,
				Message: fmt.Sprintf("Could not resolve to an Issue with the number of %d.", number)}},
		})
		return
	}
	nodes := []linkedPullJSON{}
	for _, n := range sortedKeys(s.pulls) {
		pr := s.pulls[n]
		if !slices.Contains(pr.Closes, number) || (pr.State != "open" && !withClosed) {
			continue
		}
		state := "OPEN"
		switch {
		case pr.Merged:
			state = "MERGED"
		case pr.State == "closed":
			state = "CLOSED"
		}
		nodes = append(nodes, linkedPullJSON{Number: pr.Number, Title: pr.Title, URL: s.pullJSON(r, pr).HTMLURL,
			State: state, IsDraft: pr.Draft, HeadRefName: pr.Head, BaseRefName: pr.Base, CreatedAt: pr.CreatedAt,
			// GraphQL names an app by its slug, without the "[bot]" REST adds.
			Author:            graphqlLogin{Login: strings.TrimSuffix(pr.Author, "[bot]")},
			IsCrossRepository: !strings.EqualFold(pr.HeadOwner, s.Owner),
			HeadRepository: graphqlRepo{Name: s.Repo, NameWithOwner: pr.HeadOwner + "/" + s.Repo,
				Owner: graphqlLogin{Login: pr.HeadOwner}}})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"issue": map[string]any{
		"number": number,
		"closedByPullRequestsReferences": map[string]any{
			"totalCount": len(nodes),
			"nodes":      nodes,
			"pageInfo":   map[string]any{"hasNextPage": false, "endCursor": nil},
		},
	}}}})
}

func stringVar(vars map[string]any, names ...string) string {
	for _, n := range names {
		if v, ok := vars[n].(string); ok {
			return v
		}
	}
	return ""
}

func intVar(vars map[string]any, names ...string) int {
	for _, n := range names {
		switch v := vars[n].(type) {
		case float64:
			return int(v)
		case string:
			if i, err := strconv.Atoi(v); err == nil {
				return i
			}
		}
	}
	return 0
}
