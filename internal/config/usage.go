package config

import (
	"path/filepath"
	"strings"
)

// Usage configures `baton usage`, the status line and the dashboard's
// costs.
type Usage struct {
	// Prices names a price file (the format of baton's shipped table)
	// whose models replace or add to the shipped prices. Only the user's
	// own file can set it: a repository does not decide what its usage
	// costs.
	Prices string `yaml:"prices"`
}

// UsagePrices returns the price file to read over the shipped prices, a
// leading ~/ taken from home; empty when none is set.
func (c *Config) UsagePrices(home string) string {
	p := c.Usage.Prices
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}
