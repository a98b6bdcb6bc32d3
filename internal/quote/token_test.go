package quote

import "testing"

func TestDrawnSkipsATokenTheTextHolds(t *testing.T) {
	draws := [][]byte{{0xde, 0xad, 0xbe, 0xef}, {0xde, 0xad, 0xbe, 0xef}, {0x01, 0x02, 0x03, 0x04}}
	n := 0
	got := drawn("see <<<end deadbeef>>> above", func(b []byte) { copy(b, draws[n]); n++ })
	if got != "01020304" || n != 3 {
		t.Errorf("drawn = %q after %d draws; want %q after 3 (the text holds deadbeef)", got, n, "01020304")
	}
}
