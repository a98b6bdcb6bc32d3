package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestContextSettings(t *testing.T) {
	tests := []struct {
		name       string
		user, repo string
		check      func(t *testing.T, c *Config)
	}{
		{
			name: "defaults",
			check: func(t *testing.T, c *Config) {
				if !c.ContextInject() || c.ContextRoute() != "default" || c.ContextRecords() != 10 {
					t.Errorf("inject %v route %q records %d; want true, default, 10", c.ContextInject(), c.ContextRoute(), c.ContextRecords())
				}
				if got := c.ContextArchiveAfter(); got != 90*24*time.Hour {
					t.Errorf("ContextArchiveAfter = %v; want 90 days", got)
				}
				if got := c.ContextApprovalPhrases(); !slices.Contains(got, "承認") || !slices.Contains(got, "LGTM") {
					t.Errorf("ContextApprovalPhrases = %q; want the defaults", got)
				}
				if got := c.ContextDailyTokens("default"); got != DefaultContextDailyTokens {
					t.Errorf("ContextDailyTokens = %d; want %d", got, DefaultContextDailyTokens)
				}
				if c.ContextMaxDepth() != 50 || c.ContextMaxTags() != 5 {
					t.Errorf("depth %d tags %d; want 50, 5", c.ContextMaxDepth(), c.ContextMaxTags())
				}
				if got := c.ContextSummarizer("l2"); got.Use != "extractive" || got.MaxTokens != 1024 || got.Timeout != 2*time.Minute {
					t.Errorf("ContextSummarizer(l2) = %+v; want extractive with defaults", got)
				}
			},
		},
		{
			name: "claude CLI picks a stronger model for decisions",
			user: "context:\n  summarizers:\n    l1: {use: claude}\n    l3: {use: claude}\n",
			check: func(t *testing.T, c *Config) {
				if got := c.ContextSummarizer("l1").Model; got != "sonnet" {
					t.Errorf("l1 model = %q; want sonnet", got)
				}
				if got := c.ContextSummarizer("l3").Model; got != "opus" {
					t.Errorf("l3 model = %q; want opus", got)
				}
			},
		},
		{
			name: "per-route budget over the default one",
			user: "context:\n  daily_tokens: 5000\n  routes:\n    sales: {daily_tokens: 700}\n",
			check: func(t *testing.T, c *Config) {
				if got := c.ContextDailyTokens("sales"); got != 700 {
					t.Errorf("sales budget = %d; want 700", got)
				}
				if got := c.ContextDailyTokens("default"); got != 5000 {
					t.Errorf("default budget = %d; want 5000", got)
				}
			},
		},
		{
			name: "repository file overrides the user's phrases",
			user: "context:\n  approval_phrases: [ok]\n  max_depth: 20\n",
			repo: "context:\n  approval_phrases: [ship it]\n  route: ops\n",
			check: func(t *testing.T, c *Config) {
				if got := c.ContextApprovalPhrases(); !slices.Equal(got, []string{"ship it"}) {
					t.Errorf("phrases = %q; want [ship it]", got)
				}
				if c.ContextRoute() != "ops" || c.ContextMaxDepth() != 20 {
					t.Errorf("route %q depth %d; want ops, 20", c.ContextRoute(), c.ContextMaxDepth())
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			if tt.user != "" {
				paths = append(paths, write(t, dir, "user.yaml", tt.user))
			}
			if tt.repo != "" {
				paths = append(paths, write(t, dir, "repo.yaml", tt.repo))
			}
			c, err := Load(paths...)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestContextSettingsInvalid(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"route with a slash", "context:\n  route: ../x\n", "context.route"},
		{"route upper case", "context:\n  route: Sales\n", "context.route"},
		{"too many records", "context:\n  records: 1000\n", "context.records"},
		{"depth past the cap", "context:\n  max_depth: 1000000000\n", "context.max_depth"},
		{"too many tags", "context:\n  max_tags: 21\n", "context.max_tags"},
		{"empty phrase", "context:\n  approval_phrases: ['']\n", "approval_phrases[0]"},
		{"bad route key", "context:\n  routes:\n    'a b': {daily_tokens: 1}\n", "context.routes"},
		{"unknown summarizer", "context:\n  summarizers:\n    l2: {use: magic}\n", "context.summarizers.l2.use"},
		{"api summarizer without model", "context:\n  summarizers:\n    l3: {use: anthropic}\n", "context.summarizers.l3.model"},
		{"negative budget", "context:\n  daily_tokens: -1\n", "context.daily_tokens"},
		{"unknown key", "context:\n  archive_after: 3\n", `unknown key "context.archive_after"`},
		{"tracker is not a context key", "context:\n  tracker: github\n", `unknown key "context.tracker"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, t.TempDir(), "c.yaml", tt.body))
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q; want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestValidRoute(t *testing.T) {
	tests := []struct {
		name  string
		route string
		want  bool
	}{
		{"default", "default", true},
		{"with digits and dashes", "div-2_ops", true},
		{"empty", "", false},
		{"leading dash", "-x", false},
		{"dot dot", "..", false},
		{"slash", "a/b", false},
		{"too long", strings.Repeat("a", 65), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidRoute(tt.route); got != tt.want {
				t.Errorf("ValidRoute(%q) = %v; want %v", tt.route, got, tt.want)
			}
		})
	}
}
