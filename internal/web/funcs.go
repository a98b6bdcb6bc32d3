package web

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/textcut"
)

// funcs are the templates' helpers. None of them returns template.HTML:
// everything they produce is escaped like any other value.
func (s *Server) funcs() template.FuncMap {
	lang := s.o.Lang
	return template.FuncMap{
		// t is a message of the catalog in the dashboard's language; tf
		// formats one with arguments.
		"t": func(key string) (string, error) {
			m, ok := messages[key]
			if !ok {
				return "", fmt.Errorf("no message %q", key)
			}
			return m.In(lang), nil
		},
		"tf": func(key string, args ...any) (string, error) {
			m, ok := messages[key]
			if !ok {
				return "", fmt.Errorf("no message %q", key)
			}
			return m.Format(lang, args...), nil
		},
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.In(s.o.Loc).Format("2006-01-02 15:04:05")
		},
		// stamp shows an RFC 3339 time kept as text in a state file like
		// when; text that is not one is shown as it is.
		"stamp": func(v string) string {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return cmp0(v, "—")
			}
			return t.In(s.o.Loc).Format("2006-01-02 15:04:05")
		},
		"day": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.In(s.o.Loc).Format("2006-01-02")
		},
		"iso": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format(time.RFC3339)
		},
		"ago": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return resume.Ago(s.o.Now().Sub(t), lang)
		},
		"span":  span,
		"short": textcut.ShortID,
		"num":   num,
		"issue": func(n int) string {
			if n <= 0 || s.o.IssueURL == nil {
				return ""
			}
			return s.o.IssueURL(n)
		},
		"join": strings.Join,
	}
}

// span is the time from a to b, rounded to the second; "—" when either is
// missing.
func span(a, b time.Time) string {
	if a.IsZero() || b.IsZero() || b.Before(a) {
		return "—"
	}
	return b.Sub(a).Round(time.Second).String()
}

// num writes an integer with thousands separators: 1,234,567.
func num(v any) (string, error) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	default:
		return "", fmt.Errorf("num: %T is not an integer", v)
	}
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String(), nil
}
