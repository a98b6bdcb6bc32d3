package textcut

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChars(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"exact", "abcde", 5, "abcde"},
		{"cut", "abcdef", 5, "abcd…"},
		{"japanese", "次のタスクを書く", 4, "次のタ…"},
		{"japanese fits", "次のタスク", 5, "次のタスク"},
		{"one", "abc", 1, "…"},
		{"zero", "abc", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chars(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("Chars(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > tt.n {
				t.Errorf("Chars(%q, %d) has %d characters", tt.s, tt.n, n)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"cut", "abcdef", 3, "abc…"},
		{"inside a character", "aあい", 3, "a…"},
		{"on a boundary", "aあい", 4, "aあ…"},
		{"zero", "abc", 0, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Bytes(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("Bytes(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Bytes(%q, %d) = %q is not valid UTF-8", tt.s, tt.n, got)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	if got, want := OneLine("  a\n\tb  c \r\n"), "a b c"; got != want {
		t.Errorf("OneLine = %q; want %q", got, want)
	}
}

func FuzzChars(f *testing.F) {
	f.Add("次のタスク: write the tokenizer", 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := Chars(s, n)
		if utf8.RuneCountInString(got) > n {
			t.Fatalf("Chars(%q, %d) = %q: too long", s, n, got)
		}
		if got != s && !strings.HasSuffix(got, Ellipsis) && n > 0 {
			t.Fatalf("Chars(%q, %d) = %q: cut without a mark", s, n, got)
		}
	})
}

func TestShortID(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"4f1c2b7e-9d3a-4c1e-8b2f-0a1b2c3d4e5f", "4f1c2b7e"},
		{"abc", "abc"},
		{"", ""},
	} {
		if got := ShortID(tt.id); got != tt.want {
			t.Errorf("ShortID(%q) = %q; want %q", tt.id, got, tt.want)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"v1.2 is out.\n\nNext", []string{"v1.2 is out.", "Next"}},
		{"終わりました。次は？はい！", []string{"終わりました。", "次は？", "はい！"}},
		{"  \n ", nil},
	}
	for _, tt := range tests {
		if got := Sentences(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Sentences(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
