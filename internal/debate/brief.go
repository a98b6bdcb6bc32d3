package debate

import (
	"errors"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// Mark is the value of panes.DebateEnv in the environment of role's pane in
// debate id: "<id>:<role>".
func Mark(id string, role Role) string { return id + ":" + string(role) }

// ParseMark reads a Mark; ok is false for anything else.
func ParseMark(v string) (id string, role Role, ok bool) {
	id, r, found := strings.Cut(v, ":")
	role = Role(r)
	if !found || ValidID(id) != nil || role != Pro && role != Con && role != Moderator {
		return "", "", false
	}
	return id, role, true
}

var (
	msgBriefSide = i18n.Msg{
		JA: "baton: このセッションはディベート %[1]s の%[2]sです。ワークツリーの作業ではなく、ディベートの番を務めます（テーマ: %[3]s）。%[4]s\n自分のファイル %[5]s にだけ「## Round N」見出しで各ラウンドを追記し、書き終えるたびに baton debate reply %[1]s を実行します。相手のファイルは %[6]s、ルールはメインファイル %[7]s にあります。",
		EN: "baton: this session is the %[2]s of debate %[1]s. It takes the debate's turns, not the worktree's work (topic: %[3]s). %[4]s\nAppend each round only to your own file %[5]s under a \"## Round N\" heading and run baton debate reply %[1]s after each one. The other side's file is %[6]s; the rules are in the main file %[7]s.",
	}
	msgBriefRound   = i18n.Msg{JA: "今は Round %d（全 %d ラウンド）を書く番です。", EN: "Round %d of %d is yours to write now."}
	msgBriefWritten = i18n.Msg{JA: "Round %d は書き終えています。相手を待ち、次の指示が来てから続けてください。", EN: "You have written round %d: wait for the other side and go on when the next instruction comes."}
	msgBriefEnded   = i18n.Msg{JA: "このディベートは終了しています（%s）。これ以上ラウンドを書かないでください。", EN: "This debate has ended (%s): write no more rounds."}
	msgBriefMod     = i18n.Msg{
		JA: "baton: このセッションはディベート %[1]s のモデレーターです（テーマ: %[2]s、Round %[3]d/%[4]d、status: %[5]s）。終了時に、賛成派 %[6]s と反対派 %[7]s の主張のまとめを頼まれます。",
		EN: "baton: this session moderates debate %[1]s (topic: %[2]s; round %[3]d of %[4]d, status %[5]s). When it ends you will be asked to summarise the pro side's %[6]s and the con side's %[7]s.",
	}
	msgBriefStarting = i18n.Msg{
		JA: "baton: このセッションはディベート %[1]s の%[2]sです（ワークツリーの作業ではありません）。ディベートは開始中です。指示が届くまで待ってください。",
		EN: "baton: this session is the %[2]s of debate %[1]s, not the worktree's work. The debate is starting: wait for its instruction.",
	}
	msgBriefMissing = i18n.Msg{
		JA: "baton: このセッションはディベート %[1]s の%[2]sです（ワークツリーの作業ではありません）。ディベートのファイルは読めませんでした: %[3]s",
		EN: "baton: this session is the %[2]s of debate %[1]s, not the worktree's work. The debate's files could not be read: %[3]s",
	}
)

// Brief is the session-start briefing of role's agent in debate id: which
// debate and side it is, the round it is at and its files, in place of the
// worktree's task.
func (d Dir) Brief(id string, role Role) string {
	r, err := d.Inspect(id)
	if de := (*Error)(nil); errors.As(err, &de) && de.Msg == msgNoSession {
		// The agents start before start writes the files.
		return msgBriefStarting.Format(d.Lang, id, role.Name(d.Lang))
	}
	if err != nil {
		msg := err.Error()
		var le Localized
		if errors.As(err, &le) {
			msg = le.In(d.Lang)
		}
		return msgBriefMissing.Format(d.Lang, id, role.Name(d.Lang), msg)
	}
	s := r.Session
	lang := d.langOf(s)
	topic := textcut.Chars(textcut.OneLine(s.Topic), 200)
	if role == Moderator {
		return msgBriefMod.Format(lang, id, topic, s.CurrentRound, s.MaxRounds, s.Status, r.Paths.Pro, r.Paths.Con)
	}
	own := r.Pro
	if role == Con {
		own = r.Con
	}
	var where string
	switch next := s.CurrentRound + 1; {
	case s.Status != Active:
		where = msgBriefEnded.Format(lang, reason(s.Status, lang))
	case own.Has(next):
		where = msgBriefWritten.Format(lang, next)
	default:
		where = msgBriefRound.Format(lang, next, s.MaxRounds)
	}
	return msgBriefSide.Format(lang, id, role.Name(lang), topic, where, r.Paths.Side(role), r.Paths.Side(role.other()), r.Paths.Main)
}
