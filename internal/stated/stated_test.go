package stated

import "testing"

func TestFind(t *testing.T) {
	tests := []struct {
		text string
		want []string // Line of each decision found
	}{
		{"OK, we decided to use port 8081 because 8080 is the proxy's.", []string{"Use port 8081 because 8080 is the proxy's"}},
		{"We will use port 8081 because 8080 is taken. Next I will set DB_URL in deploy.sh and rerun it.", []string{"Use port 8081 because 8080 is taken"}},
		{"I'll pin pgx to 5.4.3, since 5.5 breaks pgbouncer.", []string{"Pin pgx to 5.4.3 because 5.5 breaks pgbouncer"}},
		{"Thanks. Let's go with SQLite, since it needs no server.", []string{"SQLite because it needs no server"}},
		{"We've agreed on JSON lines for the export.", []string{"JSON lines for the export"}},
		{"ダッシュボードが期待しているので、メトリクスはポート9003にすることに決めた", []string{"ダッシュボードが期待しているので、メトリクスはポート9003にすることに決めた"}},
		{"ログは JSON 形式に決めました。", []string{"ログは JSON 形式に決めました"}},
		// A plan without a reason, a question, a first-person "decided":
		// none is a decision.
		{"We will use the new endpoint.", nil},
		{"Should we use port 8081 because 8080 is taken?", nil},
		{"Next I will decide which port to use.", nil},
		{"I decided to check the logs first.", nil},
		{"I will rerun it because the first run timed out.", nil},
	}
	for _, tt := range tests {
		got := Find(tt.text)
		if len(got) != len(tt.want) {
			t.Errorf("Find(%q) = %+v; want %q", tt.text, got, tt.want)
			continue
		}
		for i, d := range got {
			if d.Line() != tt.want[i] {
				t.Errorf("Find(%q)[%d].Line() = %q; want %q", tt.text, i, d.Line(), tt.want[i])
			}
		}
	}
}

// TestMayState checks the cues: every sentence either expression matches
// holds one, in any case, and a sentence without a statement skips the
// expressions.
func TestMayState(t *testing.T) {
	for _, s := range []string{
		"OK, we decided to use port 8081 because 8080 is the proxy's.",
		"WE HAVE AGREED THAT the export is JSON lines",
		"We've Agreed on JSON lines for the export.",
		"Let's Go With SQLite, since it needs no server.",
		"we'll go with the queue",
		"The decision is to keep the cache",
		"THE DECISION IS TO keep the cache",
		"We will use port 8081 because 8080 is taken.",
		"I'LL PIN pgx to 5.4.3, since 5.5 breaks pgbouncer.",
		"we are going to switch to zstd because gzip is slow",
		"I'm going to stick with Go since the team knows it",
		"メトリクスはポート9003にすることに決めた",
		"ログは JSON 形式にすることにしました。",
		"ポートは 8081 に決定",
		"形式は JSON で決定しました",
	} {
		if !decidedRE().MatchString(s) && !choiceRE().MatchString(s) {
			t.Errorf("%q: no expression matches; want a statement", s)
		}
		if !mayState(s) {
			t.Errorf("mayState(%q) = false; want true", s)
		}
	}
	for _, s := range []string{
		"Write a Python function that reverses a linked list",
		"run ./deploy.sh again",
		"デプロイして",
	} {
		if mayState(s) {
			t.Errorf("mayState(%q) = true; want false", s)
		}
	}
}
