// Package claudecode knows Claude Code's files: its settings files and the
// hooks baton installs in them, the MCP configuration file, and where Claude
// Code keeps transcripts and agent memory.
//
// Edits merge into what the user has: other keys and other hooks keep their
// order and are written as they were (escapes, number spelling); only
// indentation is normalised, to the file's own indentation when it has one.
// Every write is atomic and made under a lock file next to the edited file.
// The package parses no command line and prints nothing.
package claudecode
