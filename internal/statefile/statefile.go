// Package statefile reads and edits current.md, the hand-kept state file in a
// repository's state folder: YAML frontmatter (updated, status, current_task)
// followed by markdown sections under "## " headings (いまやってること, 完了した分,
// 次の一手, 関連ファイル, メモ, or Now, Done, Next, Files, Notes).
//
// It parses strictly enough to tell a usable file from a broken one, and
// edits without losing what it does not understand: unknown frontmatter keys
// and their comments, text before the first section, unknown sections and the
// order of everything are kept. It does no I/O; `baton save` owns writing the
// file and the resume briefing owns reading it.
package statefile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Status is the state file's status.
type Status string

const (
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Frontmatter keys.
const (
	keyUpdated = "updated"
	keyStatus  = "status"
	keyTask    = "current_task"
)

// File is a parsed state file.
type File struct {
	// Updated is when the file was last saved; zero when it does not say.
	Updated time.Time
	Status  Status
	// Task is current_task, "" when absent.
	Task string
	// Preamble is the text between the frontmatter and the first section.
	Preamble string
	Sections []Section

	// front is the frontmatter mapping, kept whole so unknown keys and
	// comments survive an edit.
	front *yaml.Node
	// frontRaw is the frontmatter as it was read and frontEnc the encoding
	// of front at that time: while front encodes the same, the original
	// text is written back byte for byte.
	frontRaw, frontEnc string
}

// Section is one "## " section.
type Section struct {
	// Heading is the heading's text after "## ".
	Heading string
	// Body is the text up to the next heading, newlines included.
	Body string
}

// Kind returns which known section s is, or Other.
func (s Section) Kind() Kind { return KindOf(s.Heading) }

// Problem says what makes a state file unusable.
type Problem int

const (
	NoFrontmatter Problem = iota + 1 // the file does not start with a "---" line
	Unterminated                     // no closing "---" line
	BadYAML                          // the frontmatter is not YAML
	NotMapping                       // the frontmatter is not a set of keys
	NoStatus                         // status is missing
	BadStatus                        // status is neither in_progress nor completed
	BadUpdated                       // updated is not a time
	BadTask                          // current_task is not text
	DuplicateKey                     // a known key is given twice
	Unreadable                       // the file cannot be read (a folder, no permission)
)

// FormatError reports a state file that cannot be used. Its Error is English;
// callers showing it to a person use Message.
type FormatError struct {
	Problem Problem
	// Line is the 1-based line of the problem in the file, 0 when unknown.
	Line int
	// Detail is the offending value or the YAML parser's message.
	Detail string
}

func (e *FormatError) Error() string {
	msg := problemText[e.Problem].EN
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Line > 0 {
		return fmt.Sprintf("state file line %d: %s", e.Line, msg)
	}
	return "state file: " + msg
}

// Parse reads a state file. A UTF-8 byte order mark and CRLF line ends are
// accepted; the result is written back with LF.
func Parse(b []byte) (*File, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return nil, &FormatError{Problem: NoFrontmatter, Line: 1}
	}
	yamlText, body, ok := cutFrontmatter(rest)
	if !ok {
		return nil, &FormatError{Problem: Unterminated, Line: 1}
	}
	f := &File{}
	if err := f.parseFront(yamlText); err != nil {
		return nil, err
	}
	f.frontRaw, f.frontEnc = yamlText, string(f.frontText())
	f.Preamble, f.Sections = splitSections(body)
	return f, nil
}

// cutFrontmatter splits text after the opening "---" line at the closing
// "---" (or "...") line.
func cutFrontmatter(text string) (front, body string, ok bool) {
	pos := 0
	for pos < len(text) {
		line, _, _ := strings.Cut(text[pos:], "\n")
		next := pos + len(line) + 1
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			return text[:pos], text[min(next, len(text)):], true
		}
		pos = next
	}
	return "", "", false
}

func (f *File) parseFront(text string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return yamlError(err)
	}
	if len(doc.Content) == 0 {
		// An empty frontmatter: a mapping with nothing in it.
		f.front = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		return &FormatError{Problem: NoStatus, Line: 2}
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return &FormatError{Problem: NotMapping, Line: m.Line + 1}
	}
	f.front = m
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case keyUpdated, keyStatus, keyTask:
		default:
			continue
		}
		if seen[k.Value] {
			return &FormatError{Problem: DuplicateKey, Line: k.Line + 1, Detail: k.Value}
		}
		seen[k.Value] = true
		if err := f.parseKey(k.Value, v); err != nil {
			return err
		}
	}
	if f.Status == "" {
		return &FormatError{Problem: NoStatus}
	}
	return nil
}

// yamlError turns the YAML parser's "yaml: line N: message" into a
// FormatError on the file's line.
func yamlError(err error) *FormatError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	fe := &FormatError{Problem: BadYAML, Detail: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		num, text, found := strings.Cut(rest, ": ")
		if n, err := strconv.Atoi(num); found && err == nil {
			fe.Line, fe.Detail = n+1, text
		}
	}
	return fe
}

func (f *File) parseKey(key string, v *yaml.Node) error {
	line := v.Line + 1 // the frontmatter starts on the file's second line
	null := v.Kind == yaml.ScalarNode && v.Tag == "!!null"
	switch key {
	case keyStatus:
		if v.Kind != yaml.ScalarNode || null {
			return &FormatError{Problem: NoStatus, Line: line}
		}
		switch s := Status(v.Value); s {
		case InProgress, Completed:
			f.Status = s
		default:
			return &FormatError{Problem: BadStatus, Line: line, Detail: v.Value}
		}
	case keyUpdated:
		if null {
			return nil
		}
		t, err := parseTime(v)
		if err != nil {
			return &FormatError{Problem: BadUpdated, Line: line, Detail: v.Value}
		}
		f.Updated = t
	case keyTask:
		if null {
			return nil
		}
		if v.Kind != yaml.ScalarNode {
			return &FormatError{Problem: BadTask, Line: line}
		}
		f.Task = strings.TrimSpace(v.Value)
	}
	return nil
}

// timeLayouts are the forms of updated that are accepted: RFC 3339 as baton
// writes it, and the looser forms YAML and people use. A time without an
// offset is local time.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

func parseTime(v *yaml.Node) (time.Time, error) {
	if v.Kind != yaml.ScalarNode {
		return time.Time{}, errors.New("not a time")
	}
	s := strings.TrimSpace(v.Value)
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a time")
}

// splitSections cuts body at every line starting with "## " outside fenced
// code blocks.
func splitSections(body string) (preamble string, sections []Section) {
	var cur *Section
	var buf strings.Builder
	flush := func() {
		if cur == nil {
			preamble = buf.String()
		} else {
			cur.Body = buf.String()
			sections = append(sections, *cur)
		}
		buf.Reset()
	}
	fence := ""
	for line := range strings.Lines(body) {
		trimmed := strings.TrimRight(line, "\n")
		if fence == "" {
			if h, ok := strings.CutPrefix(trimmed, "## "); ok {
				flush()
				cur = &Section{Heading: strings.TrimSpace(h)}
				continue
			}
			if trimmed == "##" {
				flush()
				cur = &Section{}
				continue
			}
		}
		fence = nextFence(fence, trimmed)
		buf.WriteString(line)
	}
	flush()
	return preamble, sections
}

// nextFence tracks fenced code blocks: it returns the fence that is open
// after line, given the one open before it.
func nextFence(open, line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return open // indented code, not a fence
	}
	for _, c := range []string{"```", "~~~"} {
		if !strings.HasPrefix(t, c) {
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, c[:1]))
		switch {
		case open == "":
			return strings.Repeat(c[:1], n)
		case open[0] == c[0] && n >= len(open) && strings.TrimSpace(t[n:]) == "":
			return ""
		}
	}
	return open
}

// Bytes renders the file. A parsed file that was not edited renders to the
// same text, except that the frontmatter is re-encoded and line ends are LF.
func (f *File) Bytes() []byte {
	f.syncFront()
	return f.render()
}

// render writes the file as it is, frontmatter node included.
func (f *File) render() []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	if front := f.frontText(); string(front) == f.frontEnc && f.frontRaw != "" {
		b.WriteString(f.frontRaw)
	} else {
		b.Write(front)
	}
	b.WriteString("---\n")
	b.WriteString(f.Preamble)
	for _, s := range f.Sections {
		b.WriteString("## ")
		b.WriteString(s.Heading)
		b.WriteByte('\n')
		b.WriteString(s.Body)
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	return append(out, '\n')
}

func (f *File) frontText() []byte {
	if f.front == nil || len(f.front.Content) == 0 {
		return nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	// Encoding a mapping node built by Parse or syncFront cannot fail.
	_ = enc.Encode(f.front)
	_ = enc.Close()
	return b.Bytes()
}

// syncFront writes Updated, Status and Task into the frontmatter node,
// keeping each key where it is and adding missing ones in the usual order.
func (f *File) syncFront() {
	if f.front == nil {
		f.front = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	// A value that still says the same is left as written.
	if old := f.value(keyUpdated); !f.Updated.IsZero() && !(old != nil && sameTime(old, f.Updated)) {
		f.setKey(keyUpdated, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: f.Updated.Format(time.RFC3339)})
	}
	if f.Status != "" {
		f.setKey(keyStatus, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(f.Status)})
	}
	if old := f.value(keyTask); (f.Task != "" || old != nil) && !(old != nil && strings.TrimSpace(old.Value) == f.Task) {
		f.setKey(keyTask, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Task})
	}
}

func sameTime(v *yaml.Node, t time.Time) bool {
	old, err := parseTime(v)
	return err == nil && old.Equal(t)
}

// value returns the value node of key, or nil.
func (f *File) value(key string) *yaml.Node {
	m := f.front
	for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setKey replaces the value of key, keeping its comments, or appends the key.
func (f *File) setKey(key string, v *yaml.Node) {
	if old := f.value(key); old != nil {
		if old.Kind == v.Kind && old.Value == v.Value {
			return // keep the old node's style
		}
		v.LineComment, v.HeadComment, v.FootComment = old.LineComment, old.HeadComment, old.FootComment
		*old = *v
		return
	}
	f.front.Content = append(f.front.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}
