package web

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/journal"
)

// get fetches path from ts and returns the status and body.
func get(t *testing.T, ts string, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestPages loads every page of the fixture, from the files alone and with
// the index.
func TestSearchPages(t *testing.T) {
	fx := newFixture(t)
	o := fx.options()
	o.Index = fx.index(t)
	o.SearchPage = 3
	ts := fx.server(t, o, "")
	// "csv" matches 9 documents (the hostile prompt once, though the
	// journal and the transcript both keep it): pages of 3, 3 and 3.
	tests := []struct {
		name       string
		page       string
		hits       int
		prev, next bool
		start      string
	}{
		{name: "first page", page: "", hits: 3, next: true, start: `start="1"`},
		{name: "second page", page: "2", hits: 3, prev: true, next: true, start: `start="4"`},
		{name: "last page", page: "3", hits: 3, prev: true, start: `start="7"`},
		{name: "past the end", page: "9", hits: 0, prev: true},
		{name: "nonsense page is the first", page: "x", hits: 3, next: true, start: `start="1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := get(t, ts.URL, "/search?q=csv&page="+tt.page)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d; want 200", res.StatusCode)
			}
			if got := strings.Count(body, `<li class="hit">`); got != tt.hits {
				t.Errorf("%d hits; want %d", got, tt.hits)
			}
			if got := strings.Contains(body, `rel="prev"`); got != tt.prev {
				t.Errorf("previous link %v; want %v", got, tt.prev)
			}
			if got := strings.Contains(body, `rel="next"`); got != tt.next {
				t.Errorf("next link %v; want %v", got, tt.next)
			}
			if !strings.Contains(body, "Results: 9") || !strings.Contains(body, tt.start) {
				t.Errorf("want the total 9 and the list numbered from %s", tt.start)
			}
		})
	}
}

// Past index.CountLimit matches the page says there are more, and links on.
func TestSearchPageCountLimit(t *testing.T) {
	fx := newFixture(t)
	recs := make([]journal.Record, index.CountLimit+1)
	for i := range recs {
		recs[i] = journal.Record{TS: fxNow, Event: "Stop", Session: "s9", Message: fmt.Sprintf("bulk item%d", i)}
	}
	if err := journal.Open(fx.State.Root, journal.Options{}).Append(recs...); err != nil {
		t.Fatal(err)
	}
	o := fx.options()
	o.Index = fx.index(t)
	ts := fx.server(t, o, "")
	_, body := get(t, ts.URL, "/search?q=bulk")
	if want := fmt.Sprintf("Results: more than %d", index.CountLimit); !strings.Contains(body, want) || !strings.Contains(body, `rel="next"`) {
		t.Errorf("want %q and a link to the next page", want)
	}
}

func TestPages(t *testing.T) {
	fx := newFixture(t)
	withIndex := fx.options()
	withIndex.Index = fx.index(t)
	servers := map[string]string{
		"files": fx.server(t, fx.options(), "").URL,
		"index": fx.server(t, withIndex, "").URL,
	}
	tests := []struct {
		name    string
		path    string
		code    int
		want    []string
		notWant []string
		// only names the one mode the case is for.
		only string
	}{
		{
			name: "sessions timeline with the briefing of the serving worktree",
			path: "/",
			code: http.StatusOK,
			want: []string{
				fxTask, "Rewrite the writer loop", // the briefing from current.md
				fx.Main, fxBranch, fx.Other, fxOtherBranch,
				`href="/sessions/` + fxSession + `"`, `href="/sessions/` + fxOtherSession + `"`,
			},
		},
		{
			name: "the journal's timeline shows the last prompts",
			path: "/",
			code: http.StatusOK,
			want: []string{"fix the login redirect", "OK, go ahead"},
			only: "files",
		},
		{
			name: "another worktree's briefing",
			path: "/?worktree=" + fx.Other,
			code: http.StatusOK,
			want: []string{`<span class="muted">` + fx.Other + " · " + fxOtherBranch + "</span>", `href="/?worktree=` + strings.ReplaceAll(fx.Main, "/", "%2f") + `#briefing"`},
		},
		{
			name:    "an unknown worktree keeps the serving one's briefing",
			path:    "/?worktree=/etc",
			code:    http.StatusOK,
			want:    []string{fxTask},
			notWant: []string{"/etc"},
		},
		{
			name:    "the briefing's Markdown rendered",
			path:    "/",
			code:    http.StatusOK,
			want:    []string{`<div class="markdown" id="briefing-text">`, "<strong>Task</strong>: ", fxTask, "(The task was set with <code>baton save --task</code>.)", "<li>Rewrite the writer loop</li>"},
			notWant: []string{"**Task**", `<pre class="text">### `},
		},
		{
			// 9 records, 2 prompts, 5 tool calls, 1 answer (a Stop record).
			name: "the journal's timeline counts the answers",
			path: "/",
			code: http.StatusOK,
			want: []string{`<td class="n">9</td><td class="n">2</td><td class="n">5</td><td class="n">1</td>`},
			only: "files",
		},
		{
			name:    "the decisions page names real commands",
			path:    "/decisions",
			code:    http.StatusOK,
			want:    []string{"baton context approve ID --reject"},
			notWant: []string{"context reject"},
		},
		{
			name: "a session with its prompts, tools, files, decisions and summaries",
			path: "/sessions/" + fxSession,
			code: http.StatusOK,
			want: []string{
				"&lt;script&gt;alert(1)&lt;/script&gt; please refactor the CSV export",
				fxFile, "go test ./internal/export/", "Edit",
				fxSlug, fxCrossSlug, fxPendingSlug, `href="https://github.com/acme/shop/issues/12"`,
				fxL1Action,
				`id="session-usage"`, "claude-sonnet-4-5-20250929", ">13,330<",
			},
			notWant: []string{"<script>alert(1)"},
		},
		{
			name: "an unknown session",
			path: "/sessions/5e55a0a1-ffff-4aaa-8bbb-00000000ffff",
			code: http.StatusNotFound,
			want: []string{"Not found."},
		},
		{
			name: "a session id that could name another file",
			path: "/sessions/..%2f..%2fetc",
			code: http.StatusNotFound,
		},
		{
			name: "decisions posted, pending, waiting, escalated and logged",
			path: "/decisions",
			code: http.StatusOK,
			want: []string{
				`id="posted"`, fxSlug, `href="https://github.com/acme/shop/issues/12"`,
				`id="pending"`, fxPendingSlug, "Retry GitHub posts with backoff",
				`id="waiting"`, fxProposal,
				`id="escalated"`, fxCrossSlug, "in memory",
				"Store every time in UTC", "Write CSV rows as they are read",
			},
		},
		{
			name: "context layers of the default route",
			path: "/context",
			code: http.StatusOK,
			want: []string{"Write CSV rows as they are read", fxL1Action, "2026-03-10", fxProposal},
		},
		{
			name: "an unknown route",
			path: "/context?route=nope",
			code: http.StatusNotFound,
		},
		{
			name: "worker runs",
			path: "/runs",
			code: http.StatusOK,
			want: []string{fxRunTitle, `href="` + fxRunPR + `"`, "IMPL_NO_LINKED_PR", "Flaky test", "22m0s"},
		},
		{
			name:    "a worker run with its output",
			path:    "/runs/acme-shop-12-20260310T100000Z",
			code:    http.StatusOK,
			want:    []string{fxRunTitle, `href="` + fxRunPR + `"`, "agent says &lt;b&gt;done&lt;/b&gt;", "Opened the pull request.", "9 turns"},
			notWant: []string{"<b>done</b>"},
		},
		{
			name: "worker queue by state and host",
			path: "/queue",
			code: http.StatusOK,
			want: []string{"postgres://baton:xxxxx@db.example/queue", "completed", "host-a 3, host-b 2", "acme/shop", "#12"},
		},
		{
			name: "an unknown run",
			path: "/runs/nope",
			code: http.StatusNotFound,
		},
		{
			name: "debates",
			path: "/debates",
			code: http.StatusOK,
			want: []string{fxTopic, "concluded", "1 / 2"},
		},
		{
			name: "a debate's rounds side by side",
			path: "/debates/cc-debate-20260310-100000-ab12",
			code: http.StatusOK,
			// The debate concluded in round 2 before the con side wrote it.
			want:    []string{fxTopic, "Rebuild it: simpler.", fxProRound2, fxConRound1, "[CONCLUDED]", fxSummary, "Round 2", "Not written: the debate ended first."},
			notWant: []string{"Not written yet."},
		},
		{
			name: "a debate id that is not one",
			path: "/debates/nope",
			code: http.StatusNotFound,
		},
		{
			name: "search without an index",
			path: "/search?q=csv",
			code: http.StatusOK,
			want: []string{`value="csv"`, "The index is not available."},
			only: "files",
		},
		{
			name:    "search finds the seeded decision",
			path:    "/search?q=stream&kind=decision",
			code:    http.StatusOK,
			want:    []string{`id="hits"`, "<strong>" + fxSlug + "</strong>", "<mark>stream</mark>-csv-rows", `<span class="badge kind-decision">decision</span>`, "Results: 1"},
			notWant: []string{"kind-journal"},
			only:    "index",
		},
		{
			name:    "search escapes the hostile prompt and marks the match",
			path:    "/search?q=alert",
			code:    http.StatusOK,
			want:    []string{"&lt;script&gt;", "<mark>alert</mark>", `href="/sessions/` + fxSession + `"`},
			notWant: []string{"<script>alert"},
			only:    "index",
		},
		{
			name: "a query the index cannot read",
			path: "/search?q=%22unclosed",
			code: http.StatusBadRequest,
			want: []string{`id="search-error"`},
			only: "index",
		},
		{
			name: "an unknown kind",
			path: "/search?q=csv&kind=nope",
			code: http.StatusBadRequest,
			only: "index",
		},
		{
			name: "the session's conversation from its transcript",
			path: "/sessions/" + fxSession,
			code: http.StatusOK,
			want: []string{`id="conversation"`, "The export now streams rows."},
			only: "index",
		},
		{
			name: "usage per day with a chart",
			path: "/usage",
			code: http.StatusOK,
			want: []string{`id="usage-chart"`, "<rect", "2026-03-10", "2026-03-09", ">13,330<", ">10<", "13,340 tokens in all, from 2 transcripts",
				"$0.01 in all (prices of 2026-", "Cost (USD)", `claude-sonnet-4-5-20250929 <span class="muted">$0.01</span>`,
				`id="usage-block">Active 5-hour block: ends at 15:00 (3h 00m left), $0.01 so far · $0.16 an hour, $0.51 at its end at this rate`},
		},
		{
			name: "usage per session",
			path: "/usage?by=session",
			code: http.StatusOK,
			want: []string{`href="/sessions/` + fxSession + `"`, ">13,330<", "claude-haiku-4-5-20251001"},
		},
		{
			name:    "usage since today",
			path:    "/usage?since=0d",
			code:    http.StatusOK,
			want:    []string{"2026-03-10", ">13,330<"},
			notWant: []string{"2026-03-09"},
		},
		{
			name:    "no usage in the period",
			path:    "/usage?by=monthly&since=2030-01-01",
			code:    http.StatusOK,
			want:    []string{`id="usage-empty"`, "No usage in this period.", `<a href="/usage?by=monthly">Show all time</a>`},
			notWant: []string{`id="usage-table"`},
		},
		{
			name: "usage with a bad since",
			path: "/usage?since=soon",
			code: http.StatusBadRequest,
			want: []string{"want a number of days"},
		},
		{
			name: "usage by an unknown period",
			path: "/usage?by=hourly",
			code: http.StatusBadRequest,
		},
		{
			name: "the style sheet",
			path: "/static/style.css",
			code: http.StatusOK,
			want: []string{".seg-input"},
		},
		{
			name: "no such page",
			path: "/nope",
			code: http.StatusNotFound,
		},
	}
	for _, mode := range []string{"files", "index"} {
		for _, tt := range tests {
			if tt.only != "" && tt.only != mode {
				continue
			}
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				res, body := get(t, servers[mode], tt.path)
				if res.StatusCode != tt.code {
					t.Fatalf("GET %s: status %d; want %d\n%s", tt.path, res.StatusCode, tt.code, body)
				}
				for _, w := range tt.want {
					if !strings.Contains(body, w) {
						t.Errorf("GET %s: body lacks %q", tt.path, w)
					}
				}
				for _, w := range tt.notWant {
					if strings.Contains(body, w) {
						t.Errorf("GET %s: body contains %q", tt.path, w)
					}
				}
			})
		}
	}
}

// TestEmptyUsage: with no transcript anywhere the usage page says where
// usage is counted from and what fills it.
func TestEmptyUsage(t *testing.T) {
	fx := newFixture(t)
	o := fx.options()
	empty := filepath.Join(t.TempDir(), "projects", "-repo")
	o.TranscriptDirs = []string{empty}
	ts := fx.server(t, o, "")
	res, body := get(t, ts.URL, "/usage")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d; want 200", res.StatusCode)
	}
	for _, want := range []string{`id="usage-empty"`, "No agent transcripts yet.", "<code>" + empty + "</code>", "Run a Claude Code session in this repository", "baton usage"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
}
