package decision

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestCommitState(t *testing.T) {
	dir := testDir(t)
	off := int64(120)
	path, w, err := CommitState(dir, "s1", NewPatch(fixedNow, &off, []string{"a", "b"}), fixedNow)
	if err != nil || w != "" {
		t.Fatalf("first commit: %v %q", err, w)
	}
	if want := filepath.Join(dir.Root, "sessions", "s1.json"); path != want {
		t.Errorf("path: got %s; want %s", path, want)
	}
	// Another tool's key survives; captured slugs are appended once each.
	m := readJSON(t, path)
	m["custom"] = "kept"
	b, _ := json.Marshal(m)
	os.WriteFile(path, b, 0o600)
	later := fixedNow.Add(time.Hour)
	if _, _, err := CommitState(dir, "s1", NewPatch(later, nil, []string{"b", "c"}), later); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, path)
	want := map[string]any{
		"skill_ran_at":          "2026-04-26T06:30:00Z",
		"last_processed_offset": 120.0,
		"captured_slugs":        []any{"a", "b", "c"},
		"custom":                "kept",
		"session_id":            "s1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("state: got %v; want %v", got, want)
	}
	st, w, err := LoadState(dir, "s1")
	if err != nil || w != "" || st.LastProcessedOffset != 120 || !reflect.DeepEqual(st.CapturedSlugs, []string{"a", "b", "c"}) {
		t.Errorf("LoadState: got %+v %q %v", st, w, err)
	}
}

func TestCommitStateRejects(t *testing.T) {
	dir := testDir(t)
	tests := []struct {
		name    string
		session string
		patch   Patch
	}{
		{name: "session with a slash", session: "../x", patch: Patch{}},
		{name: "empty session", session: "", patch: Patch{}},
		{name: "bad slug", session: "s", patch: Patch{KeyCaptured: json.RawMessage(`["../etc"]`)}},
		{name: "negative offset", session: "s", patch: Patch{KeyOffset: json.RawMessage(`-1`)}},
		{name: "offset of the wrong type", session: "s", patch: Patch{KeyOffset: json.RawMessage(`"12"`)}},
		{name: "bad time", session: "s", patch: Patch{KeySkillRanAt: json.RawMessage(`"yesterday"`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := CommitState(dir, tt.session, tt.patch, fixedNow); !errors.Is(err, ErrInvalid) {
				t.Errorf("err: got %v; want ErrInvalid", err)
			}
		})
	}
	if _, err := os.Stat(dir.Sessions()); err == nil {
		entries, _ := os.ReadDir(dir.Sessions())
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") {
				t.Errorf("a rejected patch wrote %s", e.Name())
			}
		}
	}
}

func TestCorruptStateMovedAside(t *testing.T) {
	dir := testDir(t)
	path := StatePath(dir, "s1")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte(`{"last_processed_offset": 12, "captured_slugs": [`), 0o600)

	st, w, err := LoadState(dir, "s1")
	if err != nil || st.LastProcessedOffset != 0 || !strings.Contains(w, "corrupt") {
		t.Errorf("LoadState of a corrupt file: got %+v, %q, %v; want zero state and a warning", st, w, err)
	}
	off := int64(5)
	_, w, err = CommitState(dir, "s1", NewPatch(fixedNow, &off, []string{"x"}), fixedNow)
	aside := path + ".corrupt-20260426T053000.000000"
	if err != nil || !strings.Contains(w, aside) {
		t.Fatalf("commit: %v, warning %q; want one naming %s", err, w, aside)
	}
	if b, err := os.ReadFile(aside); err != nil || !strings.HasPrefix(string(b), `{"last_processed_offset": 12`) {
		t.Errorf("the corrupt file was not kept aside: %q %v", b, err)
	}
	if got := readJSON(t, path)["captured_slugs"]; !reflect.DeepEqual(got, []any{"x"}) {
		t.Errorf("new state: captured %v; want [x]", got)
	}
}

func TestPending(t *testing.T) {
	dir := testDir(t)
	ds := approve(ScopeIssue, cand("a"), cand("b"))
	path, w, err := SavePending(dir, "s1", 8, ds, fixedNow)
	if err != nil || w != "" {
		t.Fatal(err, w)
	}
	if _, _, err := SavePending(dir, "s1", 9, approve(ScopeCrossIssue, cand("c")), fixedNow); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, path)
	if m["schema_version"] != 1.0 || len(m["entries"].([]any)) != 2 {
		t.Fatalf("pending file: %v", m)
	}
	e0 := m["entries"].([]any)[0].(map[string]any)
	if e0["saved_at"] != "2026-04-26T05:30:00+00:00" || e0["issue_number"] != 8.0 {
		t.Errorf("first entry: %v", e0)
	}
	if err := RemovePending(dir, "s1", 8, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	pf, _ := LoadPending(dir, "s1")
	var left []string
	for _, e := range pf.Entries {
		for _, d := range e.Decisions {
			left = append(left, d.Candidate.Slug)
		}
	}
	if !reflect.DeepEqual(left, []string{"b", "c"}) {
		t.Errorf("after removing a: %v; want [b c]", left)
	}
	RemovePending(dir, "s1", 8, []string{"b"})
	RemovePending(dir, "s1", 9, []string{"c"})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("empty pending file still there: %v", err)
	}
	if _, _, err := SavePending(dir, "s1", 0, ds, fixedNow); !errors.Is(err, ErrInvalid) {
		t.Errorf("no issue: got %v; want ErrInvalid", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused save wrote the file: %v", err)
	}
}
