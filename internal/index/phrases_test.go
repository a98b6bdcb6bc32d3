package index

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPhrasesFindWhatContainsFinds checks the one-pass search of the
// settling and guessing words against a search for each word, on texts
// made of pieces of those words, their neighbours and other text.
func TestPhrasesFindWhatContainsFinds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, set := range []struct {
		words []string
		p     *phrases
	}{{settleWords, settlePhrases}, {guessWords, guessPhrases}} {
		pieces := []string{" ", "", "a", "e", "n", "。", "、", "か", "で", "に", "ー", "qualurivi", "エチス", "\n", "now", "we", "'ll", "done", "."}
		for _, w := range set.words {
			// Every word, and every word cut short at each byte (a prefix
			// that only looks like it).
			for i := 1; i <= len(w); i++ {
				pieces = append(pieces, w[:i], w[len(w)-i:])
			}
		}
		found := 0
		for range 20000 {
			var b strings.Builder
			for range 1 + r.IntN(6) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			want := false
			for _, w := range set.words {
				if strings.Contains(" "+s+" ", w) {
					want = true
				}
			}
			if got := set.p.in(s); got != want {
				t.Fatalf("in(%q) = %v, want %v", s, got, want)
			}
			if want {
				found++
			}
		}
		if found == 0 {
			t.Fatal("no text held a word: the test says nothing")
		}
	}
}

func BenchmarkSettles(b *testing.B) {
	text := strings.Repeat("vitormopo tornemo ostmoriri エノツ試設 rumluixix mopotofin ixsaosttor lurumlu belne スカソテ virumfintor オコ ixpo ostga kafinde mori tornepopo rifinix ostde エチス zendetor. ", 4)
	for b.Loop() {
		settles(text)
		guess(text)
	}
}
