package cue

import "github.com/baton-cli/baton/internal/wtstate"

// CommandKey is what makes two Bash command lines "the same command" for a
// failure's history: the rule of package wtstate, which the failing
// commands and the next step share.
func CommandKey(line string) string { return wtstate.CommandKey(line) }

// ranKey reports whether line runs the command key in any of its parts:
// "npm ci && npm run build" runs "npm run".
func ranKey(line, key string) bool {
	for k := range wtstate.CommandKeys(line) {
		if k == key {
			return true
		}
	}
	return false
}
