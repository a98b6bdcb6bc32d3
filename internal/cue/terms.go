package cue

import (
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/baton-cli/baton/internal/textnorm"
)

// Term prefixes in the recall file: a file path ("@internal/x.go", and
// "@x.go" for its base name) and a command key ("$go test"). Words have
// none; a word never starts with either character.
const (
	filePrefix = "@"
	cmdPrefix  = "$"
	// cmdWordPrefix marks a word of a failed command's key, stemmed
	// ("%deploy", "%stag" for deploy.sh staging): a prompt that asks to
	// run it again in words ("deploy to staging again", "run the
	// migration") finds it by them.
	cmdWordPrefix = "%"
)

// keyWords (not wtstate's commandWords, the words prose names a line by)
// are the words of a command key that say which command it
// is, stemmed as terms are: the script's name without its extension and
// the subcommand ("deploy", "stag" for "deploy.sh staging"; "migr" for
// "make migrate" and "migrate.sh"). Runners (make, npm, go, a shell) and
// stop words say nothing of which.
func keyWords(key string) []string {
	var out []string
	for i, f := range strings.Fields(key) {
		if i == 0 {
			f = strings.TrimSuffix(f, path.Ext(f))
		}
		for part := range strings.FieldsFuncSeq(f, func(r rune) bool { return !isWord(r) || r == '_' }) {
			if len(part) < 3 || runners[part] || stopWords()[part] || allDigits(part) {
				continue
			}
			if s := stem(part); !slices.Contains(out, s) && !stopWords()[s] {
				out = append(out, s)
			}
		}
	}
	return out
}

// runners are programs that run the command named after them.
var runners = map[string]bool{
	"make": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "bun": true, "deno": true, "node": true,
	"cargo": true, "python": true, "python3": true, "pip": true, "uv": true, "poetry": true, "bundle": true,
	"rake": true, "just": true, "task": true, "gradle": true, "mvn": true, "bash": true, "sh": true, "zsh": true,
	"scripts": true, "script": true, "bin": true,
}

// isKatakana is true for a katakana letter or the prolonged sound mark.
func isKatakana(r rune) bool { return r >= 0x30A1 && r <= 0x30FA || r == 'ー' }

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// isWord is true for a letter or digit of an alphabetic script.
func isWord(r rune) bool {
	return r == '_' || r < 0x3000 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isJoin is true for the characters that join the parts of a path or an
// identifier: internal/cue.go, river-queue, v1.2.
func isJoin(r rune) bool { return r == '.' || r == '/' || r == '-' }

// A term is one word of text as the recall file indexes it.
type term struct {
	text string
	// word is the text it came from (before stemming).
	word string
	// strong terms name one thing (a path, an identifier, a long word);
	// they count double.
	strong bool
}

// terms calls add for each term of s (folded): alphabetic words and the
// whole of paths and identifiers, katakana words, and pairs of kanji
// (Japanese writes no spaces, so two kanji in a row stand for a word).
// Stop words are dropped. add may see a term more than once.
func terms(s string, add func(term)) { foldedTerms(textnorm.Fold(s), add) }

// foldedTerms is terms of s already folded (textnorm.Fold).
func foldedTerms(s string, add func(term)) {
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWord(r):
			j := i + w
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if isWord(r2) {
					j += w2
					continue
				}
				if isJoin(r2) && j+w2 < len(s) {
					if r3, _ := utf8.DecodeRuneInString(s[j+w2:]); isWord(r3) {
						j += w2
						continue
					}
				}
				break
			}
			wordTerms(s[i:j], add)
			i = j
		case isKatakana(r):
			j := i + w
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if !isKatakana(r2) {
					break
				}
				j += w2
			}
			if k := s[i:j]; utf8.RuneCountInString(k) >= 2 && !stopKatakana()[k] {
				add(term{text: k, word: k, strong: utf8.RuneCountInString(k) >= 5})
				kanaGrams(k, add)
			}
			i = j
		case isHan(r):
			j := i + w
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if !isHan(r2) {
					break
				}
				j += w2
			}
			hanTerms(s[i:j], add)
			i = j
		default:
			i += w
		}
	}
}

// wordTerms adds an alphabetic token: its parts, and the whole when it is
// a path or an identifier of several parts.
func wordTerms(tok string, add func(term)) {
	if strings.ContainsAny(tok, "./-") {
		add(term{text: tok, word: tok, strong: true})
		if strings.Contains(tok, "/") {
			if base := path.Base(tok); strings.Contains(base, ".") {
				add(term{text: base, word: base, strong: true})
			}
		}
	}
	for part := range strings.FieldsFuncSeq(tok, func(r rune) bool { return isJoin(r) }) {
		if len(part) < 3 || stopWords()[part] || stopWords()[stem(part)] || allDigits(part) {
			continue
		}
		if strings.ContainsAny(part, "_0123456789") {
			add(term{text: part, word: part, strong: true})
			continue
		}
		add(term{text: stem(part), word: part})
	}
}

// kanaGrams adds the three-letter pieces of a long katakana word, so that
// a compound (マルチステージビルド) and its parts (マルチステージ) share terms.
func kanaGrams(k string, add func(term)) {
	rs := []rune(k)
	if len(rs) < 5 {
		return
	}
	for i := 0; i+3 <= len(rs); i++ {
		add(term{text: string(rs[i : i+3])})
	}
}

// hanTerms adds the kanji pairs of a run of kanji.
func hanTerms(run string, add func(term)) {
	rs := []rune(run)
	for k := 0; k+1 < len(rs); k++ {
		if p := string(rs[k : k+2]); !stopKanji()[p] {
			add(term{text: p, word: p})
		}
	}
}

// stem drops the English endings that most often tell two forms of one
// word apart: releases, releasing, released and release all give
// "releas"; migrate, migrating and migration give "migr". Words it would
// cut below three letters stay as they are.
func stem(w string) string {
	if w[0] >= utf8.RuneSelf {
		return w
	}
	for _, suf := range []string{"ations", "ation", "ating", "ated", "ates", "ate", "ing", "ed", "es", "s"} {
		if r, ok := strings.CutSuffix(w, suf); ok && len(r) >= 3 && !strings.HasSuffix(w, "ss") {
			w = r
			break
		}
	}
	if r, ok := strings.CutSuffix(w, "e"); ok && len(r) >= 3 {
		w = r
	}
	return w
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Words that say nothing about which earlier work is meant.
var stopWords = sync.OnceValue(func() map[string]bool {
	return setOf(`the and for with that this from into what when where which while will would
could should can cannot are was were been being have has had not but all any its it's our ours you your
they them then than there here how why who whom did does doing done about also just only like more most
some such very use used using make made new get got let lets please thanks thank okay yes now one two
add run see try want need out over after before again still each other same file files code line lines
test tests function method error errors fix issue bug work working change changes write read show tell
look check find give take keep set put call help explain example simple small big good better best way
today time day week thing things something anything everything project repo repository please via per
able may might must shall let's i'm don't doesn't isn't can't won't store stored save saved keep kept
plan plans say said decide decided start started stop stopped move moved put place part kind sort`)
})

// Katakana words too common in Japanese technical talk to point at any
// one piece of work.
var stopKatakana = sync.OnceValue(func() map[string]bool {
	return setOf(`ファイル コード テスト エラー コマンド ユーザー ユーザ メッセージ プログラム データ
バグ チェック リスト サンプル タスク セッション プロンプト レビュー ツール バージョン ポイント ケース`)
})

// Kanji pairs too common to point at any one piece of work.
var stopKanji = sync.OnceValue(func() map[string]bool {
	return setOf(`確認 対応 実装 修正 作成 追加 変更 削除 問題 方法 場合 必要 使用 今回 前回 以前 今日
説明 内容 部分 処理 結果 作業 全部 一覧 教えて 教 簡単 自分 最初 最後 次回 関数 機能 動作 表示 出力 入力
記述 書き 調査 検討 何故 理由 状態 現在 本当 可能 不要 以下 以上 手順 全体 詳細 一度 途中 場合 意味`)
})

// setOf is the set of words; the sets are built on first use, so that a
// hook call that never looks at words does not pay for them.
func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
