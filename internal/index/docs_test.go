package index

import (
	"strings"
	"testing"
)

// What a person or the agent wrote is sorted by what it does with its
// topic: a message that settles something goes to said whole, questions and
// list items aside, pasted output to log, the rest stays where it was
// written.
func TestAddWritten(t *testing.T) {
	tests := []struct {
		name, text              string
		said, kept, aside, logs string
	}{
		{name: "root cause with its reason",
			text: "Fixed. Root cause was the pool mode. Tests pass.",
			said: "Fixed. Root cause was the pool mode. Tests pass."},
		{name: "a pin",
			text: "We pinned pgx to 5.4.3 because 5.5 collides.",
			said: "We pinned pgx to 5.4.3 because 5.5 collides."},
		{name: "ja root cause",
			text: "原因は UTC で日付を切っていたことでした。暦日で計算するように直しました。",
			said: "原因は UTC で日付を切っていたことでした。 暦日で計算するように直しました。"},
		{name: "ja choice",
			text: "axios を 1.6.8 に固定しました。",
			said: "axios を 1.6.8 に固定しました。"},
		{name: "a question is aside, the statement stays",
			text: "The export is slow. Is the export slow for everyone?",
			kept: "The export is slow.", aside: "Is the export slow for everyone?"},
		{name: "ja question",
			text:  "請求日がずれる件、まだ再現する？",
			aside: "請求日がずれる件、まだ再現する？"},
		{name: "a guess settles nothing",
			text: "The root cause might be the clock.",
			kept: "The root cause might be the clock."},
		{name: "ja not known",
			text: "原因はまだわかりません。",
			kept: "原因はまだわかりません。"},
		{name: "for now puts off",
			text: "no, leave it for now",
			kept: "no, leave it for now"},
		{name: "a list of links is aside",
			text: "Links:\n- docs https://a.example/x\n- issue https://b.example/y\n- blog https://c.example/z",
			kept: "Links:", aside: "- docs https://a.example/x - issue https://b.example/y - blog https://c.example/z"},
		{name: "a status digest is aside, even where an item says fixed",
			text: "Weekly status\n- **export**: fixed in October.\n- **login**: investigating.\n- **cache**: open.",
			kept: "Weekly status", aside: "- **export**: fixed in October. - **login**: investigating. - **cache**: open."},
		{name: "two bullets are prose",
			text: "Done:\n- moved the check\n- added a test",
			said: "Done: - moved the check - added a test"},
		{name: "a log with timestamps and key=value runs",
			text: "log below\n2026-10-14T23:41:17Z warn rejected\ntime=now level=warn msg=rejected status=400",
			kept: "log below", logs: "2026-10-14T23:41:17Z warn rejected\ntime=now level=warn msg=rejected status=400"},
		{name: "a line many times",
			text: "same again\nwebhook rejected\nwebhook rejected\nwebhook rejected",
			kept: "same again", logs: "webhook rejected\nwebhook rejected\nwebhook rejected"},
		{name: "a stack frame and a fence",
			text: "it panics\n```\npanic: nil map\n```\n\tmain.go:12 +0x1d",
			kept: "it panics", logs: "panic: nil map\n\tmain.go:12 +0x1d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &doc{}
			d.addWritten(colText, tt.text)
			var c [nCols]string
			if d.cols != nil {
				c = *d.cols
			}
			for _, col := range []struct {
				name      string
				got, want string
			}{
				{"said", c[colSaid], tt.said}, {"text", c[colText], tt.kept}, {"aside", c[colAside], tt.aside}, {"log", c[colLog], tt.logs},
			} {
				if col.got != col.want {
					t.Errorf("%s: got %q; want %q", col.name, col.got, col.want)
				}
			}
			if got, want := d.settles(), tt.said != ""; got != want {
				t.Errorf("settles: got %v; want %v", got, want)
			}
		})
	}
}

// A message's key is the same in the transcript and in the journal: spaces
// collapsed, only the start of a long text (the journal keeps an excerpt).
func TestMessageKey(t *testing.T) {
	long := strings.Repeat("word ", 300)
	tests := []struct {
		name       string
		s1, t1     string
		s2, t2     string
		same, none bool
	}{
		{name: "spaces collapsed", s1: "s", t1: "Which port\n does  it use?", s2: "s", t2: "Which port does it use?", same: true},
		{name: "an excerpt of a long text", s1: "s", t1: long + "tail one", s2: "s", t2: long[:1200] + "…", same: true},
		{name: "multibyte excerpt", s1: "s", t1: strings.Repeat("ポート", 200), s2: "s", t2: strings.Repeat("ポート", 90), same: true},
		{name: "another session", s1: "s", t1: "same text", s2: "t", t2: "same text"},
		{name: "another text", s1: "s", t1: "port 8081", s2: "s", t2: "port 8080"},
		{name: "no text", s1: "s", t1: "  \n", none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := messageKey(tt.s1, tt.t1)
			if tt.none {
				if a != "" {
					t.Errorf("got %q; want no key", a)
				}
				return
			}
			if b := messageKey(tt.s2, tt.t2); (a == b) != tt.same {
				t.Errorf("got keys %q and %q; want the same: %v", a, b, tt.same)
			}
		})
	}
}
