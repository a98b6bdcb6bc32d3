package resume

import (
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
)

func TestAgo(t *testing.T) {
	tests := []struct {
		name   string
		d      time.Duration
		ja, en string
	}{
		{"future", -5 * time.Minute, "たった今", "just now"},
		{"seconds", 59 * time.Second, "たった今", "just now"},
		{"one minute", time.Minute, "1 分前", "1 minute ago"},
		{"minutes", 59*time.Minute + 59*time.Second, "59 分前", "59 minutes ago"},
		{"one hour", time.Hour, "1 時間前", "1 hour ago"},
		{"hours round down", 3*time.Hour + 59*time.Minute, "3 時間前", "3 hours ago"},
		{"just under a day", 23*time.Hour + 59*time.Minute, "23 時間前", "23 hours ago"},
		{"one day", 24 * time.Hour, "1 日前", "1 day ago"},
		{"days", 9*24*time.Hour + 23*time.Hour, "9 日前", "9 days ago"},
		{"a year", 365 * 24 * time.Hour, "365 日前", "365 days ago"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Ago(tt.d, i18n.JA); got != tt.ja {
				t.Errorf("Ago(%v, ja) = %q; want %q", tt.d, got, tt.ja)
			}
			if got := Ago(tt.d, i18n.EN); got != tt.en {
				t.Errorf("Ago(%v, en) = %q; want %q", tt.d, got, tt.en)
			}
		})
	}
}
