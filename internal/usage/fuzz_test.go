package usage

import (
	"strings"
	"testing"
)

// FuzzParseLine: any line is either refused or read into counts that are not
// negative, and a line read once is read the same way again.
func FuzzParseLine(f *testing.F) {
	f.Add(asst("2026-09-01T10:00:00.000Z", "s", "msg_1", "req_1", "m", false, 3, 1, 2, 4))
	f.Add(`{"type":"progress","sessionId":"s","data":{"message":{"timestamp":"2026-09-01T10:00:00.000Z","message":{"id":"x","usage":{"input_tokens":1,"output_tokens":1,"iterations":[{"type":"advisor_message","model":"a","input_tokens":2,"output_tokens":3}]}}}}}`)
	f.Add(`{"message":{"usage":{"input_tokens":"\ud800"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := parseLine([]byte(s))
		if !ok {
			return
		}
		tok := l.tokens
		if tok.Input < 0 || tok.Output < 0 || tok.CacheCreation < 0 || tok.CacheRead < 0 {
			t.Fatalf("negative counts %+v from %q", tok, s)
		}
		if !strings.Contains(s, `"usage":{`) {
			t.Fatalf("read a line without a usage object: %q", s)
		}
		l2, ok2 := parseLine([]byte(s))
		if !ok2 || l2.tokens != l.tokens || string(l2.msgID) != string(l.msgID) {
			t.Fatalf("second read differs: %+v vs %+v", l2, l)
		}
	})
}
