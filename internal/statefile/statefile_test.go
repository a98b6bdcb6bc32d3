package statefile

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func readFixture(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	jst := time.FixedZone("", 9*3600)
	tests := []struct {
		name     string
		file     string
		task     string
		status   Status
		updated  time.Time
		headings []string
		kinds    []Kind
		problem  Problem
		line     int
	}{
		{
			name: "reference format", file: "reference.md",
			task: "エクスポート機能のリファクタ R3", status: InProgress,
			updated:  time.Date(2026, 5, 6, 12, 0, 0, 0, jst),
			headings: []string{"いまやってること", "完了した分", "次の一手", "関連ファイル", "メモ（任意）"},
			kinds:    []Kind{Now, Done, Next, Files, Notes},
		},
		{
			name: "english headings, unknown section, fenced heading", file: "english.md",
			task: "Refactor: export R3", status: Completed,
			updated:  time.Date(2026, 5, 6, 3, 0, 0, 0, time.UTC),
			headings: []string{"Now", "Plan", "Next", "Notes (optional)"},
			kinds:    []Kind{Now, Other, Next, Notes},
		},
		{
			name: "CRLF and a time without seconds or offset", file: "crlf.md",
			task: "crlf", status: InProgress,
			updated:  time.Date(2026, 5, 6, 12, 0, 0, 0, time.Local),
			headings: []string{"Now"}, kinds: []Kind{Now},
		},
		{name: "byte order mark", file: "bom.md", task: "bom", status: InProgress, headings: []string{"Next"}, kinds: []Kind{Next}},
		{name: "no task is allowed", file: "no-task.md", status: InProgress},
		{name: "no frontmatter", file: "no-frontmatter.md", problem: NoFrontmatter, line: 1},
		{name: "empty file", file: "empty.md", problem: NoFrontmatter, line: 1},
		{name: "unterminated frontmatter", file: "unterminated.md", problem: Unterminated, line: 1},
		{name: "invalid YAML", file: "bad-yaml.md", problem: BadYAML, line: 4},
		{name: "frontmatter is a list", file: "not-mapping.md", problem: NotMapping, line: 2},
		{name: "no status", file: "no-status.md", problem: NoStatus},
		{name: "empty frontmatter", file: "empty-front.md", problem: NoStatus, line: 2},
		{name: "unknown status", file: "bad-status.md", problem: BadStatus, line: 2},
		{name: "updated is not a time", file: "bad-updated.md", problem: BadUpdated, line: 3},
		{name: "task is a mapping", file: "bad-task.md", problem: BadTask, line: 4},
		{name: "status twice", file: "duplicate.md", problem: DuplicateKey, line: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(readFixture(t, filepath.Join("testdata", "parse", tt.file)))
			if tt.problem != 0 {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("Parse error = %v; want a FormatError", err)
				}
				if fe.Problem != tt.problem || fe.Line != tt.line {
					t.Errorf("problem = %d at line %d; want %d at line %d (%v)", fe.Problem, fe.Line, tt.problem, tt.line, fe)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if f.Task != tt.task || f.Status != tt.status {
				t.Errorf("task, status = %q, %q; want %q, %q", f.Task, f.Status, tt.task, tt.status)
			}
			if !f.Updated.Equal(tt.updated) {
				t.Errorf("updated = %v; want %v", f.Updated, tt.updated)
			}
			var headings []string
			var kinds []Kind
			for _, s := range f.Sections {
				headings = append(headings, s.Heading)
				kinds = append(kinds, s.Kind())
			}
			if !slices.Equal(headings, tt.headings) || !slices.Equal(kinds, tt.kinds) {
				t.Errorf("sections = %q %v; want %q %v", headings, kinds, tt.headings, tt.kinds)
			}
		})
	}
}

func TestFormatErrorMessages(t *testing.T) {
	for p := range problemText {
		e := &FormatError{Problem: p, Line: 3, Detail: "x"}
		for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
			msg := e.Message(lang)
			if !strings.Contains(msg, "3") || !strings.HasSuffix(msg, ": x") {
				t.Errorf("Message(%s) of problem %d = %q; want the line and the detail", lang, p, msg)
			}
		}
		if e.Message(i18n.JA) == e.Message(i18n.EN) {
			t.Errorf("problem %d has the same text in both languages", p)
		}
	}
}

// TestRoundTrip: a file baton did not change renders as it was, bar the
// frontmatter's formatting and line ends.
func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"reference.md", "english.md", "crlf.md", "bom.md"} {
		t.Run(name, func(t *testing.T) {
			in := readFixture(t, filepath.Join("testdata", "parse", name))
			f, err := Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimPrefix(strings.ReplaceAll(string(in), "\r\n", "\n"), "\xef\xbb\xbf")
			if got := string(f.Bytes()); got != want {
				t.Errorf("Bytes =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	f, err := Parse(readFixture(t, filepath.Join("testdata", "parse", "english.md")))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		kind Kind
		want []string
	}{
		{"numbered list and checkbox", Now, []string{"Streaming CSV", "Measure memory"}},
		{"star list with open box", Next, []string{"Write tests"}},
		{"empty section", Notes, nil},
		{"missing section", Files, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.Digest(tt.kind, 2); !slices.Equal(got, tt.want) {
				t.Errorf("Digest = %q; want %q", got, tt.want)
			}
		})
	}
	long := "---\nstatus: in_progress\n---\n## Now\n- " + strings.Repeat("長", 200) + "\n- b\n- c\n"
	g, err := Parse([]byte(long))
	if err != nil {
		t.Fatal(err)
	}
	d := g.Digest(Now, 2)
	if len(d) != 2 || len([]rune(d[0])) != DigestWidth || !strings.HasSuffix(d[0], "…") || d[1] != "b" {
		t.Errorf("Digest of a long list = %q; want two lines, the first cut to %d characters", d, DigestWidth)
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		heading string
		want    Kind
	}{
		{"いまやってること", Now},
		{"完了した分", Done},
		{"次の一手", Next},
		{"関連ファイル", Files},
		{"メモ", Notes},
		{"メモ（任意）", Notes},
		{"メモ (任意)", Notes},
		{"now", Now},
		{" NEXT ", Next},
		{"Notes (Optional)", Notes},
		{"Nowhere", Other},
		{"次の一手たち", Other},
		{"", Other},
	}
	for _, tt := range tests {
		t.Run(tt.heading, func(t *testing.T) {
			if got := KindOf(tt.heading); got != tt.want {
				t.Errorf("KindOf(%q) = %d; want %d", tt.heading, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"reference.md", "english.md", "crlf.md", "bad-yaml.md", "unterminated.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", "parse", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		out := p.Bytes()
		q, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Bytes()) failed: %v\n%q", err, out)
		}
		if q.Task != p.Task || q.Status != p.Status || !q.Updated.Equal(p.Updated) || len(q.Sections) != len(p.Sections) {
			t.Fatalf("round trip changed the file:\n%q\n%q", b, out)
		}
		for i := range p.Sections {
			if q.Sections[i].Heading != p.Sections[i].Heading {
				t.Fatalf("round trip changed heading %d from %q to %q", i, p.Sections[i].Heading, q.Sections[i].Heading)
			}
		}
		if _, err := Merge(p, p, q); err != nil {
			t.Fatalf("Merge of a file with itself: %v\n%q", err, b)
		}
	})
}
