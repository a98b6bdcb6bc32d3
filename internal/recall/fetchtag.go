package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/textcut"
)

// The tag a model writes to ask for more context:
//
//	<<FETCH>>
//	{"target": "thread_history", "thread_ts": "1778246185.616809", "depth": 50}
//	<</FETCH>>
const (
	TagOpen  = "<<FETCH>>"
	TagClose = "<</FETCH>>"
	// MaxTagBody is the most bytes between the marks; a longer body is an
	// error entry, not parsed.
	MaxTagBody = 4096
)

// ErrTag marks a tag that cannot be served.
var ErrTag = errors.New("invalid fetch tag")

// A Tag is one <<FETCH>> request, validated. Err says why it cannot be
// served; such a tag still takes its place in the output.
type Tag struct {
	Target   string `json:"target,omitempty"`
	ThreadTS string `json:"thread_ts,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Issue    int    `json:"issue,omitempty"`
	Session  string `json:"session,omitempty"`
	Depth    int    `json:"depth,omitempty"`
	// Capped says the depth asked for was above the cap.
	Capped bool  `json:"capped,omitempty"`
	Err    error `json:"-"`
}

// ParseTags finds the <<FETCH>> tags in text, in order, and validates them:
// the target must be one of session_log, issue_body and thread_history
// with the fields it needs, well formed, and the depth is capped at
// maxDepth. A malformed tag, an unclosed one, or one that opens inside
// another yields a Tag with Err set; the text around the tags is ignored.
// At most maxTags are returned; skipped counts the tags past that.
func ParseTags(text string, maxTags, maxDepth int) (tags []Tag, skipped int) {
	rest := text
	for {
		i := strings.Index(rest, TagOpen)
		if i < 0 {
			return tags, skipped
		}
		rest = rest[i+len(TagOpen):]
		body, after, closed := strings.Cut(rest, TagClose)
		var t Tag
		switch {
		case !closed:
			t.Err = fmt.Errorf("%w: no %s", ErrTag, TagClose)
			after = ""
		case strings.Contains(body, TagOpen):
			// A tag opened inside this one: this one is broken, the inner
			// one is read on the next turn.
			t.Err = fmt.Errorf("%w: %s inside another tag", ErrTag, TagOpen)
			after = rest[strings.Index(rest, TagOpen):]
		default:
			t = parseTag(body, maxDepth)
		}
		if len(tags) < maxTags {
			tags = append(tags, t)
		} else {
			skipped++
		}
		rest = after
	}
}

// parseTag reads one tag body: a JSON object, or a bare target name.
func parseTag(body string, maxDepth int) Tag {
	var t Tag
	body = strings.TrimSpace(body)
	if len(body) > MaxTagBody {
		t.Err = fmt.Errorf("%w: body longer than %d bytes", ErrTag, MaxTagBody)
		return t
	}
	if body == "" {
		t.Err = fmt.Errorf("%w: empty", ErrTag)
		return t
	}
	if !strings.HasPrefix(body, "{") {
		t.Target = body
		t.Err = t.check()
		return t
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		t.Err = fmt.Errorf("%w: not a JSON object: %v", ErrTag, err)
		return t
	}
	if dec.More() {
		t.Err = fmt.Errorf("%w: text after the JSON object", ErrTag)
		return t
	}
	var err error
	if t.Target, err = stringField(raw, "target"); err != nil {
		t.Err = err
		return t
	}
	if t.ThreadTS, err = stringField(raw, "thread_ts"); err != nil {
		t.Err = err
		return t
	}
	if t.Channel, err = stringField(raw, "channel"); err != nil {
		t.Err = err
		return t
	}
	if t.Session, err = stringField(raw, "session"); err != nil {
		t.Err = err
		return t
	}
	for _, key := range []string{"issue", "number"} {
		if _, ok := raw[key]; ok && t.Issue == 0 {
			if t.Issue, err = issueField(raw, key); err != nil {
				t.Err = err
				return t
			}
		}
	}
	if t.Depth, t.Capped, err = depthField(raw, maxDepth); err != nil {
		t.Err = err
		return t
	}
	t.Err = t.check()
	return t
}

// stringField reads a string (or a number, kept as written: a thread_ts
// written as a number would lose digits as a float).
func stringField(raw map[string]json.RawMessage, key string) (string, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		return strings.TrimSpace(s), nil
	}
	if n := strings.TrimSpace(string(v)); n != "" && (n[0] == '-' || n[0] >= '0' && n[0] <= '9') {
		return n, nil
	}
	return "", fmt.Errorf("%w: %s must be a string or a number", ErrTag, key)
}

func issueField(raw map[string]json.RawMessage, key string) (int, error) {
	s, err := stringField(raw, key)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	if err != nil || n <= 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%w: %s %q is not an issue number", ErrTag, key, textcut.Chars(s, 40))
	}
	return n, nil
}

// depthField reads depth: a positive whole number, capped at maxDepth.
// Missing or null is 0 (the default).
func depthField(raw map[string]json.RawMessage, maxDepth int) (depth int, capped bool, err error) {
	v, ok := raw["depth"]
	if !ok || string(v) == "null" {
		return 0, false, nil
	}
	s, err := stringField(raw, "depth")
	if err != nil {
		return 0, false, err
	}
	f, perr := strconv.ParseFloat(s, 64)
	switch {
	case perr != nil && !errors.Is(perr, strconv.ErrRange):
		return 0, false, fmt.Errorf("%w: depth %q is not a number", ErrTag, textcut.Chars(s, 40))
	case math.IsNaN(f) || f < 1:
		return 0, false, fmt.Errorf("%w: depth %q must be at least 1", ErrTag, textcut.Chars(s, 40))
	case f != math.Trunc(f):
		return 0, false, fmt.Errorf("%w: depth %q is not a whole number", ErrTag, textcut.Chars(s, 40))
	case f > float64(maxDepth):
		return maxDepth, true, nil
	}
	return int(f), false, nil
}

// check validates the target and its fields.
func (t *Tag) check() error {
	switch t.Target {
	case TargetSessionLog:
		if t.Session != "" {
			return checkSessionID(t.Session)
		}
	case TargetIssueBody:
		if t.Issue == 0 {
			return fmt.Errorf("%w: issue_body needs an issue number", ErrTag)
		}
	case TargetThreadHistory:
		if err := checkThreadTS(t.ThreadTS); err != nil {
			return err
		}
		if t.Channel != "" {
			return checkChannel(t.Channel)
		}
	case "":
		return fmt.Errorf("%w: no target", ErrTag)
	default:
		return fmt.Errorf("%w: unknown target %q (allowed: %s, %s, %s)", ErrTag, textcut.Chars(t.Target, 40), TargetThreadHistory, TargetSessionLog, TargetIssueBody)
	}
	return nil
}

// checkThreadTS accepts Slack message timestamps: digits, a dot, digits.
func checkThreadTS(ts string) error {
	sec, frac, ok := strings.Cut(ts, ".")
	if !ok || !digits(sec, 1, 12) || !digits(frac, 1, 9) {
		return fmt.Errorf("%w: thread_ts %q is not a Slack timestamp like 1778246185.616809", ErrTag, textcut.Chars(ts, 40))
	}
	return nil
}

// checkChannel accepts Slack channel ids: C0123ABCD and the like.
func checkChannel(ch string) error {
	if len(ch) < 2 || len(ch) > 24 {
		return fmt.Errorf("%w: channel %q is not a Slack channel id", ErrTag, textcut.Chars(ch, 40))
	}
	for _, r := range ch {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("%w: channel %q is not a Slack channel id", ErrTag, textcut.Chars(ch, 40))
		}
	}
	return nil
}

// checkSessionID accepts agent session ids: letters, digits, '-' and '_'.
func checkSessionID(id string) error {
	if len(id) > 128 {
		return fmt.Errorf("%w: session id longer than 128", ErrTag)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("%w: session %q is not a session id", ErrTag, textcut.Chars(id, 40))
		}
	}
	return nil
}

func digits(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Describe is the tag as one line: its target and fields.
func (t *Tag) Describe() string {
	var b strings.Builder
	b.WriteString(firstNonEmpty(t.Target, "?"))
	if t.ThreadTS != "" {
		b.WriteString(" thread_ts=" + t.ThreadTS)
	}
	if t.Channel != "" {
		b.WriteString(" channel=" + t.Channel)
	}
	if t.Issue > 0 {
		b.WriteString(" issue=" + strconv.Itoa(t.Issue))
	}
	if t.Session != "" {
		b.WriteString(" session=" + t.Session)
	}
	if t.Depth > 0 {
		b.WriteString(" depth=" + strconv.Itoa(t.Depth))
		if t.Capped {
			b.WriteString(" (capped)")
		}
	}
	return b.String()
}

// Fetch serves one valid tag: the stored text as one quoted block
// (package quote), as the MCP tools give it.
func (p *Puller) Fetch(ctx context.Context, t Tag) (string, error) {
	if t.Err != nil {
		return "", t.Err
	}
	var text string
	var err error
	switch t.Target {
	case TargetSessionLog:
		text, err = p.SessionLog(ctx, SessionLogQuery{Depth: t.Depth, Session: t.Session})
	case TargetIssueBody:
		text, err = p.IssueBody(ctx, t.Issue, t.Depth)
	case TargetThreadHistory:
		text, err = p.ThreadHistory(ctx, t.Channel, t.ThreadTS, t.Depth)
	default:
		return "", fmt.Errorf("%w: unknown target %q", ErrTag, t.Target)
	}
	if err != nil {
		return "", err
	}
	return quote.Block(p.Lang, text), nil
}
