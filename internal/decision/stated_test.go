package decision

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestStatedDecisions(t *testing.T) {
	tests := []struct {
		name, text string
		what, why  string // "" what: no decision
	}{
		{"we decided, with a reason", "OK, we decided to use port 8081 because 8080 is the proxy's.", "Use port 8081", "8080 is the proxy's"},
		{"in a longer prompt", "step 3: we decided to use port 9003 for the metrics endpoint because the dashboard expects it", "Use port 9003 for the metrics endpoint", "the dashboard expects it"},
		{"we've agreed", "We've agreed on JSON lines for the export.", "JSON lines for the export", msgStatedWhy[false]},
		{"let's go with", "Thanks. Let's go with SQLite, since it needs no server.", "SQLite", "it needs no server"},
		{"Japanese, with a reason", "ダッシュボードが期待しているので、メトリクスはポート9003にすることに決めた", "メトリクスはポート9003にすることに決めた", "ダッシュボードが期待している"},
		{"Japanese, polite", "ログは JSON 形式に決めました。", "ログは JSON 形式に決めました", msgStatedWhy[true]},
		{"a plan is not a decision", "Next I will decide which port to use.", "", ""},
		{"a question is not a decision", "Which port did we pick for the server?", "", ""},
		{"I decided is not one", "I decided to check the logs first.", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statedDecisions(tt.text)
			if tt.what == "" {
				if len(got) != 0 {
					t.Fatalf("statedDecisions(%q) = %+v; want none", tt.text, got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("statedDecisions(%q) = %+v; want one decision", tt.text, got)
			}
			c := got[0]
			if c.What != tt.what || c.Why != tt.why {
				t.Errorf("statedDecisions(%q) = what %q, why %q; want %q, %q", tt.text, c.What, c.Why, tt.what, tt.why)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("the decision is not valid: %v", err)
			}
		})
	}
}

// TestRulesOnTheCLITranscript reads a transcript written by Claude Code
// 2.1.328 (four rounds of an end-to-end run, with compactions between
// them): decisions stated after a long tool output, after a failed tool
// call, and in the person's prompt are all found; the person's "LGTM" and
// the agent's "OK." are not decisions, nor is the compaction's carried-over
// summary a prompt.
func TestRulesOnTheCLITranscript(t *testing.T) {
	path := filepath.Join("testdata", "transcripts", "claude-2.1.328-four-rounds.jsonl")
	ex, _, more, err := ReadExcerpt(context.Background(), path, 0, DefaultChunk)
	if err != nil || more {
		t.Fatalf("ReadExcerpt: more %v, %v", more, err)
	}
	cands, _, err := Rules{}.Extract(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, c := range cands {
		slugs = append(slugs, c.Slug)
	}
	want := []string{
		"keep-stage-1-tokens-in-a-ring-buffer-of-64-entries", // after a long tool output
		"name-stage-2-s-queue-tok-2",                         // after a failed tool call
		"serve-stage-4-on-port-8104",                         // after a failed tool call
		"use-port-9003-for-the-metrics-endpoint",             // in a prompt
	}
	for _, w := range want {
		if !slices.Contains(slugs, w) {
			t.Errorf("slugs %q lack %q", slugs, w)
		}
	}
	if len(slugs) != len(want) {
		t.Errorf("slugs %q; want only %q", slugs, want)
	}
}
