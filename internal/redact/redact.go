// Package redact removes secrets and private spans from text before baton
// records it (journal records, logs) or sends it anywhere (issue comments,
// prompts to language models). It owns what counts as a secret; it does not
// decide which text gets redacted, callers do.
//
// Redact removes every <private>…</private> span, tags included (matched
// without regard to ASCII case; an unclosed span runs to the end of the text),
// then replaces each secret with "[REDACTED:<kind>]". The kinds are:
//
//	anthropic     sk-ant-… keys
//	openai        sk-… keys, including sk-proj-…
//	github        ghp_, gho_, ghs_, ghu_, ghr_ tokens and github_pat_… tokens
//	aws           AKIA…/ASIA… access key ids
//	slack         xoxa-, xoxb-, xoxp-, xoxr-, xoxs- tokens and xapp- tokens
//	google        AIza… API keys
//	jwt           JSON Web Tokens eyJ….ey….signature (more segments for JWE)
//	private-key   PEM "-----BEGIN … PRIVATE KEY-----" blocks through their END
//	              line, or to the end of the text when the END line is missing
//	assignment    the value in key=value and key: value where the key names a secret
//	bearer        Authorization header credentials and bare "Bearer <token>"
//	url-password  the password in scheme://user:password@host
//	cookie        the value of a Cookie or Set-Cookie header
//	argument      the argument of an option that takes a secret (--token abc,
//	              docker login -p, redis-cli -a, mysql -pSECRET)
//	password      a password named in prose ("the db password is …",
//	              "パスワードは … です", "login: admin / …"), and the
//	              password of -u user:password (see prose.go)
//	key           a key or token named in prose ("the API key is …",
//	              "APIキーは … です")
//
//	high-entropy  a long random-looking value of no known shape (see entropy.go)
//	<rule id>     a secret found by one of gitleaks' rules, named by its id:
//	              stripe-access-token, gitlab-pat, slack-webhook-url, …
//
// When a value found by the assignment, bearer or url-password rule is
// exactly one of the token shapes above, that token's kind is used instead.
//
// # Two passes
//
// A hand-written scanner finds the kinds above in one pass over the text. A
// second pass looks for the keywords of gitleaks' default rules (brought in
// by go generate, see gitleaks.go), for the words of prose that name a
// secret (prose.go) and for high-entropy values; a rule's
// regular expression is compiled the first time its keyword shows up and
// runs only on the line around it. gitleaks' rules for JWTs, private keys and
// generic key=value secrets are left to the scanner. The passes repeat while
// the second one finds something, so that Redact stays idempotent.
//
// # Thresholds
//
// Token shapes must stand alone: the byte before them is not a letter, digit
// or underscore, so "disk-usage" or "task-1" never start a key.
//
//   - sk-…: the part after "sk-" (after "sk-ant-" for anthropic) is at least
//     20 bytes of [A-Za-z0-9_-], holds a run of 10 letters and digits without
//     '-' or '_', and holds a digit or an upper-case letter. Kebab-case words
//     such as "sk-learn-0-24-release-notes" stay.
//   - gh?_: at least 30 letters and digits after the prefix; github_pat_: at
//     least 30 of [A-Za-z0-9_].
//   - AKIA/ASIA: exactly 16 upper-case letters and digits, then no word byte.
//   - AIza: at least 35 of [A-Za-z0-9_-].
//   - Slack: at least 10 of [A-Za-z0-9-] after the prefix, with a digit.
//   - JWT: a header of at least 10 bytes starting "eyJ", a '.', a payload of at
//     least 10 bytes starting "ey", a '.', and a signature that may be empty.
//   - Bare "Bearer" (any case) followed by spaces and at least 16 bytes of
//     [A-Za-z0-9._~+/=-] holding a digit, or at least 4 upper-case and 4
//     lower-case letters with 2 upper-case pairs. "the bearer of bad news" stays.
//
// An assignment key is the run of [A-Za-z0-9_.-] before '=' or ':' (an
// optional closing quote and spaces may sit between), compared without case.
// It names a secret when it is sig or ends in password, passwd, passphrase,
// secret, token, signature, apikey, api_key, api-key, accesskey,
// access_key, access-key, secretkey, secret_key, secret-key, privatekey,
// private_key or private-key, or when it is "pass" (not "PASS", go test's
// status) or ends in "_pass", "-pass" or ".pass"; or when it is made of
// segments joined by '_', '-' or '.', one of which is secret, token,
// password, passwd, passphrase, apikey or pwd and the last of which does not name a
// property (SECRET_KEY_BASE, GITHUB_TOKEN_RW; not TOKEN_TYPE, SECRET_NAME,
// PASSWORD_MIN_LENGTH); or when its last segment is key and the one before
// does not name a kind of key that is no secret (STRIPE_KEY; not PRIMARY_KEY,
// SORT_KEY, PUBLIC_KEY). A value of a key ending in key that reads as a file
// path (/…, ~/…, ./…) is kept. Keys ending in cookie take the whole header
// value to the end of its line or quoted string, unless the value is quoted
// and made of lower-case letters, digits, '_' and '-' only, which names a
// cookie (sessionCookie = "baton_session"). Keys ending in
// authorization take the bearer rule: a leading scheme word (Bearer, Basic,
// token, …) is kept and the credentials after it are replaced. So
// "tokenizer", "max_tokens", "token_count" and "PWD" are not secret keys.
// The separator may be '=', ':', ":=", "==" or "=>", and spaces or tabs may
// follow it. The key and separator are kept; only the value is replaced.
//
// A quoted value ("…", '…', `…`, or \"…\" inside a JSON string) runs to its
// closing quote on the same line. An unquoted value (or one whose quote does
// not close on its line) runs to whitespace, a quote, one of , ; & ) ] } < >,
// a JSON escape (\n \r \t \u \" \'), or an earlier "[REDACTED:" marker.
// A value is left alone when it is empty, looks like a placeholder (starts
// with $ { % < or "[REDACTED:", or is all '*'), or, unquoted, reads as code:
// null, nil, none, true, false, undefined; a type name (string, str, bytes,
// int, bool, number, any, object); a keyword that starts an expression
// (await, new, typeof, lambda, function); a dotted name such as cfg.Password;
// a call or index such as os.Getenv( or tokens[; a single name that itself
// ends in a secret word, as in "Password: password,". Values are
// single-line, so the body of a YAML block scalar after "password: |" is not
// covered; nor are keys written in other scripts than ASCII (Japanese words
// that name a secret are prose.go's). After a ':' whose key follows a word
// on its line ("a GitHub token: no token in…"), a
// value of lower-case letters only is a word of a sentence and stays.
//
// Secrets passed to commands: the argument after a long option whose name
// ends like a secret key (--token, --password, --api-key, --client-secret,
// --cookie) unless it is another option or a word that follows an option's
// name in a sentence (flag, option, and, the, …); -p after docker, podman,
// nerdctl, buildah, skopeo, helm, oras, crane or cf login and in sshpass; -a
// in redis-cli; -u and --user (user:password) and -b (a cookie) in curl;
// -pSECRET written together in mysql, mysqldump and the other mysql tools;
// and the others listed in passwordFlags; -p'SECRET' quoted against the
// letter, and -u user:password when the password holds a letter and a digit
// or a symbol, after any command. The command is the last word naming one
// of passwordFlags' commands in the text since the last line break, ';',
// '|', '&', '(' or JSON string start (whatever the spacing after the ':'),
// so that a command in a sentence counts ("I ran curl -u …"); failing
// that, the first word of that text, after sudo, env and VAR=value.
// "aws configure set KEY VALUE", "git config KEY VALUE" and the
// like replace the VALUE of the first KEY that names a secret, and so does
// "login USER password SECRET" in .netrc files.
//
// In scheme://user:password@host the password runs from the first ':' after
// "//" to the last '@' before the end of the host part ('/', '?', '#', a quote
// or whitespace); the user is kept.
//
// A replaced span never leaves part of a secret behind: when it reaches into
// a private-key header, it grows to the end of that block.
//
// Matching works on bytes: invalid UTF-8 is copied through unchanged and
// never causes a panic. Time is linear in the length of the text, crafted
// input included. Redact is idempotent: Redact(Redact(s)) == Redact(s).
package redact

import (
	"slices"
	"strings"
)

// Kinds, as they appear in "[REDACTED:<kind>]".
const (
	kindAnthropic   = "anthropic"
	kindOpenAI      = "openai"
	kindGitHub      = "github"
	kindAWS         = "aws"
	kindSlack       = "slack"
	kindGoogle      = "google"
	kindJWT         = "jwt"
	kindPrivateKey  = "private-key"
	kindAssignment  = "assignment"
	kindBearer      = "bearer"
	kindURLPassword = "url-password"
	kindCookie      = "cookie"
	kindArgument    = "argument"
)

// marker starts every replacement.
const marker = "[REDACTED:"

// Minimum lengths; see the package documentation.
const (
	minSKBody      = 20
	minSKAlnumRun  = 10
	minGitHub      = 30
	awsIDLen       = 16
	minGoogle      = 35
	minSlack       = 10
	minJWTPart     = 10
	minBearerToken = 16
	maxSchemeLen   = 16 // shorter than any token shape, so never one of them
)

// Redact returns s with secrets replaced by "[REDACTED:<kind>]" and
// <private>…</private> spans removed. When there is nothing to redact it
// returns s itself without allocating.
func Redact(s string) string {
	if i := indexTag(s, privateOpen); i >= 0 {
		s = stripPrivate(s, i)
	}
	s = scan(s)
	// A replacement can make what is left of a word stand alone (a token
	// glued to a longer run), so the passes repeat until nothing changes,
	// which keeps Redact idempotent. Each round replaces text outside
	// markers, which no rule matches, so the rounds end.
	for range maxRounds {
		t, found := redactFound(s)
		if !found {
			break
		}
		s = scan(t)
	}
	return s
}

const maxRounds = 8

// scan runs the scanner over s.
func scan(s string) string {
	r := redactor{s: s}
	return r.run()
}

// redactFound replaces what gitleaks' rules and the high-entropy check find
// in s, and reports whether they found anything.
func redactFound(s string) (string, bool) {
	var buf [8]span
	spans := find(s, buf[:0])
	if len(spans) == 0 {
		return s, false
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	var out strings.Builder
	out.Grow(len(s))
	done := 0
	for i := 0; i < len(spans); {
		sp := spans[i]
		for i++; i < len(spans) && spans[i].start < sp.end; i++ {
			sp.end = max(sp.end, spans[i].end) // overlapping finds become one
			if spans[i].start == sp.start && namedKind(sp.kind) && spans[i].kind != kindHighEntropy {
				sp.kind = spans[i].kind // a gitleaks rule names it better
			}
		}
		out.WriteString(s[done:sp.start])
		out.WriteString(marker)
		out.WriteString(sp.kind)
		out.WriteByte(']')
		done = sp.end
	}
	out.WriteString(s[done:])
	return out.String(), true
}

// redactor is one pass over s. Text before done has been dealt with: it is
// either copied to out or still identical to s when nothing was replaced.
type redactor struct {
	s     string
	done  int
	dirty bool
	out   strings.Builder

	// The last run found not to hold a key of each shape. The checks only get
	// harder to pass on a suffix of a failed run, so a later candidate inside
	// that run fails too; remembering that keeps crafted input such as
	// "sk-sk-sk-…" linear.
	skMiss, slackMiss, jwtMiss miss

	// pend is a value found ahead of the scan: a URL password found at
	// "://", replaced when the scan reaches the ':' before it, or the value
	// of "config set KEY VALUE", replaced when the scan reaches it. The text
	// before it is scanned first, as any other.
	pend span
}

type span struct {
	start, end int
	kind       string
}

// miss is a run [start, end) in which no token of one shape starts.
type miss struct{ start, end int }

func (m miss) covers(p int) bool { return m.start <= p && p < m.end }

func (r *redactor) run() string {
	s := r.s
	triggers := [4]uint64{triggersLow, triggersHigh} // a bit per byte value, no branches
	for i := 0; i < len(s); {
		stop := len(s)
		if r.pend.kind != "" {
			stop = max(i, r.pend.start)
		}
		for i < stop {
			if c := s[i]; triggers[c>>6]>>(c&63)&1 != 0 {
				break
			}
			i++
		}
		if i == stop && r.pend.kind != "" {
			// The scan reached a value found ahead of it.
			p := r.pend
			r.pend = span{}
			if p.start >= r.done {
				r.emit(p.start, p.end, p.kind)
				i = r.done
			}
			continue
		}
		if i >= len(s) {
			break
		}
		start, end, kind := r.match(i)
		if kind == "" {
			i++
			continue
		}
		if r.pend.kind != "" && end >= r.pend.start {
			// The match reaches the pending password: cover all of it.
			end = max(end, r.pend.end)
			r.pend = span{}
		}
		r.emit(start, end, kind)
		i = r.done
	}
	if !r.dirty {
		return s
	}
	r.out.WriteString(s[r.done:])
	return r.out.String()
}

// Trigger bytes: every rule is tried only at one of these. sk- is found at its
// 'k' and eyJ at its 'J', which are rarer in text than 's' and 'e'.
const (
	triggersLow  uint64 = 1<<'-' | 1<<':' | 1<<'=' | 1<<'>'
	triggersHigh uint64 = 1<<('A'-64) | 1<<('B'-64) | 1<<('J'-64) |
		1<<('b'-64) | 1<<('g'-64) | 1<<('k'-64) | 1<<('x'-64)
)

// match tries the rules that can start at the trigger byte s[i]. It returns
// the span to replace and its kind, or an empty kind.
func (r *redactor) match(i int) (start, end int, kind string) {
	s := r.s
	switch s[i] {
	case 'k':
		if i > r.done && s[i-1] == 's' {
			end, kind = r.token(i - 1)
			return i - 1, end, kind
		}
	case 'J':
		if i >= r.done+2 && s[i-2] == 'e' && s[i-1] == 'y' {
			end, kind = r.token(i - 2)
			return i - 2, end, kind
		}
	case 'g':
		r.configSet(i)
		r.netrc(i)
		end, kind = r.token(i)
		return i, end, kind
	case 'A', 'x':
		end, kind = r.token(i)
		return i, end, kind
	case 'B', 'b':
		return r.bearer(i)
	case '-':
		if end := r.pemEnd(i); end > 0 {
			return i, end, kindPrivateKey
		}
		return r.flag(i)
	case '>':
		if i > r.done && isLetter(s[i-1]) {
			return r.xmlElement(i)
		}
	case ':', '=':
		if p := r.pend; p.kind != "" && i+1 == p.start {
			r.pend = span{}
			return p.start, p.end, p.kind
		}
		return r.assignment(i)
	}
	return 0, 0, ""
}

// emit replaces s[start:end] and moves done to its end. A replaced span that
// reaches into a private-key header grows to cover the whole block, so no
// part of the key is left behind.
func (r *redactor) emit(start, end int, kind string) {
	if kind != kindPrivateKey {
		end = r.coverPEM(start, end)
	}
	if !r.dirty {
		r.dirty = true
		r.out.Grow(len(r.s))
	}
	r.out.WriteString(r.s[r.done:start])
	r.out.WriteString(marker)
	r.out.WriteString(kind)
	r.out.WriteByte(']')
	r.done = end
}

// byteBefore returns the byte before s[i] as the output has it (the end of
// a replacement when i is where one ended), or 0 at the start.
func (r *redactor) byteBefore(i int) byte {
	switch {
	case i > r.done:
		return r.s[i-1]
	case r.dirty:
		return ']'
	case i > 0:
		return r.s[i-1]
	}
	return 0
}

// boundary reports whether a token may start at p: at the start of the
// unhandled text (which follows a replacement or the start of s) or after a
// byte that is not part of a word.
func (r *redactor) boundary(p int) bool {
	return p == r.done || !isWord(r.s[p-1])
}

// kindOf returns the kind of the token that spans exactly s[start:end], or
// fallback.
func (r *redactor) kindOf(start, end int, fallback string) string {
	if e, k := r.token(start); k != "" && e == end {
		return k
	}
	return fallback
}

// token matches a token shape starting at p and returns its end and kind.
func (r *redactor) token(p int) (int, string) {
	s := r.s
	if p >= len(s) || !r.boundary(p) {
		return 0, ""
	}
	rest := s[p:]
	switch s[p] {
	case 's':
		if strings.HasPrefix(rest, "sk-") {
			return r.skKey(p)
		}
	case 'g':
		if len(rest) > 4 && rest[1] == 'h' && rest[3] == '_' && strings.IndexByte("pousr", rest[2]) >= 0 {
			if e := runEnd(s, p+4, isAlnum); e-(p+4) >= minGitHub {
				return e, kindGitHub
			}
		} else if strings.HasPrefix(rest, "github_pat_") {
			if e := runEnd(s, p+11, isWord); e-(p+11) >= minGitHub {
				return e, kindGitHub
			}
		}
	case 'A':
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			e := p + 4 + awsIDLen
			if e <= len(s) && runEnd(s[:e], p+4, isUpperAlnum) == e && (e == len(s) || !isWord(s[e])) {
				return e, kindAWS
			}
		} else if strings.HasPrefix(rest, "AIza") {
			if e := runEnd(s, p+4, isKeyByte); e-(p+4) >= minGoogle {
				return e, kindGoogle
			}
		}
	case 'x':
		if len(rest) > 5 && rest[1] == 'o' && rest[2] == 'x' && rest[4] == '-' && strings.IndexByte("abprs", rest[3]) >= 0 ||
			strings.HasPrefix(rest, "xapp-") {
			return r.slackToken(p)
		}
	case 'e':
		if strings.HasPrefix(rest, "eyJ") {
			return r.jwt(p)
		}
	}
	return 0, ""
}

// skKey matches sk-… (openai) and sk-ant-… (anthropic) keys at p.
func (r *redactor) skKey(p int) (int, string) {
	if r.skMiss.covers(p) {
		return 0, ""
	}
	s := r.s
	body := p + len("sk-")
	e := runEnd(s, body, isKeyByte)
	kind := kindOpenAI
	if strings.HasPrefix(s[body:e], "ant-") {
		kind = kindAnthropic
		body += len("ant-")
	}
	if !keyLike(s[body:e]) {
		r.skMiss = miss{p, e}
		return 0, ""
	}
	return e, kind
}

// keyLike reports whether the body of an sk- key looks generated rather than
// written. Every condition still fails on any suffix of a failing body.
func keyLike(b string) bool {
	if len(b) < minSKBody {
		return false
	}
	run, longest := 0, 0
	digitOrUpper := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !isAlnum(c) {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
		if isDigit(c) || isUpper(c) {
			digitOrUpper = true
		}
	}
	return longest >= minSKAlnumRun && digitOrUpper
}

func (r *redactor) slackToken(p int) (int, string) {
	if r.slackMiss.covers(p) {
		return 0, ""
	}
	s := r.s
	body := p + len("xoxb-")
	e := runEnd(s, body, func(c byte) bool { return isAlnum(c) || c == '-' })
	if e-body >= minSlack && strings.ContainsAny(s[body:e], "0123456789") {
		return e, kindSlack
	}
	r.slackMiss = miss{p, e}
	return 0, ""
}

// jwt matches header.payload.signature (and further JWE segments) at p.
func (r *redactor) jwt(p int) (int, string) {
	if r.jwtMiss.covers(p) {
		return 0, ""
	}
	s := r.s
	h := runEnd(s, p, isKeyByte)
	if h-p >= minJWTPart && h < len(s) && s[h] == '.' {
		q := h + 1
		pe := runEnd(s, q, isKeyByte)
		if pe-q >= minJWTPart && strings.HasPrefix(s[q:], "ey") && pe < len(s) && s[pe] == '.' {
			e := runEnd(s, pe+1, isKeyByte)
			for e+1 < len(s) && s[e] == '.' && isKeyByte(s[e+1]) {
				e = runEnd(s, e+1, isKeyByte)
			}
			return e, kindJWT
		}
	}
	r.jwtMiss = miss{p, h}
	return 0, ""
}

// bearer matches "Bearer <token>" at i and returns the token's span.
func (r *redactor) bearer(i int) (start, end int, kind string) {
	s := r.s
	if !r.boundary(i) || !hasPrefixFold(s[i:], "bearer") {
		return 0, 0, ""
	}
	j := i + len("bearer")
	k := skipBlanks(s, j)
	if k == j {
		return 0, 0, ""
	}
	e := runEnd(s, k, isB64Token)
	if !tokenLike(s[k:e]) {
		return 0, 0, ""
	}
	return k, e, r.kindOf(k, e, kindBearer)
}

// tokenLike reports whether a bare bearer token looks generated. Like
// keyLike, every condition still fails on a prefix of a failing token.
func tokenLike(t string) bool {
	if len(t) < minBearerToken {
		return false
	}
	upper, lower, upperPairs := 0, 0, 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case isDigit(c):
			return true
		case isUpper(c):
			upper++
			if i > 0 && isUpper(t[i-1]) {
				upperPairs++
			}
		case 'a' <= c && c <= 'z':
			lower++
		}
	}
	return upper >= 4 && lower >= 4 && upperPairs >= 2
}

const (
	pemBegin    = "-----BEGIN "
	pemEndTag   = "-----END "
	pemDashes   = "-----"
	maxPEMLabel = 64
)

// pemEnd returns the end of the private-key block whose BEGIN line starts at
// i, or 0 when no such block starts there. A block without an END line runs to
// the end of s.
func (r *redactor) pemEnd(i int) int {
	s := r.s
	if !strings.HasPrefix(s[i:], pemBegin) {
		return 0
	}
	e, ok := privateKeyLabel(s, i+len(pemBegin))
	if !ok {
		return 0
	}
	for k := e; ; {
		j := strings.Index(s[k:], pemEndTag)
		if j < 0 {
			return len(s)
		}
		k += j + len(pemEndTag)
		if e, ok := privateKeyLabel(s, k); ok {
			// The closing dashes may open the next block at once.
			if strings.HasPrefix(s[e-len(pemDashes):], pemBegin) {
				if next, ok := privateKeyLabel(s, e-len(pemDashes)+len(pemBegin)); ok {
					k = next
					continue
				}
			}
			return e
		}
	}
}

// privateKeyLabel reads a label such as "RSA PRIVATE KEY-----" at l and
// returns the end of its dashes, and whether it names a private key.
func privateKeyLabel(s string, l int) (int, bool) {
	e := l
	for e < len(s) && e-l < maxPEMLabel && (isUpperAlnum(s[e]) || s[e] == ' ') {
		e++
	}
	label := s[l:e]
	if !strings.HasPrefix(s[e:], pemDashes) ||
		!strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return 0, false
	}
	return e + len(pemDashes), true
}

// coverPEM returns end, or the end of a private-key block whose BEGIN line
// starts inside s[start:end] when that reaches further.
func (r *redactor) coverPEM(start, end int) int {
	s := r.s
	window := min(len(s), end+len(pemBegin)-1)
	for k := start; k < window; {
		j := strings.Index(s[k:window], pemBegin)
		if j < 0 {
			break
		}
		if e := r.pemEnd(k + j); e > end {
			return e
		}
		k += j + 1
	}
	return end
}

// assignment matches key=value and key: value at the separator s[i] when the
// key names a secret, and scheme://user:password@host at "://".
func (r *redactor) assignment(i int) (start, end int, kind string) {
	s := r.s
	if s[i] == ':' {
		if strings.HasPrefix(s[i+1:], "//") {
			return r.urlPassword(i)
		}
		if i+1 < len(s) && s[i+1] == ':' || i > 0 && s[i-1] == ':' {
			return 0, 0, "" // a scope operator such as Token::new
		}
	}
	k := i
	for k > r.done && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k > r.done && isQuote(s[k-1]) {
		k--
		if k > r.done && s[k-1] == '\\' {
			k--
		}
	}
	keyEnd := k
	if k == r.done || !isKeyName(s[k-1]) {
		return 0, 0, ""
	}
	for k > r.done && isKeyName(s[k-1]) {
		k--
	}
	key := s[k:keyEnd]
	kind = secretKeyKind(key)
	if kind == "" && r.spacedKey(k, key) {
		kind = kindAssignment
	}
	if kind == "" {
		return 0, 0, ""
	}
	j := i + 1
	if j < len(s) && (s[j] == '=' || s[j] == '>') {
		j++
	}
	j = skipBlanks(s, j)
	var ok bool
	switch kind {
	case kindBearer:
		start, end, ok = r.credentials(j)
	case kindCookie:
		start, end, ok = r.header(j)
	default:
		// "a GitHub token: none here" is a sentence, not a setting: after
		// a key that follows a word on its line, a ':' and a lower-case
		// word are left alone.
		prose := s[i] == ':' && k >= 1 && s[k-1] == ' ' && isAlnum(r.byteBefore(k-1))
		start, end, ok = r.value(j, prose)
		if ok && hasSuffixFold(key, "key") && pathLike(s[start:end]) {
			ok = false // SSH_KEY=~/.ssh/id_ed25519 names a file
		}
	}
	if !ok {
		return 0, 0, ""
	}
	return start, end, r.kindOf(start, end, kind)
}

// secretKeyKind returns the kind for a value assigned to key, or "" when key
// does not name a secret.
func secretKeyKind(key string) string {
	switch {
	case hasSuffixFold(key, "password"), hasSuffixFold(key, "passwd"),
		hasSuffixFold(key, "passphrase"), hasSuffixFold(key, "secret"),
		hasSuffixFold(key, "token"), hasSuffixFold(key, "signature"),
		len(key) == 3 && hasPrefixFold(key, "sig"):
		// A signature (X-Amz-Signature=, an Azure SAS sig=) opens a
		// signed URL to whoever has it.
		return kindAssignment
	case hasSuffixFold(key, "authorization"):
		return kindBearer
	case hasSuffixFold(key, "pass"):
		// PASS alone is go test's "--- PASS: TestX".
		if n := len(key) - len("pass"); n == 0 && key != "PASS" || n > 0 && strings.IndexByte("-_.", key[n-1]) >= 0 {
			return kindAssignment
		}
	case hasSuffixFold(key, "key"):
		k := key[:len(key)-len("key")]
		if k != "" && (k[len(k)-1] == '_' || k[len(k)-1] == '-') {
			k = k[:len(k)-1]
		}
		if hasSuffixFold(k, "api") || hasSuffixFold(k, "access") ||
			hasSuffixFold(k, "secret") || hasSuffixFold(k, "private") {
			return kindAssignment
		}
	case hasSuffixFold(key, "cookie"):
		return kindCookie
	}
	if segmentedSecret(key) {
		return kindAssignment
	}
	return ""
}

// spacedKey reports whether key, starting at k, is the last word of a
// secret key written with a space: "API key", "access token", "secret key".
func (r *redactor) spacedKey(k int, key string) bool {
	s := r.s
	if k < r.done+2 || s[k-1] != ' ' || !oneOfFold(key, spacedKeyLast[:]) {
		return false
	}
	w := k - 1
	for w > r.done && isLetter(s[w-1]) {
		w--
	}
	return oneOfFold(s[w:k-1], spacedKeyFirst[:])
}

var (
	spacedKeyFirst = [...]string{"api", "access", "secret", "private", "license", "auth", "bearer", "session", "refresh", "bot"}
	spacedKeyLast  = [...]string{"key", "token"}
)

// segmentedSecret reports whether a key made of segments joined by '_', '-'
// or '.' names a secret: a segment is secret, token, password, passwd,
// passphrase or apikey and the last segment does not name a property of it
// (SECRET_KEY_BASE, GITHUB_TOKEN_RW but not TOKEN_TYPE or SECRET_NAME); or
// the last segment is key and the one before it does not name a kind of key
// that is no secret (STRIPE_KEY but not PRIMARY_KEY or SORT_KEY).
func segmentedSecret(key string) bool {
	var prev, last string
	secret, n := false, 0
	for p := 0; p < len(key); {
		e := p
		for e < len(key) && key[e] != '_' && key[e] != '-' && key[e] != '.' {
			e++
		}
		if e > p {
			n++
			prev, last = last, key[p:e]
			if !secret && len(last) >= len("pwd") && oneOfFold(last, secretSegments[:]) {
				secret = true
			}
		}
		p = e + 1
	}
	switch {
	case n < 2:
		return false
	case secret && !oneOfFold(last, propertySegments[:]):
		return true
	case len(last) == 3 && hasPrefixFold(last, "key"):
		return !oneOfFold(prev, publicKeyKinds[:])
	}
	return false
}

var (
	secretSegments = [...]string{"secret", "token", "password", "passwd", "passphrase", "apikey", "pwd"}
	// Segments that name a property of a secret rather than the secret.
	propertySegments = [...]string{
		"id", "ids", "file", "path", "dir", "url", "uri", "endpoint", "host", "name", "names",
		"length", "len", "size", "count", "type", "kind", "format", "env", "var", "field",
		"header", "prefix", "suffix", "version", "expiry", "expires", "expiration", "ttl",
		"timeout", "lifetime", "age", "limit", "max", "min", "scope", "scopes", "mode",
		"algorithm", "alg", "location", "ref", "arn", "helper", "provider", "source", "store",
		"storage", "manager", "enabled", "disabled", "required", "rotation", "hint", "label",
		"policy", "command", "cmd", "stdin", "prompt", "regex", "pattern", "placeholder",
	}
	// Kinds of key that are not secrets (after gitleaks' generic-api-key allowlist).
	publicKeyKinds = [...]string{
		"primary", "sort", "foreign", "public", "pub", "partition", "cache", "idempotency",
		"hash", "range", "row", "unique", "index", "idx", "lookup", "map", "object", "s3",
		"group", "routing", "shard", "dedup", "dedupe", "message", "event", "field", "column",
		"table", "hot", "bucket", "natural", "schema", "sequence", "composite", "i18n",
		"translation", "label", "secondary", "cluster", "dict", "react", "list", "item",
	}
)

// oneOfFold reports whether s is one of words, ignoring ASCII case; words
// are lower-case.
func oneOfFold(s string, words []string) bool {
	for _, w := range words {
		if len(s) == len(w) && hasPrefixFold(s, w) {
			return true
		}
	}
	return false
}

// pathLike reports whether a value reads as a file path.
func pathLike(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") ||
		strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
}

// value finds the value of an assignment starting at j (after the separator
// and blanks). With prose, an unquoted value of lower-case letters only is
// taken for a word of a sentence and left alone.
func (r *redactor) value(j int, prose bool) (start, end int, ok bool) {
	s := r.s
	if j >= len(s) {
		return 0, 0, false
	}
	p, q, esc := openQuote(s, j)
	if q != 0 {
		// A replacement inside the quotes may have joined lines (a key block
		// is multi-line), so such a quote is read as if it did not close.
		if e, closed := quotedEnd(s, p, q, esc); closed && !strings.Contains(s[p:e], marker) {
			if placeholder(s[p:e]) {
				return 0, 0, false
			}
			return p, e, true
		}
		j = p
	}
	e, ok := unquoted(s, j, true)
	if ok && (prose && lowerWord(s[j:e]) || byteCount(s[j:e], s[e:])) {
		return 0, 0, false
	}
	return j, e, ok
}

// byteCount reports whether a value and the text after it read as a size,
// as kubectl describe secret prints for each key: "password:  24 bytes".
func byteCount(v, after string) bool {
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return strings.HasPrefix(after, " bytes")
}

// lowerWord reports whether v is made of lower-case ASCII letters only.
func lowerWord(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 'a' || v[i] > 'z' {
			return false
		}
	}
	return v != ""
}

// credentials finds the credentials in an Authorization value starting at j:
// what follows the scheme word, or the whole value when there is no scheme.
func (r *redactor) credentials(j int) (start, end int, ok bool) {
	s := r.s
	if j >= len(s) {
		return 0, 0, false
	}
	p, _, _ := openQuote(s, j)
	w := p
	for w < len(s) && isLetter(s[w]) {
		w++
	}
	// A scheme word is short; a longer run of letters may be a token itself.
	if c := skipBlanks(s, w); w > p && w-p <= maxSchemeLen && c > w {
		e, ok := unquoted(s, c, false)
		return c, e, ok
	}
	e, ok := unquoted(s, p, false)
	if !ok || isKeyword(s[p:e]) || isAuthScheme(s[p:e]) {
		return 0, 0, false
	}
	return p, e, true
}

// unquoted finds the end of an unquoted value starting at j and reports
// whether it is to be replaced; with code, values that read as source code
// are not. Rejections are decided from the first bytes where possible,
// before the end is looked for: a rejected value can hold the separator of
// the next assignment, and scanning it again for each of them would make
// crafted input quadratic.
func unquoted(s string, j int, code bool) (end int, ok bool) {
	if j >= len(s) || placeholderStart(s[j:]) || code && callOrIndex(s[j:]) {
		return 0, false
	}
	e := unquotedEnd(s, j)
	v := s[j:e]
	if v == "" || allStars(v) || code && readsAsCode(v) {
		return 0, false
	}
	return e, true
}

func isAuthScheme(v string) bool {
	return oneOfFold(v, []string{"bearer", "basic", "token", "digest"})
}

// urlPassword looks for a password in scheme://user:password@host, with the
// "://" at i. It never matches at i: a password it finds becomes pending and
// is replaced when the scan reaches the ':' before it, after the user part
// has been scanned for tokens of its own.
func (r *redactor) urlPassword(i int) (start, end int, kind string) {
	s := r.s
	a := i + len("://")
	at := -1
	for k := a; k < len(s); k++ {
		c := s[k]
		if c <= ' ' || strings.IndexByte("/?#\"'`\\<>", c) >= 0 {
			break
		}
		if c == '@' {
			at = k
		}
	}
	if at < 0 {
		return 0, 0, ""
	}
	// User info that holds a replacement was dealt with before (a token in
	// the user part, or the password itself).
	userinfo := s[a:at]
	colon := strings.IndexByte(userinfo, ':')
	if colon < 0 || strings.Contains(userinfo, marker) || placeholder(userinfo[colon+1:]) {
		return 0, 0, ""
	}
	start = a + colon + 1
	r.pend = span{start, at, r.kindOf(start, at, kindURLPassword)}
	return 0, 0, ""
}

// openQuote looks for an opening quote at j, plain or backslash-escaped as
// inside a JSON string. It returns where the quoted text starts, the quote
// byte (0 when there is none) and whether it was escaped.
func openQuote(s string, j int) (p int, q byte, esc bool) {
	switch {
	case isQuote(s[j]):
		return j + 1, s[j], false
	case s[j] == '\\' && j+1 < len(s) && isQuote(s[j+1]):
		return j + 2, s[j+1], true
	}
	return j, 0, false
}

// quotedEnd finds the closing quote q of text starting at p on the same line.
// With esc, the quotes are \" and a line ends at a literal newline or \n.
func quotedEnd(s string, p int, q byte, esc bool) (int, bool) {
	for k := p; k < len(s); k++ {
		switch s[k] {
		case q:
			if !esc {
				return k, true
			}
		case '\n', '\r':
			return 0, false
		case '\\':
			if !esc {
				k++ // the escaped byte cannot close the quote
				continue
			}
			if k+1 < len(s) {
				switch s[k+1] {
				case q:
					return k, true
				case 'n', 'r':
					return 0, false
				case '\\':
					if k+3 < len(s) && s[k+2] == '\\' && s[k+3] == q {
						k += 3 // an escaped quote one level down
						continue
					}
				}
			}
			k++
		}
	}
	return 0, false
}

// unquotedEnd returns where an unquoted value starting at j ends.
func unquotedEnd(s string, j int) int {
	for k := j; k < len(s); k++ {
		switch s[k] {
		case ' ', '\t', '\n', '\r', '\v', '\f', '"', '\'', '`', ',', ';', '&', ')', ']', '}', '<', '>':
			return k
		case '\\':
			if k+1 < len(s) && strings.IndexByte(`nrtu"'`, s[k+1]) >= 0 {
				return k
			}
		case '[':
			if strings.HasPrefix(s[k:], marker) {
				return k
			}
		}
	}
	return len(s)
}

// placeholder reports whether a value is empty, a template or variable
// reference, a mask, or an earlier replacement.
func placeholder(v string) bool {
	return v == "" || placeholderStart(v) || allStars(v)
}

// placeholderStart reports whether the text at the start of a value makes
// it a template or variable reference ($X, ${X}, {{ x }}, %s, <your-key>) or
// an earlier replacement.
func placeholderStart(v string) bool {
	return v != "" && strings.IndexByte("${%<", v[0]) >= 0 || strings.HasPrefix(v, marker)
}

// allStars reports whether v is a mask: all '*', or a prefix and at least
// six '*' as gh auth status prints a token (gho_******…).
func allStars(v string) bool {
	return v != "" && strings.Trim(v, "*") == "" || strings.HasSuffix(v, "******") && !strings.Contains(v[:len(v)-6], marker)
}

// callOrIndex reports whether a value starts with a call or an index
// expression such as os.Getenv( or tokens[.
func callOrIndex(v string) bool {
	n, _ := identPath(v)
	return n > 0 && n < len(v) && (v[n] == '(' || v[n] == '[' && !strings.HasPrefix(v[n:], marker))
}

// readsAsCode reports whether a whole unquoted value is more likely an
// expression in source code than a literal secret: a keyword or type name, a
// dotted name, or a name that itself ends in a secret word.
func readsAsCode(v string) bool {
	if isKeyword(v) {
		return true
	}
	n, dotted := identPath(v)
	return n == len(v) && (dotted && !strings.ContainsAny(v, "0123456789") || secretKeyKind(v) != "")
}

// identPath returns the length of the dotted name at the start of v
// (a.b.c, possibly ending in '.') and whether it has a dot.
func identPath(v string) (n int, dotted bool) {
	for {
		if n >= len(v) || !isLetter(v[n]) && v[n] != '_' {
			return n, dotted
		}
		for n < len(v) && isWord(v[n]) {
			n++
		}
		if n >= len(v) || v[n] != '.' {
			return n, dotted
		}
		n++
		dotted = true
	}
}

// isKeyword reports whether v is a literal, type name or keyword that reads
// as code after "=" or ":".
func isKeyword(v string) bool {
	if len(v) > len("undefined") {
		return false
	}
	return oneOfFold(v, []string{
		"null", "nil", "none", "true", "false", "undefined",
		"string", "str", "bytes", "int", "bool", "number", "any", "object",
		"await", "new", "typeof", "lambda", "function",
	})
}

func skipBlanks(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j
}

// runEnd returns the end of the run of bytes from j on that satisfy in.
func runEnd(s string, j int, in func(byte) bool) int {
	for j < len(s) && in(s[j]) {
		j++
	}
	return j
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isUpper(c byte) bool      { return 'A' <= c && c <= 'Z' }
func isLetter(c byte) bool     { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isAlnum(c byte) bool      { return isLetter(c) || isDigit(c) }
func isUpperAlnum(c byte) bool { return isUpper(c) || isDigit(c) }
func isWord(c byte) bool       { return isAlnum(c) || c == '_' }
func isKeyByte(c byte) bool    { return isWord(c) || c == '-' }
func isKeyName(c byte) bool    { return isKeyByte(c) || c == '.' }
func isQuote(c byte) bool      { return c == '"' || c == '\'' || c == '`' }

// isB64Token reports whether c may appear in an RFC 6750 bearer token.
func isB64Token(c byte) bool {
	return isKeyByte(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '='
}

func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case;
// prefix is lower-case.
func hasPrefixFold[T string | []byte](s T, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold reports whether s ends with suffix, ignoring ASCII case;
// suffix is lower-case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && hasPrefixFold(s[len(s)-len(suffix):], suffix)
}
