package web

import (
	"net/http"
	"strings"
	"time"
)

// snippetPart is a piece of a search hit's snippet; Mark pieces matched the
// query. The template escapes both.
type snippetPart struct {
	Text string
	Mark bool
}

// Highlight markers around the matched words of a snippet.
const (
	markOpen  = "«"
	markClose = "»"
)

// splitSnippet cuts a snippet with «…» markers into parts.
func splitSnippet(s string) []snippetPart {
	var out []snippetPart
	for s != "" {
		i := strings.Index(s, markOpen)
		if i < 0 {
			out = append(out, snippetPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, snippetPart{Text: s[:i]})
		}
		s = s[i+len(markOpen):]
		j := strings.Index(s, markClose)
		if j < 0 {
			out = append(out, snippetPart{Text: s, Mark: true})
			break
		}
		out = append(out, snippetPart{Text: s[:j], Mark: true})
		s = s[j+len(markClose):]
	}
	return out
}

type hitView struct {
	Kind, Title   string
	Session, File string
	Issue         int
	Time          time.Time
	Snippet       []snippetPart
}

type searchPage struct {
	Query, Kind, Since string
	Kinds              []string
	Error              string
	Unavailable        bool
	Total, First       int
	Hits               []hitView
	Prev, Next         string
}

// searchKinds are the kinds of records the index holds.
var searchKinds = []string{"journal", "transcript", "decision", "summary", "run", "debate"}

// search runs a query against the index.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := searchPage{Query: strings.TrimSpace(q.Get("q")), Kind: q.Get("kind"), Since: q.Get("since"), Kinds: searchKinds, Unavailable: true}
	s.render(w, r, http.StatusOK, "search", "search", msgNavSearch.In(s.o.Lang), p)
}
