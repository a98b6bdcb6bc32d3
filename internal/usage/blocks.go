package usage

import (
	"math"
	"slices"
	"time"
)

// BlockLength is the length of Claude's usage windows.
const BlockLength = 5 * time.Hour

// Block says what a Blocks row is: Claude's 5-hour usage windows, computed
// as ccusage 20.0.24 computes them. A window starts at the hour (UTC) of
// the first response after the previous window ended or after a pause of
// more than its length, and runs for BlockLength; a pause of more than a
// window's length between two responses is a gap row of its own.
type Block struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Active is set for the window that is still open: it has not ended
	// and its last response is less than a window's length ago.
	Active bool `json:"active"`
	// Gap is set for a pause between windows (no responses).
	Gap bool `json:"gap"`
	// Responses is how many responses the window holds.
	Responses int `json:"responses"`
	// BurnRate and Projection are given for the active window when its
	// responses span some time.
	BurnRate   *BurnRate   `json:"burn_rate,omitempty"`
	Projection *Projection `json:"projection,omitempty"`
}

// BurnRate is how fast a window uses tokens and money, from its first to
// its last response.
type BurnRate struct {
	TokensPerMinute float64 `json:"tokens_per_minute"`
	// InOutPerMinute counts only input and output tokens.
	InOutPerMinute float64 `json:"input_output_tokens_per_minute"`
	CostPerHour    float64 `json:"cost_usd_per_hour"`
}

// Projection is where the active window ends up if its burn rate holds.
type Projection struct {
	TotalTokens int64 `json:"total_tokens"`
	// CostUSD is rounded to the cent, as ccusage rounds it.
	CostUSD          float64 `json:"cost_usd"`
	RemainingMinutes int64   `json:"remaining_minutes"`
}

// blockRows groups the responses kept into windows and gaps. Since drops
// the windows that start before its day (in opts.Loc), as ccusage does.
func (t *table) blockRows(opts Options, r *Report, unpriced map[string]bool) []Row {
	var items []item
	all := opts
	all.Since = time.Time{}
	t.items(all, func(it *item) { items = append(items, *it) })
	slices.SortStableFunc(items, func(a, b item) int { return a.ts.Compare(b.ts) })

	var rows []Row
	var cur []item
	var start time.Time
	flush := func() {
		if len(cur) > 0 {
			rows = append(rows, makeBlock(start, cur, opts, unpriced))
		}
	}
	for _, it := range items {
		if len(cur) > 0 {
			last := cur[len(cur)-1].ts
			sinceStart, sinceLast := it.ts.Sub(start), it.ts.Sub(last)
			if sinceStart > BlockLength || sinceLast > BlockLength {
				flush()
				cur = nil
				if sinceLast > BlockLength {
					rows = append(rows, gapRow(last.Add(BlockLength), it.ts, opts.Loc))
				}
			}
		}
		if len(cur) == 0 {
			start = it.ts.UTC().Truncate(time.Hour).In(opts.Loc)
		}
		cur = append(cur, it)
	}
	flush()

	if !opts.Since.IsZero() {
		since := opts.Since.In(opts.Loc).Format(time.DateOnly)
		rows = slices.DeleteFunc(rows, func(row Row) bool { return row.Block.Start.Format(time.DateOnly) < since })
	}
	for i := range rows {
		if !rows[i].Block.Gap {
			r.Total.add(rows[i].Tokens)
			r.TotalCostUSD += rows[i].CostUSD
			r.Responses += rows[i].Block.Responses
		}
	}
	return rows
}

// makeBlock sums one window's responses.
func makeBlock(start time.Time, items []item, opts Options, unpriced map[string]bool) Row {
	end := start.Add(BlockLength)
	first, last := items[0].ts, items[len(items)-1].ts
	b := &Block{Start: start, End: end, Responses: len(items)}
	row := Row{Key: start.Format(time.RFC3339), First: first, Last: last, Block: b}
	var ms modelSums
	for i := range items {
		row.add(items[i].tokens)
		row.CostUSD += items[i].cost
		ms.add(&items[i], opts.Prices != nil, unpriced)
	}
	// Models in the order they were first used, as ccusage lists them.
	row.Models, row.Unpriced = ms.list(opts.Prices != nil)
	now := opts.Now
	b.Active = !now.IsZero() && now.Sub(last) < BlockLength && now.Before(end)
	if !b.Active {
		return row
	}
	minutes := last.Sub(first).Minutes()
	if minutes <= 0 {
		return row
	}
	b.BurnRate = &BurnRate{
		TokensPerMinute: float64(row.Total()) / minutes,
		InOutPerMinute:  float64(row.Input+row.Output) / minutes,
		CostPerHour:     row.CostUSD / minutes * 60,
	}
	remaining := math.Round(end.Sub(now).Minutes())
	b.Projection = &Projection{
		TotalTokens:      int64(math.Round(float64(row.Total()) + b.BurnRate.TokensPerMinute*remaining)),
		CostUSD:          math.Round((row.CostUSD+b.BurnRate.CostPerHour/60*remaining)*100) / 100,
		RemainingMinutes: int64(remaining),
	}
	return row
}

// gapRow is the pause from the end of a window's reach to the next
// response.
func gapRow(start, next time.Time, loc *time.Location) Row {
	start = start.In(loc)
	return Row{Key: "gap-" + start.Format(time.RFC3339), First: start, Last: next.In(loc),
		Block: &Block{Start: start, End: next.In(loc), Gap: true}}
}

// ActiveBlock returns the active window of a Blocks report, or nil.
func (r *Report) ActiveBlock() *Row {
	i := slices.IndexFunc(r.Rows, func(row Row) bool { return row.Block != nil && row.Block.Active })
	if i < 0 {
		return nil
	}
	return &r.Rows[i]
}
