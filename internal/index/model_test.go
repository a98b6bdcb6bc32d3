package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A workload of 30 task chains (an area of the code worked on over three
// sessions, each continuing the last) with three facts each, stated once
// in passing among talk and tool output that share their vocabulary. Every
// fact must come back through the model's search output within 150 tokens
// (approxTokens) of its start, and a question about work never done must
// come back empty.
func TestForModelFacts(t *testing.T) {
	areas := strings.Fields("billing search auth upload export import mailer scheduler webhook invoice report dashboard " +
		"payment profile session cache gateway ledger audit backup metrics alerting catalog checkout inventory " +
		"shipping refund coupon tax onboarding")
	type fact struct{ query, answer string }
	var facts []fact
	f := newFixture(t)
	at := t0
	for i, area := range areas {
		chain := []struct{ prompt, reply string }{
			{fmt.Sprintf("Start on the %s service. Note: the %s staging database listens on port %d.", area, area, 6000+i),
				fmt.Sprintf("Noted the staging port for %s; reading the %s code now.", area, area)},
			{fmt.Sprintf("Continue the %s work. The %s job runs as service account svc-%s-%02d.", area, area, area, i),
				fmt.Sprintf("Checked the %s job configuration and the service account.", area)},
			{fmt.Sprintf("Keep going on %s. The flaky %s test is Test%sRetry%d; skip it for now.", area, area, strings.ToUpper(area[:1])+area[1:], i),
				fmt.Sprintf("Skipped the flaky %s test and ran the rest of the %s suite.", area, area)},
		}
		facts = append(facts,
			fact{fmt.Sprintf("%s staging database port", area), fmt.Sprint(6000 + i)},
			fact{fmt.Sprintf("%s job service account", area), fmt.Sprintf("svc-%s-%02d", area, i)},
			fact{fmt.Sprintf("flaky %s test", area), fmt.Sprintf("Retry%d", i)})
		for j, step := range chain {
			session := fmt.Sprintf("%s-%d", area, j)
			var lines []string
			add := func(role string, content any) {
				at = at.Add(time.Minute)
				b, _ := json.Marshal(map[string]any{"type": role, "uuid": "u", "sessionId": session, "timestamp": at.Format(time.RFC3339Nano),
					"message": map[string]any{"role": role, "content": content}})
				lines = append(lines, string(b))
			}
			add("user", []any{map[string]any{"type": "text", "text": step.prompt}})
			add("assistant", []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "go test ./internal/" + area + "/..."}}})
			add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": fmt.Sprintf("ok  \tinternal/%s\t0.4s\nok  \tinternal/%s/staging\t0.2s\nFAIL\tinternal/%s/job\t1.1s", area, area, area)}})
			add("assistant", []any{map[string]any{"type": "text", "text": step.reply}})
			if err := os.WriteFile(filepath.Join(f.transcripts, session+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ix := f.open(t)
	worst, total := 0, 0
	for _, fc := range facts {
		r := search(t, ix, Query{Text: fc.query, Limit: 20})
		out := r.ForModel(time.UTC)
		if strings.ContainsAny(out, "«»") || strings.Contains(out, f.transcripts) {
			t.Errorf("%q: output has marks or paths:\n%s", fc.query, out)
		}
		i := strings.Index(out, fc.answer)
		if i < 0 {
			t.Errorf("%q: %q not in the output:\n%s", fc.query, fc.answer, out)
			continue
		}
		end := i + len(fc.answer)
		if nl := strings.IndexByte(out[end:], '\n'); nl >= 0 {
			end += nl
		}
		n := approxTokens(out[:end])
		worst, total = max(worst, n), total+n
		if n > 150 {
			t.Errorf("%q: %q after %d tokens; want at most 150:\n%s", fc.query, fc.answer, n, out[:end])
		}
	}
	t.Logf("%d facts: tokens to reach each, mean %d, worst %d", len(facts), total/len(facts), worst)

	for _, q := range []string{"kubernetes ingress annotations", "how do we rotate the redis password?", "Terraform の state はどこに置く？"} {
		if out := search(t, ix, Query{Text: q}).ForModel(time.UTC); out != "" {
			t.Errorf("%q (never worked on) = %q; want nothing", q, out)
		}
	}
}

// approxTokens estimates how many tokens a model's tokenizer makes of s: a
// token for every four bytes of ASCII text and one for every other
// character (a kanji or kana is about one token). It errs high for
// Japanese and is within a few percent for English prose.
func approxTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		other++
		i += w
	}
	return (ascii+3)/4 + other
}
