package config

import (
	"fmt"
	"slices"
)

// Memory configures the memory shared through the repository's own git
// remote (`baton sync`).
//
// A repository's .baton.yaml can only narrow it, trusted or not: it may
// turn sharing off or share fewer kinds, never turn sharing on or add a
// kind the person's own settings leave out, since what is sent leaves the
// person's machine.
type Memory struct {
	// Share turns sharing on (default true).
	Share *bool `yaml:"share"`
	// Kinds are what is shared: decisions, summaries, branch (default
	// decisions only).
	Kinds []string `yaml:"kinds"`
	// SyncMinutes is the least time between two background syncs after
	// sessions end (default 5).
	SyncMinutes int `yaml:"sync_minutes"`
}

// The kinds of memory that can be shared.
const (
	MemoryDecisions = "decisions"
	MemorySummaries = "summaries"
	MemoryBranch    = "branch"
)

// DefaultMemorySyncMinutes is the default least time between background syncs.
const DefaultMemorySyncMinutes = 5

var memoryKinds = []string{MemoryDecisions, MemorySummaries, MemoryBranch}

// MemoryShare reports whether the repository's memory is shared.
func (c *Config) MemoryShare() bool { return c.Memory.Share == nil || *c.Memory.Share }

// MemoryKinds returns the kinds of memory shared.
func (c *Config) MemoryKinds() []string {
	if c.Memory.Kinds == nil {
		return []string{MemoryDecisions}
	}
	return c.Memory.Kinds
}

// MemoryShares reports whether kind is shared.
func (c *Config) MemoryShares(kind string) bool {
	return c.MemoryShare() && slices.Contains(c.MemoryKinds(), kind)
}

// MemorySyncMinutes returns the least time between background syncs.
func (c *Config) MemorySyncMinutes() int {
	if c.Memory.SyncMinutes > 0 {
		return c.Memory.SyncMinutes
	}
	return DefaultMemorySyncMinutes
}

func (m *Memory) validate() error {
	for i, k := range m.Kinds {
		if !slices.Contains(memoryKinds, k) {
			return fmt.Errorf("config: memory.kinds[%d]: %q is none of %v", i, k, memoryKinds)
		}
	}
	if m.SyncMinutes < 0 {
		return fmt.Errorf("config: memory.sync_minutes must be positive")
	}
	return nil
}

// narrowMemory keeps of the repository's memory settings (in c, decoded
// over the person's own, own) only what narrows the person's: sharing
// off, fewer kinds. It returns the keys whose widening it undid.
func (c *Config) narrowMemory(own Memory) []string {
	var undone []string
	user := &Config{Memory: own}
	if !user.MemoryShare() && c.MemoryShare() {
		c.Memory.Share = own.Share
		undone = append(undone, "memory.share")
	}
	var kinds []string
	for _, k := range c.MemoryKinds() {
		if slices.Contains(user.MemoryKinds(), k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) < len(c.MemoryKinds()) {
		undone = append(undone, "memory.kinds")
	}
	if kinds == nil {
		kinds = []string{}
	}
	c.Memory.Kinds = kinds
	return undone
}
