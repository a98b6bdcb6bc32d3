package textnorm

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", "Queue API", "queue api"},
		{"full-width latin", "ＡＰＩ　Ｑｕｅｕｅ", "api queue"},
		{"full-width digits", "ｉｓｓｕｅ＃１２", "issue#12"},
		{"half-width katakana", "ｶﾀｶﾅ", "カタカナ"},
		{"half-width voiced kana", "ｷｭｰ ｶﾞ", "キュー ガ"},
		{"full-width kana unchanged", "カタカナとキュー", "カタカナとキュー"},
		{"kanji unchanged", "決定事項", "決定事項"},
		{"ideographic space", "キュー　ＡＰＩ", "キュー api"},
		{"sound mark after plain kana", "か\u3099", "が"},
		{"compatibility kanji", "\uF900", "\u8C48"},
		{"ligature", "ﬁle", "file"},
		{"circled digit", "①", "1"},
		{"accented upper", "ÉCOLE", "école"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fold(tt.in); got != tt.want {
				t.Errorf("Fold(%q) = %q; want %q", tt.in, got, tt.want)
			}
			got, _ := FoldMap(tt.in)
			if got != tt.want {
				t.Errorf("FoldMap(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFoldMap(t *testing.T) {
	tests := []struct {
		name, in, find, want string
	}{
		{"ascii", "Use the Queue now", "queue", "Queue"},
		{"full-width", "the ＡＰＩ key", "api", "ＡＰＩ"},
		{"half-width kana", "これはｶﾀｶﾅです", "カタカナ", "ｶﾀｶﾅ"},
		{"voiced half-width kana", "ｷｭｰｶﾞ来る", "ガ", "ｶﾞ"},
		{"mixed", "日本語とＡＢＣ", "abc", "ＡＢＣ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			folded, at := FoldMap(tt.in)
			if len(at) != len(folded)+1 {
				t.Fatalf("len(at) = %d; want %d", len(at), len(folded)+1)
			}
			i := strings.Index(folded, tt.find)
			if i < 0 {
				t.Fatalf("%q not in %q", tt.find, folded)
			}
			if got := tt.in[at[i]:at[i+len(tt.find)]]; got != tt.want {
				t.Errorf("original of %q = %q; want %q", tt.find, got, tt.want)
			}
		})
	}
}

func FuzzFoldMap(f *testing.F) {
	for _, s := range []string{"ＡＰＩ", "ｶﾞｷﾞ", "abc", "\xff\xfe", "e\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		folded, at := FoldMap(s)
		if folded != Fold(s) {
			t.Fatalf("FoldMap(%q) = %q; Fold = %q", s, folded, Fold(s))
		}
		if len(at) != len(folded)+1 || at[len(at)-1] != len(s) {
			t.Fatalf("offsets of %q: %d entries, last %d", s, len(at), at[len(at)-1])
		}
		for i := 1; i < len(at); i++ {
			if at[i] < at[i-1] || at[i] > len(s) {
				t.Fatalf("offsets of %q go back or out at %d: %v", s, i, at)
			}
		}
	})
}

func BenchmarkFold(b *testing.B) {
	ascii := strings.Repeat("The queue worker retries failed jobs with backoff. ", 40)
	mixed := strings.Repeat("キューの再試行は指数バックオフにする。ＡＰＩ key は ｶﾀｶﾅ. ", 20)
	for _, c := range []struct{ name, s string }{{"ascii", ascii}, {"japanese", mixed}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				Fold(c.s)
			}
		})
	}
}
