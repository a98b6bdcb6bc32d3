// Package i18n picks the language of user-facing messages. Every message baton
// shows a person exists in Japanese and English; a Msg holds both.
package i18n

import (
	"fmt"
	"strings"
)

// Lang is a message language.
type Lang string

const (
	JA Lang = "ja"
	EN Lang = "en"
)

// Parse accepts "ja" or "en" (any case, surrounding space ignored).
func Parse(s string) (Lang, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ja":
		return JA, nil
	case "en":
		return EN, nil
	}
	return "", fmt.Errorf("unknown language %q (want ja or en)", s)
}

// FromEnv derives the language from the locale variables, in POSIX order of
// precedence: LC_ALL, then LC_MESSAGES, then LANG. A Japanese locale gives JA;
// anything else, or nothing, gives EN.
func FromEnv(getenv func(string) string) Lang {
	for _, key := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(key)
		if v == "" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(v), "ja") {
			return JA
		}
		return EN
	}
	return EN
}

// Msg is one message in both languages. Text may hold fmt verbs.
type Msg struct {
	JA, EN string
}

// In returns the message in l (English for an unknown language).
func (m Msg) In(l Lang) string {
	if l == JA {
		return m.JA
	}
	return m.EN
}

// Format formats the message in l with args.
func (m Msg) Format(l Lang, args ...any) string {
	return fmt.Sprintf(m.In(l), args...)
}
