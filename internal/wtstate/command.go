package wtstate

import (
	"iter"
	"path"
	"strings"
)

// The one rule for "the same command", which the failing commands, the
// next step and the recall of failures (package cue) share. A command line
// is read as its commands (split at &&, ||, ;, | and newlines), each from
// its program on: environment assignments, wrappers (sudo, env, time …)
// and their flags before the program are skipped, and a shell or a
// runtime before a script or a -c command is too (sh ./deploy.sh staging
// is ./deploy.sh staging; bash -c "go test ./..." is go test ./...).

// command is one command of a line, from its program on, the program as
// written ("./deploy.sh"); nil for assignments only.
func command(seg string) []string {
	f := strings.Fields(seg)
	wrapped := false
	for len(f) > 0 {
		switch {
		case strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "=") && !strings.HasPrefix(f[0], "-"):
		case wrappers[f[0]]:
			wrapped = true
		case wrapped && strings.HasPrefix(f[0], "-"):
		default:
			goto prog
		}
		f = f[1:]
	}
prog:
	if len(f) == 0 {
		return nil
	}
	if interpreters[program(f[0])] {
		// The interpreter alone says nothing of which command ran.
		rest := f[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			if rest[0] == "-c" && len(rest) > 1 {
				return command(strings.Trim(strings.Join(rest[1:], " "), `"'`))
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return command(strings.Join(rest, " "))
		}
	}
	return f
}

// runs is false for a command that runs no program of its own: a change of
// folder, a setting, a sourced file.
func runs(c []string) bool {
	switch c[0] {
	case "cd", "export", "set", "source", ".":
		return false
	}
	p := program(c[0])
	return p != "" && p != "." && p != "/"
}

// program is the base name of a command's first word.
func program(word string) string { return path.Base(strings.Trim(word, `"'(`)) }

// commands yields the commands of line, in order.
func commands(line string) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for seg := range strings.FieldsFuncSeq(line, func(r rune) bool { return r == '&' || r == '|' || r == ';' || r == '\n' }) {
			// Quoting is not parsed: a separator inside quotes only makes
			// a later command.
			if c := command(seg); c != nil && !yield(c) {
				return
			}
		}
	}
}

// key is a command's program (base name) and its subcommand, the first
// argument when it is a plain word.
func key(c []string) string {
	prog := program(c[0])
	if len(c) > 1 && PlainWord(c[1]) {
		return prog + " " + c[1]
	}
	return prog
}

// CommandKey is what makes two Bash command lines the same command for a
// failure's history: the program and its subcommand, "go test", "git
// push", "make", "deploy.sh staging", of the first command of the line
// (cd x && go test ./... is go test). It returns "" when the line names no
// program.
func CommandKey(line string) string {
	for k := range CommandKeys(line) {
		return k
	}
	return ""
}

// CommandKeys yields the key of each command of line, in order: "npm ci &&
// npm run build" runs "npm ci", then "npm run".
func CommandKeys(line string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for c := range commands(line) {
			if runs(c) && !yield(key(c)) {
				return
			}
		}
	}
}

// SameCommand reports whether a and b run the same command line: the same
// commands with the same arguments, the variables set and the wrappers
// before them aside ("DB_URL=… ./deploy.sh staging" is "./deploy.sh
// staging").
func SameCommand(a, b string) bool {
	return a == b || bare(a) == bare(b)
}

// bare is a command line as its commands, from their programs on.
func bare(line string) string {
	var parts []string
	for c := range commands(line) {
		parts = append(parts, strings.Join(c, " "))
	}
	if parts == nil {
		return strings.TrimSpace(line)
	}
	return strings.Join(parts, " && ")
}

// commandWords are the words that name a command line in prose: the file
// names it holds, and its program with its subcommand ("go test"), or
// alone when it is a long name ("pytest").
func commandWords(line string) []string {
	var out []string
	for c := range commands(strings.ToLower(line)) {
		if !runs(c) {
			continue
		}
		for _, f := range c {
			f = strings.Trim(f, `"'`+"`()")
			if strings.HasPrefix(f, "-") || !strings.ContainsAny(f, "./") {
				continue
			}
			if base := path.Base(f); len(base) >= 3 && strings.Trim(base, ".") != "" {
				out = append(out, base)
			}
		}
		if strings.ContainsAny(c[0], "./") {
			continue // a script names itself
		}
		if k := key(c); strings.Contains(k, " ") || len(k) >= 5 {
			out = append(out, k)
		}
	}
	return out
}

// PlainWord is a subcommand-like argument: lower-case letters, digits and
// inner dashes, colons or underscores (run, mod, test:unit), starting with
// a letter.
func PlainWord(s string) bool {
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

// wrappers run the command after them.
var wrappers = map[string]bool{"sudo": true, "env": true, "time": true, "nice": true, "nohup": true, "exec": true, "command": true}

// interpreters are the shells and language runtimes that run the script or
// command after them.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"python": true, "python3": true, "node": true, "ruby": true, "perl": true, "php": true, "bun": true, "deno": true,
}
