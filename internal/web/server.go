package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/pricing"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/worker"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// DefaultJournalRecords is how many of the journal's newest records the
// session pages read when Options.JournalRecords is 0.
const DefaultJournalRecords = 5000

// Options are where the dashboard reads from and how it speaks.
type Options struct {
	// State is the repository's state folder.
	State state.Dir
	// Resume says how briefings are made. Its Worktree and Branch are the
	// serving worktree's, whose briefing the sessions page shows first.
	Resume resume.Options
	// Route is the context route of the repository's sessions (empty: the
	// default one); Routes are other configured routes. Routes that have
	// layer files in the state folder are shown too.
	Route  string
	Routes []string
	// Runs are the worker's run records.
	Runs worker.Store
	// Queue reads the worker's job queue; nil: the queue page says there
	// is none.
	Queue func(ctx context.Context) (*worker.QueueStatus, error)
	// Debates is the folder of debates.
	Debates debate.Dir
	// MemoryDir is the agent memory folder cross-issue decisions are
	// escalated to; empty: not shown.
	MemoryDir string
	// IssueURL returns the web address of an issue; nil, or "" for an
	// issue, shows the number unlinked (the local tracker).
	IssueURL func(n int) string
	// Index is the repository's index, caught up before each page that
	// reads it; nil: the timeline and sessions come from the journal, and
	// search is not available.
	Index *index.Index
	// Prices price the usage page's rows; nil shows tokens only.
	Prices *pricing.Table
	// TranscriptDirs are the folders of the repository's agent transcripts,
	// one per worktree, which token usage is counted from.
	TranscriptDirs []string
	// SearchPage is how many hits a search page shows (default
	// DefaultSearchPage).
	SearchPage int
	// JournalRecords bounds how many of the journal's newest records the
	// session pages read (default DefaultJournalRecords).
	JournalRecords int

	Lang i18n.Lang
	// Loc is the time zone of the times shown; nil: UTC.
	Loc *time.Location
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Log gets the errors of pages; nil: discarded.
	Log *slog.Logger
}

// Server renders the dashboard's pages. It is an http.Handler without
// access control: put it behind a Guard.
type Server struct {
	o     Options
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// New parses the templates and sets up the pages.
func New(o Options) (*Server, error) {
	if o.Loc == nil {
		o.Loc = time.UTC
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SearchPage <= 0 {
		o.SearchPage = DefaultSearchPage
	}
	if o.JournalRecords <= 0 {
		o.JournalRecords = DefaultJournalRecords
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, pages: map[string]*template.Template{}}
	layout, err := template.New("layout.html").Funcs(s.funcs()).ParseFS(templateFS, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("parse layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		s.pages[name] = t
	}

	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		files.ServeHTTP(w, r)
	})))
	mux.HandleFunc("GET /{$}", s.sessions)
	mux.HandleFunc("GET /sessions/{id}", s.session)
	mux.HandleFunc("GET /decisions", s.decisions)
	mux.HandleFunc("GET /context", s.context)
	mux.HandleFunc("GET /runs", s.runs)
	mux.HandleFunc("GET /runs/{id}", s.run)
	mux.HandleFunc("GET /debates", s.debates)
	mux.HandleFunc("GET /debates/{id}", s.debate)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /usage", s.usage)
	mux.HandleFunc("GET /queue", s.queue)
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, errNotFound)
	})
	s.mux = mux
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// errNotFound is the error of a page about something that does not exist.
var errNotFound = errors.New("not found")

// view is what the layout gets: the page's own data under Data.
type view struct {
	Lang  i18n.Lang
	Title string
	// Nav is the menu entry to mark as current.
	Nav  string
	Data any
}

// render executes page into a buffer first, so a template error becomes a
// 500 page rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, code int, page, nav, title string, data any) {
	t, ok := s.pages[page]
	if !ok {
		s.o.Log.Error("dashboard: no such page template", "page", page)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", view{Lang: s.o.Lang, Title: title, Nav: nav, Data: data}); err != nil {
		s.o.Log.Error("dashboard: render", "page", page, "path", r.URL.Path, "err", err)
		if page != "error" {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(buf.Bytes())
	}
}

// fail renders the error page. The error's text is shown (escaped): the
// dashboard is the person's own.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, code int, err error) {
	if code >= 500 {
		s.o.Log.Error("dashboard: page", "path", r.URL.Path, "err", err)
	}
	msg := msgNotFound.In(s.o.Lang)
	if !errors.Is(err, errNotFound) {
		msg = err.Error()
	}
	s.render(w, r, code, "error", "", http.StatusText(code), struct {
		Code    int
		Message string
	}{code, msg})
}
