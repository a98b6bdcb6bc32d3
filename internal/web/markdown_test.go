package web

import (
	stdhtml "html"
	"regexp"
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		notWant []string
	}{
		{
			name: "briefing shape",
			in:   "### Where you left off\n**Task**: Make the CSV export stream rows\n**Now**:\n- Rewrite the writer loop\n  still the item\n**Next**:\n- Benchmark\n```\n- in code\nflush\n```\n",
			want: []string{"<h3>Where you left off</h3>", "<strong>Task</strong>: Make the CSV export stream rows<br>", "<li>Rewrite the writer loop<br>\nstill the item</li>\n</ul>\n<p><strong>Next</strong>:</p>", "<li>Benchmark</li>", "<pre><code>- in code\nflush\n</code></pre>"},
		},
		{
			name:    "inline HTML is text",
			in:      "asked: <script>alert(1)</script> please <img src=x onerror=alert(2)>",
			want:    []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;"},
			notWant: []string{"<script", "<img", "raw HTML omitted"},
		},
		{
			name:    "HTML block is text",
			in:      "<div onclick=\"x()\">\nhello\n</div>\n",
			want:    []string{"&lt;div onclick=&#34;x()&#34;&gt;"},
			notWant: []string{"<div"},
		},
		{
			name: "safe links stay",
			in:   "[pr](https://github.com/acme/shop/pull/77) [s](/sessions/abc) [m](mailto:a@b.c) <https://example.com/x>",
			want: []string{`<a href="https://github.com/acme/shop/pull/77">pr</a>`, `<a href="/sessions/abc">s</a>`, `<a href="mailto:a@b.c">m</a>`, `<a href="https://example.com/x">`},
		},
		{
			name:    "other schemes lose the link",
			in:      "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) [d](vbscript:x) [e](//evil.example/x) [f](file:///etc/passwd)",
			want:    []string{"a b c d e f"},
			notWant: []string{"<a", "javascript", "evil.example"},
		},
		{
			name:    "images are their description",
			in:      "![a tracker](https://evil.example/pixel.png)",
			want:    []string{"a tracker"},
			notWant: []string{"<img", "evil.example"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := markdown(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("markdown(%q) = %s; want it to hold %s", tt.in, got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(strings.ToLower(string(got)), strings.ToLower(w)) {
					t.Errorf("markdown(%q) = %s; want no %s", tt.in, got, w)
				}
			}
		})
	}
}

// allowedTag is every element markdown may write.
var allowedTag = regexp.MustCompile(`^(p|br|h[1-6]|strong|em|code|pre|ul|ol|li|a|blockquote|hr|del)$`)

func FuzzMarkdown(f *testing.F) {
	f.Add("[x](javascript:alert(1)) <script>a</script>\n<div>\n")
	f.Add("### h\n**b**\n- i\n![i](https://x/y.png)")
	f.Add("<https://a.example/x?y=\"z\"> [l](</a b> \"t\")")
	tags := regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
	hrefs := regexp.MustCompile(`^ href="([^"]*)"( title="[^"]*")?$`)
	olStart := regexp.MustCompile(`^ start="[0-9]+"$`)
	codeLang := regexp.MustCompile(`^ class="language-[^"<>]*"$`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := markdown(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tags.FindAllStringSubmatch(string(got), -1) {
			if !allowedTag.MatchString(m[2]) {
				t.Fatalf("markdown(%q) = %s; writes element %s", in, got, m[2])
			}
			if m[1] == "/" || m[3] == "" || m[3] == " /" {
				continue
			}
			if m[2] == "ol" && olStart.MatchString(m[3]) || m[2] == "code" && codeLang.MatchString(m[3]) {
				continue
			}
			h := hrefs.FindStringSubmatch(m[3])
			if m[2] != "a" || h == nil {
				t.Fatalf("markdown(%q) = %s; writes attributes %s on %s", in, got, m[3], m[2])
			}
			if !safeLink(stdhtml.UnescapeString(h[1])) {
				t.Fatalf("markdown(%q) = %s; links to %s", in, got, h[1])
			}
		}
	})
}
