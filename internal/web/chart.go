package web

import (
	"fmt"
	"math"
)

// A chart is a stacked bar chart drawn as SVG by the "chart" template: all
// positions are computed here, so the template only places shapes.
type chart struct {
	Width, Height int
	Label         string
	Ticks         []chartTick
	Bars          []chartBar
	Labels        []chartLabel
	Legend        []chartLegend
}

type chartTick struct {
	X1, X2, Y float64
	Label     string
}

type chartBar struct {
	Segments []chartSegment
}

type chartSegment struct {
	X, Y, W, H float64
	// Class picks the segment's colour in the style sheet.
	Class string
	Title string
}

type chartLabel struct {
	X, Y float64
	Text string
}

type chartLegend struct {
	Class, Text string
}

// chartSeries is one kind of value stacked in every bar.
type chartSeries struct {
	Name  string
	Class string
}

// chartPoint is one bar: its label and a value per series.
type chartPoint struct {
	Label  string
	Values []int64
}

// Chart geometry, in SVG user units.
const (
	chartWidth   = 960
	chartHeight  = 320
	chartLeft    = 72
	chartRight   = 12
	chartTop     = 12
	chartBottom  = 40
	chartTicks   = 4
	chartMaxBars = 120
	// chartLabels is about how many bar labels fit under the axis.
	chartLabels = 12
)

// newChart lays out points as stacked bars, series bottom up, on a y axis
// from 0 to a round number above the tallest bar. Only the last
// chartMaxBars points are drawn.
func newChart(label string, series []chartSeries, points []chartPoint) *chart {
	if len(points) > chartMaxBars {
		points = points[len(points)-chartMaxBars:]
	}
	c := &chart{Width: chartWidth, Height: chartHeight, Label: label}
	for _, s := range series {
		c.Legend = append(c.Legend, chartLegend{Class: s.Class, Text: s.Name})
	}
	var top int64
	for _, p := range points {
		var sum int64
		for _, v := range p.Values {
			sum += max(v, 0)
		}
		top = max(top, sum)
	}
	top = niceCeil(top)
	plotW := float64(chartWidth - chartLeft - chartRight)
	plotH := float64(chartHeight - chartTop - chartBottom)
	base := float64(chartTop) + plotH
	scale := plotH / float64(top)
	for i := 0; i <= chartTicks; i++ {
		v := top * int64(i) / chartTicks
		y := round2(base - float64(v)*scale)
		c.Ticks = append(c.Ticks, chartTick{X1: chartLeft, X2: chartWidth - chartRight, Y: y, Label: compact(v)})
	}
	if len(points) == 0 {
		return c
	}
	slot := plotW / float64(len(points))
	barW := round2(math.Max(slot*0.7, 1))
	every := max(1, (len(points)+chartLabels-1)/chartLabels)
	for i, p := range points {
		x := round2(chartLeft + slot*float64(i) + (slot-barW)/2)
		y := base
		var bar chartBar
		for j, v := range p.Values {
			if j >= len(series) || v <= 0 {
				continue
			}
			h := float64(v) * scale
			y -= h
			bar.Segments = append(bar.Segments, chartSegment{
				X: x, Y: round2(y), W: barW, H: round2(h),
				Class: series[j].Class,
				Title: fmt.Sprintf("%s · %s: %s", p.Label, series[j].Name, groupDigits(v)),
			})
		}
		c.Bars = append(c.Bars, bar)
		if i%every == 0 {
			c.Labels = append(c.Labels, chartLabel{X: round2(x + barW/2), Y: float64(chartHeight - chartBottom + 18), Text: p.Label})
		}
	}
	return c
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten (at least 1).
func niceCeil(n int64) int64 {
	if n <= 1 {
		return 1
	}
	p := int64(1)
	for p*10 <= n {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5, 10} {
		if m*p >= n {
			return m * p
		}
	}
	return 10 * p
}

// compact writes a token count briefly: 950, 12k, 3.5M, 2.1G.
func compact(n int64) string {
	switch {
	case n >= 1e9:
		return trimZero(float64(n)/1e9) + "G"
	case n >= 1e6:
		return trimZero(float64(n)/1e6) + "M"
	case n >= 1e3:
		return trimZero(float64(n)/1e3) + "k"
	}
	return fmt.Sprint(n)
}

func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// groupDigits is num for an int64 that is known to be one.
func groupDigits(n int64) string {
	s, _ := num(n)
	return s
}
