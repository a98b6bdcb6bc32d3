package worker

import (
	"cmp"
	"slices"
	"strings"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/tracker"
)

// trusted reports whether the worker runs issues of an author with this
// association to the repository: owners, members and collaborators. Anyone
// else's text would steer an agent that has write access to the repository.
func trusted(association string) bool {
	switch strings.ToUpper(association) {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}

// Skip is an issue the worker did not take, and why.
type Skip struct {
	Repo   string `json:"repo"`
	Issue  int    `json:"issue"`
	Reason string `json:"reason"`
}

// Skip reasons.
const (
	SkipOutsideAuthor = "outside-author"
	SkipClosed        = "closed"
	SkipNoTrigger     = "no-trigger-label"
	SkipInProgress    = "in-progress"
	SkipClaimLost     = "claim-lost"
	SkipClaimFailed   = "claim-failed"
)

// eligibility says why issue may not be run, or "" when it may: it is open,
// carries the trigger label and not the in-progress one, and its author is
// trusted.
func eligibility(is *tracker.Issue, labels config.WorkerLabels) string {
	switch {
	case is.State != "" && is.State != tracker.StateOpen:
		return SkipClosed
	case !slices.Contains(is.Labels, labels.Trigger):
		return SkipNoTrigger
	case slices.Contains(is.Labels, labels.InProgress):
		return SkipInProgress
	case !trusted(is.AuthorAssociation):
		return SkipOutsideAuthor
	}
	return ""
}

// order sorts issues by priority label (the first priority label first,
// then issues with neither, then the second), then by number.
func order(issues []*tracker.Issue, priority []string) {
	rank := func(is *tracker.Issue) int {
		switch {
		case len(priority) > 0 && slices.Contains(is.Labels, priority[0]):
			return 0
		case len(priority) > 1 && slices.Contains(is.Labels, priority[1]):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(issues, func(a, b *tracker.Issue) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Number, b.Number))
	})
}
