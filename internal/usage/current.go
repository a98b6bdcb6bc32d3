package usage

import (
	"context"
	"os"
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

// CurrentWindow is how far back a transcript's last change may be for it
// to matter to Current: far enough for today and for the chain of 5-hour
// blocks that leads to the active one.
const CurrentWindow = 48 * time.Hour

// Recent keeps the files changed within CurrentWindow before now: those
// ScanCurrent needs to read.
func Recent(files []string, now time.Time) []string {
	var out []string
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil && now.Sub(fi.ModTime()) < CurrentWindow {
			out = append(out, p)
		}
	}
	return out
}
