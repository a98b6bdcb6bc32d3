package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecisionsSettings(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
		check   func(t *testing.T, c *Config)
	}{
		{name: "defaults", yaml: "", check: func(t *testing.T, c *Config) {
			if c.DecisionsExtractor() != "rules" || c.DecisionsTokenBudget() != 200000 || c.DecisionsInProgressLabel() != "status:in-progress" ||
				c.DecisionsBranchPattern().String() != DefaultBranchPattern || c.DecisionsModel() != DefaultAnthropicModel {
				t.Errorf("got %+v", c.Decisions)
			}
		}},
		{name: "set", yaml: "decisions:\n  extractor: openai\n  daily_token_budget: 5000\n  in_progress_label: doing\n  branch_pattern: 'issue-(\\d+)'\n", check: func(t *testing.T, c *Config) {
			if c.DecisionsExtractor() != "openai" || c.DecisionsTokenBudget() != 5000 || c.DecisionsInProgressLabel() != "doing" ||
				c.DecisionsModel() != DefaultOpenAIModel || c.DecisionsBranchPattern().FindStringSubmatch("x/issue-12")[1] != "12" {
				t.Errorf("got %+v", c.Decisions)
			}
		}},
		{name: "unknown extractor", yaml: "decisions:\n  extractor: magic\n", wantErr: "decisions.extractor"},
		{name: "negative budget", yaml: "decisions:\n  daily_token_budget: -1\n", wantErr: "daily_token_budget"},
		{name: "bad pattern", yaml: "decisions:\n  branch_pattern: '('\n", wantErr: "branch_pattern"},
		{name: "pattern without a group", yaml: "decisions:\n  branch_pattern: 'feat/'\n", wantErr: "group"},
		{name: "unknown key", yaml: "decisions:\n  extractr: rules\n", wantErr: "decisions.extractr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(p, []byte(tt.yaml), 0o600)
			c, err := Load(p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err: got %v; want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
