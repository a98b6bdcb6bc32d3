package usage

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/baton-cli/baton/internal/pricing"
)

// TestScanCost: each response is priced on its own (a long context is a
// request's, not a day's), cache writes at their lifetime's rate, fast mode
// at its multiplier; a model without a price is named and costs nothing.
func TestScanCost(t *testing.T) {
	dir := t.TempDir()
	line := func(ts, msg, model, usage string) string {
		return `{"type":"assistant","sessionId":"s","requestId":"r` + msg + `","timestamp":"` + ts +
			`","message":{"id":"` + msg + `","model":"` + model + `","usage":` + usage + `}}`
	}
	writeFile(t, filepath.Join(dir, "s.jsonl"),
		// Two requests of 150,000 input tokens: 300,000 in the day, each
		// short: 2 × 150,000 × $3/M.
		line("2026-09-01T10:00:00Z", "m1", "claude-sonnet-4-5", `{"input_tokens":150000,"output_tokens":0}`),
		line("2026-09-01T10:01:00Z", "m2", "claude-sonnet-4-5", `{"input_tokens":150000,"output_tokens":0}`),
		// One request over 200,000 with its cache reads: all of it long.
		line("2026-09-02T10:00:00Z", "m3", "claude-sonnet-4-5", `{"input_tokens":1000,"output_tokens":1000,"cache_read_input_tokens":200000}`),
		// Cache writes: 1,000 for 5 minutes, 2,000 for an hour.
		line("2026-09-03T10:00:00Z", "m4", "claude-opus-4-5", `{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":3000,`+
			`"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":2000}}`),
		// Without the breakdown every write is a 5-minute one.
		line("2026-09-03T10:01:00Z", "m5", "claude-opus-4-5", `{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":3000}`),
		line("2026-09-04T10:00:00Z", "m6", "claude-opus-4-6", `{"input_tokens":1000,"output_tokens":0,"speed":"fast"}`),
		line("2026-09-04T10:01:00Z", "m7", "someone-elses-model", `{"input_tokens":1000,"output_tokens":1000}`),
	)
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	prices, err := pricing.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Scan(context.Background(), files, Options{Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"2026-09-01": 2 * 150_000 * 3 / 1e6,
		"2026-09-02": (1000*6 + 1000*22.5 + 200_000*0.6) / 1e6,
		"2026-09-03": (1000*6.25+2000*10)/1e6 + 3000*6.25/1e6,
		"2026-09-04": 1000 * 5 * 6 / 1e6,
	}
	if len(r.Rows) != len(want) {
		t.Fatalf("%d rows; want %d", len(r.Rows), len(want))
	}
	var total float64
	for _, row := range r.Rows {
		if math.Abs(row.CostUSD-want[row.Key]) > 1e-12 {
			t.Errorf("%s cost = %v; want %v", row.Key, row.CostUSD, want[row.Key])
		}
		total += want[row.Key]
	}
	if math.Abs(r.TotalCostUSD-total) > 1e-12 {
		t.Errorf("total cost = %v; want %v", r.TotalCostUSD, total)
	}
	if got := r.Rows[2].Tokens; got.CacheCreation != 6000 || got.CacheCreation1h != 2000 {
		t.Errorf("2026-09-03 cache writes = %d, of them 1h %d; want 6000, 2000", got.CacheCreation, got.CacheCreation1h)
	}
	last := r.Rows[3]
	if len(r.Unpriced) != 1 || r.Unpriced[0] != "someone-elses-model" || len(last.Unpriced) != 1 {
		t.Errorf("unpriced = %v, in the row %v; want someone-elses-model", r.Unpriced, last.Unpriced)
	}
	for _, m := range last.Models {
		switch m.Model {
		case "someone-elses-model":
			if m.CostUSD != nil {
				t.Errorf("%s cost = %v; want none", m.Model, *m.CostUSD)
			}
		case "claude-opus-4-6-fast":
			if m.CostUSD == nil || math.Abs(*m.CostUSD-0.03) > 1e-12 {
				t.Errorf("%s cost = %v; want 0.03", m.Model, m.CostUSD)
			}
		default:
			t.Errorf("model %s in the row", m.Model)
		}
	}

	// Without prices nothing is priced and nothing is said unpriced.
	r, err = Scan(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalCostUSD != 0 || r.Unpriced != nil || r.PricesDate != "" {
		t.Errorf("without prices: cost %v, unpriced %v, date %q; want none", r.TotalCostUSD, r.Unpriced, r.PricesDate)
	}
}
