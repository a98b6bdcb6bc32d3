package decision

import (
	"reflect"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	c := Candidate{Slug: "use-bin-adapter", What: "One adapter.", Why: "Thin.", Alternatives: "Two.", Consequences: "Less code.", ScopeHint: ScopeIssue}
	want := "<!-- claude-issueops:decision:use-bin-adapter -->\n" +
		"## Decision: use-bin-adapter\n\n" +
		"**What:** One adapter.\n\n" +
		"**Why:** Thin.\n\n" +
		"**Alternatives considered:** Two.\n\n" +
		"**Consequences:** Less code.\n"
	if got := Render(c); got != want {
		t.Errorf("Render:\ngot  %q\nwant %q", got, want)
	}
	if got := Parse(Render(c)); !reflect.DeepEqual(got, []Candidate{c}) {
		t.Errorf("Parse(Render) = %+v; want %+v", got, c)
	}
}

func TestRenderSummary(t *testing.T) {
	tests := []struct {
		name  string
		slugs []string
		want  string
	}{
		{name: "no slugs", want: "<!-- claude-issueops:session-closer:summary:abc123 -->\n## Session summary\n"},
		{name: "slugs, blanks dropped", slugs: []string{"use-bin-adapter", "", "isolate-gh"},
			want: "<!-- claude-issueops:session-closer:summary:abc123 -->\n## Session summary\n\n### Captured decisions (2)\n- use-bin-adapter\n- isolate-gh\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RenderSummary("abc123", tt.slugs); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	full := "## Decision: keep-state\n\n**What:** one file\n\n**Why:** atomic\n\n**Alternatives considered:** sqlite\n\n**Consequences:** locks\n"
	tests := []struct {
		name string
		text string
		want []string
	}{
		{name: "one block", text: full, want: []string{"keep-state"}},
		{name: "inside a fence", text: "```\n" + full + "```\n", want: nil},
		{name: "inside a tilde fence, then one outside", text: "~~~md\n" + full + "~~~\n" + strings.Replace(full, "keep-state", "second", 1), want: []string{"second"}},
		{name: "unclosed fence hides the rest", text: "```\n" + full, want: nil},
		{name: "empty field", text: strings.Replace(full, "**Why:** atomic", "**Why:**", 1), want: nil},
		{name: "missing field", text: strings.Replace(full, "**Consequences:** locks\n", "", 1), want: nil},
		{name: "heading not at line start", text: " " + full, want: nil},
		{name: "slug with capitals", text: strings.Replace(full, "keep-state", "Keep-State", 1), want: nil},
		{name: "a later heading ends the block", text: strings.Replace(full, "**Consequences:** locks\n", "## Notes\n**Consequences:** locks\n", 1), want: nil},
		{name: "two blocks", text: full + "\n" + strings.Replace(full, "keep-state", "other-one", 1), want: []string{"keep-state", "other-one"}},
		{name: "plain Alternatives label", text: strings.Replace(full, "Alternatives considered", "Alternatives", 1), want: []string{"keep-state"}},
		{name: "crlf", text: strings.ReplaceAll(full, "\n", "\r\n"), want: []string{"keep-state"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Parse(tt.text) {
				got = append(got, c.Slug)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

func TestParseFieldsAndScope(t *testing.T) {
	text := "intro\n## Decision: multi-line\n**What:** first line\nsecond line\n**Why:** because\n**Alternatives considered:** none\n**Consequences:** some\n**Scope:** cross-issue\n"
	got := Parse(text)
	want := []Candidate{{Slug: "multi-line", What: "first line\nsecond line", Why: "because", Alternatives: "none", Consequences: "some", ScopeHint: ScopeCrossIssue}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v; want %+v", got, want)
	}
}

func TestSlugsIn(t *testing.T) {
	body := Render(cand("posted-one")) + "\n```\n<!-- claude-issueops:decision:in-code -->\n```\n" +
		"## Decision: other-tool\n**What:** a\n**Why:** b\n**Alternatives considered:** c\n**Consequences:** d\n" +
		"<!-- claude-issueops:decision:marker-only -->\n"
	got := SlugsIn(body)
	want := []string{"posted-one", "other-tool"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Use a bin adapter!", "use-a-bin-adapter"},
		{"  JSON over stdin/stdout (v1) ", "json-over-stdin-stdout-v1"},
		{"状態は JSON ファイルに置く", "json"},
		{"状態はセッションごとに置く", "decision-" + "c0e7ba1e"},
		{strings.Repeat("word ", 30), strings.TrimSuffix(strings.Repeat("word-", 12), "-")},
		{strings.Repeat("x", 100), strings.Repeat("x", MaxSlug)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Slugify(tt.in)
			if strings.HasPrefix(tt.want, "decision-") {
				// The hash is stable: the same text gives the same slug.
				if !strings.HasPrefix(got, "decision-") || len(got) != len("decision-")+8 || Slugify(tt.in) != got || Slugify(tt.in+"。") == got {
					t.Errorf("got %q; want a stable decision-<8 hex> slug", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
			if !ValidSlug(got) {
				t.Errorf("%q is not a valid slug", got)
			}
		})
	}
}

func TestCheckSessionID(t *testing.T) {
	for _, id := range []string{"", "a/b", `a\b`, "..", "a..b", ".", "x\x00"} {
		if CheckSessionID(id) == nil {
			t.Errorf("CheckSessionID(%q) = nil; want an error", id)
		}
	}
	for _, id := range []string{"abc123", "6f68b68d-0907-4c36-a8ee-451cb1a8d40f"} {
		if err := CheckSessionID(id); err != nil {
			t.Errorf("CheckSessionID(%q) = %v; want nil", id, err)
		}
	}
}

func TestExtractRules(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Candidate
	}{
		{
			name: "english labels",
			text: "So:\nDecision: Keep state in one JSON file per session\nWhy: readers never see half a file\nAlternatives: SQLite\nConsequences: a lock per session\n",
			want: []Candidate{{Slug: "keep-state-in-one-json-file-per-session", What: "Keep state in one JSON file per session", Why: "readers never see half a file", Alternatives: "SQLite", Consequences: "a lock per session", ScopeHint: ScopeIssue}},
		},
		{
			name: "japanese labels, bold, list, cross-issue",
			text: "- **決定:** ログは JSONL に追記する\n- **理由:** 壊れにくい\n- **検討した代替案:** SQLite\n- **影響:** ローテーションが要る\n- スコープ: cross-issue\n",
			want: []Candidate{{Slug: "jsonl", What: "ログは JSONL に追記する", Why: "壊れにくい", Alternatives: "SQLite", Consequences: "ローテーションが要る", ScopeHint: ScopeCrossIssue}},
		},
		{
			name: "continuation lines, then a blank line ends the field",
			text: "採用: Go で書く\n理由: 速い\n配布が楽\n代替案: Rust\n影響: cgo を避ける\n\nunrelated text\n",
			want: []Candidate{{Slug: "go", What: "Go で書く", Why: "速い\n配布が楽", Alternatives: "Rust", Consequences: "cgo を避ける", ScopeHint: ScopeIssue}},
		},
		{name: "missing fields", text: "Decision: do it\nWhy: because\n", want: nil},
		{name: "inside code", text: "```\nDecision: a\nWhy: b\nAlternatives: c\nConsequences: d\n```\n", want: nil},
		{
			name: "block and labels, duplicate slug kept once",
			text: block(cand("one-file")) + "\n## Also\nDecision: one file\nWhy: x\nAlternatives: y\nConsequences: z\n",
			want: []Candidate{cand("one-file")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExtractRules(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseModelAnswer(t *testing.T) {
	good := `{"slug":"use-x","what":"w","why":"y","alternatives":"a","consequences":"c","scope_hint":"cross-issue"}`
	tests := []struct {
		name    string
		answer  string
		want    []string
		wantErr bool
	}{
		{name: "bare array", answer: "[" + good + "]", want: []string{"use-x"}},
		{name: "fenced with prose", answer: "Here:\n```json\n[" + good + "]\n```", want: []string{"use-x"}},
		{name: "empty array", answer: "[]", want: nil},
		{name: "invalid items dropped", answer: `[` + good + `, {"slug":"no-fields"}, 3, {"slug":"Bad Slug","what":"Bad slug here","why":"y","alternatives":"a","consequences":"c","scope_hint":"issue"}, {"slug":"s","what":"w","why":"y","alternatives":"a","consequences":"c","scope_hint":"global"}]`, want: []string{"use-x", "bad-slug"}},
		{name: "not an array", answer: `{"slug":"x"}`, wantErr: true},
		{name: "prose only", answer: "No decisions.", wantErr: true},
		{name: "broken JSON", answer: "[{]", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseModelAnswer(tt.answer)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err: got %v; want error %v", err, tt.wantErr)
			}
			var slugs []string
			for _, c := range got {
				slugs = append(slugs, c.Slug)
			}
			if !reflect.DeepEqual(slugs, tt.want) {
				t.Errorf("got %v; want %v", slugs, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(Render(cand("a-b")))
	f.Add("```\n## Decision: x\n**What:** a\n```\nDecision: y\nWhy: z\nAlternatives: q\nConsequences: r\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range append(Parse(text), ExtractRules(text)...) {
			if err := c.Validate(); err != nil {
				t.Fatalf("invalid candidate %+v: %v", c, err)
			}
			// What Render writes, Parse reads back.
			back := Parse(Render(c))
			if len(back) != 1 || back[0].Slug != c.Slug {
				t.Fatalf("Parse(Render(%+v)) = %+v", c, back)
			}
		}
	})
}
