package decision

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Scopes of a decision: it concerns its issue only, or the project as a whole
// (then it is also promoted to the agent's memory).
const (
	ScopeIssue      = "issue"
	ScopeCrossIssue = "cross-issue"
)

// Candidate is a decision found in a transcript, before a person approves it.
// All fields are non-empty; Slug is kebab-case.
type Candidate struct {
	Slug         string `json:"slug"`
	What         string `json:"what"`
	Why          string `json:"why"`
	Alternatives string `json:"alternatives"`
	Consequences string `json:"consequences"`
	// ScopeHint is the extractor's guess: ScopeIssue or ScopeCrossIssue.
	ScopeHint string `json:"scope_hint"`
}

// UserDecision is an approved candidate with the scope the person chose.
type UserDecision struct {
	Candidate  Candidate `json:"candidate"`
	FinalScope string    `json:"final_scope"`
}

// ErrInvalid reports a candidate, slug or session id that breaks the rules.
var ErrInvalid = errors.New("invalid")

var slugRE = lazyRE(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// lazyRE returns expr compiled on first use: the hook links this package,
// and a start must not pay for expressions it never runs.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// MaxSlug is the longest slug Slugify makes.
const MaxSlug = 60

// ValidSlug reports whether s is a kebab-case slug: lowercase ASCII letters
// and digits in words joined by single hyphens. Such a slug is also safe as a
// file name.
func ValidSlug(s string) bool {
	return len(s) <= 200 && slugRE().MatchString(s)
}

// ValidScope reports whether s is ScopeIssue or ScopeCrossIssue.
func ValidScope(s string) bool {
	return s == ScopeIssue || s == ScopeCrossIssue
}

// CheckSessionID rejects ids that could leave the sessions folder or name no
// file: empty, with a path separator, "..", or a NUL.
func CheckSessionID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("session id is empty: %w", ErrInvalid)
	case strings.ContainsAny(id, "/\\\x00"), strings.Contains(id, ".."), id == ".", len(id) > 200:
		return fmt.Errorf("session id %q: %w", id, ErrInvalid)
	}
	return nil
}

// Validate checks that every field is non-empty, the slug is kebab-case and
// the scope hint is known.
func (c Candidate) Validate() error { return c.check(true) }

// check is Validate with the scope hint (and the slug's being empty, which
// then has its own message), and checkPostable without.
func (c Candidate) check(withHint bool) error {
	fields := []struct{ name, v string }{
		{"slug", c.Slug}, {"what", c.What}, {"why", c.Why},
		{"alternatives", c.Alternatives}, {"consequences", c.Consequences},
		{"scope_hint", c.ScopeHint},
	}
	if !withHint {
		fields = fields[1 : len(fields)-1]
	}
	for _, f := range fields {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Errorf("decision %q: %s is empty: %w", c.Slug, f.name, ErrInvalid)
		}
	}
	if !ValidSlug(c.Slug) {
		return fmt.Errorf("decision slug %q is not kebab-case: %w", c.Slug, ErrInvalid)
	}
	if withHint && !ValidScope(c.ScopeHint) {
		return fmt.Errorf("decision %q: scope_hint %q is not issue or cross-issue: %w", c.Slug, c.ScopeHint, ErrInvalid)
	}
	return nil
}

// Validate checks the candidate and the final scope.
func (d UserDecision) Validate() error {
	if err := d.Candidate.Validate(); err != nil {
		return err
	}
	if !ValidScope(d.FinalScope) {
		return fmt.Errorf("decision %q: final_scope %q is not issue or cross-issue: %w", d.Candidate.Slug, d.FinalScope, ErrInvalid)
	}
	return nil
}

// Slugify makes a slug from text: its ASCII words, lowercased and joined by
// hyphens, at most MaxSlug characters; text with no ASCII word gets a stable
// short hash, decision-1a2b3c4d.
func Slugify(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	slug := ""
	for _, w := range words {
		switch {
		case slug == "":
			slug = w[:min(len(w), MaxSlug)]
		case len(slug)+1+len(w) <= MaxSlug:
			slug += "-" + w
		default:
			return slug
		}
	}
	if slug == "" {
		sum := sha256.Sum256([]byte(strings.TrimSpace(text)))
		return "decision-" + hex.EncodeToString(sum[:4])
	}
	return slug
}
