package web

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestSideRounds(t *testing.T) {
	tests := []struct {
		name string
		text string
		want map[int]string
	}{
		{name: "no rounds", text: "# Pro\n\nnotes\n", want: map[int]string{}},
		{name: "rounds in order", text: "# Pro\n## Round 1\none\n## Round 2\ntwo\nmore\n", want: map[int]string{1: "one", 2: "two\nmore"}},
		{name: "heading inside a fence is text", text: "## Round 1\na\n```\n## Round 5\n```\n## Round 2\nb\n", want: map[int]string{1: "a\n```\n## Round 5\n```", 2: "b"}},
		{name: "last heading without a newline", text: "## Round 1\na\n## Round 2", want: map[int]string{1: "a", 2: ""}},
		{name: "round written twice shows both", text: "## Round 1\nfirst\n## Round 1\nagain\n", want: map[int]string{1: "first\n\n~again~\n\nagain"}},
		{name: "crlf", text: "## Round 1\r\na\r\n## Round 2\r\nb\r\n", want: map[int]string{1: "a", 2: "b"}},
		{name: "deeper headings are text", text: "## Round 1\n### Round 2\nx\n", want: map[int]string{1: "### Round 2\nx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "side.md")
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := sideRounds(path, "~again~")
			if err != nil || !maps.Equal(got, tt.want) {
				t.Errorf("sideRounds(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
			}
		})
	}
	if got, err := sideRounds(filepath.Join(t.TempDir(), "missing.md"), "~again~"); err != nil || got != nil {
		t.Errorf("missing file: %v, %v; want nothing and no error", got, err)
	}
}
