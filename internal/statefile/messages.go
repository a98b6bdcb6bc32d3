package statefile

import (
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
)

var problemText = map[Problem]i18n.Msg{
	NoFrontmatter: {JA: "先頭が frontmatter の「---」行ではありません", EN: "it does not start with a \"---\" frontmatter line"},
	Unterminated:  {JA: "frontmatter を閉じる「---」行がありません", EN: "the frontmatter has no closing \"---\" line"},
	BadYAML:       {JA: "frontmatter が YAML として読めません", EN: "the frontmatter is not valid YAML"},
	NotMapping:    {JA: "frontmatter が「キー: 値」の形ではありません", EN: "the frontmatter is not a set of \"key: value\" lines"},
	NoStatus:      {JA: "status がありません（in_progress か completed）", EN: "status is missing (in_progress or completed)"},
	BadStatus:     {JA: "status は in_progress か completed にしてください", EN: "status must be in_progress or completed"},
	BadUpdated:    {JA: "updated が日時として読めません（例: 2026-05-06T12:00:00+09:00）", EN: "updated is not a time (e.g. 2026-05-06T12:00:00+09:00)"},
	BadTask:       {JA: "current_task は 1 行の文字列にしてください", EN: "current_task must be one line of text"},
	DuplicateKey:  {JA: "同じキーが 2 回あります", EN: "a key is given twice"},
	Unreadable:    {JA: "読み込めません", EN: "it cannot be read"},
}

var lineMsg = i18n.Msg{JA: "%d 行目: %s", EN: "line %d: %s"}

// Message says what is wrong in lang, for a person.
func (e *FormatError) Message(lang i18n.Lang) string {
	msg := problemText[e.Problem].In(lang)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Line > 0 {
		return lineMsg.Format(lang, e.Line, msg)
	}
	return msg
}

// ConflictError reports an edit that cannot be merged with a change saved
// while it was being made: both changed the same parts differently.
type ConflictError struct {
	// Parts are the frontmatter keys and section headings both changed.
	Parts []string
}

func (e *ConflictError) Error() string {
	return "state file changed meanwhile in the same parts: " + strings.Join(e.Parts, ", ")
}

var conflictMsg = i18n.Msg{
	JA: "編集中に別の保存があり、同じ箇所が両方で変わっています: %s",
	EN: "the state file was saved by someone else meanwhile, with changes to the same parts: %s",
}

// Message says what conflicted in lang, for a person.
func (e *ConflictError) Message(lang i18n.Lang) string {
	return conflictMsg.Format(lang, strings.Join(e.Parts, ", "))
}
