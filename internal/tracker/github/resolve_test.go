package github

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/tracker"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		dir       string
		outputs   map[string]string // command line → output; absent: command fails
		want      Config
		wantCalls []string
		wantErr   string
		wantKind  tracker.Kind
	}{
		{
			name: "everything from the environment",
			env:  map[string]string{"GH_TOKEN": "t1", "GITHUB_TOKEN": "t2", "GH_REPO": "acme/widgets", "GITHUB_API_URL": "http://127.0.0.1:9/", "GITHUB_GRAPHQL_URL": "http://127.0.0.1:9/gql"},
			want: Config{APIURL: "http://127.0.0.1:9/", GraphQLURL: "http://127.0.0.1:9/gql", Token: "t1", Owner: "acme", Repo: "widgets"},
		},
		{
			name: "GITHUB_TOKEN when GH_TOKEN is empty",
			env:  map[string]string{"GITHUB_TOKEN": " t2\n", "GH_REPO": "acme/widgets"},
			want: Config{APIURL: DefaultAPIURL, Token: "t2", Owner: "acme", Repo: "widgets"},
		},
		{
			name:      "gh auth token, repository from origin",
			dir:       "/repo",
			outputs:   map[string]string{"git remote get-url origin": "git@github.com:acme/widgets.git\n", "gh auth token": "gho_fromgh\n"},
			want:      Config{APIURL: DefaultAPIURL, Token: "gho_fromgh", Owner: "acme", Repo: "widgets"},
			wantCalls: []string{"/repo: git remote get-url origin", "/repo: gh auth token"},
		},
		{
			name:      "enterprise host",
			env:       map[string]string{"GH_REPO": "ghe.example.com/team/svc"},
			outputs:   map[string]string{"gh auth token --hostname ghe.example.com": "tok"},
			want:      Config{APIURL: "https://ghe.example.com/api/v3/", Token: "tok", Owner: "team", Repo: "svc"},
			wantCalls: []string{": gh auth token --hostname ghe.example.com"},
		},
		{
			name:     "no token anywhere",
			env:      map[string]string{"GH_REPO": "acme/widgets"},
			wantErr:  "gh auth token` failed",
			wantKind: tracker.KindAuth,
		},
		{
			name:     "gh prints nothing",
			env:      map[string]string{"GH_REPO": "acme/widgets"},
			outputs:  map[string]string{"gh auth token": "\n"},
			wantErr:  "gave none",
			wantKind: tracker.KindAuth,
		},
		{
			name:     "no repository and no folder",
			env:      map[string]string{"GH_TOKEN": "t"},
			wantErr:  "set GH_REPO",
			wantKind: tracker.KindUnknown,
		},
		{
			name:     "no origin remote",
			env:      map[string]string{"GH_TOKEN": "t"},
			dir:      "/repo",
			wantErr:  "add an origin remote",
			wantKind: tracker.KindUnknown,
		},
		{
			name:     "origin is not GitHub-shaped",
			env:      map[string]string{"GH_TOKEN": "t"},
			dir:      "/repo",
			outputs:  map[string]string{"git remote get-url origin": "/srv/git/widgets.git"},
			wantErr:  "origin remote",
			wantKind: tracker.KindUnknown,
		},
		{
			name:     "bad GH_REPO",
			env:      map[string]string{"GH_TOKEN": "t", "GH_REPO": "widgets"},
			wantErr:  "GH_REPO",
			wantKind: tracker.KindUnknown,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			env := Env{
				Getenv: func(k string) string { return tt.env[k] },
				Dir:    tt.dir,
				Output: func(_ context.Context, dir, name string, args ...string) ([]byte, error) {
					line := strings.Join(append([]string{name}, args...), " ")
					calls = append(calls, dir+": "+line)
					out, ok := tt.outputs[line]
					if !ok {
						return nil, errors.New("exit status 1")
					}
					return []byte(out), nil
				},
			}
			got, err := Resolve(context.Background(), env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve error = %v; want one containing %q", err, tt.wantErr)
				}
				if k := tracker.KindOf(err); k != tt.wantKind {
					t.Errorf("KindOf = %q; want %q", k, tt.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got.APIURL != tt.want.APIURL || got.GraphQLURL != tt.want.GraphQLURL || got.Token != tt.want.Token || got.Owner != tt.want.Owner || got.Repo != tt.want.Repo {
				t.Errorf("Resolve = %+v; want %+v", got, tt.want)
			}
			if tt.wantCalls != nil && strings.Join(calls, "|") != strings.Join(tt.wantCalls, "|") {
				t.Errorf("commands run = %q; want %q", calls, tt.wantCalls)
			}
		})
	}
}

func TestNewGraphQLURL(t *testing.T) {
	tests := []struct{ api, want string }{
		{"https://api.github.com/", "https://api.github.com/graphql"},
		{"https://api.github.com", "https://api.github.com/graphql"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"},
		{"http://127.0.0.1:5000/", "http://127.0.0.1:5000/graphql"},
	}
	for _, tt := range tests {
		t.Run(tt.api, func(t *testing.T) {
			c, err := New(Config{APIURL: tt.api, Owner: "o", Repo: "r", Token: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if c.graphqlURL != tt.want {
				t.Errorf("GraphQL URL = %q; want %q", c.graphqlURL, tt.want)
			}
			if !strings.HasSuffix(c.gh.BaseURL.Path, "/") {
				t.Errorf("BaseURL = %q; want a trailing slash", c.gh.BaseURL)
			}
		})
	}
	if _, err := New(Config{APIURL: "not a url", Owner: "o", Repo: "r"}); err == nil {
		t.Error("New with a relative API URL succeeded; want an error")
	}
}
