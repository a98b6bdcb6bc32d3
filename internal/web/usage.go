package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/pricing"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/usage"
)

// usageRow is one line of the usage table: a day, month or session.
type usageRow struct {
	Label, Session                        string
	Models                                []usageModel
	Input, Output, CacheCreate, CacheRead int64
	Total                                 int64
	Cost                                  string
}

// usageModel is one model of a row with what it cost ("" when unpriced).
type usageModel struct {
	Name, Cost string
}

// usageBlock is the active 5-hour block as the page shows it.
type usageBlock struct {
	End, Left, Cost, PerHour, Projected string
}

type usagePage struct {
	By, Since   string
	Views       []string
	Key         string
	Error       string
	Unavailable bool
	Chart       *chart
	Rows        []usageRow
	Total       usage.Tokens
	Cost        string
	Unpriced    []string
	PricesDate  string
	Block       *usageBlock
	Files       int
	// Dirs are the folders usage is counted from, named when they hold
	// no transcript.
	Dirs []string
}

// usageViews are the ways usage can be grouped.
var usageViews = []string{string(usage.Daily), string(usage.Monthly), string(usage.Session)}

// usageSeries are the chart's stacked values, bottom up.
func usageSeries(lang i18n.Lang) []chartSeries {
	return []chartSeries{
		{Name: messages["usage.input"].In(lang), Class: "seg-input"},
		{Name: messages["usage.output"].In(lang), Class: "seg-output"},
		{Name: messages["usage.cachecreate"].In(lang), Class: "seg-create"},
		{Name: messages["usage.cacheread"].In(lang), Class: "seg-read"},
	}
}

// usageChartBars is how many sessions the chart of the session view shows.
const usageChartBars = 40

var msgUsageKey = map[usage.Period]i18n.Msg{
	usage.Daily:   {JA: "日付", EN: "Day"},
	usage.Monthly: {JA: "月", EN: "Month"},
	usage.Session: {JA: "セッション", EN: "Session"},
}

// usage shows the token usage of the repository's transcripts per day,
// month or session, with a chart.
func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := usagePage{By: cmp0(q.Get("by"), string(usage.Daily)), Since: q.Get("since"), Views: usageViews}
	by, err := usage.ParsePeriod(p.By)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	since, err := parseSince(p.Since, s.o.Now(), s.o.Loc)
	if err != nil {
		p.Error = err.Error()
		s.render(w, r, http.StatusBadRequest, "usage", "usage", msgNavUsage.In(s.o.Lang), p)
		return
	}
	files, err := usage.Files(s.o.TranscriptDirs...)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	now := s.o.Now()
	rep, err := usage.Scan(r.Context(), files, usage.Options{By: by, Loc: s.o.Loc, Since: since, Prices: s.o.Prices})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p.Key, p.Total, p.Files = msgUsageKey[by].In(s.o.Lang), rep.Total, rep.Files
	if s.o.Prices != nil {
		p.Cost, p.Unpriced, p.PricesDate = pricing.USD(rep.TotalCostUSD), rep.Unpriced, rep.PricesDate
		cur, err := usage.ScanCurrent(r.Context(), usage.Recent(files, now), usage.Options{Loc: s.o.Loc, Prices: s.o.Prices, Now: now})
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
		if b := cur.Block; b != nil {
			ub := &usageBlock{End: b.Block.End.Format("15:04"), Left: hoursMinutes(b.Block.End.Sub(now), s.o.Lang), Cost: pricing.USD(b.CostUSD)}
			if br := b.Block.BurnRate; br != nil {
				ub.PerHour, ub.Projected = pricing.USD(br.CostPerHour), pricing.USD(b.Block.Projection.CostUSD)
			}
			p.Block = ub
		}
	}
	if len(files) == 0 {
		p.Dirs = s.o.TranscriptDirs
	}
	points := make([]chartPoint, 0, len(rep.Rows))
	for _, row := range rep.Rows {
		label := row.Key
		if by == usage.Session {
			label = textcut.ShortID(row.Key)
		}
		points = append(points, chartPoint{Label: label, Values: []int64{row.Input, row.Output, row.CacheCreation, row.CacheRead}})
	}
	if by == usage.Session && len(points) > usageChartBars {
		points = points[len(points)-usageChartBars:]
	}
	if len(points) > 0 {
		p.Chart = newChart(msgNavUsage.In(s.o.Lang), usageSeries(s.o.Lang), points)
	}
	p.Rows = usageRows(rep, by, s.o.Prices != nil)
	s.render(w, r, http.StatusOK, "usage", "usage", msgNavUsage.In(s.o.Lang), p)
}

// usageRows are a report's rows for the table, newest first.
func usageRows(rep *usage.Report, by usage.Period, priced bool) []usageRow {
	rows := make([]usageRow, 0, len(rep.Rows))
	for _, row := range rep.Rows {
		u := usageRow{Label: row.Key, Input: row.Input, Output: row.Output, CacheCreate: row.CacheCreation, CacheRead: row.CacheRead, Total: row.Total()}
		if priced {
			u.Cost = pricing.USD(row.CostUSD)
		}
		if by == usage.Session {
			u.Session, u.Label = row.Key, textcut.ShortID(row.Key)
		}
		for _, m := range row.Models {
			um := usageModel{Name: m.Model}
			if m.CostUSD != nil {
				um.Cost = pricing.USD(*m.CostUSD)
			}
			u.Models = append(u.Models, um)
		}
		rows = append(rows, u)
	}
	slices.Reverse(rows)
	return rows
}

// hoursMinutes writes a duration as 2h 05m (2時間05分).
func hoursMinutes(d time.Duration, lang i18n.Lang) string {
	m := max(int64(d/time.Minute), 0)
	return messages["usage.hm"].Format(lang, m/60, m%60)
}

// parseSince reads a start day: "7d" (seven days before now's day), "2w",
// or a date "2006-01-02", in loc; "" is no start.
func parseSince(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, nil
	}
	unit := s[len(s)-1]
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 0 || (unit != 'd' && unit != 'w') {
		return time.Time{}, fmt.Errorf("since %q: %w", s, errSince)
	}
	if unit == 'w' {
		n *= 7
	}
	y, m, d := now.In(loc).Date()
	return time.Date(y, m, d-n, 0, 0, 0, 0, loc), nil
}

var errSince = errors.New("want a number of days (7d), weeks (2w) or a date (2006-01-02)")
