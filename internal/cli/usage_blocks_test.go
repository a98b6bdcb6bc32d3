package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runBatonAt runs baton with args in dir, HOME at home, at the given time.
func runBatonAt(t *testing.T, now time.Time, home, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "TZ": "UTC"}
	f := &Factory{
		IO:         &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv:     func(k string) string { return env[k] },
		Environ:    os.Environ,
		Now:        func() time.Time { return now },
		Getwd:      func() (string, error) { return dir, nil },
		Executable: os.Executable,
	}
	if code := Main(context.Background(), args, f); code != 0 {
		t.Fatalf("baton %v: exit %d\n%s", args, code, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestUsageBlocks: the windows in a table, the active one with its time
// left, its burn rate and projection, in both languages.
func TestUsageBlocks(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-w")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(ts, id string) string {
		return `{"type":"assistant","sessionId":"s","requestId":"r` + id + `","timestamp":"` + ts + `","message":{"id":"m` + id +
			`","model":"claude-sonnet-4-5","usage":{"input_tokens":100000,"output_tokens":10000}}}`
	}
	body := strings.Join([]string{
		line("2026-09-01T01:10:00.000Z", "1"),
		line("2026-09-01T10:10:00.000Z", "2"),
		line("2026-09-01T10:40:00.000Z", "3"),
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(proj, "s.jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 9, 1, 11, 0, 0, 0, time.UTC)
	tests := []struct {
		lang string
		want []string
	}{
		{"en", []string{
			"5-hour block",
			"2026-09-01 01:00 (0h 10m)",
			"2026-09-01 06:10 gap of 4h 00m",
			"2026-09-01 10:00 active, 4h 00m left  200,000  20,000",
			"220,000       $0.90  claude-sonnet-4-5",
			"active block: $1.80 an hour, 7,333 tokens a minute; at this rate it ends (15:00) at $8.10 and 1,980,000 tokens",
		}},
		{"ja", []string{
			"5 時間枠の開始",
			"2026-09-01 06:10 空き 4時間00分",
			"2026-09-01 10:00 進行中、残り 4時間00分",
			"進行中の枠: 1 時間あたり $1.80、毎分 7,333 トークン。このままなら終了時刻 15:00 に $8.10、1,980,000 トークン",
		}},
	}
	for _, tt := range tests {
		out, _ := runBatonAt(t, now, home, home, "usage", "--blocks", "--all", "--lang", tt.lang)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.lang, w, out)
			}
		}
	}
	out, _ := runBatonAt(t, now, home, home, "usage", "--blocks", "--all", "--json")
	for _, w := range []string{`"by": "blocks"`, `"active": true`, `"gap": true`, `"cost_usd_per_hour": 1.8`, `"remaining_minutes": 240`} {
		if !strings.Contains(out, w) {
			t.Errorf("--json lacks %s:\n%s", w, out)
		}
	}
}
