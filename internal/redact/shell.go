package redact

import (
	"slices"
	"strings"
)

// Secrets passed to commands as arguments rather than as key=value: options
// such as --token abc, the -p of docker login, the -a of redis-cli, mysql's
// -pSECRET, and "aws configure set aws_secret_access_key SECRET"; and XML
// elements such as <password>SECRET</password>.

const maxCommandLookBack = 512

// flag matches an option at s[i] == '-' that takes a secret as its
// argument, and returns the argument's span. "--token=abc" is left to the
// assignment rule at its '='.
func (r *redactor) flag(i int) (start, end int, kind string) {
	s := r.s
	if b := r.byteBefore(i); i+2 >= len(s) || b != 0 && !isBlank(b) {
		return 0, 0, ""
	}
	n := i + 1
	if s[n] == '-' {
		n++
	}
	e := runEnd(s, n, isKeyByte)
	// Long options, with two dashes or, as Go and Java programs write them,
	// one (-token, -storepass).
	if name := s[n:e]; (n == i+2 || len(name) >= 3) && e < len(s) && isBlank(s[e]) &&
		(secretOption(name) || name == "user" && r.commandIs(i, "curl")) {
		if start, end, ok := r.argument(skipBlanks(s, e)); ok {
			return start, end, r.kindOf(start, end, kindArgument)
		}
		return 0, 0, ""
	}
	if n == i+1 && strings.IndexByte(passwordFlagLetters, s[n]) >= 0 {
		return r.shortFlag(i)
	}
	return 0, 0, ""
}

// secretOption reports whether a long option's argument is a secret: its
// name ends in a secret word as an assignment key would, in pass, or names a
// cookie.
func secretOption(name string) bool {
	switch secretKeyKind(name) {
	case kindAssignment, kindCookie:
		return true
	}
	// keytool's -storepass, -keypass, -srcstorepass.
	return hasSuffixFold(name, "pass") && !hasSuffixFold(name, "bypass") && !hasSuffixFold(name, "compass")
}

// passwordFlags lists the one-letter options that take a password (or a
// cookie) in the commands that define them. Elsewhere the same letters mean
// other things (docker run -p, ssh -p, psql -p, ls -a), so the command is
// checked. attached: the value follows the letter without a space, as in
// mysql -pSECRET (with a space, mysql reads the next word as a database).
// login: only after a "login" word, as in docker login.
var passwordFlags = [...]struct {
	letter   byte
	attached bool
	login    bool
	cmds     []string
}{
	{'p', false, true, []string{"docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "cf", "az"}},
	{'p', false, false, []string{"sshpass", "twine", "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"}},
	{'p', true, false, []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mariadb", "mariadb-dump", "7z", "7za", "sshpass"}},
	{'P', false, false, []string{"sqlcmd", "bcp", "zip", "unzip"}},
	{'a', false, false, []string{"redis-cli"}},
	{'w', false, false, []string{"ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldappasswd", "ldapwhoami", "ldapcompare"}},
	{'b', false, false, []string{"curl"}}, // a cookie
	{'u', false, false, []string{"curl"}}, // user:password
}

const passwordFlagLetters = "pPawbu"

// shortFlag matches a one-letter option of passwordFlags at s[i].
func (r *redactor) shortFlag(i int) (start, end int, kind string) {
	s := r.s
	c := s[i+1]
	j := i + 2
	spaced := isBlank(s[j])
	if !spaced && (s[j] == '\n' || s[j] == '\r' || s[j] == '=') {
		return 0, 0, ""
	}
	cmd, login := r.command(i)
	for _, f := range passwordFlags {
		if f.letter != c || f.attached == spaced || f.login && !login || !slices.Contains(f.cmds, cmd) {
			continue
		}
		if spaced {
			j = skipBlanks(s, j)
		}
		start, end, ok := r.argument(j)
		if !ok {
			return 0, 0, ""
		}
		return start, end, r.kindOf(start, end, kindArgument)
	}
	switch {
	case c == 'p' && !spaced && (isQuote(s[j]) || s[j] == '\\'):
		// -p'SECRET' quoted against the letter is a password whatever the
		// command. A port mapping is not quoted that way, and the quote
		// that ends a JSON string after "… -p" holds no password.
		if start, end, ok := r.argument(j); ok && start > j && !portLike(s[start:end]) &&
			namedPassword(s[start:end]) && !strings.ContainsAny(s[start:end], " \t") {
			return start, end, r.kindOf(start, end, kindArgument)
		}
	case c == 'u' && spaced:
		// -u user:password, whatever the command, when the part after the
		// ':' reads as a password rather than a group (-u 1000:1000, -u
		// app:app, -u www-data:www-data).
		j = skipBlanks(s, j)
		e := tokenEnd(s, j)
		if k := strings.IndexByte(s[j:e], ':'); k > 0 {
			if start, end, ok := pairPassword(s, s[j:j+k], j+k+1); ok {
				return start, end, r.kindOf(start, end, kindPassword)
			}
		}
	}
	return 0, 0, ""
}

// portLike reports whether v reads as a port mapping: digits, ':' and '.'.
func portLike(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) && v[i] != ':' && v[i] != '.' {
			return false
		}
	}
	return true
}

// command returns the name of the command whose arguments s[i] is among
// and whether a "login" word comes before i. The command is the last word
// of its segment before i that names one of passwordFlags' commands, so
// that a command in a sentence counts ("I ran curl -u …", "run: mysql
// -p…"); failing that, the first word of the segment, after sudo, env and
// VAR=value prefixes. Either is taken without its folder. A segment starts
// after a line break, one of ; | & ( ` { or the quote that opens a JSON
// string value, whatever the spacing (":"x", ": "x"). It reads the text
// before i as the output has it, replacements included, so that Redact
// finds the same command again in its own output.
func (r *redactor) command(i int) (name string, login bool) {
	t := r.textBefore(i, maxCommandLookBack)
	k := len(t)
	for k > 0 {
		c := t[k-1]
		if c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == '(' || c == '`' || c == '{' ||
			c == '"' && jsonValueStart(t[:k-1]) ||
			c == 'n' && k >= 2 && t[k-2] == '\\' {
			break
		}
		k--
	}
	first, known := true, ""
	for p := k; p < len(t); {
		p = skipBlanks(t, p)
		e := p
		for e < len(t) && !isBlank(t[e]) {
			e++
		}
		w := strings.Trim(t[p:e], `"'\`)
		w = w[strings.LastIndexByte(w, '/')+1:]
		p = e
		if knownCommand(w) {
			known = w
		}
		switch {
		case w == "":
		case first && (w == "sudo" || w == "env" || w == "exec" || w == "command" || w == "time" ||
			strings.IndexByte(w, '=') > 0 || strings.HasPrefix(w, "-")):
		case first:
			name = w
			first = false
		case w == "login":
			login = true
		}
	}
	if known != "" {
		name = known
	}
	return name, login
}

// jsonValueStart reports whether a quote after t opens a JSON string: t
// ends in ':', '[' or ',' and maybe blanks.
func jsonValueStart(t string) bool {
	k := len(t)
	for k > 0 && isBlank(t[k-1]) {
		k--
	}
	return k > 0 && (t[k-1] == ':' || t[k-1] == '[' || t[k-1] == ',')
}

// knownCommand reports whether w names a command of passwordFlags.
func knownCommand(w string) bool {
	if w == "" || !isLetter(w[0]) && !isDigit(w[0]) {
		return false
	}
	for _, f := range passwordFlags {
		if slices.Contains(f.cmds, w) {
			return true
		}
	}
	return false
}

// textBefore returns up to n bytes of the text before s[i] as the output has
// it so far.
func (r *redactor) textBefore(i, n int) string {
	if !r.dirty {
		return r.s[max(0, i-n):i]
	}
	tail := r.s[r.done:i]
	if len(tail) >= n {
		return tail[len(tail)-n:]
	}
	head := r.out.String()
	return head[max(0, len(head)-(n-len(tail))):] + tail
}

// commandIs reports whether s[i] is among the arguments of command name.
func (r *redactor) commandIs(i int, name string) bool {
	cmd, _ := r.command(i)
	return cmd == name
}

// configSet matches a secret set by a configuration command, with the 'g' of
// "config" (or of "configure") at i: "aws configure set
// aws_secret_access_key SECRET", "git config --global github.token SECRET",
// "npm config set //registry.npmjs.org/:_authToken SECRET". The value of the
// first word that names a secret as an assignment key would is replaced,
// when the scan reaches it; nothing matches at i.
func (r *redactor) configSet(i int) {
	s := r.s
	w := i + 1 - len("config")
	if w < r.done || s[w:i+1] != "config" || r.pend.kind != "" {
		return
	}
	if b := r.byteBefore(w); b != 0 && !isBlank(b) {
		return
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
		// KEY=VALUE and key:value are the assignment rule's, which must see
		// them (npm's //registry/:_authToken is a key).
		if word == "" || strings.IndexByte(word, '=') >= 0 ||
			strings.IndexByte(word, ':') >= 0 && !strings.Contains(word, "/:") {
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
			// Replaced when the scan gets there, after the words before it.
			r.pend = span{start, end, r.kindOf(start, end, kindAssignment)}
			break
		}
	}
}

// netrc matches the password of a .netrc entry, "machine HOST login USER
// password SECRET", with the 'g' of login at i. Like configSet, it leaves the
// password pending until the scan reaches it, and never matches at i.
func (r *redactor) netrc(i int) {
	s := r.s
	w := i - len("lo")
	if w < r.done || i+len("gin") > len(s) || s[w:i+len("gin")] != "login" || r.pend.kind != "" {
		return
	}
	if b := r.byteBefore(w); b != 0 && !isBlank(b) {
		return
	}
	p := i + len("gin")
	if p >= len(s) || !isBlank(s[p]) {
		return
	}
	p = skipBlanks(s, p)
	e := p
	for e < len(s) && s[e] > ' ' {
		e++
	}
	// A user replaced already was replaced by a rule that matched before
	// login, which the scan then skipped: so it is in Redact's output too.
	if strings.Contains(s[p:e], marker) {
		return
	}
	user := e
	p = skipBlanks(s, e)
	if user == p || !strings.HasPrefix(s[p:], "password") {
		return
	}
	p += len("password")
	if p >= len(s) || !isBlank(s[p]) {
		return
	}
	if start, end, ok := r.argument(skipBlanks(s, p)); ok {
		r.pend = span{start, end, r.kindOf(start, end, kindAssignment)}
	}
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
	if ok && start == j && slices.Contains(proseWords[:], s[start:end]) {
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
		if e, closed := quotedEnd(s, p, q, esc); closed && !placeholder(s[p:e]) && !strings.Contains(s[p:e], marker) && !cookieName(s[p:e]) {
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

// cookieName reports whether a quoted cookie value is rather the name of a
// cookie, as code declares it (sessionCookie = "baton_session"): a header
// value holds name=value pairs.
func cookieName(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !('a' <= c && c <= 'z') && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// xmlElement matches the text of an element whose name names a secret, with
// the '>' of its start tag at i: <password>SECRET</password>.
func (r *redactor) xmlElement(i int) (start, end int, kind string) {
	s := r.s
	k := i
	for k > r.done && isKeyName(s[k-1]) {
		k--
	}
	if k == i || k == r.done || s[k-1] != '<' || secretKeyKind(s[k:i]) != kindAssignment {
		return 0, 0, ""
	}
	e := i + 1
	for e < len(s) && s[e] != '<' && s[e] != '\n' {
		e++
	}
	if !strings.HasPrefix(s[e:], "</") {
		return 0, 0, ""
	}
	v := strings.TrimSpace(s[i+1 : e])
	if placeholder(v) || strings.Contains(v, marker) {
		return 0, 0, ""
	}
	start = i + 1 + strings.Index(s[i+1:e], v)
	return start, start + len(v), r.kindOf(start, start+len(v), kindAssignment)
}
