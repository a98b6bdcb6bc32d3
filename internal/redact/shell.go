package redact

import "strings"

// Secrets passed to commands as arguments rather than as key=value: options
// such as --token abc, the -p of docker login, the -a of redis-cli, mysql's
// -pSECRET, and "aws configure set aws_secret_access_key SECRET".

const maxCommandLookBack = 512

// flag matches an option at s[i] == '-' that takes a secret as its
// argument, and returns the argument's span. "--token=abc" is left to the
// assignment rule at its '='.
func (r *redactor) flag(i int) (start, end int, kind string) {
	s := r.s
	if i+2 >= len(s) || i > r.done && !isBlank(s[i-1]) {
		return 0, 0, ""
	}
	if s[i+1] == '-' {
		e := runEnd(s, i+2, isKeyByte)
		name := s[i+2 : e]
		if name == "" || e >= len(s) || !isBlank(s[e]) || !secretOption(name) {
			return 0, 0, ""
		}
		start, end, ok := r.argument(skipBlanks(s, e))
		if !ok {
			return 0, 0, ""
		}
		return start, end, r.kindOf(start, end, kindArgument)
	}
	return r.shortFlag(i)
}

// secretOption reports whether a long option's argument is a secret: its
// name ends in a secret word as an assignment key would, or names a cookie.
func secretOption(name string) bool {
	switch secretKeyKind(name) {
	case kindAssignment, kindCookie:
		return true
	}
	return false
}

// shortFlag matches the one-letter options that take a password in the
// commands that define them: -p after docker (podman, nerdctl, buildah,
// skopeo, helm, oras, crane) login and in sshpass, -a in redis-cli, and
// -pSECRET written together in mysql and its tools (with a space, mysql reads
// the next word as a database name).
func (r *redactor) shortFlag(i int) (start, end int, kind string) {
	s := r.s
	c := s[i+1]
	if c != 'p' && c != 'a' {
		return 0, 0, ""
	}
	j := i + 2
	spaced := isBlank(s[j])
	if !spaced && c == 'a' {
		return 0, 0, ""
	}
	cmd, login := r.command(i)
	switch {
	case c == 'a' && cmd == "redis-cli",
		c == 'p' && spaced && (cmd == "sshpass" || login && oneOf(cmd, registryLogins[:])):
		j = skipBlanks(s, j)
	case c == 'p' && !spaced && oneOf(cmd, mysqlTools[:]):
	default:
		return 0, 0, ""
	}
	start, end, ok := r.argument(j)
	if !ok {
		return 0, 0, ""
	}
	return start, end, r.kindOf(start, end, kindArgument)
}

var (
	registryLogins = [...]string{"docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "cf"}
	mysqlTools     = [...]string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mariadb", "mariadb-dump"}
)

// command returns the name of the command whose arguments s[i] is among
// (the first word of its segment, after sudo, env and VAR=value prefixes,
// without its folder) and whether a "login" word comes before i.
func (r *redactor) command(i int) (name string, login bool) {
	s := r.s
	k := i
	for k > r.done && i-k < maxCommandLookBack {
		c := s[k-1]
		if c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == '(' || c == '`' || c == '{' ||
			c == '"' && k >= 2 && (s[k-2] == ':' || s[k-2] == '[' || s[k-2] == ',') ||
			c == 'n' && k >= 2 && s[k-2] == '\\' {
			break
		}
		k--
	}
	first := true
	for p := k; p < i; {
		p = skipBlanks(s, p)
		e := p
		for e < i && !isBlank(s[e]) {
			e++
		}
		w := strings.Trim(s[p:e], `"'\`)
		p = e
		switch {
		case w == "":
		case first && (w == "sudo" || w == "env" || w == "exec" || w == "command" || w == "time" ||
			strings.IndexByte(w, '=') > 0 || strings.HasPrefix(w, "-")):
		case first:
			name = w[strings.LastIndexByte(w, '/')+1:]
			first = false
		case w == "login":
			login = true
		}
	}
	return name, login
}

// configSet matches a secret set by a configuration command, with the 'g' of
// "config" (or of "configure") at i: "aws configure set
// aws_secret_access_key SECRET", "git config --global github.token SECRET",
// "npm config set //registry.npmjs.org/:_authToken SECRET". The value of the
// first word that names a secret as an assignment key would is replaced.
func (r *redactor) configSet(i int) (start, end int, kind string) {
	s := r.s
	w := i + 1 - len("config")
	if w < r.done || s[w:i+1] != "config" || w > r.done && !isBlank(s[w-1]) {
		return 0, 0, ""
	}
	p := i + 1
	if strings.HasPrefix(s[p:], "ure") {
		p += len("ure")
	}
	for n := 0; n < 8 && p < len(s) && isBlank(s[p]); n++ {
		p = skipBlanks(s, p)
		e := p
		for e < len(s) && !isBlank(s[e]) && strings.IndexByte("\n\r;|&\"'`\\", s[e]) < 0 {
			e++
		}
		word := s[p:e]
		if word == "" {
			break
		}
		p = e
		if word[0] != '-' && secretKeyKind(word) == kindAssignment {
			if p >= len(s) || !isBlank(s[p]) {
				break
			}
			start, end, ok := r.argument(skipBlanks(s, p))
			if !ok {
				break
			}
			return start, end, r.kindOf(start, end, kindAssignment)
		}
	}
	return 0, 0, ""
}

// argument finds an argument that holds a secret at j: like an assignment's
// value, except that it is not another option, nor a word of a sentence
// about the option ("pass the --token flag").
func (r *redactor) argument(j int) (start, end int, ok bool) {
	s := r.s
	if j >= len(s) || s[j] == '-' {
		return 0, 0, false
	}
	start, end, ok = r.value(j, false)
	if ok && start == j && oneOf(s[start:end], proseWords[:]) {
		return 0, 0, false
	}
	return start, end, ok
}

// proseWords follow an option's name in sentences about it.
var proseWords = [...]string{
	"flag", "flags", "option", "options", "argument", "arguments", "parameter", "switch",
	"is", "was", "are", "and", "or", "to", "the", "a", "an", "with", "without", "for", "in",
	"on", "of", "value", "values", "when", "if", "that", "which", "not", "must", "can",
	"will", "should", "only", "as", "from", "instead", "here", "there", "set", "then",
}

// header finds the value of a Cookie or Set-Cookie header starting at j: all
// of it up to the end of its line or of the quoted string that holds it.
func (r *redactor) header(j int) (start, end int, ok bool) {
	s := r.s
	if j >= len(s) {
		return 0, 0, false
	}
	if p, q, esc := openQuote(s, j); q != 0 {
		if e, closed := quotedEnd(s, p, q, esc); closed && !placeholder(s[p:e]) && !strings.Contains(s[p:e], marker) {
			return p, e, true
		}
		return 0, 0, false
	}
	if placeholderStart(s[j:]) || callOrIndex(s[j:]) {
		return 0, 0, false
	}
	e := j
	for ; e < len(s); e++ {
		c := s[e]
		if c == '\n' || c == '\r' || isQuote(c) ||
			c == '\\' && e+1 < len(s) && strings.IndexByte(`nrtu"'`, s[e+1]) >= 0 ||
			c == '[' && strings.HasPrefix(s[e:], marker) {
			break
		}
	}
	for e > j && isBlank(s[e-1]) {
		e--
	}
	if first := unquotedEnd(s, j); first == e && readsAsCode(s[j:e]) || e == j {
		return 0, 0, false
	}
	return j, e, true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func oneOf(s string, words []string) bool {
	for _, w := range words {
		if s == w {
			return true
		}
	}
	return false
}
