package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/index"
)

// DefaultSearchPage is how many hits a search page shows when
// Options.SearchPage is 0.
const DefaultSearchPage = 20

type hitView struct {
	Kind, Title   string
	Session, File string
	Issue         int
	Time          time.Time
	// Snippet are the index's spans; the template marks the matching
	// ones with <mark> and escapes all of them.
	Snippet []index.Span
}

type searchPage struct {
	Query, Kind, Since string
	Kinds              []index.Kind
	Error              string
	Warning            string
	Unavailable        bool
	Total, First       int
	// More: more than Total match.
	More       bool
	Hits       []hitView
	Prev, Next string
}

// search runs a query against the index, a page of hits at a time.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := searchPage{Query: strings.TrimSpace(q.Get("q")), Kind: q.Get("kind"), Since: q.Get("since"), Kinds: index.Kinds()}
	title := msgNavSearch.In(s.o.Lang)
	if s.o.Index == nil {
		p.Unavailable = true
		s.render(w, r, http.StatusOK, "search", "search", title, p)
		return
	}
	if p.Query == "" {
		s.render(w, r, http.StatusOK, "search", "search", title, p)
		return
	}
	query := index.Query{Text: p.Query, Limit: s.o.SearchPage}
	if p.Kind != "" {
		k, err := index.ParseKind(p.Kind)
		if err != nil {
			p.Error = err.Error()
			s.render(w, r, http.StatusBadRequest, "search", "search", title, p)
			return
		}
		query.Kinds = []index.Kind{k}
	}
	since, err := parseSince(p.Since, s.o.Now(), s.o.Loc)
	if err != nil {
		p.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "search", "search", title, p)
		return
	}
	query.Since = since
	page, _ := strconv.Atoi(q.Get("page"))
	page = min(max(page, 1), index.MaxLimit*index.MaxLimit/s.o.SearchPage)
	query.Offset = (page - 1) * s.o.SearchPage

	p.Warning = s.catchUp(r.Context())
	res, err := s.o.Index.Search(r.Context(), query)
	if errors.Is(err, index.ErrQuery) {
		p.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "search", "search", title, p)
		return
	}
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Total, p.More, p.First = res.Total, res.More, query.Offset+1
	for _, h := range res.Hits {
		p.Hits = append(p.Hits, hitView{Kind: string(h.Kind), Title: h.Title, Session: h.Session, File: h.File, Issue: h.Issue, Time: h.Time, Snippet: h.Snippet})
	}
	link := func(n int) string {
		v := url.Values{"q": {p.Query}, "page": {strconv.Itoa(n)}}
		if p.Kind != "" {
			v.Set("kind", p.Kind)
		}
		if p.Since != "" {
			v.Set("since", p.Since)
		}
		return "/search?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if query.Offset+len(res.Hits) < res.Total || res.More {
		p.Next = link(page + 1)
	}
	s.render(w, r, http.StatusOK, "search", "search", title, p)
}
