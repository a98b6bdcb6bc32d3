package config

import (
	"fmt"
	"regexp"
)

// Extractors of decision candidates.
const (
	ExtractorRules     = "rules"
	ExtractorClaude    = "claude"
	ExtractorAnthropic = "anthropic"
	ExtractorOpenAI    = "openai"
)

// Defaults of the decisions settings.
const (
	DefaultDecisionsTokenBudget = 200_000
	DefaultInProgressLabel      = "status:in-progress"
	DefaultBranchPattern        = `(?:feat|fix|chore|refactor)/(\d+)-`
	DefaultAnthropicModel       = "claude-sonnet-4-5"
	DefaultOpenAIModel          = "gpt-4o-mini"
)

// Decisions configures `baton decisions` and `baton session-closer`.
type Decisions struct {
	// Extractor finds decision candidates: rules (the default: no model,
	// no network), claude (the agent CLI), anthropic or openai (an API,
	// or a compatible local server through ANTHROPIC_BASE_URL or
	// OPENAI_BASE_URL).
	Extractor string `yaml:"extractor"`
	// Model is the model the anthropic and openai extractors ask.
	Model string `yaml:"model"`
	// DailyTokenBudget caps the tokens model extractors use per day; past
	// it the rules extractor is used (default 200000).
	DailyTokenBudget int64 `yaml:"daily_token_budget"`
	// InProgressLabel marks the issue being worked on (default
	// status:in-progress).
	InProgressLabel string `yaml:"in_progress_label"`
	// BranchPattern finds an issue number in the branch name: its first
	// group (default (?:feat|fix|chore|refactor)/(\d+)-).
	BranchPattern string `yaml:"branch_pattern"`
	// MemoryDir is where cross-issue decisions are promoted; empty: Claude
	// Code's memory folder of the project.
	MemoryDir string `yaml:"memory_dir"`
}

// DecisionsExtractor returns the configured extractor.
func (c *Config) DecisionsExtractor() string {
	if c.Decisions.Extractor != "" {
		return c.Decisions.Extractor
	}
	return ExtractorRules
}

// DecisionsModel returns the model of the anthropic and openai extractors.
func (c *Config) DecisionsModel() string {
	switch {
	case c.Decisions.Model != "":
		return c.Decisions.Model
	case c.DecisionsExtractor() == ExtractorOpenAI:
		return DefaultOpenAIModel
	}
	return DefaultAnthropicModel
}

// DecisionsTokenBudget returns the daily token budget of model extractors.
func (c *Config) DecisionsTokenBudget() int64 {
	if c.Decisions.DailyTokenBudget > 0 {
		return c.Decisions.DailyTokenBudget
	}
	return DefaultDecisionsTokenBudget
}

// DecisionsInProgressLabel returns the label of issues in progress.
func (c *Config) DecisionsInProgressLabel() string {
	if c.Decisions.InProgressLabel != "" {
		return c.Decisions.InProgressLabel
	}
	return DefaultInProgressLabel
}

// DecisionsBranchPattern returns the pattern finding an issue in a branch.
func (c *Config) DecisionsBranchPattern() *regexp.Regexp {
	if c.Decisions.BranchPattern != "" {
		if re, err := regexp.Compile(c.Decisions.BranchPattern); err == nil {
			return re
		}
	}
	return regexp.MustCompile(DefaultBranchPattern)
}

func (d *Decisions) validate() error {
	switch d.Extractor {
	case "", ExtractorRules, ExtractorClaude, ExtractorAnthropic, ExtractorOpenAI:
	default:
		return fmt.Errorf("config: decisions.extractor: %q is not rules, claude, anthropic or openai", d.Extractor)
	}
	if d.DailyTokenBudget < 0 {
		return fmt.Errorf("config: decisions.daily_token_budget must not be negative")
	}
	if d.BranchPattern != "" {
		re, err := regexp.Compile(d.BranchPattern)
		if err != nil {
			return fmt.Errorf("config: decisions.branch_pattern: %w", err)
		}
		if re.NumSubexp() < 1 {
			return fmt.Errorf("config: decisions.branch_pattern needs a group for the issue number")
		}
	}
	return nil
}
