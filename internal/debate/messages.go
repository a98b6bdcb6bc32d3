package debate

import (
	"fmt"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
)

// Role is a participant of a debate.
type Role string

// The three participants.
const (
	Moderator Role = "moderator"
	Pro       Role = "pro"
	Con       Role = "con"
)

// Name is the role as a person reads it.
func (r Role) Name(lang i18n.Lang) string {
	switch r {
	case Moderator:
		return i18n.Msg{JA: "モデレーター", EN: "moderator"}.In(lang)
	case Pro:
		return i18n.Msg{JA: "賛成派", EN: "pro side"}.In(lang)
	case Con:
		return i18n.Msg{JA: "反対派", EN: "con side"}.In(lang)
	}
	return string(r)
}

// other is the opposing side.
func (r Role) other() Role {
	if r == Pro {
		return Con
	}
	return Pro
}

// Instructions sent to the agents. Each names the files it is about by
// absolute path. The main file's topic is never typed into a pane.
var (
	msgOpening = i18n.Msg{
		JA: "ディベート %[1]s が始まりました。メインファイル %[2]s を Read で読んでテーマとルールを確認し、%[3]sとして自分のファイル %[4]s の末尾に「## Round 1」見出しで Round 1 の主張を追記してください（書くのは自分のファイルだけです。相手は %[5]s に書きます）。",
		EN: `Debate %[1]s has started. Read the main file %[2]s for the topic and the rules, then, as the %[3]s, append your round 1 argument under a "## Round 1" heading at the end of your own file %[4]s (write only that file; the other side writes %[5]s).`,
	}
	msgNextRound = i18n.Msg{
		JA: "%[2]s のディベート、Round %[6]d が完了しました。メインファイル %[2]s を Read で読み、相手のファイル %[5]s を Read で確認し、%[3]sとして自分のファイル %[4]s に「## Round %[7]d」見出しで Round %[7]d の主張を追記してください。",
		EN: `Round %[6]d of the debate in %[2]s is complete. Read the main file %[2]s and the other side's file %[5]s, then, as the %[3]s, append your round %[7]d argument under a "## Round %[7]d" heading to your own file %[4]s.`,
	}
	msgHeadlessOpening = i18n.Msg{
		JA: "ディベート %[1]s が始まりました。メインファイル %[2]s を Read で読んでテーマとルールを確認してください。あなたは%[3]sです。Round 1 の主張だけを答えてください。baton がその答えを自分のファイル %[4]s に「## Round 1」見出しで追記します（相手のファイルは %[5]s です）。",
		EN: `Debate %[1]s has started. Read the main file %[2]s for the topic and the rules. You are the %[3]s. Answer with your round 1 argument only: baton appends your answer to your own file %[4]s under a "## Round 1" heading (the other side's file is %[5]s).`,
	}
	msgHeadlessNext = i18n.Msg{
		JA: "%[2]s のディベート、Round %[6]d が完了しました。メインファイル %[2]s を Read で読み、相手のファイル %[5]s を Read で確認し、%[3]sとして Round %[7]d の主張だけを答えてください。baton がその答えを自分のファイル %[4]s に「## Round %[7]d」見出しで追記します。",
		EN: `Round %[6]d of the debate in %[2]s is complete. Read the main file %[2]s and the other side's file %[5]s, then, as the %[3]s, answer with your round %[7]d argument only: baton appends your answer to your own file %[4]s under a "## Round %[7]d" heading.`,
	}
	msgTailReply = i18n.Msg{
		JA: "書き終えたら baton debate reply %[1]s を実行してください。合意に達したらそのラウンドに [CONCLUDED] と書いてください。",
		EN: "When it is written, run: baton debate reply %[1]s — and if the two sides agree, put [CONCLUDED] in that round.",
	}
	msgTailHeadless = i18n.Msg{
		JA: "合意に達したら答えに [CONCLUDED] と書いてください（ディベート %[1]s）。",
		EN: "If the two sides agree, put [CONCLUDED] in your answer (debate %[1]s).",
	}
	msgSummary = i18n.Msg{
		JA: "%[1]s のディベートが終了しました（理由: %[4]s）。メインファイル %[1]s と賛成派ファイル %[2]s と反対派ファイル %[3]s の3つを Read で全文読み、賛成派と反対派の主張を公平にまとめてください。主要な論点、各派の強い主張、共通点・相違点を整理してください。",
		EN: "The debate in %[1]s has ended (%[4]s). Read all three files in full — the main file %[1]s, the pro side's file %[2]s and the con side's file %[3]s — and summarise both sides fairly: the main points at issue, the strongest arguments of each side, their common ground and their differences.",
	}
	msgSummaryFile = i18n.Msg{
		JA: "まとめは Write でファイル %[1]s にも書いてください（Markdown。ダッシュボードに表示されます）。",
		EN: "Also write the summary with Write to the file %[1]s (Markdown; the dashboard shows it).",
	}
	msgStopNotice = i18n.Msg{
		JA: "ディベート %[1]s（%[2]s）は中止されました。これ以上ラウンドを書く必要はありません。",
		EN: "Debate %[1]s (%[2]s) was stopped. Do not write any more rounds.",
	}
)

// reason says why a debate ended.
func reason(st Status, lang i18n.Lang) string {
	switch st {
	case Concluded:
		return i18n.Msg{JA: "合意", EN: "the sides agreed"}.In(lang)
	case Timeout:
		return i18n.Msg{JA: "ラウンド上限", EN: "round limit reached"}.In(lang)
	case Aborted:
		return i18n.Msg{JA: "中止", EN: "stopped"}.In(lang)
	}
	return string(st)
}

// Messages about the state of a debate.
var (
	msgNotActive   = i18n.Msg{JA: "ディベート %s は既に終了しています（status: %s）", EN: "Debate %s has already ended (status: %s)."}
	msgWaitingSide = i18n.Msg{JA: "Round %d: %sの完了を待っています。", EN: "Round %d: waiting for the %s to finish writing."}
	msgWaitingBoth = i18n.Msg{JA: "Round %d はまだどちらも書いていません。", EN: "Nobody has written round %d yet."}
	msgAlready     = i18n.Msg{JA: "Round %d は既に引き継がれています。両者の Round %d を待っています。", EN: "Round %d was already handed off; waiting for both sides to write round %d."}
	msgHandedOff   = i18n.Msg{JA: "Round %d のプロンプトを賛成派・反対派の両方に送信しました。", EN: "Sent the round %d instructions to the pro and con sides."}
	msgEnded       = i18n.Msg{JA: "ディベート %s が終了しました（理由: %s）。モデレーター（%s）にまとめ依頼を送信しました。", EN: "Debate %s has ended (%s); asked the moderator (%s) for a summary."}
	msgOpened      = i18n.Msg{JA: "ディベート %s を開始し、Round 1 の指示を賛成派と反対派に送信しました。", EN: "Started debate %s and sent the round 1 instructions to the pro and con sides."}
)

// GoneHint says how a debate whose role's pane closed goes on or ends.
func GoneHint(id string, role Role, lang i18n.Lang) string {
	return msgGoneHint.Format(lang, id, role, role.Name(lang))
}

var msgGoneHint = i18n.Msg{
	JA: "続けるには baton debate resume-pane %[1]s %[2]s（新しいペインで%[3]sを起動し直します）、終えるには baton debate stop --summary %[1]s（それまでの内容をモデレーターにまとめてもらいます）",
	EN: "to go on, baton debate resume-pane %[1]s %[2]s starts the %[3]s again in a new pane; to end it, baton debate stop --summary %[1]s has the moderator sum up what was written",
}

// Errors a person acts on.
var (
	msgBadID       = i18n.Msg{JA: "不正なディベート ID %q です（cc-debate-YYYYMMDD-HHMMSS-xxxx の形式で指定してください）", EN: "invalid debate id %q (want cc-debate-YYYYMMDD-HHMMSS-xxxx)"}
	msgNoSession   = i18n.Msg{JA: "ディベートセッション %s が見つかりません（%s）", EN: "no debate session %s (%s)"}
	msgManyActive  = i18n.Msg{JA: "進行中のディベートが %d 件あります。id を指定してください:%s", EN: "%d debates are active; name one by its id:%s"}
	msgNoActive    = i18n.Msg{JA: "アクティブなディベートセッションが見つかりません（%s）", EN: "no active debate session found in %s"}
	msgMissingSide = i18n.Msg{JA: "%sのファイル %s がありません", EN: "the %s's file %s is missing"}
	msgMalformed   = i18n.Msg{JA: "%s のフロントマターが壊れています: %s", EN: "malformed frontmatter in %s: %s"}
	msgTmuxNoSpace = i18n.Msg{
		JA: "tmux のウィンドウに%sのペインを開く余地がありません（pane %s の隣）。ペインをいくつか閉じるかウィンドウを広げるか、tmux の外で baton debate start を実行してください（baton が専用のセッションを開きます）",
		EN: "tmux has no room in the window for the %s's pane (next to pane %s): close some panes or make the window larger, or run baton debate start outside tmux, where baton opens a session of its own",
	}
	msgTmuxNoTarget = i18n.Msg{JA: "%sのペインを開けませんでした: 隣に開くはずの pane %s はもう存在しません", EN: "could not open the %s's pane: pane %s, next to which it was to open, is gone"}
	msgTmuxNoServer = i18n.Msg{
		JA: "tmux サーバーが動いていません。tmux を起動するか、設定の debate.tmux_socket が正しいか確認してください",
		EN: "no tmux server is running: start tmux, or check debate.tmux_socket in the configuration",
	}
	msgTmuxOpen          = i18n.Msg{JA: "tmux が%sのペインを開けませんでした", EN: "tmux could not open the %s's pane"}
	msgTmuxSend          = i18n.Msg{JA: "tmux が%s（pane %s）への入力を受け付けませんでした", EN: "tmux did not take the input for the %s (pane %s)"}
	msgPaneGone          = i18n.Msg{JA: "pane %s（%s）はもう存在しません。セッションは変更していません", EN: "pane %s (%s) is gone; the session was left as it was"}
	msgPaneUnregistered  = i18n.Msg{JA: "pane %s（%s）に Claude Code セッションが見つかりません（ペイン登録簿にありません）。セッションは変更していません", EN: "pane %s (%s) has no agent session in the pane registry; the session was left as it was"}
	msgRegisterTimeout   = i18n.Msg{JA: "%s 待ちましたが、pane %s（%s）のエージェントがペイン登録簿に現れませんでした。エージェントのコマンドが起動するか、baton のフックが入っているか（baton init）を確認してください。ペインは確認のため残してあります", EN: "waited %s, but the agent in pane %s (%s) did not appear in the pane registry: check that the agent command starts and that baton's hooks are installed (baton init); the panes were left open to look at"}
	msgAwaitingApproval  = i18n.Msg{JA: "pane %s（%s）はあなたの承認待ちです。何も入力していません", EN: "waiting for your approval in pane %s (%s); nothing was typed there"}
	msgPaneNotReady      = i18n.Msg{JA: "pane %s（%s）に入力欄が表示されないため、何も入力していません", EN: "pane %s (%s) shows no input box, so nothing was typed there"}
	msgRoundNotSubmitted = i18n.Msg{JA: "Round %d の指示が%sに送信されていません: pane %s で Enter を押してください", EN: "round %d not submitted to the %s: press Enter in pane %s"}
	msgNotSubmitted      = i18n.Msg{JA: "%sへのメッセージが送信されていません: pane %s で Enter を押してください", EN: "the message to the %s was not submitted: press Enter in pane %s"}
	msgDeliverFailed     = i18n.Msg{JA: "送信に失敗したため、セッションを Round %d（status: %s）に戻しました", EN: "delivery failed, so the session was set back to round %d (status: %s)"}
	msgNotStopped        = i18n.Msg{JA: "ディベート %s は既に終了しているため中止できません（status: %s）", EN: "debate %s cannot be stopped: it has already ended (status: %s)"}
	msgStillActive       = i18n.Msg{JA: "ディベート %s はまだ進行中です", EN: "debate %s is still active"}
	msgExists            = i18n.Msg{JA: "ディベート %s は既に存在します", EN: "debate %s already exists"}
)

// instruction is what role is told to do for round, the first round it
// writes being 1, in lang.
func instruction(s *Session, p Paths, role Role, round int, lang i18n.Lang) string {
	own, other := p.Side(role), p.Side(role.other())
	opening, next, tail := msgOpening, msgNextRound, msgTailReply
	if s.Transport == TransportHeadless {
		// A headless side answers and baton writes the file: agents may
		// not be allowed to edit files under ~/.claude.
		opening, next, tail = msgHeadlessOpening, msgHeadlessNext, msgTailHeadless
	}
	body := opening.Format(lang, s.ID, p.Main, role.Name(lang), own, other)
	if round > 1 {
		body = next.Format(lang, s.ID, p.Main, role.Name(lang), own, other, round-1, round)
	}
	return body + " " + tail.Format(lang, s.ID)
}

// summaryRequest asks the moderator to sum the debate up. A moderator in a
// pane also writes the summary to the summary file, where the dashboard
// finds it; a headless one's answer is saved there by baton.
func summaryRequest(s *Session, p Paths, lang i18n.Lang) string {
	text := msgSummary.Format(lang, p.Main, p.Pro, p.Con, reason(s.Status, lang))
	if s.Transport == TransportHeadless {
		return text
	}
	return text + " " + msgSummaryFile.Format(lang, p.Summary)
}

func stopNotice(s *Session, p Paths, lang i18n.Lang) string {
	return msgStopNotice.Format(lang, s.ID, p.Main)
}

// Message is the outcome of a hand-off as a person reads it, with a line
// for each message that still needs the person.
func (r Result) Message(lang i18n.Lang) string {
	lines := make([]string, 0, 2+len(r.Pending))
	if r.Kind != Undelivered {
		lines = append(lines, r.message(lang))
	}
	if r.Gone != nil {
		lines = append(lines, r.Gone.In(lang), GoneHint(r.Session.ID, r.Gone.Role, lang))
	}
	for _, de := range r.Pending {
		lines = append(lines, de.In(lang))
	}
	return strings.Join(lines, "\n")
}

func (r Result) message(lang i18n.Lang) string {
	s := r.Session
	switch r.Kind {
	case NotActive:
		return msgNotActive.Format(lang, s.ID, s.Status)
	case Waiting:
		if r.WaitingFor == "" {
			return msgWaitingBoth.Format(lang, r.Round)
		}
		return msgWaitingSide.Format(lang, r.Round, r.WaitingFor.Name(lang))
	case AlreadyHandedOff:
		return msgAlready.Format(lang, r.Round-1, r.Round)
	case HandedOff:
		return msgHandedOff.Format(lang, r.Round)
	case Ended:
		who := s.PaneModerator
		if who == "" {
			who = Moderator.Name(lang)
		}
		return msgEnded.Format(lang, s.ID, reason(s.Status, lang), who)
	case Opened:
		return msgOpened.Format(lang, s.ID)
	}
	return fmt.Sprintf("%v", r.Kind)
}
