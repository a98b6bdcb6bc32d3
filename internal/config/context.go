package config

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Context configures the context layers (L1 recent, L2 daily, L3 approved
// decisions) pushed into a session at every restart, and what can be pulled
// on demand through `baton mcp` and `baton fetch`.
type Context struct {
	// Inject adds the layers to the context of every session start
	// (default true).
	Inject *bool `yaml:"inject"`
	// Recall answers a prompt that touches earlier work with a short
	// recall block, and notes before an edit or a command with history
	// (default true).
	Recall *bool `yaml:"recall"`
	// Route is the context stream of this repository's agent sessions
	// (default "default"). Hosts that run several streams, such as a bot
	// with one per division, name theirs with --route.
	Route string `yaml:"route"`
	// Records is how many of the newest records an L1 summary is made
	// from (default 10).
	Records int `yaml:"records"`
	// ArchiveAfterDays is the age in days past which approved decisions
	// move to context/archive/ (default 90).
	ArchiveAfterDays int `yaml:"archive_after_days"`
	// ApprovalPhrases are the words in a person's prompt that make the
	// proposal before it a decision candidate (default: 承認, OK, 決定,
	// 進めて, それでいこう, それで行こう, approved, LGTM, go ahead, go with
	// that). A candidate reaches the decision
	// log only through `baton context approve`.
	ApprovalPhrases []string `yaml:"approval_phrases"`
	// Summarizers chooses how each layer is written.
	Summarizers ContextSummarizers `yaml:"summarizers"`
	// DailyTokens is each route's budget of LLM tokens per day (default
	// 200000); past it the extractive summarizer is used and the fallback
	// is logged.
	DailyTokens int `yaml:"daily_tokens"`
	// Routes overrides settings per route.
	Routes map[string]ContextRoute `yaml:"routes"`
	// MaxDepth caps how many records, replies or comments one pull returns
	// (default 50, at most 200).
	MaxDepth int `yaml:"max_depth"`
	// MaxTags is how many <<FETCH>> tags one `baton fetch` call serves
	// (default 5, at most 20); the rest get an error entry.
	MaxTags int `yaml:"max_tags"`
	// SlackChannel is the channel thread_history reads when a request
	// names none.
	SlackChannel string `yaml:"slack_channel"`
}

// ContextRoute holds the settings of one route.
type ContextRoute struct {
	// DailyTokens overrides context.daily_tokens for this route.
	DailyTokens int `yaml:"daily_tokens"`
}

// ContextSummarizers chooses a summarizer per layer.
type ContextSummarizers struct {
	L1 Summarizer `yaml:"l1"`
	L2 Summarizer `yaml:"l2"`
	L3 Summarizer `yaml:"l3"`
}

// Summarizer names how one layer is written.
type Summarizer struct {
	// Use is extractive (default: deterministic, no network), claude (the
	// agent CLI), anthropic (the Messages API) or openai (an
	// OpenAI-compatible API, such as a local model server).
	Use string `yaml:"use"`
	// Model is the model to ask. The claude CLI defaults to sonnet for L1
	// and L2 and opus for L3; anthropic and openai need one.
	Model string `yaml:"model"`
	// MaxTokens bounds the answer (default 1024).
	MaxTokens int `yaml:"max_tokens"`
	// Timeout bounds one summary (default 2m).
	Timeout time.Duration `yaml:"timeout"`
}

// Summarizer kinds.
const (
	SummarizerExtractive = "extractive"
	SummarizerClaude     = "claude"
	SummarizerAnthropic  = "anthropic"
	SummarizerOpenAI     = "openai"
)

// Context defaults and limits.
const (
	DefaultContextRoute       = "default"
	DefaultContextRecords     = 10
	DefaultArchiveAfterDays   = 90
	DefaultContextDailyTokens = 200000
	DefaultContextMaxDepth    = 50
	DefaultContextMaxTags     = 5
	DefaultSummaryMaxTokens   = 1024
	DefaultSummaryTimeout     = 2 * time.Minute
	maxContextRecords         = 200
	maxContextDepth           = 200
	maxContextTags            = 20
)

// DefaultApprovalPhrases returns the approval words looked for in prompts
// when none are configured.
func DefaultApprovalPhrases() []string {
	return []string{"承認", "OK", "決定", "進めて", "それでいこう", "それで行こう", "approved", "LGTM", "go ahead", "go with that"}
}

// ValidRoute reports whether name can name a route: 1 to 64 lowercase
// letters, digits, '-' and '_', starting with a letter or digit. A route
// name becomes part of file names.
func ValidRoute(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// ContextInject reports whether the layers are injected at session start.
func (c *Config) ContextInject() bool {
	return c.Context.Inject == nil || *c.Context.Inject
}

// ContextRecall reports whether prompts and tool calls get recall.
func (c *Config) ContextRecall() bool {
	return c.Context.Recall == nil || *c.Context.Recall
}

// ContextRoute returns the route of this repository's sessions.
func (c *Config) ContextRoute() string {
	if c.Context.Route != "" {
		return c.Context.Route
	}
	return DefaultContextRoute
}

// ContextRecords returns how many records an L1 summary is made from.
func (c *Config) ContextRecords() int {
	if c.Context.Records > 0 {
		return c.Context.Records
	}
	return DefaultContextRecords
}

// ContextArchiveAfter returns the age past which decisions are archived.
func (c *Config) ContextArchiveAfter() time.Duration {
	days := c.Context.ArchiveAfterDays
	if days <= 0 {
		days = DefaultArchiveAfterDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// ContextApprovalPhrases returns the approval words looked for in prompts.
func (c *Config) ContextApprovalPhrases() []string {
	if len(c.Context.ApprovalPhrases) > 0 {
		return c.Context.ApprovalPhrases
	}
	return DefaultApprovalPhrases()
}

// ContextDailyTokens returns route's LLM token budget per day.
func (c *Config) ContextDailyTokens(route string) int {
	if r, ok := c.Context.Routes[route]; ok && r.DailyTokens > 0 {
		return r.DailyTokens
	}
	if c.Context.DailyTokens > 0 {
		return c.Context.DailyTokens
	}
	return DefaultContextDailyTokens
}

// ContextMaxDepth returns the most entries one pull returns.
func (c *Config) ContextMaxDepth() int {
	if c.Context.MaxDepth > 0 {
		return c.Context.MaxDepth
	}
	return DefaultContextMaxDepth
}

// ContextMaxTags returns how many <<FETCH>> tags one call serves.
func (c *Config) ContextMaxTags() int {
	if c.Context.MaxTags > 0 {
		return c.Context.MaxTags
	}
	return DefaultContextMaxTags
}

// ContextSummarizer returns the summarizer settings of layer ("l1", "l2"
// or "l3") with the defaults applied.
func (c *Config) ContextSummarizer(layer string) Summarizer {
	var s Summarizer
	switch layer {
	case "l1":
		s = c.Context.Summarizers.L1
	case "l2":
		s = c.Context.Summarizers.L2
	case "l3":
		s = c.Context.Summarizers.L3
	}
	if s.Use == "" {
		s.Use = SummarizerExtractive
	}
	if s.Model == "" && s.Use == SummarizerClaude {
		// A cheaper model for the frequent recent and daily summaries, a
		// stronger one for the decisions that must not be got wrong.
		s.Model = "sonnet"
		if layer == "l3" {
			s.Model = "opus"
		}
	}
	if s.MaxTokens <= 0 {
		s.MaxTokens = DefaultSummaryMaxTokens
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultSummaryTimeout
	}
	return s
}

func (x *Context) validate() error {
	switch {
	case x.Route != "" && !ValidRoute(x.Route):
		return fmt.Errorf("config: context.route %q must be lowercase letters, digits, - and _ (at most 64)", x.Route)
	case x.Records < 0 || x.Records > maxContextRecords:
		return fmt.Errorf("config: context.records must be between 1 and %d", maxContextRecords)
	case x.ArchiveAfterDays < 0:
		return fmt.Errorf("config: context.archive_after_days must be positive")
	case x.DailyTokens < 0:
		return fmt.Errorf("config: context.daily_tokens must be positive")
	case x.MaxDepth < 0 || x.MaxDepth > maxContextDepth:
		return fmt.Errorf("config: context.max_depth must be between 1 and %d", maxContextDepth)
	case x.MaxTags < 0 || x.MaxTags > maxContextTags:
		return fmt.Errorf("config: context.max_tags must be between 1 and %d", maxContextTags)
	}
	for i, p := range x.ApprovalPhrases {
		if p == "" {
			return fmt.Errorf("config: context.approval_phrases[%d] is empty", i)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(x.Routes)) {
		r := x.Routes[name]
		if !ValidRoute(name) {
			return fmt.Errorf("config: context.routes: %q is not a route name", name)
		}
		if r.DailyTokens < 0 {
			return fmt.Errorf("config: context.routes.%s.daily_tokens must be positive", name)
		}
	}
	for i, s := range []Summarizer{x.Summarizers.L1, x.Summarizers.L2, x.Summarizers.L3} {
		if err := s.validate(fmt.Sprintf("context.summarizers.l%d", i+1)); err != nil {
			return err
		}
	}
	return nil
}

func (s Summarizer) validate(key string) error {
	switch s.Use {
	case "", SummarizerExtractive, SummarizerClaude:
	case SummarizerAnthropic, SummarizerOpenAI:
		if s.Model == "" {
			return fmt.Errorf("config: %s.model is needed with use: %s", key, s.Use)
		}
	default:
		return fmt.Errorf("config: %s.use %q must be extractive, claude, anthropic or openai", key, s.Use)
	}
	if s.MaxTokens < 0 {
		return fmt.Errorf("config: %s.max_tokens must be positive", key)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("config: %s.timeout must be positive", key)
	}
	return nil
}
