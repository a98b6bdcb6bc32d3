package usage

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/pricing"
)

// blockReport counts responses at the given UTC times (RFC 3339), each of
// 1,000 input and 100 output tokens of claude-sonnet-4-5, in 5-hour blocks.
func blockReport(t *testing.T, opts Options, times ...string) *Report {
	t.Helper()
	tab := newTable()
	for _, s := range times {
		ts, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		tab.push(&resp{ts: ts.UnixMilli(), session: "s", model: "claude-sonnet-4-5", tokens: Tokens{Input: 1000, Output: 100}})
	}
	opts.By = Blocks
	if opts.Loc == nil {
		opts.Loc = time.UTC
	}
	return tab.report(opts)
}

// describe writes a block report as one line per row: start–end in the
// report's zone, responses, and active or gap.
func describe(r *Report) string {
	var b strings.Builder
	for _, row := range r.Rows {
		blk := row.Block
		fmt.Fprintf(&b, "%s–%s", blk.Start.Format("01-02 15:04"), blk.End.Format("01-02 15:04"))
		switch {
		case blk.Gap:
			b.WriteString(" gap")
		case blk.Active:
			fmt.Fprintf(&b, " %d active", blk.Responses)
		default:
			fmt.Fprintf(&b, " %d", blk.Responses)
		}
		b.WriteString("; ")
	}
	return b.String()
}

func TestBlocks(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		opts  Options
		times []string
		want  string
	}{
		{"one response: its hour starts the window", Options{},
			[]string{"2026-09-01T10:42:10Z"}, "09-01 10:00–09-01 15:00 1; "},
		{"responses within five hours of the start share it", Options{},
			[]string{"2026-09-01T10:42:00Z", "2026-09-01T13:00:00Z", "2026-09-01T15:00:00Z"}, "09-01 10:00–09-01 15:00 3; "},
		{"past the window's end a new one starts at that hour, no gap", Options{},
			[]string{"2026-09-01T10:42:00Z", "2026-09-01T14:00:00Z", "2026-09-01T15:00:00.001Z"},
			"09-01 10:00–09-01 15:00 2; 09-01 15:00–09-01 20:00 1; "},
		{"a pause of more than five hours is a gap", Options{},
			[]string{"2026-09-01T10:42:00Z", "2026-09-01T16:00:00Z"},
			"09-01 10:00–09-01 15:00 1; 09-01 15:42–09-01 16:00 gap; 09-01 16:00–09-01 21:00 1; "},
		{"a pause of exactly five hours is none", Options{},
			[]string{"2026-09-01T10:42:00Z", "2026-09-01T15:42:00Z"},
			"09-01 10:00–09-01 15:00 1; 09-01 15:00–09-01 20:00 1; "},
		{"out of order input is sorted", Options{},
			[]string{"2026-09-01T13:00:00Z", "2026-09-01T10:42:00Z"}, "09-01 10:00–09-01 15:00 2; "},
		{"a window across midnight in Tokyo stays one", Options{Loc: tokyo},
			[]string{"2026-09-01T13:10:00Z", "2026-09-01T16:30:00Z"}, "09-01 22:00–09-02 03:00 2; "},
		{"since keeps the windows starting on its day or later", Options{Loc: tokyo, Since: time.Date(2026, 9, 2, 0, 0, 0, 0, tokyo)},
			[]string{"2026-09-01T13:10:00Z", "2026-09-01T16:30:00Z", "2026-09-01T22:00:00Z"},
			"09-02 06:30–09-02 07:00 gap; 09-02 07:00–09-02 12:00 1; "},
		{"in a half-hour zone windows start at the UTC hour", Options{Loc: kolkata},
			[]string{"2026-09-01T10:42:00Z"}, "09-01 15:30–09-01 20:30 1; "},
		{"the window of now is active", Options{Now: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)},
			[]string{"2026-09-01T06:00:00Z", "2026-09-01T09:00:00Z", "2026-09-01T11:10:00Z"},
			"09-01 06:00–09-01 11:00 2; 09-01 11:00–09-01 16:00 1 active; "},
		{"a window past its end is not", Options{Now: time.Date(2026, 9, 1, 15, 0, 0, 0, time.UTC)},
			[]string{"2026-09-01T10:42:00Z"}, "09-01 10:00–09-01 15:00 1; "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describe(blockReport(t, tt.opts, tt.times...)); got != tt.want {
				t.Errorf("blocks = %s\n want %s", got, tt.want)
			}
		})
	}
}

// TestBlockBurnRate: the active window's rate runs from its first to its
// last response; the projection carries it to the window's end.
func TestBlockBurnRate(t *testing.T) {
	prices, err := pricing.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 9, 1, 11, 0, 20, 0, time.UTC)
	r := blockReport(t, Options{Prices: prices, Now: now}, "2026-09-01T10:10:00Z", "2026-09-01T10:30:00Z", "2026-09-01T10:40:00Z")
	a := r.ActiveBlock()
	if a == nil {
		t.Fatalf("no active block in %s", describe(r))
	}
	cost := 3 * (1000*3.0 + 100*15.0) / 1e6
	if math.Abs(a.CostUSD-cost) > 1e-12 || a.Total() != 3300 {
		t.Errorf("block cost %v, tokens %d; want %v, 3300", a.CostUSD, a.Total(), cost)
	}
	br := a.Block.BurnRate
	if br == nil {
		t.Fatal("no burn rate")
	}
	// 3,300 tokens over the 30 minutes from 10:10 to 10:40.
	if got, want := br.TokensPerMinute, 3300.0/30; math.Abs(got-want) > 1e-9 {
		t.Errorf("tokens per minute = %v; want %v", got, want)
	}
	if got, want := br.InOutPerMinute, 3300.0/30; math.Abs(got-want) > 1e-9 {
		t.Errorf("input and output per minute = %v; want %v", got, want)
	}
	if got, want := br.CostPerHour, cost*2; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost per hour = %v; want %v", got, want)
	}
	p := a.Block.Projection
	// 15:00 is 239.67 minutes away: 240 when rounded.
	if p == nil || p.RemainingMinutes != 240 || p.TotalTokens != 3300+110*240 ||
		p.CostUSD != math.Round((cost+cost*2/60*240)*100)/100 {
		t.Errorf("projection = %+v; want 240 minutes, %d tokens, $%.2f", p, 3300+110*240, cost+cost*2/60*240)
	}

	// One response spans no time: no rate, no projection.
	r = blockReport(t, Options{Prices: prices, Now: now}, "2026-09-01T10:10:00Z")
	if a := r.ActiveBlock(); a == nil || a.Block.BurnRate != nil || a.Block.Projection != nil {
		t.Errorf("single response: active %v; want active, no rate, no projection", a)
	}
	// A finished window has neither.
	r = blockReport(t, Options{Prices: prices, Now: now.Add(6 * time.Hour)}, "2026-09-01T10:10:00Z", "2026-09-01T10:40:00Z")
	if r.ActiveBlock() != nil || r.Rows[0].Block.BurnRate != nil {
		t.Errorf("finished window: %+v; want not active, no rate", r.Rows[0].Block)
	}
}
