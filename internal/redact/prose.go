package redact

import "strings"

// Secrets named in a sentence rather than set: "the db password is
// Tr0ub4dor&3xyzQ", "PW: Qw3rty!Zx", "login: admin / P@ssw0rd!2024", "the
// API key is 8f14e45f…", "パスワードは Tr0ub4dor&3xyzQ です", "APIキーは … です".
//
// A naming word (password, passwd, passphrase, passcode, pw, pwd, secret;
// key, token; login, log in, logon, sign in, credentials, creds; and in
// Japanese パスワード, パスフレーズ, パスコード, 暗証番号, シークレット; キー,
// トークン, 鍵; ログイン, 認証情報) introduces the value that follows it:
//
//   - after a separator (: = => -> and the full-width ： ＝), unless the
//     word is an assignment key (password: x is the assignment rule's);
//   - after a verb (is, was, are, becomes, 's, and "to" as in "set the
//     password to …"), past fillers such as "now", "still" or "changed to",
//     and past a short phrase that starts with a preposition or a pronoun
//     ("the password for the wifi is …", "the password you need is …");
//   - in Japanese, after a particle (は, が, を, も) or a separator, or past a
//     few words of Japanese to the first ASCII word ("パスワードを聞かれたら
//     … と入力");
//   - or right after the word itself ("use the passphrase …").
//
// What the value must look like depends on the word and on how directly it
// follows. After a separator or a verb, a password is at least 6 bytes and
// holds a digit or a symbol (or is all digits); right after the word, or
// past Japanese words, it is at least 8 bytes and mixes three of lower-case,
// upper-case, digits and symbols. A key or token is at least 16 bytes of
// [A-Za-z0-9+/=_.~-] with a digit, whatever way it follows, and "key"
// after a word such as primary, sort or cache names no secret. A quoted
// value (in ASCII or Japanese quotes) is a password unless it is a single
// lower-case word. None of them is a path, a URL, a version, code (a
// dotted name, a call) or the name of a password manager.
//
// After a login word, the value is the password of the first user /
// password (or user/password, user:password) pair among the next few words:
// "login: admin / …", "log in as deploy / …", "ログイン情報は user01 / … です".
// The password must hold a letter and a digit or a symbol, so "login /
// logout buttons" and "login at 10:30" stay.
//
// These are found in the second pass, with gitleaks' rules, at the start
// of each word: the scanner has replaced what it knows by then, and a
// value that runs into one of its replacements was longer before and is
// left alone, so Redact finds in its own output what it found the first
// time.

// Kinds of the values named in prose.
const (
	kindPassword = "password"
	kindKey      = "key"
)

// namedKind reports whether kind is one of a value named in prose.
func namedKind(kind string) bool { return kind == kindPassword || kind == kindKey }

type namingFamily uint8

const (
	namesPassword namingFamily = iota + 1
	namesKey
	namesLogin
)

// namingWord is a word that names a secret.
type namingWord struct {
	text string
	fam  namingFamily
}

// English naming words, lower-case.
var namingWords = [...]namingWord{
	{"password", namesPassword}, {"passwd", namesPassword}, {"passphrase", namesPassword},
	{"passcode", namesPassword}, {"pwd", namesPassword}, {"pw", namesPassword},
	{"secret", namesPassword},
	{"credentials", namesLogin}, {"creds", namesLogin},
	{"token", namesKey}, {"key", namesKey},
	{"login", namesLogin}, {"logon", namesLogin}, {"log in", namesLogin}, {"sign in", namesLogin},
}

// Japanese naming words; find looks for them at the last byte of their
// first character (namingJaLast).
var namingWordsJa = [...]namingWord{
	{"パスワード", namesPassword}, {"パスフレーズ", namesPassword}, {"パスコード", namesPassword},
	{"暗証番号", namesPassword}, {"シークレット", namesPassword},
	{"キー", namesKey}, {"トークン", namesKey}, {"鍵", namesKey},
	{"ログイン", namesLogin}, {"認証情報", namesLogin},
}

// namingJaLast has a bit for the last byte of the first character of each
// Japanese naming word: パ, 暗, シ, キ and ロ, ト, 鍵, 認 (all 0x80 or more).
const namingJaLast uint64 = 1<<(0x88-0x80) | 1<<(0x8D-0x80) | 1<<(0x91-0x80) | 1<<(0x97-0x80) |
	1<<(0xAD-0x80) | 1<<(0xB5-0x80) | 1<<(0xB7-0x80)

// namingPairs has bit (a-'a')*26+(b-'a') set when an English naming word
// starts with the lower-case letters a b: pa, pw, se, si, cr, to, ke, lo.
// find tests it at each word.
var namingPairs = [11]uint64{0x0, 0x20, 0x0, 0x0, 0x100000000100, 0x0, 0x10000040, 0x1000000011000000, 0x0, 0x0, 0x0}

// namingStart reports whether an English naming word may start at k, by
// its first three letters: pas, pw, sec, cre, tok, key, log, sig. find
// tests it after namingPair, which is quicker, before it calls named.
func namingStart(s string, k int) bool {
	if k+2 >= len(s) {
		return false
	}
	a, b, c := lowerASCII[s[k]], lowerASCII[s[k+1]], lowerASCII[s[k+2]]
	switch a {
	case 'p':
		return b == 'w' || b == 'a' && c == 's'
	case 's':
		return b == 'e' && c == 'c' || b == 'i' && c == 'g'
	case 'c':
		return b == 'r' && c == 'e'
	case 't':
		return b == 'o' && c == 'k'
	case 'k':
		return b == 'e' && c == 'y'
	case 'l':
		return b == 'o' && c == 'g'
	}
	return false
}

// namingPair reports whether an English naming word may start with the
// bytes a b.
func namingPair(a, b byte) bool {
	a, b = lowerASCII[a]-'a', lowerASCII[b]-'a'
	p := int(a)*26 + int(b)
	return a < 26 && b < 26 && namingPairs[p>>6]>>(p&63)&1 != 0
}

const (
	// A naming word reaches its value across at most this many words.
	maxNamingWords = 6
	// Japanese words skipped between a naming word and its value.
	maxJapaneseGap = 36
	// A value or a login pair is looked for within this many bytes.
	maxNamedSpan = 256

	minNamedPassword = 6
	minBarePassword  = 8
	minNamedKey      = 16
)

var (
	namingVerbs        = [...]string{"is", "was", "are", "becomes", "became"}
	namingFillers      = [...]string{"now", "still", "currently", "just", "actually", "set", "changed", "reset", "updated", "to"}
	namingPrepositions = [...]string{"for", "of", "on", "at", "in", "from"}
	namingPronouns     = [...]string{"i", "you", "we", "they", "he", "she"}
	passwordManagers   = [...]string{"1password", "lastpass", "bitwarden", "keepass", "keepassxc", "keychain", "dashlane", "vault"}
	japaneseParticles  = [...]string{"は", "が", "を", "も", "：", "＝", ":", "="}
	japaneseQuotes     = [...][2]string{{"「", "」"}, {"『", "』"}, {"“", "”"}}
)

// named appends to spans the secret named by a naming word at k, which
// starts a word (English) or a character (ja); find calls it where
// namingPair and namingStart, or namingJaLast, say one may start.
func named(s string, k int, ja bool, spans []span) []span {
	e, fam, inName := namingWordAt(s, k, ja)
	if fam == 0 {
		return spans
	}
	var start, end int
	var ok bool
	switch {
	case fam == namesLogin:
		start, end, ok = loginPair(s, e)
	case ja:
		start, end, ok = namedJa(s, e, fam)
	default:
		start, end, ok = namedEn(s, e, fam, inName)
	}
	if !ok {
		return spans
	}
	kind := kindPassword
	if fam == namesKey {
		kind = kindKey
	}
	return append(spans, span{start, end, kind})
}

// namingWordAt returns the end and family of the naming word at k, and
// whether it ends a longer name (DB_PASSWORD, $POSTGRES_PASSWORD: a verb
// or a separator must then come before its value); a family of 0 when there
// is none. An English word stands alone: no letter or digit before it, and
// none of [A-Za-z0-9_-] after it (password-reset, keyboard, token_count).
func namingWordAt(s string, k int, ja bool) (end int, fam namingFamily, inName bool) {
	if ja {
		for _, w := range namingWordsJa {
			if w.text[2] == s[k+2] && w.text[1] == s[k+1] && strings.HasPrefix(s[k:], w.text) {
				return k + len(w.text), w.fam, false
			}
		}
		return 0, 0, false
	}
	var b byte
	if k > 0 {
		b = s[k-1]
	}
	if isAlnum(b) {
		return 0, 0, false
	}
	for _, w := range namingWords {
		if w.text[0] != lowerASCII[s[k]] || !hasPrefixFold(s[k:], w.text) {
			continue
		}
		e := k + len(w.text)
		if e < len(s) && isKeyByte(s[e]) {
			continue // pw in pwd, key in keys
		}
		if w.text == "key" && oneOfFold(wordBefore(s, k), publicKeyKinds[:]) {
			return 0, 0, false // the primary key is id
		}
		return e, w.fam, b == '_' || b == '$'
	}
	return 0, 0, false
}

// wordBefore returns the word of letters before s[k] and one blank.
func wordBefore(s string, k int) string {
	if k < 2 || !isBlank(s[k-1]) {
		return ""
	}
	w := k - 1
	for w > 0 && isLetter(s[w-1]) {
		w--
	}
	return s[w : k-1]
}

// namedEn finds the value an English naming word ending at e introduces;
// inName tells that the word ends a longer name.
func namedEn(s string, e int, fam namingFamily, inName bool) (start, end int, ok bool) {
	q := skipBlanks(s, e)
	if n := separatorLen(s, q); n > 0 {
		if n == 1 && secretKeyKind(s[keyStart(s, e):e]) != "" {
			return 0, 0, false // the assignment rule's
		}
		return namedValue(s, skipBlanks(s, q+n), fam, false)
	}
	if strings.HasPrefix(s[q:], "'s ") {
		return namedValue(s, skipBlanks(s, q+len("'s ")), fam, false) // the password's …
	}
	if q == e {
		return 0, 0, false
	}
	limit := min(len(s), e+maxNamedSpan)
	prep := false
	for n := 0; n < maxNamingWords && q < limit; n++ {
		w := tokenEnd(s, q)
		tok := s[q:w]
		switch {
		case tok == "":
			return 0, 0, false
		case oneOfFold(tok, namingVerbs[:]):
			return namedValue(s, skipFillers(s, skipBlanks(s, w)), fam, false)
		case len(tok) == 2 && hasPrefixFold(tok, "to"):
			// "set the password to …", or "the password to the vault is …"
			if start, end, ok = namedValue(s, skipBlanks(s, w), fam, false); ok {
				return start, end, true
			}
			prep = true
		case oneOfFold(tok, namingPrepositions[:]), n == 0 && oneOfFold(tok, namingPronouns[:]):
			prep = true // the password for the wifi is …, the password you need is …
		case n == 0 && !inName:
			return namedValue(s, q, fam, true)
		case n == 0:
			return 0, 0, false
		case !prep:
			return 0, 0, false
		case strings.HasSuffix(tok, ":"):
			return namedValue(s, skipBlanks(s, w), fam, false) // the password for root: …
		}
		q = skipBlanks(s, w)
	}
	return 0, 0, false
}

// keyStart returns where the word of key bytes that ends at e starts.
func keyStart(s string, e int) int {
	k := e
	for k > 0 && isKeyName(s[k-1]) {
		k--
	}
	return k
}

// separatorLen returns the length of a separator at q: ':', '=', "=>",
// "->", or a full-width colon or equals sign.
func separatorLen(s string, q int) int {
	switch {
	case q >= len(s):
		return 0
	case strings.HasPrefix(s[q:], "=>"), strings.HasPrefix(s[q:], "->"):
		return 2
	case s[q] == ':' || s[q] == '=':
		return 1
	case strings.HasPrefix(s[q:], "："), strings.HasPrefix(s[q:], "＝"):
		return len("：")
	}
	return 0
}

// skipFillers skips the words between a verb and a value: "is now …",
// "was changed to …".
func skipFillers(s string, q int) int {
	for range 3 {
		w := tokenEnd(s, q)
		if w == q || !oneOfFold(s[q:w], namingFillers[:]) {
			break
		}
		q = skipBlanks(s, w)
	}
	return q
}

// tokenEnd returns the end of the word at q: a run of printable ASCII bytes
// other than quotes, up to a JSON escape or an earlier replacement.
func tokenEnd(s string, q int) int {
	for k := q; k < len(s); k++ {
		c := s[k]
		switch {
		case c <= ' ' || c >= 0x7f || c == '"' || c == '`':
			return k
		case c == '\\' && k+1 < len(s) && strings.IndexByte(`nrtu"'\`, s[k+1]) >= 0:
			return k
		case c == '[' && strings.HasPrefix(s[k:], marker):
			return k
		}
	}
	return len(s)
}

// namedJa finds the value a Japanese naming word ending at e introduces.
func namedJa(s string, e int, fam namingFamily) (start, end int, ok bool) {
	q := e
	bare := true
	for _, p := range japaneseParticles {
		if strings.HasPrefix(s[q:], p) {
			q += len(p)
			bare = false
			break
		}
	}
	if bare && (q >= len(s) || !isBlank(s[q])) {
		return 0, 0, false // パスワードの…, パスワードポリシー
	}
	q = skipBlanks(s, q)
	if q < len(s) && s[q] >= 0x80 && !japaneseQuoteAt(s, q) {
		// Japanese words, then the value: パスワードを聞かれたら … と
		g := q
		for g < len(s) && g-q < maxJapaneseGap && s[g] >= 0x80 {
			if strings.HasPrefix(s[g:], "、") || strings.HasPrefix(s[g:], "。") || japaneseQuoteAt(s, g) {
				return 0, 0, false
			}
			g++
		}
		if g == len(s) || !isBlank(s[g]) {
			return 0, 0, false
		}
		return namedValue(s, skipBlanks(s, g), fam, true)
	}
	return namedValue(s, q, fam, bare)
}

func japaneseQuoteAt(s string, q int) bool {
	for _, jq := range japaneseQuotes {
		if strings.HasPrefix(s[q:], jq[0]) {
			return true
		}
	}
	return false
}

// namedValue finds a value at j that fam accepts: quoted, or a word. With
// bare, the value follows its naming word with nothing between and must
// look more like a secret.
func namedValue(s string, j int, fam namingFamily, bare bool) (start, end int, ok bool) {
	if j >= len(s) {
		return 0, 0, false
	}
	if p, q, esc := openQuote(s, j); q != 0 {
		if e, closed := quotedEnd(s, p, q, esc); closed && quotedSecret(s[p:e], fam) {
			return p, e, true
		}
		return 0, 0, false
	}
	for _, jq := range japaneseQuotes {
		if strings.HasPrefix(s[j:], jq[0]) {
			p := j + len(jq[0])
			lim := min(len(s), p+maxNamedSpan)
			e := strings.Index(s[p:lim], jq[1])
			if e > 0 && !strings.ContainsAny(s[p:p+e], "\n\r") && quotedSecret(s[p:p+e], fam) {
				return p, p + e, true
			}
			return 0, 0, false
		}
	}
	e, ok := valueEnd(s, j)
	if !ok {
		return 0, 0, false
	}
	v := s[j:e]
	switch {
	case fam == namesKey && !keyValue(v),
		fam != namesKey && bare && !barePassword(v),
		fam != namesKey && !bare && !namedPassword(v):
		return 0, 0, false
	}
	return j, e, true
}

// valueEnd returns the end of an unquoted value at j, without the
// punctuation of the sentence after it. A value that runs into an earlier
// replacement was longer before, so it is not one: Redact finds in its own
// output what it found the first time.
func valueEnd(s string, j int) (int, bool) {
	e := tokenEnd(s, j)
	if strings.HasPrefix(s[e:], marker) {
		return 0, false
	}
	for e > j && strings.IndexByte(".,;:)]}?'>", s[e-1]) >= 0 {
		e--
	}
	return e, true
}

// quotedSecret reports whether a quoted value named by fam is a secret.
func quotedSecret(v string, fam namingFamily) bool {
	if fam == namesKey {
		return keyValue(v)
	}
	return len(v) >= 4 && !placeholder(v) && !strings.Contains(v, marker) && !lowerWord(v)
}

// notAValue reports whether a word reads as something other than a secret:
// a placeholder, a path, a URL, a version, code or a password manager.
func notAValue(v string) bool {
	return placeholder(v) || strings.Contains(v, marker) || pathLike(v) || strings.Contains(v, "://") ||
		versionLike(v) || callOrIndex(v) || readsAsCode(v) || oneOfFold(v, passwordManagers[:])
}

// versionLike reports whether v reads as a version: v1.2, 1.2.3, 2.0-rc1.
func versionLike(v string) bool {
	if v != "" && (v[0] == 'v' || v[0] == 'V') {
		v = v[1:]
	}
	n := runEnd(v, 0, isDigit)
	return n > 0 && n < len(v) && v[n] == '.' && n+1 < len(v) && isDigit(v[n+1])
}

// valueClasses tells which kinds of bytes a value holds; '-', '_' and '.'
// join words and count as none.
type valueClasses struct{ lower, upper, digit, symbol bool }

func classesOf(v string) (c valueClasses) {
	for i := 0; i < len(v); i++ {
		switch b := v[i]; {
		case 'a' <= b && b <= 'z':
			c.lower = true
		case isUpper(b):
			c.upper = true
		case isDigit(b):
			c.digit = true
		case b != '-' && b != '_' && b != '.':
			c.symbol = true
		}
	}
	return c
}

// namedPassword reports whether v, after "password is" or "PW:", is one.
func namedPassword(v string) bool {
	if len(v) < minNamedPassword || notAValue(v) {
		return false
	}
	c := classesOf(v)
	return c.digit || c.symbol
}

// barePassword reports whether v, right after a naming word, is a
// password: it mixes three kinds of bytes and has a lower-case letter.
func barePassword(v string) bool {
	if len(v) < minBarePassword || notAValue(v) {
		return false
	}
	c := classesOf(v)
	n := 0
	for _, b := range [...]bool{c.lower, c.upper, c.digit, c.symbol} {
		if b {
			n++
		}
	}
	return c.lower && n >= 3
}

// keyValue reports whether v, named as a key or token, is one: at least
// minNamedKey bytes of [A-Za-z0-9+/=_.~-] holding a digit.
func keyValue(v string) bool {
	if len(v) < minNamedKey || notAValue(v) {
		return false
	}
	digit := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isB64Token(c) {
			return false
		}
		digit = digit || isDigit(c)
	}
	return digit
}

// loginPair finds the password of the first user / password pair among the
// words after a login word ending at e.
func loginPair(s string, e int) (start, end int, ok bool) {
	limit := min(len(s), e+maxNamedSpan)
	q := e
	for n := 0; n < maxNamingWords && q < limit; n++ {
		// Blanks, Japanese words and a leading separator come between.
		for q < limit && (s[q] == ' ' || s[q] == '\t' || s[q] >= 0x80 || s[q] == ':' || s[q] == '=') {
			if strings.HasPrefix(s[q:], "。") {
				return 0, 0, false
			}
			q++
		}
		w := tokenEnd(s, q)
		if w == q {
			return 0, 0, false
		}
		tok := s[q:w]
		if k := strings.IndexAny(tok, "/:"); k > 0 && k < len(tok)-1 {
			if start, end, ok := pairPassword(s, tok[:k], q+k+1); ok {
				return start, end, true
			}
		} else if k < 0 {
			// user / password, with blanks around the slash.
			p := skipBlanks(s, w)
			if p > w && p < limit && s[p] == '/' && p+1 < len(s) && isBlank(s[p+1]) {
				pe := skipBlanks(s, p+1)
				if start, end, ok := pairPassword(s, tok, pe); ok {
					return start, end, true
				}
			}
		}
		q = w
	}
	return 0, 0, false
}

// pairPassword reports whether user and the password at p are a login
// pair, and returns the password's span.
func pairPassword(s string, user string, p int) (start, end int, ok bool) {
	letter := false
	for i := 0; i < len(user); i++ {
		c := user[i]
		if !isKeyName(c) && c != '@' && c != '+' {
			return 0, 0, false
		}
		letter = letter || isLetter(c)
	}
	e, ok := valueEnd(s, p)
	if !ok {
		return 0, 0, false
	}
	v := s[p:e]
	if c := classesOf(v); !letter || !c.lower && !c.upper || strings.IndexByte(v, '/') >= 0 || !namedPassword(v) {
		return 0, 0, false
	}
	return p, e, true
}
