package statefile

import (
	"errors"
	"slices"
	"testing"
)

func TestMerge(t *testing.T) {
	const base = `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
`
	tests := []struct {
		name         string
		mine, theirs string
		want         string
		conflicts    []string
	}{
		{
			name: "different sections",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now, edited

## 次の一手
- next

## 関連ファイル
- a.go
`,
			theirs: `---
updated: 2026-05-07T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next, saved meanwhile

## 関連ファイル
- a.go
- b.go
`,
			want: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now, edited

## 次の一手
- next, saved meanwhile

## 関連ファイル
- a.go
- b.go
`,
		},
		{
			name: "frontmatter on one side, a new section on the other",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A, renamed
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
`,
			theirs: `---
updated: 2026-05-06T12:00:00+09:00
status: completed
current_task: A
owner: you
extra: 1
---
## いまやってること
- now

## 次の一手
- next

## Risks
- none

## 関連ファイル
- a.go
`,
			want: `---
updated: 2026-05-06T12:00:00+09:00
status: completed
current_task: A, renamed
owner: you
extra: 1
---
## いまやってること
- now

## 次の一手
- next

## Risks
- none

## 関連ファイル
- a.go
`,
		},
		{
			name: "a section removed on my side only",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next
`,
			theirs: base,
			want: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next
`,
		},
		{
			name: "the same change on both sides",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: completed
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
`,
			theirs: `---
updated: 2026-05-08T12:00:00+09:00
status: completed
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
`,
			want: `---
updated: 2026-05-06T12:00:00+09:00
status: completed
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
`,
		},
		{
			name: "both change the task and the same section",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: B
owner: me
---
## いまやってること
- mine

## 次の一手
- next

## 関連ファイル
- a.go
`,
			theirs: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: C
owner: me
---
## いまやってること
- theirs

## 次の一手
- next

## 関連ファイル
- a.go
`,
			conflicts: []string{"current_task", "## いまやってること"},
		},
		{
			name: "removed on my side, changed on theirs",
			mine: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next
`,
			theirs: `---
updated: 2026-05-06T12:00:00+09:00
status: in_progress
current_task: A
owner: me
---
## いまやってること
- now

## 次の一手
- next

## 関連ファイル
- a.go
- c.go
`,
			conflicts: []string{"## 関連ファイル"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, m, th := mustParse(t, base), mustParse(t, tt.mine), mustParse(t, tt.theirs)
			got, err := Merge(b, m, th)
			if tt.conflicts != nil {
				var ce *ConflictError
				if !errors.As(err, &ce) {
					t.Fatalf("Merge error = %v; want a ConflictError", err)
				}
				if !slices.Equal(ce.Parts, tt.conflicts) {
					t.Errorf("conflicting parts = %q; want %q", ce.Parts, tt.conflicts)
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if s := string(got.Bytes()); s != tt.want {
				t.Errorf("Merge =\n%s\nwant\n%s", s, tt.want)
			}
		})
	}
}

func mustParse(t *testing.T, s string) *File {
	t.Helper()
	f, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
