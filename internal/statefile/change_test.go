package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
)

// checkGolden compares got with testdata/<path>, rewriting it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant (%s)\n%s", got, path, want)
	}
}

func TestApply(t *testing.T) {
	now := time.Date(2026, 5, 10, 9, 30, 0, 0, time.FixedZone("", 9*3600))
	tests := []struct {
		name   string
		from   string // fixture under testdata/parse; "" starts a new file
		lang   i18n.Lang
		change Change
		err    error
	}{
		{
			name: "new-ja", lang: i18n.JA,
			change: Change{Task: "CSV 出力の修正", Doing: "再現テストを書いている", Next: "writer を差し替える", Files: []string{"internal/export/csv.go"}},
		},
		{
			name: "new-en", lang: i18n.EN,
			change: Change{Task: "Fix CSV export", Doing: "writing a failing test\nreading the old code", DoneItems: []string{"found the bug"}},
		},
		{
			name: "doing-only", from: "reference.md", lang: i18n.EN,
			change: Change{Doing: "メモリ計測の続き"},
		},
		{
			name: "lists", from: "reference.md", lang: i18n.EN,
			change: Change{DoneItems: []string{"CSV のストリーミング化", "✅ already marked"}, Files: []string{"internal/export/csv.go", "`internal/export/writer.go`"}, Note: "ベンチは 2 コアで"},
		},
		{name: "complete", from: "reference.md", lang: i18n.JA, change: Change{Complete: true}},
		{
			name: "new-task-after-complete", from: "english.md", lang: i18n.JA,
			change: Change{Task: "Import R1", Next: "read the import spec"},
		},
		{name: "reopen-same-task", from: "english.md", lang: i18n.JA, change: Change{Task: "Refactor: export R3"}},
		{name: "rename-in-progress", from: "reference.md", lang: i18n.JA, change: Change{Task: "エクスポート機能のリファクタ R4"}},
		{name: "no-task", from: "no-task.md", lang: i18n.JA, change: Change{Doing: "x"}, err: ErrNoTask},
		{name: "new-without-task", lang: i18n.JA, change: Change{Next: "x"}, err: ErrNoTask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(tt.lang)
			if tt.from != "" {
				var err error
				if f, err = Parse(readFixture(t, filepath.Join("testdata", "parse", tt.from))); err != nil {
					t.Fatal(err)
				}
			}
			err := f.Apply(tt.change, now, tt.lang)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Apply error = %v; want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			out := f.Bytes()
			checkGolden(t, filepath.Join("apply", tt.name+".golden"), out)
			// What was written must read back as written.
			g, err := Parse(out)
			if err != nil {
				t.Fatalf("the result does not parse: %v", err)
			}
			if !g.Updated.Equal(now) || g.Task != f.Task || g.Status != f.Status {
				t.Errorf("read back updated, task, status = %v %q %q; want %v %q %q", g.Updated, g.Task, g.Status, now, f.Task, f.Status)
			}
		})
	}
}

func TestChangeEmpty(t *testing.T) {
	if !(Change{}).Empty() {
		t.Error("zero Change is not Empty")
	}
	for _, c := range []Change{{Task: "a"}, {Doing: "a"}, {Next: "a"}, {DoneItems: []string{"a"}}, {Files: []string{"a"}}, {Note: "a"}, {Complete: true}} {
		if c.Empty() {
			t.Errorf("%+v is Empty; want not", c)
		}
	}
}
