package config

import (
	"strings"
	"testing"
	"time"
)

func TestResumeSettings(t *testing.T) {
	tests := []struct {
		name       string
		user, repo string
		inject     bool
		records    int
		stale      time.Duration
		scan       int64
	}{
		{name: "defaults", inject: true, records: 30, stale: 7 * 24 * time.Hour, scan: 256 << 10},
		{
			name:   "user file",
			user:   "resume:\n  inject: false\n  records: 50\n  stale_days: 3\n  scan_bytes: 1MiB\n",
			inject: false, records: 50, stale: 3 * 24 * time.Hour, scan: 1 << 20,
		},
		{
			name:   "repo file turns injection back on",
			user:   "resume:\n  inject: false\n  records: 50\n",
			repo:   "resume:\n  inject: true\n",
			inject: true, records: 50, stale: 7 * 24 * time.Hour, scan: 256 << 10,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			if tt.user != "" {
				paths = append(paths, write(t, dir, "user.yaml", tt.user))
			}
			if tt.repo != "" {
				paths = append(paths, write(t, dir, "repo.yaml", tt.repo))
			}
			c, err := Load(paths...)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.ResumeInject(); got != tt.inject {
				t.Errorf("ResumeInject = %v; want %v", got, tt.inject)
			}
			if got := c.ResumeRecords(); got != tt.records {
				t.Errorf("ResumeRecords = %d; want %d", got, tt.records)
			}
			if got := c.ResumeStale(); got != tt.stale {
				t.Errorf("ResumeStale = %v; want %v", got, tt.stale)
			}
			if got := c.ResumeScanBytes(); got != tt.scan {
				t.Errorf("ResumeScanBytes = %d; want %d", got, tt.scan)
			}
		})
	}
}

func TestResumeSettingsInvalid(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"negative records", "resume:\n  records: -1\n", "resume.records"},
		{"too many records", "resume:\n  records: 5000\n", "resume.records"},
		{"negative stale days", "resume:\n  stale_days: -2\n", "resume.stale_days"},
		{"unknown key", "resume:\n  injcet: false\n", `unknown key "resume.injcet"`},
		{"inject not a bool", "resume:\n  inject: maybe\n", "inject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, t.TempDir(), "c.yaml", tt.body))
			if err == nil {
				t.Fatal("Load succeeded; want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q; want it to mention %q", err, tt.want)
			}
		})
	}
}
