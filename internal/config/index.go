package config

// Archive configures `baton archive`, which keeps compressed copies of the
// repository's Claude Code transcripts in the state folder
// (archive/transcripts/), so that Claude Code's own cleanup of old
// transcripts loses nothing.
type Archive struct {
	// Transcripts runs the archive at every session end, in a detached
	// process started by the hook (default true: a person who installs
	// baton so that nothing is lost should not lose a month-old session to
	// Claude Code's cleanup).
	Transcripts *bool `yaml:"transcripts"`
}

// ArchiveTranscripts reports whether transcripts are archived at every
// session end: unless the configuration turns it off.
func (c *Config) ArchiveTranscripts() bool {
	return c.Archive.Transcripts == nil || *c.Archive.Transcripts
}

func (a *Archive) validate() error { return nil }
