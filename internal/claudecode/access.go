package claudecode

import (
	"path/filepath"
	"strings"
)

// AccessArgs are the command-line arguments that let a Claude Code session
// read and edit the files in folder dir and run command (with any
// arguments) without asking: allow rules naming them (--allowedTools). Not
// --add-dir: for a folder that exists, 2.1.328 asks at start whether to
// trust it, a dialog nobody answers in an unattended pane. A folder under
// ~/.claude, or any other path 2.1.328 holds sensitive, still asks whatever
// the rules say. A folder whose name a rule cannot hold (parentheses,
// wildcards, white space) gets the command's rule only.
func AccessArgs(dir, command string) []string {
	rules := []string{"Bash(" + command + ":*)"}
	if !strings.ContainsAny(dir, "()*?[]{}\\, \t\r\n") {
		for _, tool := range []string{"Read", "Edit", "Write"} {
			// "//" starts an absolute path in a rule.
			rules = append(rules, tool+"(/"+filepath.ToSlash(dir)+"/**)")
		}
	}
	return append([]string{"--allowedTools"}, rules...)
}
