package web

import (
	"net/http"
)

// usageRow is one line of the usage table: a day, month or session.
type usageRow struct {
	Label, Session                        string
	Models                                []string
	Input, Output, CacheCreate, CacheRead int64
	Total                                 int64
}

type usagePage struct {
	By, Since   string
	Views       []string
	Key         string
	Error       string
	Unavailable bool
	Chart       *chart
	Rows        []usageRow
}

// usageViews are the ways usage can be grouped.
var usageViews = []string{"daily", "monthly", "session"}

// usage shows token usage per day, month or session with a chart.
func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := usagePage{By: "daily", Since: q.Get("since"), Views: usageViews, Unavailable: true}
	s.render(w, r, http.StatusOK, "usage", "usage", msgNavUsage.In(s.o.Lang), p)
}
