// Command gengitleaks writes gitleaks' default rules into package redact as
// a Go table: rule id, regular expression source, secret group, entropy
// threshold and allowlists, and an index of the rules' keywords. The table
// holds only strings and numbers, so a program that redacts links neither
// gitleaks nor its configuration libraries, and compiles a rule's regular
// expression only when the rule's keyword shows up in its text.
//
// Run it through go generate in internal/redact; the version of gitleaks is
// the one go.mod requires.
//
// Rules are left out when they cannot apply to text without a file name (a
// rule or allowlist bound to file paths), or when redact's own scanner already
// covers them and their keyword is so common that the prefilter would not
// filter: see skipped.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math/bits"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

// skipped lists the rules redact leaves to its own scanner, with the reason.
var skipped = map[string]string{
	"generic-api-key":  "key=value with a secret key name: the scanner's assignment rule; its keywords (key, token, api, auth…) are in most text",
	"jwt":              "the scanner's jwt rule; its keyword \"ey\" is in most text",
	"private-key":      "the scanner's private-key rule, which spans lines",
	"curl-auth-header": "the scanner's Authorization, *-Key and *-Token header rules; \"curl\" is in many commands and the rule's expression is slow to compile and run",
	"curl-auth-user":   "the scanner's curl -u and --user rule, for the same reason",
}

func main() {
	out := flag.String("o", "gitleaks_rules.go", "file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gengitleaks:", err)
		os.Exit(1)
	}
}

type allowlist struct {
	target    string // "", "match" or "line"
	and       bool
	never     bool // bound to paths or commits, which text has none of
	re        int  // index in the regexp table, -1 for none
	stopwords []string
}

type rule struct {
	id       string
	maxLen   int
	re       int
	group    int
	entropy  float64
	keywords []string
	allow    []allowlist
}

func run(out string) error {
	src, err := generate()
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// generate returns the Go source of the rules table.
func generate() ([]byte, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("decode default config: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("load default config: %w", err)
	}

	var regexps []string
	addRE := func(sources []string) int {
		if len(sources) == 0 {
			return -1
		}
		src := sources[0]
		if len(sources) > 1 {
			src = "(?:" + strings.Join(sources, ")|(?:") + ")"
		}
		if _, err := regexp.Compile(src); err != nil {
			panic(fmt.Sprintf("regexp %q: %v", src, err))
		}
		regexps = append(regexps, src)
		return len(regexps) - 1
	}
	convert := func(as []*config.Allowlist) []allowlist {
		var res []allowlist
		for _, a := range as {
			var srcs []string
			for _, re := range a.Regexes {
				srcs = append(srcs, re.String())
			}
			words := slices.Clone(a.StopWords)
			for i, w := range words {
				words[i] = strings.ToLower(w)
			}
			slices.Sort(words)
			res = append(res, allowlist{
				target:    a.RegexTarget,
				and:       a.MatchCondition == config.AllowlistMatchAnd,
				never:     a.MatchCondition == config.AllowlistMatchAnd && (len(a.Paths) > 0 || len(a.Commits) > 0),
				re:        addRE(srcs),
				stopwords: slices.Compact(words),
			})
		}
		return res
	}

	global := convert(cfg.Allowlists)
	var rules []rule
	var left []string
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		switch {
		case skipped[id] != "":
			left = append(left, fmt.Sprintf("%s: %s", id, skipped[id]))
			continue
		case r.Regex == nil:
			left = append(left, id+": matches file names only")
			continue
		case r.Path != nil:
			left = append(left, fmt.Sprintf("%s: applies only to files matching %s", id, r.Path))
			continue
		case len(r.Keywords) == 0:
			return nil, fmt.Errorf("rule %s has no keyword to prefilter on", id)
		case len(r.RequiredRules) > 0:
			left = append(left, id+": needs a second rule's match nearby")
			continue
		}
		for _, k := range r.Keywords {
			if len(k) < 2 {
				return nil, fmt.Errorf("rule %s: keyword %q is shorter than 2 bytes", id, k)
			}
		}
		src := stripLeadIn(r.Regex.String())
		ml, err := maxMatchLen(src)
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", id, err)
		}
		rules = append(rules, rule{
			id:       id,
			maxLen:   ml,
			re:       addRE([]string{src}),
			group:    r.SecretGroup,
			entropy:  r.Entropy,
			keywords: r.Keywords,
			allow:    convert(r.Allowlists),
		})
	}

	version := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == gitleaksModule {
				version = d.Version
			}
		}
	}
	src, err := format.Source(render(version, regexps, global, rules, left))
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	return src, nil
}

// keyword is one distinct keyword and the rules that name it.
type keyword struct {
	text  string
	rules []int
}

func render(version string, regexps []string, global []allowlist, rules []rule, left []string) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by gengitleaks from %s %s; DO NOT EDIT.\n\n", gitleaksModule, version)
	p("package redact\n\n")
	p("// gitleaksVersion is the gitleaks release whose default rules these are.\n")
	p("const gitleaksVersion = %q\n\n", version)
	p("// Rules left out:\n")
	for _, l := range left {
		p("//   - %s\n", l)
	}
	p("\n// gitleaksRegexps holds the sources of the rules' and allowlists' regular\n// expressions, compiled on first use.\n")
	p("var gitleaksRegexps = [...]string{\n")
	for i, re := range regexps {
		p("\t%d: %s,\n", i, goString(re))
	}
	p("}\n\n")
	p("var gitleaksGlobalAllow = %s\n\n", allowlists(global))
	p("var gitleaksRules = [...]gitleaksRule{\n")
	for _, r := range rules {
		p("\t{id: %q, re: %d, maxLen: %d, group: %d, entropy: %v", r.id, r.re, r.maxLen, r.group, r.entropy)
		if len(r.allow) > 0 {
			p(", allow: %s", allowlists(r.allow))
		}
		p("},\n")
	}
	p("}\n\n")

	// The keyword index: keywords sorted by their first two bytes, and a
	// bit per two-byte prefix.
	byText := map[string][]int{}
	for i, r := range rules {
		for _, k := range r.keywords {
			if !slices.Contains(byText[k], i) {
				byText[k] = append(byText[k], i)
			}
		}
	}
	var kws []keyword
	for t, rs := range byText {
		kws = append(kws, keyword{t, rs})
	}
	slices.SortFunc(kws, func(a, b keyword) int { return strings.Compare(a.text, b.text) })
	var pairs [1024]uint64
	var third = map[uint16]*[4]uint64{}
	p("// gitleaksKeywords lists the rules' keywords in lower case, sorted.\n")
	p("var gitleaksKeywords = [...]gitleaksKeyword{\n")
	for _, k := range kws {
		pair := uint16(k.text[0])<<8 | uint16(k.text[1])
		pairs[pair>>6] |= 1 << (pair & 63)
		t := third[pair]
		if t == nil {
			t = new([4]uint64)
			third[pair] = t
		}
		if len(k.text) == 2 {
			*t = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		} else {
			c := k.text[2]
			t[c>>6] |= 1 << (c & 63)
		}
		p("\t{%q, %#v},\n", k.text, toUint8(k.rules))
	}
	p("}\n\n")
	var punct [4]uint64
	for _, k := range kws {
		if c := k.text[0]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			punct[c>>6] |= 1 << (c & 63)
		}
	}
	p("// gitleaksPunctFirst has a bit set for each byte other than a letter or a\n// digit that starts a keyword.\n")
	p("var gitleaksPunctFirst = [4]uint64{%#x, %#x, %#x, %#x}\n\n", punct[0], punct[1], punct[2], punct[3])
	p("// gitleaksPairs has bit c0<<8|c1 set when a keyword starts with the bytes c0 c1.\n")
	p("var gitleaksPairs = [1024]uint64{\n")
	for i, w := range pairs {
		if w != 0 {
			p("\t%d: %#x,\n", i, w)
		}
	}
	p("}\n\n")
	p("// gitleaksPairRank[i] counts the bits set in gitleaksPairs[:i]; a pair's\n// rank is its number among the pairs set.\n")
	p("var gitleaksPairRank = [1024]uint16{\n")
	rank := 0
	for i, w := range pairs {
		if rank > 0 {
			p("\t%d: %d,\n", i, rank)
		}
		rank += bits.OnesCount64(w)
	}
	p("}\n\n")
	p("// gitleaksPairKeywords[r] is the index in gitleaksKeywords of the first\n// keyword of the pair of rank r.\n")
	p("var gitleaksPairKeywords = [...]uint16{")
	var third3 [][4]uint64
	prev := -1
	for i, k := range kws {
		pair := int(k.text[0])<<8 | int(k.text[1])
		if pair != prev {
			p("%d, ", i)
			third3 = append(third3, *third[uint16(pair)])
			prev = pair
		}
	}
	p("%d}\n\n", len(kws))
	p("// gitleaksPairThird[r] has a bit set for each byte that comes third in a\n// keyword of the pair of rank r; all of them when a keyword is two bytes long.\n")
	p("var gitleaksPairThird = [...][4]uint64{\n")
	for _, t := range third3 {
		p("\t{%#x, %#x, %#x, %#x},\n", t[0], t[1], t[2], t[3])
	}
	p("}\n")
	return b.Bytes()
}

// leadIn is what gitleaks puts before the keyword of its semi-generic rules
// so that a match starts with the whole name around the keyword.
const leadIn = `[\w.-]{0,50}?`

// stripLeadIn removes leadIn from the start of a rule's expression (also
// inside a leading (?i: group). It can match nothing, so it decides neither
// whether the expression matches nor where its secret group is; it only
// makes the expression some fifty times larger, slower to compile and to
// run. None of the rules kept has an allowlist that reads the whole match.
func stripLeadIn(src string) string {
	for {
		switch {
		case strings.HasPrefix(src, leadIn):
			src = src[len(leadIn):]
		case strings.HasPrefix(src, "(?i)"+leadIn):
			src = "(?i)" + src[len("(?i)"+leadIn):]
		case strings.HasPrefix(src, "(?i:"+leadIn):
			src = "(?i:" + src[len("(?i:"+leadIn):]
		default:
			return src
		}
	}
}

// unboundedLen stands for the length of a match that has no bound, such as
// one of [a-z]{250,}: a rule runs on at most this much text after its
// keyword.
const unboundedLen = 4096

// maxMatchLen returns the most bytes a match of the regular expression can
// span, or unboundedLen.
func maxMatchLen(src string) (int, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return 0, err
	}
	return min(maxLen(re.Simplify()), unboundedLen), nil
}

func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1
		}
		return utf8.UTFMax
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return unboundedLen
	case syntax.OpRepeat:
		if re.Max < 0 {
			return unboundedLen
		}
		return min(re.Max*maxLen(re.Sub[0]), unboundedLen)
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = min(n+maxLen(sub), unboundedLen)
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, maxLen(sub))
		}
		return n
	}
	return 0 // empty-width assertions, empty match
}

func toUint8(rs []int) []uint8 {
	out := make([]uint8, len(rs))
	for i, r := range rs {
		if r > 255 {
			panic("more than 256 rules")
		}
		out[i] = uint8(r)
	}
	return out
}

func allowlists(as []allowlist) string {
	if len(as) == 0 {
		return "[]gitleaksAllowlist(nil)"
	}
	var b strings.Builder
	b.WriteString("[]gitleaksAllowlist{\n")
	for _, a := range as {
		fmt.Fprintf(&b, "{target: %q, and: %v, never: %v, re: %d, stopwords: %#v},\n", a.target, a.and, a.never, a.re, a.stopwords)
	}
	b.WriteString("}")
	return b.String()
}

// goString quotes s as a raw string when it can be one.
func goString(s string) string {
	if !strings.Contains(s, "`") && !strings.Contains(s, "\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
