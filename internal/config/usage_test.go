package config

import (
	"path/filepath"
	"testing"
)

// TestUsagePricesUserOnly: the price file comes from the user's own file;
// a repository's, trusted or not, cannot name one.
func TestUsagePricesUserOnly(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		dir := t.TempDir()
		body := "usage:\n  prices: /etc/passwd\n"
		write(t, dir, RepoFile, body)
		user := "usage:\n  prices: ~/prices.json\n"
		if trusted {
			user += trustedYAML(dir, Sum([]byte(body)))
		}
		c, err := LoadRepo(write(t, t.TempDir(), "config.yaml", user), dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.UsagePrices("/home/me"), filepath.Join("/home/me", "prices.json"); got != want {
			t.Errorf("trusted %v: UsagePrices = %q; want %q", trusted, got, want)
		}
		if len(c.Repo.Ignored) != 1 || c.Repo.Ignored[0].Key != "usage.prices" || !c.Repo.Ignored[0].UserOnly {
			t.Errorf("trusted %v: ignored = %+v; want the user-only usage.prices", trusted, c.Repo.Ignored)
		}
	}
}
