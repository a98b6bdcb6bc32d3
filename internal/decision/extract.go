package decision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/redact"
)

// Excerpt is the new part of a session's transcript, as extractors read it.
type Excerpt struct {
	// Assistant is the assistant's text, message after message.
	Assistant string
	// Prompts is the person's prompts, one after another (not tool results,
	// nor what the agent CLI writes as the user: command echoes, the
	// summary a compaction carries over).
	Prompts string
	// Conversation is the whole exchange rendered as text for a model.
	Conversation string
}

// Usage counts the tokens an extraction cost (zero for Rules).
type Usage struct {
	InputTokens, OutputTokens int64
}

// Total is input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

// Extractor finds decision candidates in an excerpt. The candidates it
// returns are valid (see Candidate.Validate).
type Extractor interface {
	Name() string
	Extract(ctx context.Context, ex Excerpt) ([]Candidate, Usage, error)
}

// ErrExtractorParse reports a model answer that is not a JSON array, or
// one the model client could not read.
var ErrExtractorParse = errors.New("extractor output is not a JSON array")

// ModelExtractor extracts with a language model: it sends Prompt and the
// redacted conversation, and reads the answer with ParseModelAnswer.
type ModelExtractor struct {
	Client llm.Client
}

var _ Extractor = ModelExtractor{}

// Name implements Extractor: the client's name.
func (m ModelExtractor) Name() string { return m.Client.Name() }

// Extract implements Extractor. The usage is the model's even when its
// answer is unusable.
func (m ModelExtractor) Extract(ctx context.Context, ex Excerpt) ([]Candidate, Usage, error) {
	r, err := m.Client.Complete(ctx, Prompt+redact.Redact(ex.Conversation))
	u := Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
	if errors.Is(err, llm.ErrOutput) {
		return nil, u, fmt.Errorf("%w: %w", ErrExtractorParse, err)
	}
	if err != nil {
		return nil, u, err
	}
	cands, err := ParseModelAnswer(r.Text)
	return cands, u, err
}

// Prompt is what the model extractors send, followed by the conversation.
const Prompt = `You extract the decisions made in a coding session.

A decision is a choice the user and the assistant settled on (a design, a
library, a format, a rule to follow), with a reason. Ignore plans, guesses,
questions and choices that were later reversed.

Answer with a JSON array only, no prose and no code fence. Each item:
{"slug": "kebab-case-name", "what": "the decision in one sentence",
 "why": "the reason", "alternatives": "what else was considered",
 "consequences": "what follows from it",
 "scope_hint": "issue" or "cross-issue"}
Use "cross-issue" only for decisions that apply to the whole project beyond
the current task. All fields must be non-empty. Answer [] when there is no
decision.

The session:
`

// ParseModelAnswer reads a model's answer: a JSON array of candidates,
// possibly inside a code fence or surrounded by prose. Items that are not
// valid candidates are dropped (their slugs are made kebab-case first when the
// rest is valid); an answer with no JSON array is ErrExtractorParse.
func ParseModelAnswer(answer string) ([]Candidate, error) {
	start, end := strings.Index(answer, "["), strings.LastIndex(answer, "]")
	if start < 0 || end < start {
		return nil, fmt.Errorf("%w: %s", ErrExtractorParse, clip(answer, 120))
	}
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(answer[start:end+1]), &items); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrExtractorParse, err)
	}
	var out []Candidate
	seen := map[string]bool{}
	for _, raw := range items {
		var c Candidate
		if json.Unmarshal(raw, &c) != nil {
			continue
		}
		c.ScopeHint = strings.ToLower(strings.TrimSpace(c.ScopeHint))
		if c.ScopeHint == "" {
			c.ScopeHint = ScopeIssue
		}
		if !ValidSlug(c.Slug) {
			c.Slug = Slugify(firstNonEmpty(c.Slug, c.What))
		}
		if c.Validate() != nil || seen[c.Slug] {
			continue
		}
		seen[c.Slug] = true
		out = append(out, c)
	}
	return out, nil
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
