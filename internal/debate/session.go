// Package debate runs debates between two agents, a pro side and a con
// side, with a third agent as moderator. The debate lives in three files in
// one folder (by default ~/.claude/dialogues): the main file <id>.md, whose
// YAML frontmatter holds the session's state, and one file per side,
// <id>-pro.md and <id>-con.md, where each side appends its rounds under
// "## Round N" headings. When both sides have written a round, the round is
// handed off: the next round's instruction goes to both sides, or, after the
// last round or when a side wrote [CONCLUDED], the moderator is asked for a
// summary.
//
// The hand-off is a compare-and-set on the main file under its lock: of any
// number of simultaneous callers exactly one moves current_round from N to
// N+1 and sends; the others see that the round was already handed off.
// Instructions travel through a Transport: tmux panes, or headless agent
// runs.
//
// This package owns the session files and the messages; the pane registry
// belongs to package panes and the tmux client to package tmux.
package debate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// Status is the state of a debate.
type Status string

// Statuses. Only an active debate hands rounds off.
const (
	Active    Status = "active"
	Concluded Status = "concluded"
	Timeout   Status = "timeout"
	Aborted   Status = "aborted"
)

// Transport names, as stored in the main file.
const (
	TransportTmux     = "tmux"
	TransportHeadless = "headless"
)

// Session is the frontmatter of a debate's main file.
type Session struct {
	ID            string
	Topic         string
	PaneModerator string
	PanePro       string
	PaneCon       string
	// MaxRounds is how many rounds each side writes.
	MaxRounds int
	// CurrentRound is how many rounds both sides have completed.
	CurrentRound int
	Status       Status
	// Transport is TransportTmux (also when the file does not say) or
	// TransportHeadless.
	Transport string
	// Lang is the language of the instructions; empty: the caller's.
	Lang i18n.Lang
	// Agent is the agent command the debate was started with.
	Agent string
	// PendingPro and PendingCon say what still needs the person for the
	// last message to that side ("not_submitted 2", "awaiting_approval 2":
	// the problem and the round asked for); empty when it was delivered.
	PendingPro, PendingCon string

	// extra keeps keys baton does not know, in order, so a rewrite never
	// drops them.
	extra []field
	// body is everything after the frontmatter, kept byte for byte.
	body []byte
}

// Pane returns the pane of role.
func (s *Session) Pane(role Role) string {
	switch role {
	case Pro:
		return s.PanePro
	case Con:
		return s.PaneCon
	}
	return s.PaneModerator
}

type field struct{ key, value string }

// isKnownKey reports the frontmatter keys Session has a field for.
func isKnownKey(k string) bool {
	switch k {
	case "id", "topic", "pane_moderator", "pane_pro", "pane_con", "max_rounds", "current_round", "status", "transport", "lang", "agent", "pending_pro", "pending_con":
		return true
	}
	return false
}

// Parse reads a main file. The frontmatter is a flat list of "key: value"
// lines between "---" lines; values may be plain, 'single' or "double"
// quoted. A file whose id does not match id is refused.
func Parse(id string, data []byte) (*Session, error) {
	s, err := parse(data)
	if err != nil {
		return nil, err
	}
	if s.ID != id {
		return nil, fmt.Errorf("id %q does not match the file name", s.ID)
	}
	return s, nil
}

func parse(data []byte) (*Session, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not UTF-8 text")
	}
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, errors.New(`the file does not start with a "---" line`)
	}
	s := &Session{}
	seen := map[string]bool{}
	vals := map[string]string{}
	for n := 2; ; n++ {
		if len(rest) == 0 {
			return nil, errors.New(`no closing "---" line`)
		}
		line, next, _ := bytes.Cut(rest, []byte("\n"))
		rest = next
		text := strings.TrimSuffix(string(line), "\r")
		if text == "---" {
			break
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, raw, found := strings.Cut(text, ":")
		if !found || key == "" || strings.TrimSpace(key) != key || !isKey(key) {
			return nil, fmt.Errorf("line %d: want key: value, got %q", n, text)
		}
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s given twice", n, key)
		}
		seen[key] = true
		v, err := unquote(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
		if isKnownKey(key) {
			vals[key] = v
		} else {
			s.extra = append(s.extra, field{key, v})
		}
	}
	s.body = rest
	for _, k := range []string{"id", "max_rounds", "current_round", "status"} {
		if !seen[k] {
			return nil, fmt.Errorf("%s is missing", k)
		}
	}
	s.ID, s.Topic = vals["id"], vals["topic"]
	s.PaneModerator, s.PanePro, s.PaneCon = vals["pane_moderator"], vals["pane_pro"], vals["pane_con"]
	s.Agent = vals["agent"]
	s.PendingPro, s.PendingCon = vals["pending_pro"], vals["pending_con"]
	var err error
	if s.MaxRounds, err = strconv.Atoi(vals["max_rounds"]); err != nil || s.MaxRounds < 1 {
		return nil, fmt.Errorf("max_rounds %q is not a positive number", vals["max_rounds"])
	}
	if s.CurrentRound, err = strconv.Atoi(vals["current_round"]); err != nil || s.CurrentRound < 0 {
		return nil, fmt.Errorf("current_round %q is not a number of rounds", vals["current_round"])
	}
	switch st := Status(vals["status"]); st {
	case Active, Concluded, Timeout, Aborted:
		s.Status = st
	default:
		return nil, fmt.Errorf("status %q is not active, concluded, timeout or aborted", st)
	}
	switch t := vals["transport"]; t {
	case "", TransportTmux:
		s.Transport = TransportTmux
	case TransportHeadless:
		s.Transport = t
	default:
		return nil, fmt.Errorf("transport %q is not tmux or headless", t)
	}
	if l := vals["lang"]; l != "" {
		if s.Lang, err = i18n.Parse(l); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// cutLine removes a first line equal to want.
func cutLine(data []byte, want string) ([]byte, bool) {
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if strings.TrimSuffix(string(line), "\r") != want {
		return nil, false
	}
	return rest, true
}

func isKey(k string) bool {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// unquote reads a YAML scalar written on one line.
func unquote(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, `"`):
		if len(v) < 2 || !strings.HasSuffix(v, `"`) {
			return "", errors.New("unterminated double quote")
		}
		s, err := strconv.Unquote(v)
		if err != nil {
			return "", fmt.Errorf("bad double-quoted value %s", v)
		}
		return s, nil
	case strings.HasPrefix(v, "'"):
		if len(v) < 2 || !strings.HasSuffix(v, "'") {
			return "", errors.New("unterminated single quote")
		}
		inner := v[1 : len(v)-1]
		if strings.Count(inner, "'")%2 != 0 || strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			return "", fmt.Errorf("bad single-quoted value %s", v)
		}
		return strings.ReplaceAll(inner, "''", "'"), nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}

// quote writes v as a YAML scalar: plain when that reads back the same,
// else double-quoted.
func quote(v string) string {
	if plainSafe(v) {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func plainSafe(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '/') {
			return false
		}
	}
	// Words YAML reads as something other than a string.
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", ".inf", "-.inf", ".nan":
		return false
	}
	return v[0] != '-' && v[0] != '.'
}

// Marshal writes the main file: the frontmatter, then the body as it was.
func (s *Session) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	line := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, v) }
	line("id", quote(s.ID))
	line("topic", quote(s.Topic))
	line("pane_moderator", quote(s.PaneModerator))
	line("pane_pro", quote(s.PanePro))
	line("pane_con", quote(s.PaneCon))
	line("max_rounds", strconv.Itoa(s.MaxRounds))
	line("current_round", strconv.Itoa(s.CurrentRound))
	line("status", string(s.Status))
	line("transport", quote(s.Transport))
	if s.Lang != "" {
		line("lang", string(s.Lang))
	}
	if s.Agent != "" {
		line("agent", quote(s.Agent))
	}
	if s.PendingPro != "" {
		line("pending_pro", quote(s.PendingPro))
	}
	if s.PendingCon != "" {
		line("pending_con", quote(s.PendingCon))
	}
	for _, f := range s.extra {
		line(f.key, quote(f.value))
	}
	b.WriteString("---\n")
	b.Write(s.body)
	return b.Bytes()
}

// Paths are the files of one debate.
type Paths struct {
	Main, Pro, Con string
	// Work holds the headless agents' working folders, one per role.
	Work string
	// Summary is where a headless moderator's summary is saved.
	Summary string
}

// Side returns the file of side.
func (p Paths) Side(side Role) string {
	if side == Con {
		return p.Con
	}
	return p.Pro
}

// WorkDir returns the working folder of role's headless agent.
func (p Paths) WorkDir(role Role) string { return filepath.Join(p.Work, string(role)) }

// Dir is a folder of debates.
type Dir struct {
	Root string
	// Old, when set, is a folder of debates started before (the old
	// default, ~/.claude/dialogues): its debates are listed and used where
	// they are, new ones go to Root.
	Old string
	// Lang is the caller's language (its --lang, else its configuration,
	// else its locale): the language of the messages of a debate whose
	// file names none, as files written by the original tool do not.
	Lang i18n.Lang
}

// langOf is the language of s's messages: its own, else the caller's.
func (d Dir) langOf(s *Session) i18n.Lang {
	if s.Lang != "" {
		return s.Lang
	}
	return d.Lang
}

// Paths returns the files of debate id, refusing an id that could name a
// file outside the folder.
func (d Dir) Paths(id string) (Paths, error) {
	if err := ValidID(id); err != nil {
		return Paths{}, err
	}
	base := filepath.Join(d.Root, id)
	if d.Old != "" && !exists(base+".md") && exists(filepath.Join(d.Old, id)+".md") {
		base = filepath.Join(d.Old, id)
	}
	return Paths{
		Main:    base + ".md",
		Pro:     base + "-pro.md",
		Con:     base + "-con.md",
		Work:    base + "-work",
		Summary: base + "-summary.md",
	}, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Load reads debate id's main file.
func (d Dir) Load(id string) (*Session, error) {
	p, err := d.Paths(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p.Main)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, newError(msgNoSession, nil, id, d.Root)
	}
	if err != nil {
		return nil, wrapf(err, "read debate")
	}
	s, err := Parse(id, data)
	if err != nil {
		return nil, newError(msgMalformed, nil, p.Main, err)
	}
	return s, nil
}

// Create writes a new debate's three files: the side files first, then the
// main file, so a main file always has its sides. An existing debate of the
// same id is left alone.
func (d Dir) Create(s *Session) error {
	p, err := d.Paths(s.ID)
	if err != nil {
		return err
	}
	if len(s.body) == 0 {
		s.body = []byte(mainBody(s, p))
	}
	for _, side := range []Role{Pro, Con} {
		if _, err := os.Stat(p.Side(side)); err == nil {
			return newError(msgExists, nil, s.ID)
		}
		if err := atomicfile.Write(p.Side(side), []byte(sideHeader(s, side)), 0o600); err != nil {
			return wrapf(err, "create debate")
		}
	}
	return atomicfile.Update(p.Main, 0o600, func(old []byte) ([]byte, error) {
		if old != nil {
			return nil, newError(msgExists, nil, s.ID)
		}
		return s.Marshal(), nil
	})
}

var (
	msgMainBody = i18n.Msg{
		JA: "\n# %[1]s\n\n## ルール\n\n- 賛成派は %[2]s、反対派は %[3]s にだけ書きます。\n- 各ラウンドは自分のファイルの末尾に「## Round N」見出しで追記します（N は 1 から）。各派 %[4]d ラウンドまで。\n- 書き終えたら `baton debate reply %[5]s` を実行します。両者が書き終えると次のラウンドが始まります。\n- 合意に達したら、そのラウンドに [CONCLUDED] と書きます。\n- 終了後、モデレーターが両者の主張をまとめます。\n",
		EN: "\n# %[1]s\n\n## Rules\n\n- The pro side writes only %[2]s; the con side writes only %[3]s.\n- Each round is appended to your own file under a \"## Round N\" heading (N from 1), up to %[4]d rounds each.\n- When your round is written, run `baton debate reply %[5]s`; the next round starts once both sides have written theirs.\n- If the sides agree, put [CONCLUDED] in that round.\n- At the end the moderator summarises both sides.\n",
	}
	msgSideHeader = i18n.Msg{
		JA: "# %[1]s: %[2]s\n\n<!-- %[2]sの主張を「## Round N」見出しで追記します。 -->\n",
		EN: "# %[1]s: %[2]s\n\n<!-- The %[2]s appends each round under a \"## Round N\" heading. -->\n",
	}
)

func mainBody(s *Session, p Paths) string {
	return msgMainBody.Format(s.Lang, textcut.OneLine(s.Topic), p.Pro, p.Con, s.MaxRounds, s.ID)
}

func sideHeader(s *Session, side Role) string {
	return msgSideHeader.Format(s.Lang, s.ID, side.Name(s.Lang))
}

// Entry is one debate found in the folder.
type Entry struct {
	ID      string
	Session *Session
	// Err says why the main file could not be read.
	Err error
}

// List returns the folder's debates, newest first. A main file that cannot
// be parsed is listed with its error.
func (d Dir) List() ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	for _, root := range []string{d.Root, d.Old} {
		if root == "" {
			continue
		}
		ents, err := os.ReadDir(root)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, wrapf(err, "list debates")
		}
		for _, e := range ents {
			id, ok := strings.CutSuffix(e.Name(), ".md")
			if !ok || !e.Type().IsRegular() || ValidID(id) != nil || seen[id] {
				continue
			}
			seen[id] = true
			s, err := d.Load(id)
			out = append(out, Entry{ID: id, Session: s, Err: err})
		}
	}
	// Ids start with their creation time, so they sort by age.
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(b.ID, a.ID) })
	return out, nil
}

// Active returns the debates that are active, newest first.
func (d Dir) Active() ([]Entry, error) {
	list, err := d.List()
	if err != nil {
		return nil, err
	}
	var active []Entry
	for _, e := range list {
		if e.Err == nil && e.Session.Status == Active {
			active = append(active, e)
		}
	}
	return active, nil
}

// Current returns the one active debate. It refuses to guess: with none,
// or with several (their ids and topics listed), it returns an error.
func (d Dir) Current() (string, error) {
	active, err := d.Active()
	if err != nil {
		return "", err
	}
	switch len(active) {
	case 0:
		return "", newError(msgNoActive, nil, d.Root)
	case 1:
		return active[0].ID, nil
	}
	var b strings.Builder
	for _, e := range active {
		fmt.Fprintf(&b, "\n  %s  %s", e.ID, e.Session.Topic)
	}
	return "", newError(msgManyActive, nil, len(active), b.String())
}

// Report is a debate's state and how far each side has written.
type Report struct {
	Session  *Session
	Paths    Paths
	Pro, Con Rounds
}

// Inspect reads debate id's three files.
func (d Dir) Inspect(id string) (Report, error) {
	s, err := d.Load(id)
	if err != nil {
		return Report{}, err
	}
	p, _ := d.Paths(id)
	r := Report{Session: s, Paths: p}
	if r.Pro, err = readRounds(p, Pro); err != nil {
		return r, err
	}
	r.Con, err = readRounds(p, Con)
	return r, err
}
