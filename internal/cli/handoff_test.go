package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/claudecode"
)

func TestHandoffAndPickup(t *testing.T) {
	ps := sharedRemote(t, "alice", "bob")
	a, b := ps[0], ps[1]
	a.git(t, "checkout", "-q", "-b", "feature/csv")
	if err := os.WriteFile(filepath.Join(a.dir, "export.go"), []byte("package export\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.git(t, "add", "export.go")
	a.git(t, "commit", "-q", "-m", "export: start")
	head := a.git(t, "rev-parse", "HEAD")
	token := "ghp_" + strings.Repeat("Qw7", 12)
	session := `{"type":"user","sessionId":"s-hand","message":{"role":"user","content":"add the CSV export; the key is ` + token + `"}}` + "\n"
	tdir := claudecode.TranscriptDir(a.env["HOME"], a.dir)
	if err := os.MkdirAll(tdir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tdir, "s-hand.jsonl"), []byte(session), 0o600); err != nil {
		t.Fatal(err)
	}

	var h struct {
		ID    string `json:"id"`
		Dirty bool   `json:"dirty"`
	}
	if err := json.Unmarshal([]byte(a.baton(t, false, "handoff", "--json")), &h); err != nil || len(h.ID) != 12 || h.Dirty {
		t.Fatalf("handoff --json: %+v (%v); want a 12-character id, clean", h, err)
	}

	b.baton(t, false, "sync")
	if got := b.memoryLine(t); !strings.Contains(got, "handoffs not picked up yet: "+h.ID+" (feature/csv, alice <alice@example.com>)") {
		t.Errorf("doctor before the pickup: %q", got)
	}
	out := b.baton(t, false, "pickup", h.ID, "--print-command", "--", "-p", "go on")
	wt := b.dir + "-feature-csv"
	if !strings.Contains(out, "created the worktree "+wt) || !strings.Contains(out, "cd "+wt+" && claude --resume s-hand -p 'go on'") {
		t.Errorf("pickup said %q; want the new worktree and the command", out)
	}
	if got := (&person{dir: wt, env: b.env}).git(t, "rev-parse", "HEAD"); got != head {
		t.Errorf("the worktree is at %s; want A's commit %s", got, head)
	}
	laid, err := os.ReadFile(filepath.Join(claudecode.TranscriptDir(b.env["HOME"], wt), "s-hand.jsonl"))
	if err != nil || !strings.Contains(string(laid), "add the CSV export") || strings.Contains(string(laid), token) {
		t.Errorf("laid transcript %q (%v); want A's conversation without the token", laid, err)
	}

	b.baton(t, false, "sync")
	if got := b.memoryLine(t); strings.Contains(got, "not picked up") {
		t.Errorf("doctor after the pickup: %q", got)
	}
	// Picked up once: a second pickup says by whom, unless --again.
	if got := b.baton(t, true, "pickup", h.ID); !strings.Contains(got, "picked up already, by bob <bob@example.com>") {
		t.Errorf("second pickup said %q", got)
	}
	if got := a.baton(t, true, "pickup", h.ID[:8], "--print-command"); !strings.Contains(got, "picked up already") {
		t.Errorf("A's pickup after B's said %q", got)
	}
	if got := b.baton(t, false, "pickup", h.ID, "--again", "--print-command"); !strings.Contains(got, "picked up "+h.ID) || strings.Contains(got, "created the worktree") {
		t.Errorf("pickup --again said %q; want it in the worktree made before", got)
	}
	if got := b.baton(t, true, "pickup", "deadbeefdead"); !strings.Contains(got, `no handoff has id "deadbeefdead"`) {
		t.Errorf("unknown id said %q", got)
	}
}
