// Package tracker is what baton needs from an issue tracker: read an issue
// and its comments, add and delete comments, add and remove labels. It holds
// the interface, the types the two implementations share, and the one place
// where a tracker failure is classified for people and machines (auth,
// rate-limit, network, not-found, unknown) and turned into text that is safe
// to show or write (Summary, Hint).
//
// The implementations live in subpackages: tracker/github talks to GitHub's
// REST and GraphQL APIs; tracker/local keeps issues in a SQLite file under the
// state folder, so everything works with no GitHub at all. Neither knows the
// process: environment, clock and commands come in through their options.
package tracker

import (
	"context"
	"time"
)

// Issue is one issue as baton sees it.
type Issue struct {
	Number      int
	Title, Body string
	// State is "open" or "closed".
	State  string
	Labels []string
	Author string
	// AuthorAssociation is GitHub's relation of the author to the
	// repository: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, …. The
	// local tracker says OWNER: whoever can write the file owns it.
	AuthorAssociation string
	// URL is the issue's web page; empty for the local tracker.
	URL                  string
	CreatedAt, UpdatedAt time.Time
}

// Comment is one comment on an issue.
type Comment struct {
	ID        int64
	Body      string
	Author    string
	CreatedAt time.Time
	// URL is the comment's web page; empty for the local tracker.
	URL string
}

// Issue states, and "all" for listing both.
const (
	StateOpen   = "open"
	StateClosed = "closed"
	StateAll    = "all"
)

// ListOptions filter ListIssues.
type ListOptions struct {
	// State is open, closed or all; empty means open.
	State string
	// Labels must all be on an issue for it to be listed.
	Labels []string
}

// NewIssue is what creating an issue takes. Creating is not part of Tracker
// (baton's automation only reads and comments); both implementations offer
// CreateIssue for `baton issue new`.
type NewIssue struct {
	Title, Body string
	Labels      []string
}

// Tracker is what baton needs from an issue tracker. Every error it returns
// can be classified with KindOf; implementations return *Error.
type Tracker interface {
	// Issue returns issue number.
	Issue(ctx context.Context, number int) (*Issue, error)
	// ListIssues returns every matching issue (all pages), lowest number
	// first.
	ListIssues(ctx context.Context, opts ListOptions) ([]*Issue, error)
	// Comments returns all of an issue's comments (all pages), oldest first.
	Comments(ctx context.Context, number int) ([]*Comment, error)
	// AddComment posts a comment and returns it as stored.
	AddComment(ctx context.Context, number int, body string) (*Comment, error)
	// DeleteComment deletes a comment by id.
	DeleteComment(ctx context.Context, id int64) error
	// AddLabels adds labels to an issue, creating the ones the repository
	// does not have yet.
	AddLabels(ctx context.Context, number int, labels ...string) error
	// RemoveLabel takes a label off an issue; a label the issue does not
	// have is not an error.
	RemoveLabel(ctx context.Context, number int, label string) error
}

// NormalizeState returns the state ListOptions asks for ("" means open) and
// whether it is one of open, closed, all.
func NormalizeState(s string) (string, bool) {
	switch s {
	case "":
		return StateOpen, true
	case StateOpen, StateClosed, StateAll:
		return s, true
	}
	return s, false
}
