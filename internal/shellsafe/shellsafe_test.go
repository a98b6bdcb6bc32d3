package shellsafe

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestJSONKeepsMeaning(t *testing.T) {
	for _, v := range []string{"plain", "$(touch${IFS}PWNED)", "`id`", `a\"$b`, "日本語 $HOME"} {
		b, _ := json.Marshal(map[string]string{"branch": v})
		got := JSON(b)
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil || back["branch"] != v {
			t.Errorf("JSON(%s) = %s decodes to %q, %v; want %q", b, got, back["branch"], err, v)
		}
		for _, c := range got {
			if c == '$' || c == '`' {
				t.Errorf("JSON(%s) = %s; still holds %q", b, got, c)
			}
		}
	}
}

// A line sourced by a real shell runs nothing.
func TestSourcedLineRunsNothing(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	var lines []byte
	for _, v := range []string{"$(touch PWNED)", "$(touch${IFS}PWNED)", "`touch PWNED`", "a;touch PWNED", "x\n touch PWNED", `\"; touch PWNED; \"`} {
		b, _ := json.Marshal(map[string]any{"ts": "2026-01-01T00:00:00Z", "branch": v, "n": 1, "ok": true})
		lines = append(append(lines, JSON(b)...), '\n')
	}
	rc := filepath.Join(dir, "rc")
	if err := os.WriteFile(rc, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", ". ./rc; true")
	cmd.Dir = dir
	cmd.CombinedOutput()
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Errorf("sourcing\n%s\nran a command", lines)
	}
}
