package decision

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/githubtest"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/tracker/github"
)

// newGitHub starts a fake GitHub and a real client of it whose retries do not
// wait.
func newGitHub(t *testing.T, edit ...func(*github.Config)) (*githubtest.Server, *github.Client) {
	t.Helper()
	srv := githubtest.New(t)
	cfg, err := github.Resolve(context.Background(), github.Env{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = "baton/test"
	cfg.Sleep = func(context.Context, time.Duration) error { return nil }
	cfg.Retry = github.Retry{Timeout: 5 * time.Second}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := github.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

func testDir(t *testing.T) state.Dir {
	t.Helper()
	return state.At(t.TempDir())
}

var fixedNow = time.Date(2026, 4, 26, 5, 30, 0, 0, time.UTC)

func clock() time.Time { return fixedNow }

func cand(slug string) Candidate {
	return Candidate{
		Slug:         slug,
		What:         "What of " + slug,
		Why:          "Why of " + slug,
		Alternatives: "Alternatives of " + slug,
		Consequences: "Consequences of " + slug,
		ScopeHint:    ScopeIssue,
	}
}

func approve(scope string, cs ...Candidate) []UserDecision {
	var out []UserDecision
	for _, c := range cs {
		out = append(out, UserDecision{Candidate: c, FinalScope: scope})
	}
	return out
}

// transcriptWith writes a transcript whose assistant messages say texts.
func transcriptWith(t *testing.T, texts ...string) string {
	t.Helper()
	var b strings.Builder
	for i, s := range texts {
		b.WriteString(`{"type":"user","uuid":"u` + itoa(i) + `","message":{"role":"user","content":"go on"}}` + "\n")
		b.WriteString(`{"type":"assistant","uuid":"a` + itoa(i) + `","message":{"role":"assistant","content":[{"type":"text","text":` + jsonString(s) + `}]}}` + "\n")
	}
	p := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendTranscript(t *testing.T, path string, texts ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range texts {
		if _, err := f.WriteString(`{"type":"assistant","uuid":"x","message":{"role":"assistant","content":[{"type":"text","text":` + jsonString(s) + `}]}}` + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func block(c Candidate) string {
	s := strings.TrimPrefix(Render(c), DecisionMarker(c.Slug)+"\n")
	if c.ScopeHint == ScopeCrossIssue {
		s += "\n**Scope:** cross-issue\n"
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
