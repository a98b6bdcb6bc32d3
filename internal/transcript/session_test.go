package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadAndLaySession(t *testing.T) {
	dir := t.TempDir()
	old := `{"type":"user","message":{"content":"old"}}` + "\n"
	cur := `{"type":"user","message":{"content":"token ghp_` + strings.Repeat("aB3", 12) + `"}}` + "\n" + `{"type":"assistant","partial`
	if err := os.WriteFile(filepath.Join(dir, "s-old.jsonl"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "s-old.jsonl"), past, past)
	if err := os.WriteFile(filepath.Join(dir, "s-new.jsonl"), []byte(cur), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, session, wantID string
		max                   int64
		want                  string // a part of the text; "" for an error
		notWant               string
	}{
		{"the newest", "", "s-new", 1 << 20, "[REDACTED:github]", "partial"},
		{"a named one", "s-old", "s-old", 1 << 20, `"old"`, ""},
		{"past the limit", "s-old", "", 10, "", ""},
		{"a path for an id", "../s-old", "", 1 << 20, "", ""},
		{"no such session", "s-none", "", 1 << 20, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, b, err := ReadSession(dir, tt.session, tt.max)
			if tt.want == "" {
				if !errors.Is(err, ErrSession) {
					t.Errorf("err = %v; want ErrSession", err)
				}
				return
			}
			if err != nil || id != tt.wantID || !strings.Contains(string(b), tt.want) || tt.notWant != "" && strings.Contains(string(b), tt.notWant) {
				t.Errorf("got %q, %q, %v; want %s holding %q without %q", id, b, err, tt.wantID, tt.want, tt.notWant)
			}
		})
	}
	to := filepath.Join(t.TempDir(), "projects", "-x")
	if err := LaySession(to, "s-new", []byte(old)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(to, "s-new.jsonl")); string(b) != old {
		t.Errorf("laid %q; want %q", b, old)
	}
	if err := LaySession(to, "../escape", []byte(old)); !errors.Is(err, ErrSession) {
		t.Errorf("laying ../escape: %v; want ErrSession", err)
	}
}
