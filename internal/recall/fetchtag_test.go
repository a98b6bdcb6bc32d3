package recall

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTags(t *testing.T) {
	tag := func(body string) string { return TagOpen + body + TagClose }
	tests := []struct {
		name        string
		text        string
		max         int
		want        []Tag // Err compared by whether it is set
		wantErrs    []string
		wantSkipped int
	}{
		{
			name: "the reference's tag, with newlines",
			text: "Let me check.\n<<FETCH>>\n{\"target\": \"thread_history\", \"thread_ts\": \"1778246185.616809\", \"depth\": 50}\n<</FETCH>>\nthen more",
			want: []Tag{{Target: TargetThreadHistory, ThreadTS: "1778246185.616809", Depth: 50}},
		},
		{
			name: "depth 10^9 is capped",
			text: tag(`{"target":"session_log","depth":1000000000}`),
			want: []Tag{{Target: TargetSessionLog, Depth: 50, Capped: true}},
		},
		{
			name: "depth beyond float range is capped",
			text: tag(`{"target":"session_log","depth":1e400}`),
			want: []Tag{{Target: TargetSessionLog, Depth: 50, Capped: true}},
		},
		{
			name: "thread_ts written as a number keeps its digits",
			text: tag(`{"target":"thread_history","thread_ts":1778246185.616809}`),
			want: []Tag{{Target: TargetThreadHistory, ThreadTS: "1778246185.616809"}},
		},
		{
			name: "issue as #12 and as number",
			text: tag(`{"target":"issue_body","issue":"#12"}`) + tag(`{"target":"issue_body","number":7,"depth":"5"}`),
			want: []Tag{{Target: TargetIssueBody, Issue: 12}, {Target: TargetIssueBody, Issue: 7, Depth: 5}},
		},
		{
			name: "a bare target name",
			text: tag("session_log"),
			want: []Tag{{Target: TargetSessionLog}},
		},
		{
			name:     "unknown targets are errors, the good tag is still served",
			text:     tag(`{"target":"shell","command":"rm -rf /"}`) + tag(`{"target":"session_log"}`) + tag(`{"target":"file","path":"/etc/passwd"}`),
			want:     []Tag{{}, {Target: TargetSessionLog}, {}},
			wantErrs: []string{`unknown target "shell"`, "", `unknown target "file"`},
		},
		{
			name:     "hostile field values",
			text:     tag(`{"target":"session_log","session":"../../etc/passwd"}`) + tag(`{"target":"thread_history","thread_ts":"1.2","channel":"../C1"}`) + tag(`{"target":"thread_history","thread_ts":"; rm -rf /"}`) + tag(`{"target":"issue_body","issue":-3}`),
			want:     []Tag{{}, {}, {}, {}},
			wantErrs: []string{"not a session id", "not a Slack channel id", "not a Slack timestamp", "not an issue number"},
		},
		{
			name:     "malformed bodies",
			text:     tag(`{"target":`) + tag(``) + tag(`{"target":"session_log"} trailing`) + tag(`["session_log"]`) + tag(`{"target":"session_log","depth":-1}`) + tag(`{"target":"session_log","depth":2.5}`) + tag(`{"target":"session_log","depth":"lots"}`) + tag(`{"target":7}`),
			max:      20,
			want:     []Tag{{}, {}, {}, {}, {}, {}, {}, {}},
			wantErrs: []string{"not a JSON object", "empty", "text after", "unknown target", "at least 1", "whole number", "not a number", `unknown target "7"`},
		},
		{
			name:     "missing fields",
			text:     tag(`{"target":"thread_history"}`) + tag(`{"target":"issue_body"}`) + tag(`{}`),
			want:     []Tag{{}, {}, {}},
			wantErrs: []string{"not a Slack timestamp", "needs an issue number", "no target"},
		},
		{
			name:     "nested: the outer is broken, the inner is served",
			text:     TagOpen + `{"target":"x", ` + tag(`{"target":"session_log","depth":3}`) + `}` + TagClose,
			want:     []Tag{{}, {Target: TargetSessionLog, Depth: 3}},
			wantErrs: []string{"inside another tag", ""},
		},
		{
			name:     "unclosed",
			text:     "text " + TagOpen + `{"target":"session_log"}`,
			want:     []Tag{{}},
			wantErrs: []string{"no <</FETCH>>"},
		},
		{
			name:     "huge body",
			text:     tag(`{"target":"session_log","pad":"` + strings.Repeat("a", 10000) + `"}`),
			want:     []Tag{{}},
			wantErrs: []string{"longer than 4096"},
		},
		{
			name:        "too many tags",
			text:        strings.Repeat(tag(`{"target":"session_log"}`), 9),
			max:         5,
			want:        []Tag{{Target: TargetSessionLog}, {Target: TargetSessionLog}, {Target: TargetSessionLog}, {Target: TargetSessionLog}, {Target: TargetSessionLog}},
			wantSkipped: 4,
		},
		{
			name: "no tags, stray closers",
			text: "nothing here " + TagClose + " <<FETCH> almost",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			max := tt.max
			if max == 0 {
				max = 5
			}
			got, skipped := ParseTags(tt.text, max, 50)
			if len(got) != len(tt.want) || skipped != tt.wantSkipped {
				t.Fatalf("got %d tags (%d skipped): %+v; want %d (%d skipped)", len(got), skipped, got, len(tt.want), tt.wantSkipped)
			}
			for i, g := range got {
				wantErr := ""
				if i < len(tt.wantErrs) {
					wantErr = tt.wantErrs[i]
				}
				switch {
				case wantErr == "" && g.Err != nil:
					t.Errorf("tag %d: error %v; want none", i, g.Err)
				case wantErr != "" && (g.Err == nil || !strings.Contains(g.Err.Error(), wantErr)):
					t.Errorf("tag %d: error %v; want one mentioning %q", i, g.Err, wantErr)
				case wantErr != "" && !errors.Is(g.Err, ErrTag):
					t.Errorf("tag %d: error %v; want ErrTag", i, g.Err)
				}
				if wantErr != "" {
					continue
				}
				g.Err = nil
				if g != tt.want[i] {
					t.Errorf("tag %d = %+v; want %+v", i, g, tt.want[i])
				}
			}
		})
	}
}

// FuzzParseTags checks that no input makes the parser panic, return more
// than the allowed tags, or let through a tag that is not valid.
func FuzzParseTags(f *testing.F) {
	for _, s := range []string{
		`<<FETCH>>{"target":"thread_history","thread_ts":"1778246185.616809","depth":50}<</FETCH>>`,
		`<<FETCH>>session_log<</FETCH>>`,
		`<<FETCH>><<FETCH>>{"target":"issue_body","issue":3}<</FETCH>><</FETCH>>`,
		`<<FETCH>>{"target":"session_log","depth":1e999,"session":"a-b_c"}<</FETCH>>`,
		`<<FETCH>>{"target":"thread_history","thread_ts":1.5,"channel":"C1"}`,
		"\x00<<FETCH>>\xff<</FETCH>>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tags, skipped := ParseTags(text, 5, 50)
		if len(tags) > 5 || skipped < 0 {
			t.Fatalf("%d tags, %d skipped; want at most 5", len(tags), skipped)
		}
		if skipped > 0 && len(tags) != 5 {
			t.Fatalf("skipped %d with only %d tags", skipped, len(tags))
		}
		for _, tg := range tags {
			if tg.Err != nil {
				continue
			}
			if tg.Depth < 0 || tg.Depth > 50 {
				t.Fatalf("depth %d outside 0..50", tg.Depth)
			}
			if err := tg.check(); err != nil {
				t.Fatalf("tag %+v passed but check says %v", tg, err)
			}
			for _, s := range []string{tg.Session, tg.Channel, tg.ThreadTS} {
				if strings.ContainsAny(s, "/.\\ ") && s != tg.ThreadTS {
					t.Fatalf("unsafe field %q passed", s)
				}
			}
		}
	})
}
