package debate

import (
	"slices"
	"testing"
)

func TestParseRounds(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		numbers   []int
		concluded bool
	}{
		{"empty", "", nil, false},
		{"header only", "# cc-debate: pro\n\n<!-- rounds -->\n", nil, false},
		{"two rounds", "## Round 1\nfirst\n\n## Round 2\nsecond\n", []int{1, 2}, false},
		{"concluded in last", "## Round 1\nx\n## Round 2\nWe agree. [CONCLUDED]\n", []int{1, 2}, true},
		{"concluded only in an earlier round", "## Round 1\n[CONCLUDED]\n## Round 2\nno\n", []int{1, 2}, false},
		{"spacing and case", "##  round  3 \r\n", []int{3}, false},
		{"not a heading", "text ## Round 1\n### Round 2\n## Round two\n## Round 0\n## Round +4\n", nil, false},
		{"in a code fence", "## Round 1\n```\n## Round 2\n```\n~~~md\n## Round 3\n~~~\n", []int{1}, false},
		{"no final newline", "## Round 1\nend [CONCLUDED]", []int{1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseRounds(tt.text)
			if !slices.Equal(r.Numbers, tt.numbers) {
				t.Errorf("Numbers = %v; want %v", r.Numbers, tt.numbers)
			}
			if r.Concluded() != tt.concluded {
				t.Errorf("Concluded = %v; want %v (last = %q)", r.Concluded(), tt.concluded, r.Last)
			}
			for _, n := range tt.numbers {
				if !r.Has(n) {
					t.Errorf("Has(%d) = false", n)
				}
			}
			if r.Has(99) {
				t.Error("Has(99) = true")
			}
		})
	}
}

func FuzzParseRounds(f *testing.F) {
	f.Add("## Round 1\n```\n## Round 2\n```\n[CONCLUDED]")
	f.Fuzz(func(t *testing.T, text string) {
		r := ParseRounds(text)
		if r.Written() > 0 && !r.Has(r.Written()) {
			t.Fatalf("Written = %d but Has(it) = false", r.Written())
		}
		if len(r.Last) > len(text) {
			t.Fatal("Last longer than the text")
		}
	})
}
