package recall

import "testing"

func TestProposedDecision(t *testing.T) {
	tests := []struct{ name, proposal, want string }{
		{"a status line, then the proposal with its reason",
			"Added /health and switched the server to port 8081. I propose we keep 8081 for the server because 8080 is taken by the dev proxy. OK?",
			"Keep 8081 for the server because 8080 is taken by the dev proxy."},
		{"the reason in another sentence",
			"Added /health and switched the server to port 8081.\n8080 is taken by the dev proxy, since it starts first.\nShall I keep 8081 for the server?",
			"Keep 8081 for the server: 8080 is taken by the dev proxy, since it starts first."},
		{"the reason before the lead-in",
			"Added /health. 8080 clashed with the dev proxy, so I'd keep 8081 for the server.",
			"Keep 8081 for the server: 8080 clashed with the dev proxy"},
		{"let's",
			"The importer works. Let's use the Redis list for the queue, since it is already monitored.",
			"Use the Redis list for the queue, since it is already monitored."},
		{"Japanese",
			"/health を追加しました。8080 は開発用プロキシが使うので、サーバーは 8081 にしましょう。",
			"8080 は開発用プロキシが使うので、サーバーは 8081 にしましょう。"},
		{"Japanese, the reason apart",
			"/health を追加しました。8080 は開発用プロキシと衝突するため使えません。サーバーは 8081 のままにしませんか？",
			"サーバーは 8081 のままにしませんか？：8080 は開発用プロキシと衝突するため使えません。"},
		{"a decision stated outright, after a status line",
			"The script reads no DB_URL. We will use port 8081 because 8080 is taken. Next I will set DB_URL in deploy.sh and rerun it.",
			"Use port 8081 because 8080 is taken"},
		{"stated in Japanese",
			"スクリプトは DB_URL を読んでいません。8080 は使用中なので 8081 番ポートを使うことにしました。",
			"8080 は使用中なので 8081 番ポートを使うことにしました"},
		{"no proposing sentence: the first sentence",
			"Exporting as UTF-8 with a header row. The tests pass.",
			"Exporting as UTF-8 with a header row."},
		{"the last proposal wins",
			"I suggest JSON. On second thought, how about JSON lines, as they stream?",
			"JSON lines, as they stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proposedDecision(tt.proposal); got != tt.want {
				t.Errorf("proposedDecision(%q)\n = %q\nwant %q", tt.proposal, got, tt.want)
			}
		})
	}
}
