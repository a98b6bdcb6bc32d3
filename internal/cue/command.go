package cue

import (
	"iter"
	"path/filepath"
	"strings"
)

// CommandKey is what makes two Bash command lines "the same command":
// the program and its subcommand, "go test", "git push", "make"; for a
// line of several commands (cd x && go test ./...) the first one that is
// not only a change of folder or an assignment. Environment assignments,
// sudo, env and time before the program are skipped; the program is its
// base name; a shell or a runtime before a script or a -c command is
// skipped too (sh ./deploy.sh staging is ./deploy.sh staging). The
// subcommand is the first argument when it is a plain word (not a flag, a
// path or a file name). It returns "" when the line names no program.
func CommandKey(line string) string {
	for key := range commandKeys(line) {
		return key
	}
	return ""
}

// ranKey reports whether line runs the command key in any of its parts:
// "npm ci && npm run build" runs "npm run".
func ranKey(line, key string) bool {
	for k := range commandKeys(line) {
		if k == key {
			return true
		}
	}
	return false
}

// commandKeys yields the key of each command of line, in order.
func commandKeys(line string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, seg := range segments(line) {
			if key := segmentKey(seg); key != "" && !yield(key) {
				return
			}
		}
	}
}

// segmentKey is the key of one command of a line, "" for none.
func segmentKey(seg string) string {
	f := strings.Fields(seg)
	for len(f) > 0 && (strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "=") || wrapper(f[0])) {
		f = f[1:]
	}
	if len(f) == 0 || f[0] == "cd" || f[0] == "export" || f[0] == "set" || f[0] == "source" || f[0] == "." {
		return ""
	}
	prog := filepath.Base(strings.Trim(f[0], `"'(`))
	if prog == "" || prog == "." || prog == "/" {
		return ""
	}
	if interpreter(prog) {
		// sh ./deploy.sh staging runs deploy.sh, as ./deploy.sh staging
		// does; bash -c "go test ./..." runs go test. The interpreter
		// alone says nothing of which command failed.
		rest := f[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			if rest[0] == "-c" && len(rest) > 1 {
				return segmentKey(strings.Trim(strings.Join(rest[1:], " "), `"'`))
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return segmentKey(strings.Join(rest, " "))
		}
	}
	if len(f) > 1 && plainWord(f[1]) {
		return prog + " " + f[1]
	}
	return prog
}

// interpreter is true for the shells and language runtimes that run the
// script or command after them.
func interpreter(prog string) bool {
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "ruby", "perl", "php", "bun", "deno":
		return true
	}
	return false
}

// wrapper is true for the programs that run the command after them.
func wrapper(prog string) bool {
	switch prog {
	case "sudo", "env", "time", "nice", "nohup", "exec", "command":
		return true
	}
	return false
}

// segments splits a command line at &&, ||, ;, | and newlines. Quoting is
// not parsed: a separator inside quotes only makes a later segment.
func segments(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == '&' || r == '|' || r == ';' || r == '\n' })
}

// plainWord is a subcommand-like argument: lower-case letters, digits and
// inner dashes or colons (run, mod, test:unit), starting with a letter.
func plainWord(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_') {
			return false
		}
	}
	return true
}
