package debate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestNewIDValid(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	seen := map[string]bool{}
	for range 50 {
		id := NewID(now)
		if err := ValidID(id); err != nil {
			t.Fatalf("ValidID(NewID()) = %v", err)
		}
		if !strings.HasPrefix(id, "cc-debate-20260304-050607-") {
			t.Fatalf("NewID = %q; want the time in it", id)
		}
		seen[id] = true
	}
	if len(seen) < 45 {
		t.Errorf("50 ids at the same second gave %d distinct; want them random", len(seen))
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		ok   bool
	}{
		{"good", "cc-debate-20260101-120000-ab12", true},
		{"parent folder", "../x", false},
		{"traversal with a valid tail", "../cc-debate-20260101-120000-ab12", false},
		{"slash inside", "cc-debate-20260101-120000-ab/2", false},
		{"absolute", "/etc/passwd", false},
		{"empty", "", false},
		{"upper case", "cc-debate-20260101-120000-AB12", false},
		{"short suffix", "cc-debate-20260101-120000-ab1", false},
		{"trailing newline", "cc-debate-20260101-120000-ab12\n", false},
		{"tmux target characters", "cc-debate-20260101-120000-a:.1", false},
		{"file name", "cc-debate-20260101-120000-ab12.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidID(tt.id)
			if (err == nil) != tt.ok {
				t.Errorf("ValidID(%q) = %v; want ok=%v", tt.id, err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "invalid debate id") {
				t.Errorf("error %q does not say the id is invalid", err)
			}
		})
	}
}

const refMain = `---
id: cc-debate-20260101-120000-ab12
topic: AI はコードレビューを置き換えるか
pane_moderator: %1
pane_pro: '%2'
pane_con: "%3"
max_rounds: 3
current_round: 1   # both wrote round 1
status: active
owner: someone
---

# Body kept as it is
`

func TestParseReferenceFile(t *testing.T) {
	s, err := Parse("cc-debate-20260101-120000-ab12", []byte(refMain))
	if err != nil {
		t.Fatal(err)
	}
	want := Session{
		ID: "cc-debate-20260101-120000-ab12", Topic: "AI はコードレビューを置き換えるか",
		PaneModerator: "%1", PanePro: "%2", PaneCon: "%3",
		MaxRounds: 3, CurrentRound: 1, Status: Active, Transport: TransportTmux,
	}
	if s.ID != want.ID || s.Topic != want.Topic || s.PaneModerator != want.PaneModerator || s.PanePro != want.PanePro ||
		s.PaneCon != want.PaneCon || s.MaxRounds != want.MaxRounds || s.CurrentRound != want.CurrentRound ||
		s.Status != want.Status || s.Transport != want.Transport || s.Lang != "" {
		t.Errorf("Parse = %+v; want %+v", *s, want)
	}
	out := string(s.Marshal())
	for _, w := range []string{"\nowner: someone\n", "\n# Body kept as it is\n", "\ncurrent_round: 1\n", "\nstatus: active\n", `pane_pro: "%2"`} {
		if !strings.Contains(out, w) {
			t.Errorf("Marshal output lacks %q:\n%s", w, out)
		}
	}
	again, err := Parse(s.ID, []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Marshal()) != out {
		t.Errorf("Marshal(Parse(Marshal)) differs:\n%s\nvs\n%s", again.Marshal(), out)
	}
}

func TestParseMalformed(t *testing.T) {
	const id = "cc-debate-20260101-120000-ab12"
	good := "---\nid: " + id + "\nmax_rounds: 3\ncurrent_round: 0\nstatus: active\n---\n"
	tests := []struct {
		name, data, want string
	}{
		{"no frontmatter", "# just text\n", `does not start with a "---"`},
		{"unclosed", "---\nid: " + id + "\n", `no closing "---"`},
		{"no colon", strings.Replace(good, "status: active", "status active", 1), "want key: value"},
		{"missing status", strings.Replace(good, "status: active\n", "", 1), "status is missing"},
		{"bad status", strings.Replace(good, "active", "paused", 1), `status "paused"`},
		{"bad round", strings.Replace(good, "current_round: 0", "current_round: one", 1), `current_round "one"`},
		{"negative round", strings.Replace(good, "current_round: 0", "current_round: -1", 1), "current_round"},
		{"zero max", strings.Replace(good, "max_rounds: 3", "max_rounds: 0", 1), "max_rounds"},
		{"duplicate key", strings.Replace(good, "status: active\n", "status: active\nstatus: timeout\n", 1), "given twice"},
		{"other id", strings.Replace(good, id, "cc-debate-20260101-120000-zz99", 1), "does not match"},
		{"bad quote", strings.Replace(good, "status: active\n", "status: active\ntopic: \"open\n", 1), "unterminated"},
		{"bad transport", strings.Replace(good, "status: active\n", "status: active\ntransport: ssh\n", 1), `transport "ssh"`},
		{"not UTF-8", good + "\xff", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(id, []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, v := range []string{"", "plain", "%12", "it's \"x\"", "a: b # c", "line\nbreak\ttab", "true", "-x", "日本語", "\x01\u2028", "  spaced  ", "\\"} {
		s := &Session{ID: "cc-debate-20260101-120000-ab12", Topic: v, PanePro: v, MaxRounds: 1, Status: Active, Transport: TransportTmux}
		got, err := Parse(s.ID, s.Marshal())
		if err != nil {
			t.Fatalf("Parse(Marshal(topic %q)): %v\n%s", v, err, s.Marshal())
		}
		if got.Topic != v || got.PanePro != v {
			t.Errorf("topic %q read back as %q, pane as %q", v, got.Topic, got.PanePro)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(refMain))
	f.Add([]byte("---\nid: cc-debate-20260101-120000-ab12\nmax_rounds: 1\ncurrent_round: 0\nstatus: active\ntopic: \"a\\u0001\"\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse(data)
		if err != nil {
			return
		}
		out := s.Marshal()
		again, err := parse(out)
		if err != nil {
			t.Fatalf("parse(Marshal()) = %v\n%s", err, out)
		}
		if string(again.Marshal()) != string(out) {
			t.Fatalf("not stable:\n%s\nvs\n%s", out, again.Marshal())
		}
	})
}

func TestCreateLoadList(t *testing.T) {
	d := Dir{Root: filepath.Join(t.TempDir(), "dialogues")}
	older := &Session{ID: "cc-debate-20260101-120000-aaaa", Topic: "old", MaxRounds: 2, Status: Active, Transport: TransportTmux, Lang: i18n.EN}
	newer := &Session{ID: "cc-debate-20260102-120000-bbbb", Topic: "new\nline", MaxRounds: 3, Status: Timeout, Transport: TransportHeadless, Lang: i18n.JA}
	for _, s := range []*Session{older, newer} {
		if err := d.Create(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Create(older); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Create twice: err = %v; want already exists", err)
	}
	p, _ := d.Paths(newer.ID)
	for _, f := range []string{p.Main, p.Pro, p.Con} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("Create did not write %s: %v", f, err)
		}
	}
	main, _ := os.ReadFile(p.Main)
	if !strings.Contains(string(main), "\n# new line\n") || !strings.Contains(string(main), p.Pro) {
		t.Errorf("main file body lacks the topic heading or side path:\n%s", main)
	}
	// Junk in the folder is skipped; a broken main file is listed with its error.
	os.WriteFile(filepath.Join(d.Root, "notes.md"), []byte("x"), 0o600)
	broken := filepath.Join(d.Root, "cc-debate-20260103-120000-cccc.md")
	os.WriteFile(broken, []byte("garbage"), 0o600)

	list, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, " "); got != "cc-debate-20260103-120000-cccc cc-debate-20260102-120000-bbbb cc-debate-20260101-120000-aaaa" {
		t.Errorf("List ids = %s; want newest first, junk skipped", got)
	}
	if list[0].Err == nil || !strings.Contains(list[0].Err.Error(), "malformed frontmatter") {
		t.Errorf("broken entry error = %v; want malformed frontmatter", list[0].Err)
	}
	if list[1].Session.Transport != TransportHeadless || list[1].Session.Lang != i18n.JA {
		t.Errorf("newer = %+v; want headless, ja", list[1].Session)
	}
	id, err := d.Current()
	if err != nil || id != older.ID {
		t.Errorf("Current = %q, %v; want %s (the only active one)", id, err, older.ID)
	}
	if _, err := (Dir{Root: t.TempDir()}).Current(); err == nil || !strings.Contains(err.Error(), "no active debate") {
		t.Errorf("Current in an empty folder: err = %v", err)
	}
	if _, err := d.Load("cc-debate-20260109-120000-zzzz"); err == nil || !strings.Contains(err.Error(), "no debate session") {
		t.Errorf("Load of a missing id: err = %v", err)
	}
	var de *Error
	if _, err := d.Load("../x"); !errors.As(err, &de) || !strings.Contains(de.In(i18n.JA), "不正なディベート ID") {
		t.Errorf("Load(../x): err = %v; want an *Error in Japanese too", err)
	}
}

// TestMessagesComplete formats every instruction in both languages and
// transports: no fmt error marks, the files named, no topic.
func TestMessagesComplete(t *testing.T) {
	p := Paths{Main: "/d/m.md", Pro: "/d/m-pro.md", Con: "/d/m-con.md", Summary: "/d/m-summary.md"}
	for _, lang := range []i18n.Lang{i18n.JA, i18n.EN} {
		for _, transport := range []string{TransportTmux, TransportHeadless} {
			s := &Session{ID: "cc-debate-20260101-120000-ab12", Topic: "TOPIC", Lang: lang, Transport: transport, Status: Timeout}
			texts := map[string]string{"summary": summaryRequest(s, p, lang), "stop": stopNotice(s, p, lang)}
			// A moderator in a pane is told where to write the summary; a
			// headless one's answer is saved by baton.
			if got := strings.Contains(texts["summary"], p.Summary); got != (transport == TransportTmux) {
				t.Errorf("%s %s summary request %q names the summary file: %v; want %v", lang, transport, texts["summary"], got, !got)
			}
			for _, role := range []Role{Pro, Con} {
				for _, round := range []int{1, 2} {
					txt := instruction(s, p, role, round, lang)
					texts[fmt.Sprintf("%s round %d", role, round)] = txt
					for _, want := range []string{p.Main, p.Side(role), p.Side(role.other()), fmt.Sprintf("## Round %d", round)} {
						if !strings.Contains(txt, want) {
							t.Errorf("%s %s %s round %d: %q lacks %q", lang, transport, role, round, txt, want)
						}
					}
				}
			}
			for name, txt := range texts {
				if strings.Contains(txt, "%!") || strings.Contains(txt, "TOPIC") || strings.Contains(txt, "\n") {
					t.Errorf("%s %s %s: %q has a format error, the topic or a line break", lang, transport, name, txt)
				}
			}
		}
	}
}

// TestCurrentRefusesToGuess: with two debates active, Current names both
// and picks neither.
func TestCurrentRefusesToGuess(t *testing.T) {
	d := Dir{Root: t.TempDir()}
	for _, s := range []*Session{
		{ID: "cc-debate-20260101-120000-aaaa", Topic: "tabs", MaxRounds: 2, Status: Active, Transport: TransportTmux, Lang: i18n.EN},
		{ID: "cc-debate-20260102-120000-bbbb", Topic: "spaces", MaxRounds: 2, Status: Active, Transport: TransportTmux, Lang: i18n.EN},
		{ID: "cc-debate-20260103-120000-cccc", Topic: "done", MaxRounds: 2, Status: Concluded, Transport: TransportTmux, Lang: i18n.EN},
	} {
		if err := d.Create(s); err != nil {
			t.Fatal(err)
		}
	}
	id, err := d.Current()
	if err == nil {
		t.Fatalf("Current = %q; want an error naming both active debates", id)
	}
	want := "2 debates are active; name one by its id:\n  cc-debate-20260102-120000-bbbb  spaces\n  cc-debate-20260101-120000-aaaa  tabs"
	if got := err.Error(); got != want {
		t.Errorf("err = %q; want %q", got, want)
	}
}

// TestOldFolderStillFound: debates in the old folder are listed, loaded and
// handed off where they are; new ones go to the new folder.
func TestOldFolderStillFound(t *testing.T) {
	root, old := filepath.Join(t.TempDir(), "new"), t.TempDir()
	before := Dir{Root: old}
	s := &Session{ID: "cc-debate-20250101-120000-ab12", Topic: "old", MaxRounds: 2, Status: Active, Transport: TransportTmux}
	if err := before.Create(s); err != nil {
		t.Fatal(err)
	}
	d := Dir{Root: root, Old: old}
	n := &Session{ID: "cc-debate-20260101-120000-cd34", Topic: "new", MaxRounds: 2, Status: Active, Transport: TransportTmux}
	if err := d.Create(n); err != nil {
		t.Fatal(err)
	}
	list, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		if e.Err != nil {
			t.Errorf("%s: %v", e.ID, e.Err)
		}
		ids = append(ids, e.ID)
	}
	if got, want := strings.Join(ids, " "), n.ID+" "+s.ID; got != want {
		t.Errorf("listed %q; want %q", got, want)
	}
	for id, want := range map[string]string{s.ID: old, n.ID: root} {
		p, err := d.Paths(id)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(p.Main) != want || filepath.Dir(p.Pro) != want {
			t.Errorf("%s: files in %s; want %s", id, filepath.Dir(p.Main), want)
		}
		if got, err := d.Load(id); err != nil || got.ID != id {
			t.Errorf("Load(%s) = %v, %v", id, got, err)
		}
	}
}
