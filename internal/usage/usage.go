// Package usage counts the tokens that Claude Code sessions used, from their
// transcripts: input, output, cache-creation and cache-read tokens per day,
// month or session, and per model within each.
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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Tokens are the four token counts of the usage a model reports.
type Tokens struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheCreation int64 `json:"cache_creation_tokens"`
	CacheRead     int64 `json:"cache_read_tokens"`
}

// Total is the sum of the four counts.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheCreation + t.CacheRead }

func (t *Tokens) add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheCreation += o.CacheCreation
	t.CacheRead += o.CacheRead
}

// Period is how a report groups usage.
type Period string

// Periods.
const (
	Daily   Period = "daily"
	Monthly Period = "monthly"
	Session Period = "session"
)

// ParsePeriod checks a period's name.
func ParsePeriod(s string) (Period, error) {
	switch p := Period(s); p {
	case Daily, Monthly, Session:
		return p, nil
	}
	return "", fmt.Errorf("unknown period %q (daily, monthly or session)", s)
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
}

// DefaultChunkSize is the size of the pieces a large transcript is split
// into so that several cores read it.
const DefaultChunkSize = 8 << 20

// ModelUsage is the usage of one model within a row.
type ModelUsage struct {
	Model string `json:"model"`
	Tokens
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
}

// Report is the usage found in a set of transcripts.
type Report struct {
	By    Period `json:"by"`
	Rows  []Row  `json:"rows"`
	Total Tokens `json:"total"`
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

// report sums the responses kept, by row and model.
func (t *table) report(opts Options) *Report {
	type acc struct {
		row    Row
		models map[string]*Tokens
	}
	var since string
	if !opts.Since.IsZero() {
		since = opts.Since.In(opts.Loc).Format(time.DateOnly)
	}
	rows := map[string]*acc{}
	r := &Report{By: opts.By}
	for i := range t.kept.len() {
		e := t.kept.at(i)
		tk := t.tokens(i)
		ts := time.UnixMilli(e.ts).In(opts.Loc)
		if since != "" && ts.Format(time.DateOnly) < since {
			continue
		}
		key := rowKey(opts.By, ts, t.sessions[e.session])
		a := rows[key]
		if a == nil {
			a = &acc{row: Row{Key: key, First: ts, Last: ts}, models: map[string]*Tokens{}}
			rows[key] = a
		}
		a.row.First = minTime(a.row.First, ts)
		a.row.Last = maxTime(a.row.Last, ts)
		a.row.add(tk)
		r.Total.add(tk)
		r.Responses++
		if m := t.models[e.model]; m != "" && m != "<synthetic>" {
			if e.flags&flagFast != 0 {
				m += "-fast"
			}
			mt := a.models[m]
			if mt == nil {
				mt = &Tokens{}
				a.models[m] = mt
			}
			mt.add(tk)
		}
	}
	for _, a := range rows {
		for m, tok := range a.models {
			a.row.Models = append(a.row.Models, ModelUsage{Model: m, Tokens: *tok})
		}
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
