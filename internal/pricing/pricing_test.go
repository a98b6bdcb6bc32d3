package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func shippedTable(t *testing.T) *Table {
	t.Helper()
	tab, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestCost(t *testing.T) {
	tab := shippedTable(t)
	tests := []struct {
		name  string
		model string
		u     Usage
		want  float64
	}{
		{"sonnet input and output", "claude-sonnet-4-5", Usage{Input: 100_000, Output: 100_000}, 0.3 + 1.5},
		{"dated name", "claude-sonnet-4-5-20250929", Usage{Input: 100_000}, 0.3},
		{"cache writes by lifetime and reads", "claude-sonnet-4-5",
			Usage{CacheWrite5m: 50_000, CacheWrite1h: 50_000, CacheRead: 100_000}, (50_000*3.75 + 50_000*6 + 100_000*0.3) / 1e6},
		{"context at the threshold is short", "claude-sonnet-4-5",
			Usage{Input: 100_000, CacheRead: 100_000, Output: 1_000}, (100_000*3 + 100_000*0.3 + 1_000*15) / 1e6},
		{"context over the threshold bills the whole request long", "claude-sonnet-4-5",
			Usage{Input: 100_000, CacheRead: 100_001, Output: 1_000}, (100_000*6 + 100_001*0.6 + 1_000*22.5) / 1e6},
		{"cache writes count toward the context", "claude-sonnet-4-5",
			Usage{Input: 1, CacheWrite5m: 150_000, CacheWrite1h: 50_000},
			(1*6 + 150_000*7.5 + 50_000*12) / 1e6},
		{"a model without long-context rates", "claude-opus-4-5", Usage{Input: 500_000, Output: 1_000}, (500_000*5 + 1_000*25) / 1e6},
		{"fast mode multiplies", "claude-opus-4-6", Usage{Input: 1_000_000, Fast: true}, 5 * 6},
		{"fast mode on a model without it costs the usual", "claude-haiku-4-5", Usage{Input: 1_000_000, Fast: true}, 1},
		{"provider prefix", "anthropic/claude-haiku-4-5", Usage{Output: 1_000_000}, 5},
		{"vertex date", "claude-opus-4-1@20250805", Usage{Input: 1_000_000}, 15},
		{"openai", "gpt-5", Usage{Input: 1_000_000, CacheRead: 1_000_000, Output: 1_000_000}, 1.25 + 0.125 + 10},
		{"gemini long context", "gemini-2.5-pro", Usage{Input: 300_000}, 300_000 * 2.5 / 1e6},
		{"haiku 5.5 short prompt", "claude-haiku-5-5", Usage{Input: 50_000, CacheRead: 50_000, Output: 1_000}, (50_000*0.1 + 50_000*0.01 + 1_000*0.5) / 1e6},
		{"haiku 5.5 long prompt", "claude-haiku-5-5", Usage{Input: 50_000, CacheRead: 50_001, Output: 1_000}, (50_000*0.5 + 50_001*0.05 + 1_000*2.5) / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tab.Cost(tt.model, tt.u)
			if !ok {
				t.Fatalf("Cost(%q) unpriced; want %v", tt.model, tt.want)
			}
			if !near(got, tt.want) {
				t.Errorf("Cost(%q, %+v) = %v; want %v", tt.model, tt.u, got, tt.want)
			}
		})
	}
}

func TestUnpriced(t *testing.T) {
	tab := shippedTable(t)
	for _, model := range []string{"", "<synthetic>", "claude-sonnet-9", "claude-sonnet-4-5-2025", "my-local-model", "claude-sonnet-4-5-fast", "anthropic/"} {
		if got, ok := tab.Cost(model, Usage{Input: 1000}); ok {
			t.Errorf("Cost(%q) = %v, priced; want unpriced", model, got)
		}
	}
}

func TestLookupName(t *testing.T) {
	tab := shippedTable(t)
	tests := []struct{ model, want string }{
		{"claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"gpt-4.1-2025-04-14", "gpt-4.1"},
		{"openai/gpt-5-codex", "gpt-5-codex"},
	}
	for _, tt := range tests {
		_, got, ok := tab.Lookup(tt.model)
		if !ok || got != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.model, got, ok, tt.want)
		}
	}
}

// TestShippedTable checks the data: its date and source, and the rules
// Anthropic's price list follows for every Claude model.
func TestShippedTable(t *testing.T) {
	tab := shippedTable(t)
	if _, err := time.Parse(time.DateOnly, tab.Date); err != nil {
		t.Errorf("date %q: %v", tab.Date, err)
	}
	if tab.Source == "" {
		t.Error("no source")
	}
	if len(tab.Models()) < 40 {
		t.Errorf("%d models; want the Claude, OpenAI and Gemini ones", len(tab.Models()))
	}
	// Claude 3 Haiku's cache rates are the list's one exception.
	exceptions := map[string]bool{"claude-3-haiku": true}
	for _, name := range tab.Models() {
		p, _, _ := tab.Lookup(name)
		if !strings.HasPrefix(name, "claude-") || exceptions[name] {
			continue
		}
		rates := []Rates{p.Rates}
		if p.LongContext != nil {
			rates = append(rates, p.LongContext.Rates)
		}
		for _, r := range rates {
			if !near(r.CacheWrite1h, 2*r.Input) {
				t.Errorf("%s: 1-hour cache write %v; want twice the input rate %v", name, r.CacheWrite1h, r.Input)
			}
			if !near(r.CacheWrite5m, 1.25*r.Input) {
				t.Errorf("%s: 5-minute cache write %v; want 1.25 times the input rate %v", name, r.CacheWrite5m, r.Input)
			}
			if r.CacheRead > r.Input/10+1e-12 || r.CacheRead <= 0 {
				t.Errorf("%s: cache read %v; want at most a tenth of the input rate %v", name, r.CacheRead, r.Input)
			}
		}
	}
}

func TestLoadOverride(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prices.json")
	os.WriteFile(path, []byte(`{"models": {
		"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0},
		"my-local-model": {"input": 0.5, "output": 0.5, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0}}}`), 0o644)
	tab, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Override != path {
		t.Errorf("Override = %q; want %q", tab.Override, path)
	}
	tests := []struct {
		model string
		want  float64
	}{
		{"claude-sonnet-4-5-20250929", 1 + 2},
		{"my-local-model", 0.5 + 0.5},
		{"claude-haiku-4-5", 1 + 5},
	}
	for _, tt := range tests {
		got, ok := tab.Cost(tt.model, Usage{Input: 1_000_000, Output: 1_000_000})
		if !ok || !near(got, tt.want) {
			t.Errorf("Cost(%q) = %v, %v; want %v", tt.model, got, ok, tt.want)
		}
	}

	missing, err := Load(filepath.Join(dir, "none.json"))
	if err != nil || missing.Override != "" {
		t.Errorf("Load(missing) = %+v, %v; want the shipped table", missing, err)
	}
}

func TestLoadRefusesBadFiles(t *testing.T) {
	for name, body := range map[string]string{
		"unknown key":    `{"models": {"m": {"input": 1, "output": 1, "cache_write": 1}}}`,
		"negative rate":  `{"models": {"m": {"input": -1, "output": 1}}}`,
		"no rates":       `{"models": {"m": {}}}`,
		"other unit":     `{"unit": "USD per token", "models": {}}`,
		"bad threshold":  `{"models": {"m": {"input": 1, "output": 1, "long_context": {"above": 0, "input": 2, "output": 2}}}}`,
		"not json":       `models: {}`,
		"negative speed": `{"models": {"m": {"input": 1, "output": 1, "fast": -2}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.json")
			os.WriteFile(path, []byte(body), 0o644)
			if _, err := Load(path); err == nil {
				t.Errorf("Load(%s) = nil error; want one", body)
			}
		})
	}
}
