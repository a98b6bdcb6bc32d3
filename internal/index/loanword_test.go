package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchLoanwords checks that a loanword finds what was written in the
// other script, both ways, in a plain query, a query of several words, a
// question (relaxed) and a snippet's marks; a star or a NEAR group keeps
// the word as typed.
func TestSearchLoanwords(t *testing.T) {
	f := newFixture(t)
	ctxDir := f.state.Context()
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "decisions.jsonl"), []byte(
		`{"date":"2026-09-01","slug":"utc-everywhere","summary":"タイムゾーンは UTC に固定する","session":"s1"}`+"\n"+
			`{"date":"2026-09-02","slug":"redis-cache","summary":"Keep the session cache in Redis","session":"s2"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := f.open(t)
	for _, tt := range []struct {
		q, want string
		mark    string
	}{
		{q: "timezone", want: "decision:utc-everywhere", mark: "«タイムゾーン»"},
		{q: "Timezone UTC", want: "decision:utc-everywhere"},
		{q: "what did we decide about the timezone", want: "decision:utc-everywhere"},
		{q: "タイムゾーン", want: "decision:utc-everywhere"},
		{q: "キャッシュ", want: "decision:redis-cache", mark: "«cache»"},
		{q: "ｷｬｯｼｭ redis", want: "decision:redis-cache"},
		{q: "セッションのキャッシュはどこ", want: "decision:redis-cache"},
		{q: "timezon*", want: ""},
		{q: "NEAR(timezone utc)", want: ""},
	} {
		t.Run(tt.q, func(t *testing.T) {
			r := search(t, ix, Query{Text: tt.q})
			if got := refs(r); got != tt.want {
				t.Errorf("hits = %q; want %q", got, tt.want)
			}
			if tt.mark != "" && len(r.Hits) > 0 {
				if got := r.Hits[0].Marked("«", "»"); !strings.Contains(got, tt.mark) {
					t.Errorf("snippet = %q; want %s marked", got, tt.mark)
				}
			}
		})
	}
}
