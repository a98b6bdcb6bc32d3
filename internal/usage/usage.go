// Package usage counts the tokens that Claude Code sessions used, from their
// transcripts: input, output, cache-creation and cache-read tokens per day,
// month or session, and per model within each, and what they cost (each
// response priced on its own by package pricing).
//
// A response is often written more than once: one line per content block,
// a copy in a resumed session's transcript, a replay in a side conversation.
// Each is counted once:
//
//   - Lines with the same message id and request id are one response,
//     whatever file or session they are in.
//   - Lines with a message id and no request id are one response when they
//     also share the session and the timestamp.
//   - A sidechain line (isSidechain true) with the message id of another line
//     of the same session is a replay of it, whatever its request id.
//   - Of the lines of one response the one counted is the main-chain one,
//     else the one with the most tokens, else the first read.
//   - Lines without a message id are all counted.
//
// Only lines holding a usage object whose timestamp Claude Code wrote
// (YYYY-MM-DDTHH:MM:SS[.mmm](Z|±HH:MM)) and whose fields have their types
// are read; malformed lines are skipped. Advisor records inside a response
// (usage.iterations of type advisor_message) are counted on their own, under
// their model. These rules give the same totals as ccusage 20.0.24, which
// `bench/usage/compare.sh` checks on generated transcripts.
//
// Files are read in parallel, a large file in chunks, in memory bounded by
// the chunk size and the number of distinct responses, not by file size.
package usage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/pricing"
)

// Tokens are the four token counts of the usage a model reports, and of
// the cache-creation tokens how many were written for an hour (the rest
// for five minutes).
type Tokens struct {
	Input           int64 `json:"input_tokens"`
	Output          int64 `json:"output_tokens"`
	CacheCreation   int64 `json:"cache_creation_tokens"`
	CacheCreation1h int64 `json:"cache_creation_1h_tokens"`
	CacheRead       int64 `json:"cache_read_tokens"`
}

// Total is the sum of the four counts.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheCreation + t.CacheRead }

func (t *Tokens) add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheCreation += o.CacheCreation
	t.CacheCreation1h += o.CacheCreation1h
	t.CacheRead += o.CacheRead
}

// priced is what t costs as one response of a model at price p.
func (t Tokens) priced(p pricing.Price, fast bool) float64 {
	return p.Cost(pricing.Usage{Input: t.Input, Output: t.Output, CacheWrite5m: t.CacheCreation - t.CacheCreation1h,
		CacheWrite1h: t.CacheCreation1h, CacheRead: t.CacheRead, Fast: fast})
}

// Period is how a report groups usage.
type Period string

// Periods.
const (
	Daily   Period = "daily"
	Monthly Period = "monthly"
	Session Period = "session"
	// Blocks are Claude's 5-hour usage windows (see Block).
	Blocks Period = "blocks"
)

// ParsePeriod checks a period's name.
func ParsePeriod(s string) (Period, error) {
	switch p := Period(s); p {
	case Daily, Monthly, Session, Blocks:
		return p, nil
	}
	return "", fmt.Errorf("unknown period %q (daily, monthly, session or blocks)", s)
}

// Options say how to count.
type Options struct {
	// By groups the rows; empty means Daily.
	By Period
	// Loc is the time zone days and months are counted in; nil means UTC.
	Loc *time.Location
	// Since drops usage from before this day (in Loc); zero keeps all.
	Since time.Time
	// Workers is how many files or chunks are read at once; 0 means
	// GOMAXPROCS.
	Workers int
	// ChunkSize is the size of the pieces a large file is read in; 0
	// means DefaultChunkSize.
	ChunkSize int64
	// Prices prices each response; nil leaves the costs out.
	Prices *pricing.Table
	// Now is the time Blocks reports tell the active window by; zero
	// makes none active.
	Now time.Time
}

// DefaultChunkSize is the size of the pieces a large transcript is split
// into so that several cores read it.
const DefaultChunkSize = 8 << 20

// ModelUsage is the usage of one model within a row.
type ModelUsage struct {
	Model string `json:"model"`
	Tokens
	// CostUSD is what the model's responses cost; nil when the model is
	// unpriced.
	CostUSD *float64 `json:"cost_usd"`
}

// Row is the usage of one day, month or session.
type Row struct {
	// Key is the day (2006-01-02), the month (2006-01) or the session id.
	Key string `json:"key"`
	// First and Last are the times of the first and last response counted.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	Tokens
	// Models are the models used, by most tokens first. Responses
	// without a model, or from Claude Code's synthetic one, count in the
	// row but under no model.
	Models []ModelUsage `json:"models"`
	// CostUSD is what the row's priced responses cost; Unpriced names the
	// models whose responses it leaves out.
	CostUSD  float64  `json:"cost_usd"`
	Unpriced []string `json:"unpriced_models,omitempty"`
	// Block is set in a Blocks report: the window (or the gap) the row
	// is. Its Key is the window's start (RFC 3339), or "gap-" and it.
	Block *Block `json:"block,omitempty"`
}

// Report is the usage found in a set of transcripts.
type Report struct {
	By    Period `json:"by"`
	Rows  []Row  `json:"rows"`
	Total Tokens `json:"total"`
	// TotalCostUSD is what all priced responses cost; Unpriced names the
	// models without a price; PricesDate is the date of the price table.
	TotalCostUSD float64  `json:"total_cost_usd"`
	Unpriced     []string `json:"unpriced_models,omitempty"`
	PricesDate   string   `json:"prices_date,omitempty"`
	// Files is how many transcripts were read; Responses how many
	// responses were counted after deduplication.
	Files     int `json:"files"`
	Responses int `json:"responses"`
}

// Files returns every transcript (*.jsonl, and archived *.jsonl.gz) under
// dirs, at any depth (subagents write theirs in a folder per session), in a
// stable order. Missing folders are skipped.
func Files(dirs ...string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		// A folder that is a link (a ~/.claude kept elsewhere) is walked
		// where it leads.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.gz")) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list transcripts: %w", err)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// SessionOf is the session a transcript's lines belong to when they do not
// say: the file's name, or for a subagent's transcript
// (<session>/subagents/<agent>.jsonl) its session folder's.
func SessionOf(path string) string {
	name := filepath.Base(path)
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".jsonl")
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		return filepath.Base(filepath.Dir(dir))
	}
	return name
}

// Scan counts the usage in files. An unreadable file is an error; malformed
// lines are not.
func Scan(ctx context.Context, files []string, opts Options) (*Report, error) {
	if opts.By == "" {
		opts.By = Daily
	}
	if opts.Loc == nil {
		opts.Loc = time.UTC
	}
	t := newTable()
	if err := read(ctx, files, opts, t.push); err != nil {
		return nil, err
	}
	r := t.report(opts)
	r.Files = len(files)
	return r, nil
}

// rowKey groups a response.
func rowKey(by Period, ts time.Time, session string) string {
	switch by {
	case Monthly:
		return ts.Format("2006-01")
	case Session:
		return session
	}
	return ts.Format(time.DateOnly)
}

// item is one response kept, as a report reads it.
type item struct {
	ts      time.Time
	session string
	// model is the model's name, "-fast" added for a response served in
	// fast mode; empty for a response without a model or from Claude
	// Code's synthetic one.
	model  string
	tokens Tokens
	// cost is what the response cost; priced is false when its model has
	// no price (or no prices were given).
	cost   float64
	priced bool
}

// items calls fn for each response kept since opts.Since, in reading order.
func (t *table) items(opts Options, fn func(*item)) {
	var since string
	if !opts.Since.IsZero() {
		since = opts.Since.In(opts.Loc).Format(time.DateOnly)
	}
	type price struct {
		p      pricing.Price
		looked bool
		ok     bool
	}
	prices := make([]price, len(t.models))
	for i := range t.kept.len() {
		e := t.kept.at(i)
		it := item{ts: time.UnixMilli(e.ts).In(opts.Loc), session: t.sessions[e.session], tokens: t.tokens(i)}
		if since != "" && it.ts.Format(time.DateOnly) < since {
			continue
		}
		fast := e.flags&flagFast != 0
		if m := t.models[e.model]; m != "" && m != "<synthetic>" {
			it.model = m
			if fast {
				it.model += "-fast"
			}
			if opts.Prices != nil {
				pr := &prices[e.model]
				if !pr.looked {
					pr.p, _, pr.ok = opts.Prices.Lookup(m)
					pr.looked = true
				}
				if pr.ok {
					it.cost, it.priced = it.tokens.priced(pr.p, fast), true
				}
			}
		} else {
			// A response without a model costs nothing anyone billed.
			it.priced = true
		}
		fn(&it)
	}
}

// modelSums sums a row's responses by model.
type modelSums struct {
	m     map[string]*ModelUsage
	order []string
}

// add counts it under its model (none for a response without one); with
// priced, a model without a price goes into unpriced.
func (ms *modelSums) add(it *item, priced bool, unpriced map[string]bool) {
	if it.model == "" {
		return
	}
	mu := ms.m[it.model]
	if mu == nil {
		if ms.m == nil {
			ms.m = map[string]*ModelUsage{}
		}
		mu = &ModelUsage{Model: it.model}
		if it.priced {
			mu.CostUSD = new(float64)
		}
		ms.m[it.model] = mu
		ms.order = append(ms.order, it.model)
	}
	mu.add(it.tokens)
	if it.priced {
		*mu.CostUSD += it.cost
	} else if priced {
		unpriced[it.model] = true
	}
}

// list returns the models in the order they were first used and, with
// priced, the names of those without a price.
func (ms *modelSums) list(priced bool) (models []ModelUsage, unpriced []string) {
	for _, name := range ms.order {
		mu := ms.m[name]
		models = append(models, *mu)
		if mu.CostUSD == nil && priced {
			unpriced = append(unpriced, name)
		}
	}
	slices.Sort(unpriced)
	return models, unpriced
}

// report sums the responses kept, by row and model.
func (t *table) report(opts Options) *Report {
	r := &Report{By: opts.By}
	if opts.Prices != nil {
		r.PricesDate = opts.Prices.Date
	}
	unpriced := map[string]bool{}
	if opts.By == Blocks {
		r.Rows = t.blockRows(opts, r, unpriced)
		r.Unpriced = slices.Sorted(maps.Keys(unpriced))
		return r
	}
	type acc struct {
		row    Row
		models modelSums
	}
	rows := map[string]*acc{}
	t.items(opts, func(it *item) {
		key := rowKey(opts.By, it.ts, it.session)
		a := rows[key]
		if a == nil {
			a = &acc{row: Row{Key: key, First: it.ts, Last: it.ts}}
			rows[key] = a
		}
		a.row.First = minTime(a.row.First, it.ts)
		a.row.Last = maxTime(a.row.Last, it.ts)
		a.row.add(it.tokens)
		a.row.CostUSD += it.cost
		r.Total.add(it.tokens)
		r.TotalCostUSD += it.cost
		r.Responses++
		a.models.add(it, opts.Prices != nil, unpriced)
	})
	for _, a := range rows {
		a.row.Models, a.row.Unpriced = a.models.list(opts.Prices != nil)
		slices.SortFunc(a.row.Models, func(x, y ModelUsage) int {
			return cmp.Or(cmp.Compare(y.Total(), x.Total()), cmp.Compare(x.Model, y.Model))
		})
		r.Rows = append(r.Rows, a.row)
	}
	slices.SortFunc(r.Rows, func(x, y Row) int {
		if opts.By == Session {
			return cmp.Or(x.First.Compare(y.First), cmp.Compare(x.Key, y.Key))
		}
		return cmp.Compare(x.Key, y.Key)
	})
	r.Unpriced = slices.Sorted(maps.Keys(unpriced))
	return r
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// openFile is os.Open with the error phrased for a report.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return f, nil
}
