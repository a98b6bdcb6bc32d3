package textnorm

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestLoanwordTable checks the table as written: at least 200 words, each
// with an English form and katakana forms, every form already folded,
// every form on one line only, and all the forms of a line sharing a key.
func TestLoanwordTable(t *testing.T) {
	seen := map[string]int{}
	words := 0
	for n, line := range strings.Split(loanwordText, "\n") {
		forms := strings.Fields(line)
		if len(forms) == 0 || strings.HasPrefix(forms[0], "#") {
			continue
		}
		words++
		if len(forms) < 2 {
			t.Errorf("line %d %q: got %d forms; want an English form and at least one katakana form", n+1, line, len(forms))
			continue
		}
		for i, f := range forms {
			if got := Fold(f); got != f {
				t.Errorf("line %d: Fold(%q) = %q; want the form as written", n+1, f, got)
			}
			if prev, ok := seen[f]; ok {
				t.Errorf("line %d: %q is already on line %d", n+1, f, prev)
			}
			seen[f] = n + 1
			katakana := strings.IndexFunc(f, func(r rune) bool { return !unicode.Is(unicode.Katakana, r) && r != 'ー' }) < 0
			ascii := strings.IndexFunc(f, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
			if i == 0 && !ascii {
				t.Errorf("line %d: first form %q; want an English word in lower case", n+1, f)
			}
			if i > 0 && !katakana {
				t.Errorf("line %d: form %q; want katakana only", n+1, f)
			}
			if got, want := LoanwordKey(Fold(f)), forms[0]; got != want {
				t.Errorf("LoanwordKey(Fold(%q)) = %q; want %q", f, got, want)
			}
		}
	}
	if words < 200 {
		t.Errorf("got %d words in the table; want at least 200", words)
	}
}

func TestLoanwords(t *testing.T) {
	for _, tc := range []struct {
		w    string
		want []string
	}{
		{"timezone", []string{"タイムゾーン"}},
		{"タイムゾーン", []string{"timezone"}},
		{"server", []string{"サーバー", "サーバ"}},
		{"サーバ", []string{"server", "サーバー"}},
		{Fold("ｷｬｯｼｭ"), []string{"cache"}},
		{"pgbouncer", nil},
		{"", nil},
	} {
		if got := Loanwords(tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("Loanwords(%q) = %q; want %q", tc.w, got, tc.want)
		}
	}
	if got, want := LoanwordKey("pgbouncer"), "pgbouncer"; got != want {
		t.Errorf("LoanwordKey(%q) = %q; want %q", "pgbouncer", got, want)
	}
}

// TestIsSpace checks the shortcut of isSpace: it is unicode.IsSpace for
// every rune, since no space is above U+3000.
func TestIsSpace(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isSpace(r), unicode.IsSpace(r); got != want {
			t.Fatalf("isSpace(%U) = %v; want %v", r, got, want)
		}
	}
}

// TestFields checks that fields splits as strings.Fields does.
func TestFields(t *testing.T) {
	for _, s := range []string{
		"", " ", "cache キャッシュ\n", "  server\tサーバー　サーバ \n", "a\u00a0b\u2003c\u3000d", "\xffx \xfe", "# comment line\n", "one",
	} {
		if got, want := fields(s), strings.Fields(s); !slices.Equal(got, want) {
			t.Errorf("fields(%q) = %q; want %q", s, got, want)
		}
	}
	for line := range strings.Lines(loanwordText) {
		if got, want := fields(line), strings.Fields(line); !slices.Equal(got, want) {
			t.Errorf("fields(%q) = %q; want %q", line, got, want)
		}
	}
}
