package decision

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/baton-cli/baton/internal/tracker"
)

// Defaults of issue resolution.
const (
	DefaultInProgressLabel = "status:in-progress"
	DefaultBranchPattern   = `(?:feat|fix|chore|refactor)/(\d+)-`
)

// Resolution tiers.
const (
	TierOverride = "override"
	TierLabel    = "tier1"
	TierBranch   = "tier2"
)

// ErrNoIssue reports that no tier named an issue.
var ErrNoIssue = errors.New("no issue to post to")

// ResolveOptions say how to find the issue a session's decisions belong to.
type ResolveOptions struct {
	// Override, when not 0, is the issue (--issue N).
	Override int
	// Label marks the issues in progress (Tier 1).
	Label string
	// Branch is the current branch; Pattern's first group in it is an issue
	// number (Tier 2).
	Branch  string
	Pattern *regexp.Regexp
}

// Resolution is the issue found, or the candidates to choose from.
type Resolution struct {
	Issue     int    `json:"issue_number,omitempty"`
	Tier      string `json:"tier,omitempty"`
	Ambiguous []int  `json:"ambiguous_candidates,omitempty"`
}

// BranchIssue returns the issue number pattern finds in branch, or 0.
func BranchIssue(branch string, pattern *regexp.Regexp) int {
	if pattern == nil || branch == "" {
		return 0
	}
	m := pattern.FindStringSubmatch(branch)
	if len(m) < 2 {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// Resolve picks the issue: the override; else the one open issue labelled in
// progress; with none, the branch's issue; with several, the branch's issue
// when it is one of them, else the branch's issue when there is one, else the
// candidates to choose from. No issue at all is ErrNoIssue. A tracker failure
// listing the labelled issues is returned (an auth problem must not hide
// behind a guess), with the branch's issue, when it names one, in the
// Resolution as a candidate (Tier TierBranch) for the caller to offer.
func Resolve(ctx context.Context, t tracker.Tracker, opts ResolveOptions) (Resolution, error) {
	if opts.Override > 0 {
		return Resolution{Issue: opts.Override, Tier: TierOverride}, nil
	}
	branch := BranchIssue(opts.Branch, opts.Pattern)
	label := opts.Label
	if label == "" {
		label = DefaultInProgressLabel
	}
	nums, err := OpenLabelled(ctx, t, label)
	if err != nil {
		res := Resolution{}
		if branch > 0 {
			res = Resolution{Issue: branch, Tier: TierBranch}
		}
		return res, err
	}
	switch {
	case len(nums) == 1:
		return Resolution{Issue: nums[0], Tier: TierLabel}, nil
	case len(nums) > 1 && slices.Contains(nums, branch):
		return Resolution{Issue: branch, Tier: TierLabel}, nil
	case branch > 0:
		return Resolution{Issue: branch, Tier: TierBranch}, nil
	case len(nums) > 1:
		return Resolution{Ambiguous: nums}, nil
	}
	return Resolution{}, fmt.Errorf("%w: no open issue is labelled %s and branch %q names none", ErrNoIssue, label, opts.Branch)
}

// OpenLabelled returns the numbers of the open issues labelled label, in
// ascending order.
func OpenLabelled(ctx context.Context, t tracker.Tracker, label string) ([]int, error) {
	issues, err := t.ListIssues(ctx, tracker.ListOptions{State: tracker.StateOpen, Labels: []string{label}})
	if err != nil {
		return nil, fmt.Errorf("list issues labelled %s: %w", label, err)
	}
	var nums []int
	for _, is := range issues {
		nums = append(nums, is.Number)
	}
	slices.Sort(nums)
	return nums, nil
}
