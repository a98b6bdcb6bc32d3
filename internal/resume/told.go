package resume

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// One briefing per conversation. Claude Code restores a resumed
// conversation whole, the briefings baton gave in it included, and a
// compaction keeps the messages since the agent's last answer verbatim
// (2.1.328: the compact boundary's preserved segment), so the briefing a
// start gave just before a /compact, with no prompt, tool call or answer
// since, is still there after it. A start whose conversation holds a
// briefing gets only what changed since it (BuildBrief); state.json keeps,
// per session, what that briefing holds (wtstate.Told).

// held returns what the briefing in the starting session's conversation
// holds, or nil when it holds none: a resumed conversation keeps its
// briefing until a compaction replaces it; a compaction keeps it only when
// the session did no work since it was given (workedAt is the session's
// newest prompt, tool call or answer).
func held(c recall.Case, told *wtstate.Told, workedAt time.Time) *wtstate.Told {
	switch {
	case told == nil:
		return nil
	case c == recall.CaseResume:
		return told
	case c == recall.CaseCompact && !workedAt.After(told.At):
		return told
	}
	return nil
}

// workedAt is the time of session's newest prompt, tool call or answer
// among recs; zero when there is none.
func workedAt(recs []journal.Record, session string) time.Time {
	var t time.Time
	if session == "" {
		return t
	}
	for i := range recs {
		r := &recs[i]
		if r.Session != session {
			continue
		}
		switch r.Event {
		case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop":
			if r.TS.After(t) {
				t = r.TS
			}
		}
	}
	return t
}

// Keys of the facts a briefing holds. A failing command and the next step
// are kept as they are shown, so a later start can say the command works
// now and the step is done.
const (
	factTask     = "task "
	factNext     = "step "
	factDecision = "decision "
	factSummary  = "summary "
	factFailing  = "failing "
	factStated   = "stated "
)

func factOf(kind, text string) string {
	if kind == factFailing || kind == factNext {
		return kind + textcut.Chars(textcut.OneLine(text), 200)
	}
	h := sha256.Sum256([]byte(text))
	return kind + hex.EncodeToString(h[:8])
}

// facts are the keys of what a briefing of br with the decisions among
// items holds.
func (br *Brief) facts(items []recall.Item) []string {
	b := br.Briefing
	var out []string
	if b.Task != "" {
		out = append(out, factOf(factTask, b.Task))
	}
	if s := b.NextStep; s != "" {
		out = append(out, factOf(factNext, s))
	}
	for _, it := range items {
		if k, ok := layerFact(it); ok {
			out = append(out, k)
		}
	}
	for _, f := range b.Failing {
		out = append(out, factOf(factFailing, f.Cmd))
	}
	for _, st := range b.Stated {
		out = append(out, factOf(factStated, st.Text))
	}
	return out
}

// layerFact is the key of a layer's item: a decision or a summary.
func layerFact(it recall.Item) (string, bool) {
	switch it.Layer {
	case recall.L3, recall.LTeam:
		return factOf(factDecision, it.Text), true
	case recall.L1, recall.L2:
		return factOf(factSummary, it.Text), true
	}
	return "", false
}

var (
	msgSinceTitle   = i18n.Msg{JA: "## baton: この会話の前のブリーフィングからの変化（ブランチ %s）", EN: "## baton: what changed since the briefing earlier in this conversation (branch %s)"}
	msgSinceResume  = i18n.Msg{JA: "セッションが再開されました（--continue / --resume）。この会話にある baton のブリーフィングは%sに出したもので、その中の経過時間（「たった今」など）はその時点から数えたものです。下はその後の変化で、食い違うところは下が今の状態です。それ以外は今も有効です。", EN: "The session was resumed (--continue or --resume). baton's briefing earlier in this conversation was given %s, and the ages in it (\"just now\") count from then. Below is what changed since: where the two differ, this is how things stand now; the rest still holds."}
	msgSinceManual  = i18n.Msg{JA: "会話が /compact で圧縮されました。直前の baton のブリーフィングは圧縮後も残っていて、今も有効です。", EN: "The conversation was compacted with /compact; baton's briefing just before it was kept and still holds."}
	msgSinceAuto    = i18n.Msg{JA: "会話がコンテキストの上限に達して自動で圧縮されました。直前の baton のブリーフィングは圧縮後も残っていて、今も有効です。", EN: "The conversation reached the context limit and was compacted automatically; baton's briefing just before it was kept and still holds."}
	msgSinceCompact = i18n.Msg{JA: "会話が圧縮されました。直前の baton のブリーフィングは圧縮後も残っていて、今も有効です。", EN: "The conversation was compacted; baton's briefing just before it was kept and still holds."}
	msgSinceTask    = i18n.Msg{JA: "**タスクが変わりました**：%s", EN: "**The task changed**: %s"}
	msgSinceL3      = i18n.Msg{JA: "### 新しく承認された決定 (L3)", EN: "### Newly approved decisions (L3)"}
	msgSinceNow     = i18n.Msg{JA: "### 作業の変化", EN: "### Changes in the work"}
	msgSinceFailing = i18n.Msg{JA: "**新たに失敗したままのコマンド**：", EN: "**Commands failing since**:"}
	msgSinceFixed   = i18n.Msg{JA: "**もう失敗していないコマンド**：%s", EN: "**No longer failing**: %s"}
	msgSinceDone    = i18n.Msg{JA: "**もう未完了ではない次のステップ**：%s", EN: "**Next step no longer open**: %s"}
	msgSinceStated  = i18n.Msg{JA: "**新たに会話で述べられた決定**（人はまだ承認していません）：", EN: "**Decisions stated since** (no person has approved them yet):"}
)

// since is the text a start adds to a conversation whose briefing holds
// h: the task when it changed, decisions approved and summaries written
// since, commands failing since and those that work now, and a new next
// step, then how to pull more; "" when nothing
// changed and the session was resumed. After a compaction that kept the
// briefing, one line says so.
func (br *Brief) since(h *wtstate.Told, items []recall.Item, o BriefOptions) string {
	b, lang := br.Briefing, o.Lang
	told := map[string]bool{}
	for _, f := range h.Facts {
		told[f] = true
	}
	var add []recall.Item
	put := func(tier int, layer recall.Layer, text string) {
		add = append(add, recall.Item{Layer: layer, Text: text, Priority: recall.TierPriority(tier, len(add))})
	}
	if b.Task != "" && !told[factOf(factTask, b.Task)] {
		// The layer's block fences both.
		text := msgSinceTask.Format(lang, b.Task)
		if b.PreviousTask != "" && b.PreviousTask != b.Task && b.TaskNew {
			text += "\n" + msgPreviousTask.Format(lang, b.PreviousTask)
		}
		put(recall.TierNow, recall.LNow, text)
	}
	for _, it := range items {
		if k, ok := layerFact(it); ok && !told[k] {
			add = append(add, it)
		}
	}
	var failing []string
	now := map[string]bool{}
	for _, f := range b.Failing {
		k := factOf(factFailing, f.Cmd)
		now[k] = true
		if !told[k] {
			failing = append(failing, b.failLine(f, lang))
		}
	}
	if len(failing) > 0 {
		put(recall.TierNow, recall.LNow, msgSinceFailing.In(lang)+"\n"+strings.Join(failing, "\n"))
	}
	var fixed []string
	for _, f := range h.Facts {
		if cmd, ok := strings.CutPrefix(f, factFailing); ok && !now[f] {
			fixed = append(fixed, "`"+cmd+"`")
		}
	}
	if len(fixed) > 0 {
		put(recall.TierNow, recall.LNow, msgSinceFixed.Format(lang, strings.Join(fixed, ", ")))
	}
	if s := b.NextStep; s != "" && !told[factOf(factNext, s)] {
		put(recall.TierNow, recall.LNow, msgNowNextStep.Format(lang, s))
	}
	for _, f := range h.Facts {
		// A new step, above, says the old one is past.
		if step, ok := strings.CutPrefix(f, factNext); ok && b.NextStep == "" {
			put(recall.TierNow, recall.LNow, msgSinceDone.Format(lang, step))
		}
	}
	var stated []string
	for _, st := range b.Stated {
		if !told[factOf(factStated, st.Text)] {
			stated = append(stated, "- "+textcut.OneLine(st.Text))
		}
	}
	if len(stated) > 0 {
		put(recall.TierNow, recall.LNow, msgSinceStated.In(lang)+"\n"+strings.Join(stated, "\n"))
	}
	var head string
	switch {
	case br.Case == recall.CaseResume && len(add) == 0:
		return ""
	case br.Case == recall.CaseResume:
		head = msgSinceResume.Format(lang, Ago(b.At.Sub(h.At), lang))
	case br.Trigger == "manual":
		head = msgSinceManual.In(lang)
	case br.Trigger == "auto":
		head = msgSinceAuto.In(lang)
	default:
		head = msgSinceCompact.In(lang)
	}
	lay := recall.Layout{
		Lang: lang,
		Head: msgSinceTitle.Format(lang, branchOr(b.Branch)) + "\n" + head,
		Headings: map[recall.Layer]string{
			recall.L3: msgSinceL3.In(lang), recall.LTeam: recall.MsgHeadTeam.In(lang), recall.LNow: msgSinceNow.In(lang),
			recall.L1: msgHeadL1.In(lang), recall.L2: msgHeadL2.In(lang),
		},
		Note: func(left map[recall.Layer]int) string { return leftNote(left, o) },
		Tail: o.Pulls.Line(lang),
	}
	a := recall.Assemble(add, lay, o.Budget)
	br.Assembly = a
	return a.Text
}
