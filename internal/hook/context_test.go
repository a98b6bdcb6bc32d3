package hook

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestAssemble(t *testing.T) {
	tests := []struct {
		name     string
		sections []string
		limit    int
		want     string
	}{
		{"empty", nil, 100, ""},
		{"blank sections skipped", []string{"", "  ", "a"}, 100, "a"},
		{"joined by blank line", []string{"a", "b"}, 200, "a\n\nb"},
		{"low priority dropped with a note", []string{"first", strings.Repeat("x", 300)}, 250,
			"first\n\n" + leftOut.Format(i18n.EN, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Assemble(tt.sections, tt.limit, i18n.EN); got != tt.want {
				t.Errorf("Assemble = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestAssembleProperties checks, for random section sizes, that the result
// fits, keeps sections whole and in order, and says when it left any out.
func TestAssembleProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		n := r.IntN(6)
		var sections []string
		for j := range n {
			unit := []string{"a", "あ", "😀"}[r.IntN(3)]
			sections = append(sections, strings.Repeat(unit, 1+r.IntN(4000))+string(rune('A'+j)))
		}
		lang := []i18n.Lang{i18n.EN, i18n.JA}[r.IntN(2)]
		got := Assemble(sections, MaxContext, lang)
		if Len(got) > MaxContext {
			t.Fatalf("case %d: %d characters; limit %d", i, Len(got), MaxContext)
		}
		parts := strings.Split(got, "\n\n")
		// Kept sections appear whole and in their original order.
		kept, next := 0, 0
		for _, p := range parts {
			for j := next; j < len(sections); j++ {
				if p == sections[j] {
					kept++
					next = j + 1
					break
				}
			}
		}
		dropped := len(sections) - kept
		hasNote := strings.Contains(got, leftOut.Format(lang, dropped))
		if dropped > 0 && !hasNote {
			t.Fatalf("case %d: dropped %d sections without saying so: %q", i, dropped, got[max(0, len(got)-200):])
		}
		if dropped == 0 && len(parts) != kept && got != "" {
			t.Fatalf("case %d: %d parts for %d kept sections and nothing dropped", i, len(parts), kept)
		}
	}
}

func TestLen(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "日本語": 3, "😀": 2, "\xff": 1} {
		if got := Len(s); got != want {
			t.Errorf("Len(%q) = %d; want %d", s, got, want)
		}
	}
}
