// Package pricing turns the tokens a model used into US dollars. It owns the
// price table shipped in the binary (prices.json, kept as data with the date
// it was taken and its source), the override file a person can name in the
// configuration, and the one cost formula every usage view calls: input,
// output, cache writes (5-minute and 1-hour), cache reads, the long-context
// rates of the models that have them, and the fast mode's multiplier.
//
// A model the table does not name is unpriced: its cost is not known, never
// guessed from a similar name. Nothing here calls the network.
package pricing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"strings"
)

//go:embed prices.json
var shipped []byte

// Rates are the prices of one tier, in USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	CacheRead    float64 `json:"cache_read"`
}

// LongContext are the rates of a request whose context (input, cache writes
// and cache reads together) is over Above tokens: the whole request is
// billed at them.
type LongContext struct {
	Above int64 `json:"above"`
	Rates
}

// Price is what one model costs.
type Price struct {
	Rates
	LongContext *LongContext `json:"long_context,omitempty"`
	// Fast multiplies the cost of a response served in fast mode; 0 means
	// the model has no fast mode and such a response costs the usual.
	Fast float64 `json:"fast,omitempty"`
}

// Usage is what one response used. CacheWrite5m and CacheWrite1h are the
// cache writes by lifetime; a response that does not say which counts all
// of them as 5-minute writes.
type Usage struct {
	Input, Output              int64
	CacheWrite5m, CacheWrite1h int64
	CacheRead                  int64
	// Fast is set when the response was served in fast mode.
	Fast bool
}

// Cost is what u costs at p, in USD.
func (p Price) Cost(u Usage) float64 {
	r := p.Rates
	if lc := p.LongContext; lc != nil && u.Input+u.CacheWrite5m+u.CacheWrite1h+u.CacheRead > lc.Above {
		r = lc.Rates
	}
	c := (float64(u.Input)*r.Input + float64(u.Output)*r.Output + float64(u.CacheWrite5m)*r.CacheWrite5m +
		float64(u.CacheWrite1h)*r.CacheWrite1h + float64(u.CacheRead)*r.CacheRead) / 1e6
	if u.Fast && p.Fast > 0 {
		c *= p.Fast
	}
	return c
}

// Table is a price list.
type Table struct {
	// Date is when the shipped prices were taken (2006-01-02); Source says
	// where from.
	Date   string
	Source string
	// Override is the override file read over the shipped prices, if any.
	Override string
	models   map[string]Price
}

type file struct {
	Date   string           `json:"date"`
	Source string           `json:"source"`
	Unit   string           `json:"unit"`
	Models map[string]Price `json:"models"`
}

// Unit is the only unit a price file may give.
const Unit = "USD per million tokens"

// Shipped returns the price table built into baton.
func Shipped() (*Table, error) {
	f, err := parse(shipped)
	if err != nil {
		return nil, fmt.Errorf("shipped prices: %w", err)
	}
	return &Table{Date: f.Date, Source: f.Source, models: f.Models}, nil
}

// Load returns the shipped table with the models of the override file at
// path (the same format as prices.json; its date and source may be left
// out) replacing or adding to them. An empty path, or a file that does not
// exist, leaves the shipped table as it is.
func Load(path string) (*Table, error) {
	t, err := Shipped()
	if err != nil || path == "" {
		return t, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read prices: %w", err)
	}
	f, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	maps.Copy(t.models, f.Models)
	t.Override = path
	return t, nil
}

func parse(b []byte) (*file, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Unit != "" && f.Unit != Unit {
		return nil, fmt.Errorf("unit %q: want %q", f.Unit, Unit)
	}
	for name, p := range f.Models {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
	}
	return &f, nil
}

func (p Price) check() error {
	rates := []Rates{p.Rates}
	if p.LongContext != nil {
		if p.LongContext.Above <= 0 {
			return errors.New("long_context.above must be positive")
		}
		rates = append(rates, p.LongContext.Rates)
	}
	for _, r := range rates {
		for _, v := range []float64{r.Input, r.Output, r.CacheWrite5m, r.CacheWrite1h, r.CacheRead} {
			if v < 0 {
				return errors.New("a rate is negative")
			}
		}
		if r.Input == 0 && r.Output == 0 {
			return errors.New("no input or output rate")
		}
	}
	if p.Fast < 0 {
		return errors.New("fast is negative")
	}
	return nil
}

// Lookup finds a model's price: by its name, else by the name without a
// date suffix (claude-sonnet-4-5-20250929, claude-sonnet-4-5@20250929,
// gpt-4.1-2025-04-14) or a provider prefix (anthropic/claude-…). It
// returns the name the price is listed under.
func (t *Table) Lookup(model string) (Price, string, bool) {
	for _, name := range candidates(model) {
		if p, ok := t.models[name]; ok {
			return p, name, true
		}
	}
	return Price{}, "", false
}

// Cost is what u costs with model; ok is false when the model is unpriced.
func (t *Table) Cost(model string, u Usage) (usd float64, ok bool) {
	p, _, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// Models returns the names the table lists, in no order.
func (t *Table) Models() []string {
	out := make([]string, 0, len(t.models))
	for name := range t.models {
		out = append(out, name)
	}
	return out
}

// candidates are the names model may be listed under, most exact first.
func candidates(model string) []string {
	out := []string{model}
	if i := strings.LastIndexByte(model, '/'); i >= 0 && i < len(model)-1 {
		model = model[i+1:]
		out = append(out, model)
	}
	if undated, ok := cutDate(model); ok {
		out = append(out, undated)
	}
	return out
}

// cutDate removes a release date from the end of a model name: -20250929,
// @20250929 or -2025-04-14.
func cutDate(name string) (string, bool) {
	digits := func(s string) bool {
		for _, c := range s {
			if c < '0' || c > '9' {
				return false
			}
		}
		return s != ""
	}
	if n := len(name); n > 9 && (name[n-9] == '-' || name[n-9] == '@') && digits(name[n-8:]) {
		return name[:n-9], true
	}
	if n := len(name); n > 11 && name[n-11] == '-' && name[n-6] == '-' && name[n-3] == '-' &&
		digits(name[n-10:n-6]+name[n-5:n-3]+name[n-2:]) {
		return name[:n-11], true
	}
	return "", false
}

// USD writes a cost in US dollars with cents: $12.34.
func USD(usd float64) string { return fmt.Sprintf("$%.2f", usd) }
