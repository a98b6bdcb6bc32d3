package web

import (
	"strings"
	"testing"
	"time"
)

func TestNiceCeil(t *testing.T) {
	tests := []struct {
		name string
		in   int64
		want int64
	}{
		{"zero", 0, 1},
		{"one", 1, 1},
		{"small", 7, 10},
		{"exact power", 100, 100},
		{"just past a power", 101, 200},
		{"two times", 180, 200},
		{"five times", 420, 500},
		{"tokens", 13340, 20000},
		{"large", 987654321, 1000000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := niceCeil(tt.in); got != tt.want {
				t.Errorf("niceCeil(%d) = %d; want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestCompactAndNum(t *testing.T) {
	tests := []struct {
		name          string
		in            int64
		compact, full string
	}{
		{"small", 950, "950", "950"},
		{"thousands", 12000, "12k", "12,000"},
		{"fraction", 3500000, "3.5M", "3,500,000"},
		{"billions", 2100000000, "2.1G", "2,100,000,000"},
		{"negative", -1234, "-1234", "-1,234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compact(tt.in); got != tt.compact {
				t.Errorf("compact(%d) = %q; want %q", tt.in, got, tt.compact)
			}
			if got, err := num(tt.in); err != nil || got != tt.full {
				t.Errorf("num(%d) = %q, %v; want %q", tt.in, got, err, tt.full)
			}
		})
	}
	if _, err := num("12"); err == nil {
		t.Error("num(\"12\") = nil error; want one for a non-integer")
	}
}

func TestNewChart(t *testing.T) {
	series := []chartSeries{{Name: "in", Class: "seg-input"}, {Name: "out", Class: "seg-output"}}
	c := newChart("usage", series, []chartPoint{
		{Label: "d1", Values: []int64{100, 300}},
		{Label: "d2", Values: []int64{0, 50}},
		{Label: "d3", Values: []int64{-5, 0}},
	})
	// 400 is the tallest bar; the axis ends at 500.
	if got := c.Ticks[len(c.Ticks)-1].Label; got != "500" {
		t.Errorf("top tick %q; want 500", got)
	}
	if len(c.Bars) != 3 || len(c.Bars[0].Segments) != 2 || len(c.Bars[1].Segments) != 1 || len(c.Bars[2].Segments) != 0 {
		t.Fatalf("bars %+v; want 2, 1 and 0 segments (zero and negative values are not drawn)", c.Bars)
	}
	plotH := float64(chartHeight - chartTop - chartBottom)
	base := float64(chartTop) + plotH
	in, out := c.Bars[0].Segments[0], c.Bars[0].Segments[1]
	if in.Y+in.H != base || out.Y+out.H != in.Y {
		t.Errorf("segments %+v, %+v; want stacked from the base %v up", in, out, base)
	}
	if want := plotH * 400 / 500; in.H+out.H < want-0.02 || in.H+out.H > want+0.02 {
		t.Errorf("bar height %v; want %v", in.H+out.H, want)
	}
	if in.Class != "seg-input" || !strings.Contains(out.Title, "d1 · out: 300") {
		t.Errorf("segment %+v / %+v; want classes and titles from the series", in, out)
	}
	for _, b := range c.Bars {
		for _, s := range b.Segments {
			if s.X < chartLeft || s.X+s.W > chartWidth-chartRight {
				t.Errorf("segment at x %v width %v; want inside the plot", s.X, s.W)
			}
		}
	}
}

func TestNewChartManyPoints(t *testing.T) {
	var pts []chartPoint
	for i := range chartMaxBars + 30 {
		pts = append(pts, chartPoint{Label: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02"), Values: []int64{int64(i + 1)}})
	}
	c := newChart("usage", []chartSeries{{Name: "in", Class: "seg-input"}}, pts)
	if len(c.Bars) != chartMaxBars {
		t.Fatalf("%d bars; want the last %d", len(c.Bars), chartMaxBars)
	}
	if len(c.Labels) > chartLabels+1 || c.Labels[0].Text != pts[30].Label {
		t.Errorf("%d labels starting %q; want at most %d starting at the first bar drawn %q", len(c.Labels), c.Labels[0].Text, chartLabels+1, pts[30].Label)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Time
		err      bool
	}{
		{name: "empty", in: ""},
		{name: "today", in: "0d", want: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{name: "days", in: "7d", want: time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)},
		{name: "weeks", in: "2w", want: time.Date(2026, 2, 24, 0, 0, 0, 0, time.UTC)},
		{name: "date", in: "2026-01-31", want: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{name: "unit missing", in: "7", err: true},
		{name: "unknown unit", in: "7y", err: true},
		{name: "negative", in: "-1d", err: true},
		{name: "words", in: "soon", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSince(tt.in, now, time.UTC)
			if (err != nil) != tt.err || !got.Equal(tt.want) {
				t.Errorf("parseSince(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}
