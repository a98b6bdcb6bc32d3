package github

import (
	"context"
	"fmt"
	"testing"

	"github.com/baton-cli/baton/internal/githubtest"
)

// BenchmarkComments250 reads 250 comments (three pages) from the fake
// server over loopback: the client's own cost per page, decoding included.
func BenchmarkComments250(b *testing.B) {
	srv := githubtest.New(b)
	n := srv.AddIssue(githubtest.Issue{Title: "bench"})
	for i := range 250 {
		srv.AddComment(githubtest.Comment{Issue: n, Body: fmt.Sprintf("### Decision: slug-%d\n\nWhat: something reasonably long to read back.", i)})
	}
	cfg, err := Resolve(context.Background(), Env{Getenv: srv.Getenv})
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		cs, err := c.Comments(ctx, n)
		if err != nil || len(cs) != 250 {
			b.Fatalf("got %d comments, %v", len(cs), err)
		}
	}
}
