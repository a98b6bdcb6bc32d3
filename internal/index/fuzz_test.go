package index

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzSearchQuery: whatever a person types, Search answers or says the query
// is invalid (ErrQuery); it never fails otherwise.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{"csv", `"a phrase"`, "a OR b", "NOT", "(x", "x*", "テスト", "internal/x.go", `""`, "a AND (b OR", "NEAR(a b)", "col:x", "^x", "-x"} {
		f.Add(s)
	}
	ix, err := Open(context.Background(), filepath.Join(f.TempDir(), "index.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	f.Fuzz(func(t *testing.T, q string) {
		_, err := ix.Search(context.Background(), Query{Text: q})
		if err != nil && !errors.Is(err, ErrQuery) {
			t.Fatalf("Search(%q) = %v; want a result or ErrQuery", q, err)
		}
	})
}
