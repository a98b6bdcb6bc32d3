package usage

import (
	"context"
	"time"
)

// Current is the usage a status line shows: the day's cost, the cost of
// each session with usage that day, and the active 5-hour block.
type Current struct {
	// Day is opts.Now's day in opts.Loc.
	Day      string
	TodayUSD float64
	Sessions map[string]float64
	// Block is the active block's row, nil when none is active.
	Block *Row
}

// ScanCurrent counts what Current holds in files, read once. opts.Now is
// required; opts.By and opts.Since are ignored.
func ScanCurrent(ctx context.Context, files []string, opts Options) (*Current, error) {
	if opts.Loc == nil {
		opts.Loc = time.UTC
	}
	opts.By, opts.Since = Blocks, time.Time{}
	t := newTable()
	if err := read(ctx, files, opts, t.push); err != nil {
		return nil, err
	}
	c := &Current{Day: opts.Now.In(opts.Loc).Format(time.DateOnly), Sessions: map[string]float64{}}
	t.items(opts, func(it *item) {
		if it.ts.Format(time.DateOnly) == c.Day {
			c.TodayUSD += it.cost
			c.Sessions[it.session] += it.cost
		}
	})
	if b := t.report(opts).ActiveBlock(); b != nil {
		c.Block = b
	}
	return c, nil
}
