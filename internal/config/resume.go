package config

import (
	"errors"
	"time"
)

// Resume configures the "where you left off" briefing of `baton resume` and
// of the context injected at session start.
type Resume struct {
	// Inject adds the briefing to the context of every session start
	// (default true).
	Inject *bool `yaml:"inject"`
	// Records is how many of the worktree's newest activity records the
	// journal briefing is built from (default 30).
	Records int `yaml:"records"`
	// StaleDays is the age in days past which the state file is called old
	// and the briefing asks whether it is still worth continuing (default 7).
	StaleDays int `yaml:"stale_days"`
	// ScanBytes bounds how far back from the journal's end the briefing
	// reads looking for the worktree's records (default 256KiB, about 800
	// records of all worktrees), so that a worktree with no records never
	// scans a whole large journal. Every record read is decoded: at about
	// 20 ms per MiB on a slow core, the default keeps session start within
	// its budget even when the worktree has no records.
	ScanBytes Size `yaml:"scan_bytes"`
}

// Defaults of the resume settings.
const (
	DefaultResumeRecords   = 30
	DefaultResumeStaleDays = 7
	DefaultResumeScanBytes = 256 << 10
	// maxResumeRecords keeps the briefing's read small whatever is asked.
	maxResumeRecords = 1000
)

// ResumeInject reports whether the briefing is injected at session start.
func (c *Config) ResumeInject() bool {
	return c.Resume.Inject == nil || *c.Resume.Inject
}

// ResumeRecords returns how many activity records the journal briefing uses.
func (c *Config) ResumeRecords() int {
	if c.Resume.Records > 0 {
		return c.Resume.Records
	}
	return DefaultResumeRecords
}

// ResumeStale returns the age past which the state file is called old.
func (c *Config) ResumeStale() time.Duration {
	days := c.Resume.StaleDays
	if days <= 0 {
		days = DefaultResumeStaleDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// ResumeScanBytes returns how many bytes at most the briefing reads back
// from the end of the journal.
func (c *Config) ResumeScanBytes() int64 {
	if c.Resume.ScanBytes > 0 {
		return int64(c.Resume.ScanBytes)
	}
	return DefaultResumeScanBytes
}

func (r *Resume) validate() error {
	switch {
	case r.Records < 0 || r.Records > maxResumeRecords:
		return errors.New("config: resume.records must be between 1 and 1000")
	case r.StaleDays < 0:
		return errors.New("config: resume.stale_days must be positive")
	case r.ScanBytes < 0:
		return errors.New("config: resume.scan_bytes must be positive")
	}
	return nil
}
