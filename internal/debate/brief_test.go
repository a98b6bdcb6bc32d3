package debate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestParseMark(t *testing.T) {
	const id = "cc-debate-20260101-120000-ab12"
	tests := []struct {
		in     string
		wantID string
		want   Role
		ok     bool
	}{
		{Mark(id, Pro), id, Pro, true},
		{Mark(id, Con), id, Con, true},
		{Mark(id, Moderator), id, Moderator, true},
		{id + ":judge", "", "", false},
		{id, "", "", false},
		{"../x:pro", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		gotID, got, ok := ParseMark(tt.in)
		if gotID != tt.wantID || got != tt.want || ok != tt.ok {
			t.Errorf("ParseMark(%q) = %q, %q, %v; want %q, %q, %v", tt.in, gotID, got, ok, tt.wantID, tt.want, tt.ok)
		}
	}
}

// TestBrief: a debate agent's session-start briefing names its debate, side
// and round (or that it has written it, or that the debate ended).
func TestBrief(t *testing.T) {
	const id = "cc-debate-20260101-120000-ab12"
	tests := []struct {
		name     string
		role     Role
		status   Status
		current  int
		pro, con string // appended to the side files
		lang     i18n.Lang
		want     []string
	}{
		{"pro at round 1", Pro, Active, 0, "", "", i18n.EN, []string{"pro side of debate " + id, "Round 1 of 3 is yours", "-pro.md under", "tabs or spaces"}},
		{"con written ahead", Con, Active, 1, "\n## Round 1\na\n", "\n## Round 1\nb\n## Round 2\nc\n", i18n.EN, []string{"con side", "written round 2: wait"}},
		{"ended", Pro, Timeout, 3, "", "", i18n.EN, []string{"has ended (round limit reached)"}},
		{"moderator", Moderator, Active, 1, "", "", i18n.EN, []string{"moderates debate " + id, "round 1 of 3"}},
		{"in Japanese", Pro, Active, 2, "", "", i18n.JA, []string{"賛成派です", "Round 3（全 3 ラウンド）"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Dir{Root: t.TempDir(), Lang: i18n.EN}
			s := &Session{ID: id, Topic: "tabs or spaces", MaxRounds: 3, CurrentRound: tt.current, Status: tt.status, Transport: TransportTmux, Lang: tt.lang}
			if err := d.Create(s); err != nil {
				t.Fatal(err)
			}
			p, _ := d.Paths(id)
			for path, text := range map[string]string{p.Pro: tt.pro, p.Con: tt.con} {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(text)
				f.Close()
			}
			got := d.Brief(id, tt.role)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Brief = %q; want %q in it", got, w)
				}
			}
		})
	}
	d := Dir{Root: filepath.Join(t.TempDir(), "none"), Lang: i18n.EN}
	if got, want := d.Brief(id, Con), "con side of debate "+id+", not the worktree's work. The debate is starting"; !strings.Contains(got, want) {
		t.Errorf("Brief before the files exist = %q; want %q in it", got, want)
	}
}
