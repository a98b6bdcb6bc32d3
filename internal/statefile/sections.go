package statefile

import (
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// Kind names a known section.
type Kind int

const (
	Other Kind = iota // a section baton does not know; kept as it is
	Now               // いまやってること: what is being done right now
	Done              // 完了した分: what is finished, oldest first
	Next              // 次の一手: the first thing to do on coming back
	Files             // 関連ファイル: the files the task is about
	Notes             // メモ: anything else
)

// kinds lists the known sections in the order a new file has them.
var kinds = [...]Kind{Now, Done, Next, Files, Notes}

// headings are the known sections' headings in each language.
var headings = map[Kind]i18n.Msg{
	Now:   {JA: "いまやってること", EN: "Now"},
	Done:  {JA: "完了した分", EN: "Done"},
	Next:  {JA: "次の一手", EN: "Next"},
	Files: {JA: "関連ファイル", EN: "Files"},
	Notes: {JA: "メモ", EN: "Notes"},
}

// Heading returns the heading of a known section in lang.
func Heading(k Kind, lang i18n.Lang) string { return headings[k].In(lang) }

// KindOf tells which known section a heading names, in either language. An
// "optional" mark after it, as in "メモ（任意）" or "Notes (optional)", is ignored,
// as are case and surrounding space.
func KindOf(heading string) Kind {
	k, _ := kindAndLang(heading)
	return k
}

func kindAndLang(heading string) (Kind, i18n.Lang) {
	h := strings.TrimSpace(heading)
	for _, mark := range []string{"（任意）", "(任意)", "(optional)"} {
		if len(h) >= len(mark) && strings.EqualFold(h[len(h)-len(mark):], mark) {
			h = strings.TrimSpace(h[:len(h)-len(mark)])
			break
		}
	}
	for _, k := range kinds {
		switch m := headings[k]; {
		case h == m.JA:
			return k, i18n.JA
		case strings.EqualFold(h, m.EN):
			return k, i18n.EN
		}
	}
	return Other, ""
}

// New returns an empty in-progress file with every known section, headed in
// lang.
func New(lang i18n.Lang) *File {
	f := &File{Status: InProgress}
	for _, k := range kinds {
		f.Sections = append(f.Sections, Section{Heading: Heading(k, lang), Body: "\n"})
	}
	return f
}

// HeadingLang is the language of the file's known headings, or fallback when
// it has none.
func (f *File) HeadingLang(fallback i18n.Lang) i18n.Lang {
	for _, s := range f.Sections {
		if _, l := kindAndLang(s.Heading); l != "" {
			return l
		}
	}
	return fallback
}

// Section returns the first section of kind k, or nil.
func (f *File) Section(k Kind) *Section {
	for i := range f.Sections {
		if f.Sections[i].Kind() == k {
			return &f.Sections[i]
		}
	}
	return nil
}

// Items returns the non-empty lines of section k with list and checkbox
// marks taken off; nil when there is no such section.
func (f *File) Items(k Kind) []string {
	s := f.Section(k)
	if s == nil {
		return nil
	}
	var items []string
	fence := ""
	for line := range strings.Lines(s.Body) {
		line = strings.TrimRight(line, "\n")
		was := fence
		if fence = nextFence(fence, line); was != "" || fence != "" {
			continue // code is not a list item
		}
		if t := itemText(line); t != "" {
			items = append(items, t)
		}
	}
	return items
}

// itemText strips a line's list mark, checkbox and surrounding space; an
// HTML comment line gives "".
func itemText(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "<!--") && strings.HasSuffix(t, "-->") {
		return ""
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(t, m); ok {
			t = strings.TrimSpace(rest)
			break
		}
	}
	if i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		t = strings.TrimSpace(t[i+2:])
	}
	for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
		if rest, ok := strings.CutPrefix(t, box); ok {
			t = strings.TrimSpace(rest)
			break
		}
	}
	if t == "-" || t == "*" || t == "+" {
		return ""
	}
	return t
}

// DigestWidth is the most characters a digest line keeps.
const DigestWidth = 120

// Digest returns up to n items of section k, each cut to DigestWidth
// characters.
func (f *File) Digest(k Kind, n int) []string {
	items := f.Items(k)
	if len(items) > n {
		items = items[:n]
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = textcut.Chars(it, DigestWidth)
	}
	return out
}

// ensure returns section k, adding it (headed in the file's language, else
// lang) after the known sections that come before it when it is missing.
func (f *File) ensure(k Kind, lang i18n.Lang) *Section {
	if s := f.Section(k); s != nil {
		return s
	}
	at := len(f.Sections)
	for i, s := range f.Sections {
		if sk := s.Kind(); sk != Other && sk > k {
			at = i
			break
		}
	}
	s := Section{Heading: Heading(k, f.HeadingLang(lang)), Body: "\n"}
	if at > 0 && !strings.HasSuffix(f.Sections[at-1].Body, "\n\n") {
		f.Sections[at-1].Body = strings.TrimRight(f.Sections[at-1].Body, "\n") + "\n\n"
	}
	if at == 0 && f.Preamble != "" && !strings.HasSuffix(f.Preamble, "\n\n") {
		f.Preamble = strings.TrimRight(f.Preamble, "\n") + "\n\n"
	}
	f.Sections = append(f.Sections[:at], append([]Section{s}, f.Sections[at:]...)...)
	return &f.Sections[at]
}

// bullets renders items as a list, one line each; a multi-line item becomes
// one bullet per non-empty line, and a line that already has a list mark
// keeps it.
func bullets(items []string) string {
	var b strings.Builder
	for _, it := range items {
		for line := range strings.Lines(it) {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if !hasListMark(line) {
				b.WriteString("- ")
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func hasListMark(line string) bool {
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(line, m) {
			return true
		}
	}
	return false
}

// setList replaces the body of section k with items.
func (f *File) setList(k Kind, items []string, lang i18n.Lang) {
	s := f.ensure(k, lang)
	s.Body = bullets(items) + "\n"
}

// addList appends items to the end of section k's text. With unique, an item
// the section already lists is not added again.
func (f *File) addList(k Kind, items []string, lang i18n.Lang, unique bool) {
	s := f.ensure(k, lang)
	if unique {
		have := map[string]bool{}
		for _, it := range f.Items(k) {
			have[plainPath(it)] = true
		}
		var fresh []string
		for _, it := range items {
			if p := plainPath(it); !have[p] {
				have[p] = true
				fresh = append(fresh, it)
			}
		}
		items = fresh
	}
	add := bullets(items)
	if add == "" {
		return
	}
	old := strings.TrimRight(s.Body, " \t\n")
	if old != "" {
		old += "\n"
	}
	s.Body = old + add + "\n"
}

// plainPath is a listed path without the backquotes people put around it.
func plainPath(item string) string {
	return strings.Trim(strings.TrimSpace(item), "`")
}
