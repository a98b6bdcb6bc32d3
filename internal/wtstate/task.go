package wtstate

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/textnorm"
)

// IsWork reports whether a prompt is plainly a request for new work, which
// may become the worktree's task when it opens a session: a request that
// leads with a verb of work and says what to work on ("Add a /health
// endpoint that returns the build version", "deploy.sh fails on staging;
// make it read .env.staging", 「ログイン画面の500エラーを調べて直して」).
// Greetings, acknowledgements, "go on", questions about the state or the
// past and slash commands are not. It looks at the words only: no model, a
// few microseconds, the same answer every time.
func IsWork(prompt string) bool {
	p := strings.TrimSpace(textnorm.Fold(prompt))
	if p == "" || strings.HasPrefix(p, "/") || asksForDebate(p) {
		return false
	}
	if strings.ContainsFunc(p, isJapanese) && japaneseWork(p) {
		return true
	}
	return englishWork(p)
}

// asksForDebate reports a prompt that asks for a debate to be held ("start
// a debate on …", "baton debate start --topic …", 「…についてディベートして」):
// the debate's agents do its turns, and the worktree's task stays what it
// was. Work on debates themselves ("fix the debate hand-off") is work.
func asksForDebate(p string) bool {
	if strings.Contains(p, "baton debate start") {
		return true
	}
	for _, ja := range []string{"ディベートを", "ディベートして", "ディベートしよう", "ディベートさせ", "討論して", "討論させ"} {
		if strings.Contains(p, ja) {
			return true
		}
	}
	words := strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for i, w := range words {
		if w != "debate" && w != "debates" {
			continue
		}
		if i == 0 {
			// "debate whether …", "debate: …"
			return true
		}
		j := i - 1
		if j > 0 && (words[j] == "a" || words[j] == "an" || words[j] == "the" || words[j] == "another") {
			j--
		}
		if debateLead[words[j]] || words[j] == "up" && j > 0 && words[j-1] == "set" {
			return true
		}
	}
	return false
}

// debateLead words ask for a debate when they come before "debate" ("start
// a debate", "hold the debate", "run debates").
var debateLead = map[string]bool{"start": true, "hold": true, "run": true, "begin": true, "open": true,
	"host": true, "have": true, "launch": true, "organize": true, "organise": true}

// englishWork: at least three words; a question only when it asks for
// something to be done ("can you set up CI …?"); some clause that leads,
// after "please", "can you", "I want you to" and the like, with a verb of
// work and names what it works on.
func englishWork(p string) bool {
	if len(strings.Fields(p)) < 3 {
		return false
	}
	question := strings.HasSuffix(p, "?")
	for _, clause := range strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune(";:,.!?\n", r) }) {
		words := strings.Fields(strings.ReplaceAll(clause, " and then ", " and "))
		// "find the cause and fix it": each part after "and" may lead.
		for len(words) > 0 {
			end := slices.Index(words, "and")
			if end < 0 {
				end = len(words)
			}
			if leadsWithWork(words[:end], question) {
				return true
			}
			if end == len(words) {
				break
			}
			words = words[end+1:]
		}
	}
	return false
}

// leadsWithWork reports whether words, openers stripped, start with a verb
// of work followed by something to work on. In a question only a request
// opener ("can you …") makes it a request.
func leadsWithWork(words []string, question bool) bool {
	asked := false
	for stripped := true; stripped; {
		stripped = false
		for _, o := range openers {
			if len(words) > len(o) && slices.Equal(words[:len(o)], o) {
				words, stripped = words[len(o):], true
				asked = asked || o[len(o)-1] == "you" || o[len(o)-1] == "we"
			}
		}
	}
	if question && !asked || len(words) < 2 || !slices.Contains(workVerbs, strings.Trim(words[0], "'\"`*")) {
		return false
	}
	for _, w := range words[1:] {
		if !slices.Contains(deictic, strings.Trim(w, "'\"`*")) {
			return true
		}
	}
	return false
}

// openers come before the verb of a request.
var openers = [][]string{
	{"please"}, {"pls"}, {"also"}, {"then"}, {"now"}, {"so"}, {"ok"}, {"okay"},
	{"can", "you"}, {"could", "you"}, {"would", "you"}, {"will", "you"},
	{"can", "we"}, {"could", "we"}, {"we", "need", "to"}, {"we", "should"},
	{"i", "want", "you", "to"}, {"i", "need", "you", "to"}, {"i'd", "like", "you", "to"},
	{"i", "want", "to"}, {"i", "need", "to"}, {"i'd", "like", "to"},
	{"let's"}, {"lets"}, {"let", "us"}, {"help", "me"}, {"go", "ahead", "and"},
}

// workVerbs lead a request for work. Verbs that go on with what is there
// (continue, finish, run, retry, check, look) are not among them.
var workVerbs = []string{"add", "fix", "implement", "write", "refactor", "migrate", "upgrade",
	"downgrade", "rename", "set", "create", "build", "make", "remove", "delete", "drop",
	"update", "change", "move", "port", "translate", "investigate", "find", "debug",
	"replace", "convert", "support", "introduce", "extract", "split", "merge", "optimize",
	"optimise", "speed", "document", "test", "deploy", "configure", "install", "rewrite",
	"clean", "bump", "integrate", "generate", "design", "draft", "prepare", "review",
	"audit", "profile", "benchmark", "reduce", "enable", "disable", "allow", "prevent",
	"handle", "expose", "wire", "restructure", "reorganize", "simplify", "improve",
	"revert", "release", "publish", "automate", "validate", "sanitize", "localize",
	"paginate", "encrypt", "export", "import", "cache", "parallelize", "harden",
	"package", "containerize", "dockerize", "scaffold", "bootstrap"}

// deictic words point back at what was said: "fix it", "do that again"
// name nothing to work on.
var deictic = []string{"it", "that", "this", "them", "those", "these", "again", "too",
	"please", "now", "up", "the", "same", "one", "thing", "stuff", "as", "well", "for", "me", "work", "pass", "happen", "so"}

// japaneseWork: at least twelve characters; no question unless it asks for
// something to be done (「直してくれる？」); not a request to go on
// (続けて, 再開); some clause that ends as a request does (〜して, 〜してください,
// 〜してほしい, 〜したい, 〜すること).
func japaneseWork(p string) bool {
	if utf8.RuneCountInString(strings.Join(strings.Fields(p), "")) < 12 {
		return false
	}
	for _, m := range []string{"続き", "続け", "再開"} {
		if strings.Contains(p, m) {
			return false
		}
	}
	trimmed := strings.TrimRightFunc(p, func(r rune) bool { return unicode.IsSpace(r) || r == '!' || r == '。' })
	asking := strings.Contains(p, "てくれ") || strings.Contains(p, "てもらえ") || strings.Contains(p, "ていただけ")
	if !asking && (strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, "っけ") ||
		strings.HasSuffix(trimmed, "か") || strings.HasSuffix(trimmed, "かな")) {
		return false
	}
	for _, clause := range strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune("。、,.!?\n", r) }) {
		clause = strings.TrimSpace(clause)
		for _, end := range requestEnds {
			if strings.HasSuffix(clause, end) && utf8.RuneCountInString(clause) > utf8.RuneCountInString(end)+1 {
				return true
			}
		}
	}
	return false
}

// requestEnds end a Japanese clause that asks for work.
var requestEnds = []string{"て", "で", "ください", "下さい", "ほしい", "欲しい", "ほしいです", "たい", "たいです",
	"こと", "ように", "お願いします", "おねがいします", "てくれる", "てもらえる", "てもらえますか", "ていただけますか"}

// IsTalk reports whether a prompt is talk rather than a request: a slash
// command, a question that asks for no work ("where are we?", 「今どこまで？」),
// or a few words that are no request for work ("hello", "thanks", "go on",
// 「了解」). It is looser than IsWork's opposite: "Tidy up the build
// scripts" is neither talk nor, for the task rule, plain new work.
func IsTalk(prompt string) bool {
	p := strings.TrimSpace(prompt)
	if _, explicit := NewTask(p); explicit || IsWork(p) {
		return false
	}
	if strings.HasPrefix(p, "/") || strings.HasSuffix(p, "?") || strings.HasSuffix(p, "？") {
		return true
	}
	if strings.ContainsFunc(p, isJapanese) {
		return utf8.RuneCountInString(p) < 12
	}
	return len(strings.Fields(p)) < 4
}

// isJapanese reports whether r is kana or a CJK ideograph.
func isJapanese(r rune) bool {
	return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han)
}
