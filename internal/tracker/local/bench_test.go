package local

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/baton-cli/baton/internal/tracker"
)

// BenchmarkAddComment measures one comment written in its own transaction.
func BenchmarkAddComment(b *testing.B) {
	ctx := context.Background()
	tr, err := Open(ctx, filepath.Join(b.TempDir(), FileName), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	is, err := tr.CreateIssue(ctx, tracker.NewIssue{Title: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := tr.AddComment(ctx, is.Number, fmt.Sprint("decision ", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComments1000 reads an issue's 1,000 comments, as dedup does
// before posting.
func BenchmarkComments1000(b *testing.B) {
	ctx := context.Background()
	tr, err := Open(ctx, filepath.Join(b.TempDir(), FileName), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	is, _ := tr.CreateIssue(ctx, tracker.NewIssue{Title: "bench"})
	for i := range 1000 {
		if _, err := tr.AddComment(ctx, is.Number, fmt.Sprintf("### Decision: slug-%d\n\nWhat: something reasonably long to read back.", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		cs, err := tr.Comments(ctx, is.Number)
		if err != nil || len(cs) != 1000 {
			b.Fatalf("got %d comments, %v", len(cs), err)
		}
	}
}

// BenchmarkOpen measures opening an existing file, as every command does.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), FileName)
	tr, err := Open(ctx, path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	tr.Close()
	b.ResetTimer()
	for range b.N {
		tr, err := Open(ctx, path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		tr.Close()
	}
}
