package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// keepUsageDays is how many days of token usage the usage file keeps.
const keepUsageDays = 14

// usageFile is context/usage.json: LLM tokens per day and route.
type usageFile struct {
	Days map[string]map[string]int `json:"days"`
}

// Budget is a route's daily budget of LLM tokens, counted in the usage file.
type Budget struct {
	Files Files
	// Limit is the tokens a day allows.
	Limit int
	// Now is the clock; days are dates in its location.
	Now func() time.Time
}

func (b Budget) day() string { return b.Now().Format(DateLayout) }

// Used returns the tokens the route used today.
func (b Budget) Used() (int, error) {
	u, err := readUsage(b.Files)
	if err != nil {
		return 0, err
	}
	return u.Days[b.day()][b.Files.Route], nil
}

// Charge adds tokens to today's use.
func (b Budget) Charge(tokens int) error {
	if tokens <= 0 {
		return nil
	}
	if err := mkdirUnder(b.Files.Dir); err != nil {
		return err
	}
	day := b.day()
	oldest := b.Now().AddDate(0, 0, -keepUsageDays).Format(DateLayout)
	return atomicfile.Update(b.Files.Usage(), 0o600, func(old []byte) ([]byte, error) {
		var u usageFile
		if len(old) > 0 {
			if err := json.Unmarshal(old, &u); err != nil {
				u = usageFile{} // a damaged file only loses old counts
			}
		}
		if u.Days == nil {
			u.Days = map[string]map[string]int{}
		}
		for d := range u.Days {
			if d < oldest {
				delete(u.Days, d)
			}
		}
		if u.Days[day] == nil {
			u.Days[day] = map[string]int{}
		}
		u.Days[day][b.Files.Route] += tokens
		return json.MarshalIndent(u, "", "  ")
	})
}

func readUsage(f Files) (usageFile, error) {
	var u usageFile
	b, err := os.ReadFile(f.Usage())
	if errors.Is(err, fs.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("read token usage: %w", err)
	}
	if json.Unmarshal(b, &u) != nil {
		return usageFile{}, nil // a damaged file only loses old counts
	}
	return u, nil
}

// Budgeted runs Inner while the budget lasts and Fallback (the extractive
// summarizer) once it is spent, logging the fallback. It charges what Inner
// reports, failed answers included.
type Budgeted struct {
	Inner, Fallback Summarizer
	Budget          Budget
	Log             *slog.Logger
}

var _ Summarizer = Budgeted{}

// Name implements Summarizer.
func (b Budgeted) Name() string { return b.Inner.Name() }

// Summarize implements Summarizer. Output.By says which one answered.
func (b Budgeted) Summarize(ctx context.Context, in Input) (Output, error) {
	used, err := b.Budget.Used()
	if err != nil {
		return Output{}, err
	}
	est := EstimateTokens(in)
	if used+est > b.Budget.Limit {
		b.Log.Warn("context summary over the daily token budget; extractive summarizer used",
			"route", b.Budget.Files.Route, "layer", string(in.Layer), "summarizer", b.Inner.Name(),
			"used", used, "estimate", est, "limit", b.Budget.Limit)
		out, err := b.Fallback.Summarize(ctx, in)
		out.By = b.Fallback.Name()
		return out, err
	}
	out, err := b.Inner.Summarize(ctx, in)
	if cerr := b.Budget.Charge(out.Tokens); cerr != nil {
		b.Log.Warn("count summary tokens", "err", cerr)
	}
	out.By = b.Inner.Name()
	return out, err
}

// EstimateTokens guesses the tokens a request for in costs before it is
// sent: about one per three bytes of prompt (Japanese text runs near one
// per character), plus the answer.
func EstimateTokens(in Input) int {
	return len(prompt(in))/3 + 512
}

// summarizerName is the name to record for an output of s.
func summarizerName(s Summarizer, out Output) string {
	if out.By != "" {
		return out.By
	}
	return s.Name()
}
