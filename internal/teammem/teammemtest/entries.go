// Package teammemtest makes shared-memory entries of real shape for tests
// and benchmarks.
package teammemtest

import (
	"fmt"
	"time"

	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/teammem"
)

// SharedEntries are n entries of three teammates, as a sync fetches them,
// the newest at now: 85% decisions, 10% branch states over 500 branches
// (main among them), 5% retractions of earlier decisions.
func SharedEntries(n int, now time.Time) []teammem.Entry {
	var es []teammem.Entry
	for i := range n {
		at := now.Add(-time.Duration(n-i) * time.Minute)
		who := []string{"alice", "bob", "carol"}[i%3]
		e := teammem.Entry{TS: at, Author: who + " <" + who + "@example.com>", Machine: "m-" + who}
		switch {
		case i%20 == 19 && i > 10:
			e.Kind, e.Target = teammem.KindRetract, es[i-10].ID
		case i%10 == 3:
			e.Kind, e.Branch = teammem.KindBranch, fmt.Sprintf("feature-%d", i%500)
			if i%500 == 3 {
				e.Branch = "main"
			}
			e.Task = fmt.Sprintf("Finish the exporter step %d", i)
			e.Loops = []string{"`go test ./internal/export` → exit 1", "write the CSV header test", "ask about the BOM"}
		default:
			e.Kind, e.Date, e.Slug = teammem.KindDecision, at.Format(recall.DateLayout), fmt.Sprintf("shared-%d", i)
			e.Summary = fmt.Sprintf("The exporter writes step %d through one buffered writer; decision %d of a teammate", i, i)
			e.Source = fmt.Sprintf("issue #%d", 1000+i)
		}
		e.Seal()
		es = append(es, e)
	}
	return es
}
