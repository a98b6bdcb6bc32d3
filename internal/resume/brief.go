package resume

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/quote"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/textnorm"
	"github.com/baton-cli/baton/internal/wtstate"
)

// BriefOptions say what goes into the one briefing an agent gets at every
// start and after every compaction.
type BriefOptions struct {
	Options
	// Source is the SessionStart source (startup, resume, compact, clear);
	// "" when no session is starting (`baton resume`).
	Source string
	// Route is the context route whose layers are pushed.
	Route string
	Lang  i18n.Lang
	// Budget is the most characters (UTF-16 units) of the text.
	Budget int
	// Own and Layers turn the two parts on: the worktree's own (task,
	// where it left off) and the context layers (L1, L2, L3).
	Own, Layers bool
	// Pulls names the ways to pull more (the MCP tools or the commands).
	Pulls recall.Pulls
	// Conversation is set when the text goes into the session's own
	// conversation, as the session-start hook's does: a conversation that
	// holds a briefing already gets only what changed (Brief.Held).
	Conversation bool
	// Unrecorded is set when this session's activity cannot be recorded:
	// the briefing does not say where it is recorded.
	Unrecorded bool
	// Agents are the other agents' CLIs' folders: a Codex CLI or Gemini
	// CLI session in the worktree newer than its last Claude Code activity
	// is briefed (AgentWork). Zero leaves them out.
	Agents agentlog.Dirs
	// ForPerson is set when a person reads the text (`baton resume`, the
	// dashboard), not the model: it speaks to them and names the commands
	// they may run (capturing decisions, approving candidates), which the
	// model's text leaves out.
	ForPerson bool
}

// BriefConfigured returns the BriefOptions set by configuration, as a hook
// uses them: the resume settings, the context route, both parts as
// resume.inject and context.inject say, within the hook's limit. The caller
// adds the worktree, the session and the time.
func BriefConfigured(cfg *config.Config, getenv func(string) string, lang i18n.Lang) BriefOptions {
	return BriefOptions{
		Options: Configured(cfg, getenv),
		Route:   cfg.ContextRoute(), Lang: lang, Budget: hook.MaxContext,
		Own: cfg.ResumeInject(), Layers: cfg.ContextInject(),
		Agents: agentlog.DirsFrom(getenv),
	}
}

// Brief is the assembled briefing and what it was made of.
type Brief struct {
	*Briefing
	Text string
	// Case is why the session starts; Trigger a compaction's (manual,
	// auto). Crashed is the worktree's previous session when it ended
	// without SessionEnd and its process is gone; Live the worktree's other
	// sessions still running.
	Case    recall.Case
	Trigger string
	Crashed *wtstate.Session
	Live    []wtstate.Session
	recall.Assembly
	// DailyDue: see recall.Pushed.
	DailyDue string
	// AgentWork is another agent's session that worked in the worktree
	// after the last Claude Code activity; nil when none did.
	AgentWork *AgentWork
	// Held is set when the session's conversation holds a briefing
	// already: Text is only what changed since, or "" when nothing did.
	// Told is what the conversation's briefing holds once Text is given,
	// for the session's state; nil when Text is no briefing.
	Held bool
	Told *wtstate.Told
}

// BuildBrief assembles the briefing: the restart case and the task first (always
// kept), then the approved decisions (L3), where the worktree left off (open
// loops, failing commands, the todo list, the last message, files and
// commands), the recent and daily summaries (L1, L2), and how to pull more,
// within o.Budget, whole entries only, saying what was left out. It only
// reads small files, so it runs on the session-start hook's path.
func BuildBrief(ctx context.Context, o BriefOptions) (*Brief, error) {
	b, err := Build(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	br := &Brief{Briefing: b, Case: caseOf(o.Source)}
	st := b.Sessions
	if st == nil {
		st = &wtstate.State{}
	}
	if ss := st.Session(o.Session); ss != nil && br.Case == recall.CaseCompact {
		br.Trigger = ss.Trigger
	}
	if br.Case != recall.CaseCompact {
		br.Crashed, br.Live = st.Others(o.Session)
	}

	var items []recall.Item
	add := func(tier int, layer recall.Layer, text string) {
		if text = strings.TrimSpace(text); text != "" {
			items = append(items, recall.Item{Layer: layer, Text: text, Priority: recall.TierPriority(tier, len(items))})
		}
	}
	older, teamOlder := 0, 0
	if o.Layers {
		shared, err := ReadShared(o.State, o.Lang, o.Now.Location())
		if err != nil {
			return nil, err
		}
		l, err := recall.LoadLayers(recall.PushOptions{State: o.State, Route: o.Route, Now: o.Now, Lang: o.Lang, Budget: o.Budget, Task: b.Task, Hide: shared.Hide}, b.LastActivity)
		if err != nil {
			return nil, err
		}
		br.DailyDue, older = l.DailyDue, l.Older
		team, older, err := teamItems(o, shared, b.Branch)
		if err != nil {
			return nil, err
		}
		teamOlder = older
		items = append(append(items, l.Items...), team...)
	}
	if o.Own {
		// The decisions approved since they were stated are among the
		// layers' items.
		if err := b.dropApproved(o, items); err != nil {
			return nil, err
		}
		add(recall.TierNow, recall.LNow, br.agentItem(ctx, o))
		for _, text := range b.nowItems(o) {
			add(recall.TierNow, recall.LNow, text)
		}
		notes, err := br.reviewNotes(ctx, o)
		if err != nil {
			return nil, err
		}
		for _, note := range notes {
			add(recall.TierNow, recall.LNow, note)
		}
	}
	var told *wtstate.Told
	if ss := st.Session(o.Session); ss != nil && o.Conversation {
		told = ss.Told
	}
	if h := held(br.Case, told, b.workedAt); h != nil {
		br.Held = true
		br.Text = br.since(h, items, o)
		br.Told = &wtstate.Told{At: h.At, Facts: br.facts(items)}
		return br, nil
	}
	head, worth := br.head(o, hasDecisions(items) || older > 0)
	if len(items) == 0 && older == 0 && teamOlder == 0 && !worth {
		return br, nil
	}
	title := msgBriefTitle.Format(o.Lang, branchOr(b.Branch))
	if head != "" {
		title += "\n" + head
	}
	lay := recall.Layout{
		Lang: o.Lang,
		Head: title,
		Headings: map[recall.Layer]string{
			recall.L3:    msgHeadL3.In(o.Lang),
			recall.LTeam: recall.MsgHeadTeam.In(o.Lang),
			recall.LNow:  b.nowHeading(o.Lang),
			recall.L1:    msgHeadL1.In(o.Lang),
			recall.L2:    msgHeadL2.In(o.Lang),
		},
		Note: func(left map[recall.Layer]int) string { return leftNote(left, o) },
		Left: map[recall.Layer]int{recall.L3: older, recall.LTeam: teamOlder},
		Tail: o.Pulls.Line(o.Lang),
	}
	if !o.Unrecorded {
		sep := " "
		if o.Lang == i18n.JA {
			sep = ""
		}
		lay.Tail += sep + msgRecorded.Format(o.Lang, displayPath(o.State.Journal(), o.Worktree))
	}
	br.Assembly = recall.Assemble(items, lay, o.Budget)
	br.Text = br.Assembly.Text
	br.Told = &wtstate.Told{At: o.Now, Facts: br.facts(items)}
	return br, nil
}

func caseOf(source string) recall.Case {
	switch source {
	case "resume":
		return recall.CaseResume
	case "compact":
		return recall.CaseCompact
	case "clear":
		return recall.CaseClear
	case "startup":
		return recall.CaseStartup
	}
	return ""
}

func branchOr(b string) string {
	if b == "" {
		return "-"
	}
	return b
}

var (
	msgBriefTitle = i18n.Msg{JA: "## baton: このワークツリーの作業状況（ブランチ %s）", EN: "## baton: where this worktree stands (branch %s)"}
	msgHeadL3     = i18n.Msg{JA: "### 承認済みの決定 (L3)", EN: "### Approved decisions (L3)"}
	msgHeadNow    = i18n.Msg{JA: "### 前回の続き", EN: "### Where you left off"}
	msgHeadNowLog = i18n.Msg{JA: "### 前回の続き（自動ログより推定）", EN: "### Where you left off (estimated from the activity log)"}
	msgHeadL1     = i18n.Msg{JA: "### 直近の要約 (L1)", EN: "### Recent summary (L1)"}
	msgHeadL2     = i18n.Msg{JA: "### 日次の要約 (L2)", EN: "### Daily summary (L2)"}

	msgCaseStartup   = i18n.Msg{JA: "新しいセッションの開始です。", EN: "A new session started."}
	msgCaseResume    = i18n.Msg{JA: "セッションが再開されました（--continue / --resume）。", EN: "The session was resumed (--continue or --resume)."}
	msgCaseClear     = i18n.Msg{JA: "会話が /clear で消去されました。", EN: "The conversation was cleared with /clear."}
	msgCaseManual    = i18n.Msg{JA: "会話が /compact で圧縮されました。それまでの会話の細部は残っていません。", EN: "The conversation was compacted with /compact; the details of the conversation before it are gone."}
	msgCaseAuto      = i18n.Msg{JA: "会話がコンテキストの上限に達して自動で圧縮されました。それまでの会話の細部は残っていません。", EN: "The conversation reached the context limit and was compacted automatically; the details of the conversation before it are gone."}
	msgCaseCompact   = i18n.Msg{JA: "会話が圧縮されました。それまでの会話の細部は残っていません。", EN: "The conversation was compacted; the details of the conversation before it are gone."}
	msgCrashed       = i18n.Msg{JA: "このワークツリーの前のセッション %s（%s 開始、最後の記録 %s）は SessionEnd なしで終わり、そのプロセスももうありません: クラッシュか強制終了です。", EN: "The previous session of this worktree, %s (started %s, last record %s), ended without SessionEnd and its process is gone: it crashed or was killed."}
	msgLive          = i18n.Msg{JA: "このワークツリーでは別のセッション %s（%s 開始）も動いています。同じファイルを同時に変えないよう注意してください。", EN: "Another session, %s (started %s), is running in this worktree too: take care not to change the same files at once."}
	msgLivePerson    = i18n.Msg{JA: "このワークツリーではセッション %s（%s 開始）が動いています。", EN: "Session %s (started %s) is running in this worktree."}
	msgTaskLine      = i18n.Msg{JA: "**タスク**：%s", EN: "**Task**: %s"}
	msgTaskNote      = i18n.Msg{JA: "（%s）", EN: "(The task was %s.)"}
	msgTaskState     = i18n.Msg{JA: "`baton save --task` で設定", EN: "set with `baton save --task`"}
	msgTaskPrompt    = i18n.Msg{JA: "%s、この作業を始めた依頼で設定", EN: "set %s by the request that started this work"}
	msgTaskExplicit  = i18n.Msg{JA: "%s、「次のタスク:」で設定", EN: "set %s by a \"new task:\" prompt"}
	msgPreviousTask  = i18n.Msg{JA: "この前のタスク：%s", EN: "The task before this one: %s"}
	msgForPerson     = i18n.Msg{JA: "このワークツリーで Claude Code を起動すると（前の会話の続きなら `claude --continue`）、エージェントはこの状況を受け取ります。", EN: "Start Claude Code in this worktree (`claude --continue` to go on with the last conversation) and the agent gets this briefing."}
	msgAwaitingModel = i18n.Msg{JA: "決定の候補 %d 件が人の確認を待っています（まだ決定ではありません）。", EN: "%d proposed decision(s) await the person's review (not decided yet)."}
	msgAwaitingHuman = i18n.Msg{JA: "決定の候補 %d 件があなたの確認を待っています: `baton context approve` で一覧、`baton context approve <id>` で承認します。", EN: "%d proposed decision(s) await your review: `baton context approve` lists them, `baton context approve <id>` approves one."}
	msgCarryOn       = i18n.Msg{JA: "このタスクを続けてください。承認済みの決定は覆さず、下の未完了の項目から再開してください。", EN: "Carry on with this task: keep to the approved decisions and pick up from the open items below."}
	msgCarryOnOpen   = i18n.Msg{JA: "このタスクを続けてください。下の未完了の項目から再開してください。", EN: "Carry on with this task: pick up from the open items below."}
	msgCarryOnKeep   = i18n.Msg{JA: "このタスクを続けてください。承認済みの決定は覆さないでください。", EN: "Carry on with this task, keeping to the approved decisions."}
	msgCarryOnPlain  = i18n.Msg{JA: "このタスクを続けてください。", EN: "Carry on with this task."}
	msgNowStated     = i18n.Msg{JA: "**会話で述べられた決定**（人はまだ承認していません）：", EN: "**Decisions stated in the conversation** (no person has approved them yet):"}
	msgStatedBy      = i18n.Msg{JA: "- %s（%s、%s）", EN: "- %s (%s, %s)"}
	msgStatedPerson  = i18n.Msg{JA: "人の発言", EN: "said by the person"}
	msgStatedAgent   = i18n.Msg{JA: "エージェントの発言", EN: "said by the agent"}
	msgStatedOlder   = i18n.Msg{JA: "- ほかに、より古いものが %d 件", EN: "- … and %d older one(s)"}
	msgAfterClear    = i18n.Msg{JA: "ユーザーの次の依頼に従ってください。下はこのワークツリーで進んでいた作業です。", EN: "Follow the user's next request; below is the work that was going on in this worktree."}
	msgAskContinue   = i18n.Msg{JA: "ユーザーの依頼が具体的でなければ、この状況を伝えて続けるかどうか確認してから動いてください。", EN: "Unless the user's request says what to do, tell them where work left off and ask whether to continue before acting."}
	msgAskStale      = i18n.Msg{JA: "記録は古い（%s）です。ユーザーの依頼が具体的でなければ、まだ続ける価値があるか確認してください。", EN: "This is old (%s). Unless the user's request says what to do, ask whether it is still worth continuing."}
	msgIgnored       = i18n.Msg{JA: "ステートファイル %s は読んでいません（%s）。自動ログから推定しています。", EN: "The state file %s was not read (%s); this is estimated from the activity log."}
	msgSetupOnlyLine = i18n.Msg{JA: "前回は baton の仕組み（ステートファイルや設定）の調整だけだったようです。", EN: "Last time only baton's own setup (its state files and settings) was adjusted."}

	msgNowLast       = i18n.Msg{JA: "**最終アクティビティ**：%s", EN: "**Last activity**: %s"}
	msgNowUpdated    = i18n.Msg{JA: "**更新時刻**：%s", EN: "**Updated**: %s"}
	msgNowState      = i18n.Msg{JA: "（%s。全文: %s）", EN: "(%s; full state: %s)"}
	msgNowFailing    = i18n.Msg{JA: "**失敗したままのコマンド**（その後成功していない）：", EN: "**Commands still failing** (no success since):"}
	msgNowFailLine   = i18n.Msg{JA: "- `%s` → exit %s（%s）", EN: "- `%s` → exit %s (%s)"}
	msgNowFailOlder  = i18n.Msg{JA: "- ほかに、より古い失敗したままのコマンドが %d 件（`baton resume --json` ですべて一覧できます）", EN: "- … and %d older command(s) still failing (`baton resume --json` lists them all)"}
	msgNowNextStep   = i18n.Msg{JA: "**次にやると言っていたこと**：%s", EN: "**What it said it would do next**: %s"}
	msgNowUnanswered = i18n.Msg{JA: "**まだ答えていない依頼**：", EN: "**Prompts not answered yet**:"}
	msgNowTodo       = i18n.Msg{JA: "**TODO リスト**（%d 件中 %d 件完了）：", EN: "**Todo list** (%[2]d of %[1]d done):"}
	msgNowLastMsg    = i18n.Msg{JA: "**エージェントの最後の発言**（%s）：", EN: "**The agent's last message** (%s):"}
	msgNowFiles      = i18n.Msg{JA: "**直近に触ってたファイル**：", EN: "**Files touched**:"}
	msgNowFilesFrom  = i18n.Msg{JA: "（直近 %d 回のツール呼び出しより）", EN: "(in the last %d tool calls)"}
	msgNowCommands   = i18n.Msg{JA: "**直近のコマンド**：", EN: "**Recent commands**:"}

	msgRecorded     = i18n.Msg{JA: "このワークツリーの作業記録: %s", EN: "This worktree's activity is recorded in %s."}
	msgLeftOutBrief = i18n.Msg{
		JA: "（baton: 文字数の上限 %d のため省略: %s。上のツールか `baton resume`、`baton context show` で確認できます）",
		EN: "(baton: left out to stay within %d characters: %s. See them with the tools below, `baton resume` or `baton context show`.)",
	}
	msgLeftL3  = i18n.Msg{JA: "決定 %d 件", EN: "%d decision(s)"}
	msgLeftNow = i18n.Msg{JA: "前回の続きの項目 %d 件", EN: "%d item(s) of where you left off"}
	msgLeftL1  = i18n.Msg{JA: "直近の要約 %d 件", EN: "%d recent summary"}
	msgLeftL2  = i18n.Msg{JA: "日次の要約 %d 件", EN: "%d daily summary"}
)

// ignoredWhy says why a state file was not read, by Briefing.StateIgnored.
var ignoredWhy = map[string]i18n.Msg{
	IgnoredTracked: {JA: "git で管理されているファイルで、リポジトリと一緒に来たものです", EN: "git tracks it: it came with the repository"},
	IgnoredLink:    {JA: "シンボリックリンクです", EN: "it is a symbolic link"},
	IgnoredUnknown: {JA: "git で管理されているかどうか確かめられませんでした", EN: "whether git tracks it could not be told"},
}

// head is the restart case, the task and what to do: the part always
// kept. worth says whether it is worth saying on its own (more than the
// restart case).
func (br *Brief) head(o BriefOptions, decisions bool) (text string, worth bool) {
	b, lang := br.Briefing, o.Lang
	var lines []string
	switch br.Case {
	case recall.CaseStartup:
		lines = append(lines, msgCaseStartup.In(lang))
	case recall.CaseResume:
		lines = append(lines, msgCaseResume.In(lang))
	case recall.CaseClear:
		lines = append(lines, msgCaseClear.In(lang))
	case recall.CaseCompact:
		switch br.Trigger {
		case "manual":
			lines = append(lines, msgCaseManual.In(lang))
		case "auto":
			lines = append(lines, msgCaseAuto.In(lang))
		default:
			lines = append(lines, msgCaseCompact.In(lang))
		}
	}
	if c := br.Crashed; c != nil {
		lines = append(lines, msgCrashed.Format(lang, textcut.ShortID(c.ID), stamp(c.Started, o), stamp(lastOf(c), o)))
	}
	live := msgLive
	if o.ForPerson {
		live = msgLivePerson // the person runs no session of their own here
	}
	for _, l := range br.Live {
		lines = append(lines, live.Format(lang, textcut.ShortID(l.ID), stamp(l.Started, o)))
	}
	worth = br.Crashed != nil || len(br.Live) > 0
	if !o.Own {
		return strings.Join(lines, "\n"), worth
	}
	if b.StateError != nil {
		lines = append(lines, msgBroken.Format(lang, b.statePath(), b.StateError.Message(lang)))
	}
	if why, ok := ignoredWhy[b.StateIgnored]; ok {
		lines = append(lines, msgIgnored.Format(lang, b.statePath(), why.In(lang)))
	}
	if b.Task != "" {
		lines = append(lines, msgTaskLine.Format(lang, quote.Block(lang, b.Task)), msgTaskNote.Format(lang, br.taskFrom(o)))
		if b.PreviousTask != "" && b.PreviousTask != b.Task && b.TaskNew {
			lines = append(lines, msgPreviousTask.Format(lang, quote.Block(lang, b.PreviousTask)))
		}
	}
	something := b.Task != "" || b.Source != FromNothing
	switch {
	case !something:
	case o.ForPerson:
		lines = append(lines, msgForPerson.In(lang))
	case br.Case == recall.CaseCompact || br.Case == recall.CaseResume:
		lines = append(lines, carryOn(decisions, b.open()).In(lang))
	case br.Case == recall.CaseClear:
		lines = append(lines, msgAfterClear.In(lang))
	case b.SetupOnly:
		lines = append(lines, msgSetupOnlyLine.In(lang), msgAskContinue.In(lang))
	case b.Stale:
		lines = append(lines, msgAskStale.Format(lang, Ago(b.At.Sub(b.Updated), lang)))
	default:
		lines = append(lines, msgAskContinue.In(lang))
	}
	worth = worth || something || b.Elsewhere != nil || b.StateError != nil || b.StateIgnored != ""
	return strings.Join(lines, "\n"), worth
}

// lastActive is when the worktree was last active: its newest record, or
// the agent's last message when that is newer (the last message is
// activity too, so that the ages never disagree).
func (b *Briefing) lastActive() time.Time {
	if b.LastMessageAt.After(b.LastActivity) && !b.LastActivity.IsZero() {
		return b.LastMessageAt
	}
	return b.LastActivity
}

// carryOn is what a compacted or resumed session is told to do: keep to
// the approved decisions when there are any, pick up from the open items
// when there are any.
func carryOn(decisions, open bool) i18n.Msg {
	switch {
	case decisions && open:
		return msgCarryOn
	case open:
		return msgCarryOnOpen
	case decisions:
		return msgCarryOnKeep
	}
	return msgCarryOnPlain
}

// hasDecisions reports whether items hold an approved decision, own or a
// teammate's.
func hasDecisions(items []recall.Item) bool {
	return slices.ContainsFunc(items, func(it recall.Item) bool {
		tier := it.Priority / recall.TierPriority(1, 0)
		return it.Layer == recall.L3 || it.Layer == recall.LTeam && (tier == recall.TierDecisions || tier == recall.TierOlderDecisions)
	})
}

// open reports whether the worktree has open items: a failing command, the
// announced next step, prompts not answered, todo items not done, what
// current.md says is in progress or next, or a stated decision.
func (b *Briefing) open() bool {
	todo := slices.ContainsFunc(b.Todo, func(it TodoItem) bool { return it.Status != "completed" })
	return len(b.Failing) > 0 || b.NextStep != "" || len(b.Unanswered) > 0 || todo ||
		len(b.Doing) > 0 || len(b.Next) > 0 || len(b.Stated) > 0
}

// MaxStatedShown is how many stated decisions a briefing lists, the newest.
const MaxStatedShown = 5

// dropApproved leaves out of b.Stated the decisions a person approved
// since: those the decision log (its newest entries, among items when
// the layers were loaded) holds.
func (b *Briefing) dropApproved(o BriefOptions, items []recall.Item) error {
	if len(b.Stated) == 0 {
		return nil
	}
	var approved []string
	if o.Layers {
		for _, it := range items {
			if it.Layer == recall.L3 {
				approved = append(approved, textnorm.Fold(it.Text))
			}
		}
	} else {
		f, err := recall.FilesFor(o.State, o.Route)
		if err != nil {
			return err
		}
		lines, _, err := recall.NewestDecisions(f, o.Budget, nil)
		if err != nil {
			return err
		}
		for _, l := range lines {
			approved = append(approved, textnorm.Fold(l))
		}
	}
	b.Stated = slices.DeleteFunc(slices.Clone(b.Stated), func(st wtstate.Statement) bool {
		return slices.ContainsFunc(approved, func(a string) bool { return holds(a, st) })
	})
	return nil
}

// holds reports whether folded text (textnorm.Fold) holds the decision st
// states.
func holds(folded string, st wtstate.Statement) bool {
	return strings.Contains(folded, textnorm.Fold(cmp.Or(st.What, st.Text)))
}

// statesAny reports whether text holds one of the stated decisions the
// briefing lists.
func (b *Briefing) statesAny(text string) bool {
	folded := textnorm.Fold(text)
	return slices.ContainsFunc(b.Stated, func(st wtstate.Statement) bool { return holds(folded, st) })
}

// statedItem lists the decisions stated in the conversation and not
// approved, newest first; "" when there are none.
func (b *Briefing) statedItem(lang i18n.Lang) string {
	if len(b.Stated) == 0 {
		return ""
	}
	lines := []string{msgNowStated.In(lang)}
	for i := len(b.Stated) - 1; i >= 0 && len(lines) <= MaxStatedShown; i-- {
		st := b.Stated[i]
		by := msgStatedAgent
		if st.Person {
			by = msgStatedPerson
		}
		lines = append(lines, msgStatedBy.Format(lang, textcut.OneLine(st.Text), by.In(lang), Ago(b.At.Sub(st.TS), lang)))
	}
	if n := len(b.Stated) - MaxStatedShown; n > 0 {
		lines = append(lines, msgStatedOlder.Format(lang, n))
	}
	return strings.Join(lines, "\n")
}

// nowHeading heads "where you left off": estimated from the activity log
// unless current.md says it.
func (b *Briefing) nowHeading(lang i18n.Lang) string {
	if b.Source == FromJournal {
		return msgHeadNowLog.In(lang)
	}
	return msgHeadNow.In(lang)
}

// reviewNotes are what the briefing says of decisions not yet reviewed. The
// model gets one line, how many proposed decisions await the person; a
// person also gets the sessions whose decisions were not captured yet and
// the commands that review them.
func (br *Brief) reviewNotes(ctx context.Context, o BriefOptions) ([]string, error) {
	var notes []string
	f, err := recall.FilesFor(o.State, o.Route)
	if err != nil {
		return nil, err
	}
	pending, err := recall.Pending(f)
	if err != nil {
		return nil, err
	}
	if !o.ForPerson {
		// A candidate the briefing lists already, as a decision stated
		// in the conversation, is not counted again.
		n := 0
		for _, c := range pending {
			if !br.statesAny(c.Proposal) {
				n++
			}
		}
		if n > 0 {
			notes = append(notes, msgAwaitingModel.Format(o.Lang, n))
		}
		return notes, nil
	}
	if len(pending) > 0 {
		notes = append(notes, msgAwaitingHuman.Format(o.Lang, len(pending)))
	}
	note, err := decision.ReviewNote(ctx, o.journal(), o.State, br.Sessions, 3, o.Session, o.Lang)
	if err != nil {
		return nil, err
	}
	return append(notes, note), nil
}

func (br *Brief) taskFrom(o BriefOptions) string {
	b := br.Briefing
	switch b.TaskFrom {
	case TaskFromPrompt:
		return msgTaskPrompt.Format(o.Lang, Ago(b.At.Sub(b.TaskAt), o.Lang))
	case TaskFromExplicit:
		return msgTaskExplicit.Format(o.Lang, Ago(b.At.Sub(b.TaskAt), o.Lang))
	}
	return msgTaskState.In(o.Lang)
}

// nowItems are the entries of "where you left off", most important first;
// each is kept whole or left out.
func (b *Briefing) nowItems(o BriefOptions) []string {
	lang := o.Lang
	var out []string
	if e := b.Elsewhere; e != nil {
		out = append(out, msgElsewhere.Format(lang, e.Worktree, branchOr(e.Branch), Ago(b.At.Sub(e.At), lang)))
	}
	if len(b.Unanswered) > 0 {
		out = append(out, msgNowUnanswered.In(lang)+"\n"+strings.Join(quoted(b.Unanswered), "\n"))
	}
	if len(b.Failing) > 0 {
		out = append(out, b.failingItem(lang))
	}
	// What it said it would do next, here: the last message in full where
	// it is short and says so; else the step, and the message further down.
	lastMsg := b.LastMessage != ""
	if s := b.NextStep; s != "" && (hook.Len(b.LastMessage) > shortMessage || !strings.Contains(b.LastMessage, s)) {
		out = append(out, msgNowNextStep.Format(lang, s))
	} else if s != "" {
		out = append(out, b.lastMessageItem(lang))
		lastMsg = false
	}
	if text := b.statedItem(lang); text != "" {
		out = append(out, text)
	}
	if b.Source == FromState {
		lines := []string{msgNowUpdated.Format(lang, b.Updated.Format(time.RFC3339)), msgNowState.Format(lang, Ago(b.At.Sub(b.Updated), lang), b.statePath())}
		if len(b.Doing) > 0 {
			lines = append(lines, msgDoing.In(lang))
			lines = append(lines, bulleted(b.Doing)...)
		}
		if len(b.Next) > 0 {
			lines = append(lines, msgNext.In(lang))
			lines = append(lines, bulleted(b.Next)...)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	if len(b.Todo) > 0 {
		done := 0
		var lines []string
		for _, it := range b.Todo {
			if it.Status == "completed" {
				done++
				continue
			}
			if len(lines) < MaxTodo {
				lines = append(lines, "- ["+it.Status+"] "+it.Subject)
			}
		}
		if len(lines) > 0 {
			out = append(out, msgNowTodo.Format(lang, len(b.Todo), done)+"\n"+strings.Join(lines, "\n"))
		}
	}
	if lastMsg {
		out = append(out, b.lastMessageItem(lang))
	}
	if !b.LastActivity.IsZero() {
		lines := []string{msgNowLast.Format(lang, Ago(b.At.Sub(b.lastActive()), lang))}
		if len(b.TopFiles) > 0 && !b.SetupOnly {
			lines = append(lines, msgNowFiles.In(lang))
			for _, f := range b.TopFiles {
				lines = append(lines, msgFileCount.Format(lang, f.Path, f.Count))
			}
			lines = append(lines, msgNowFilesFrom.Format(lang, b.Records))
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	if cmds := b.otherCommands(); len(cmds) > 0 && !b.SetupOnly {
		out = append(out, msgNowCommands.In(lang)+"\n"+strings.Join(bulleted(cmds), "\n"))
	}
	return out
}

// failLine shows a failing command: its command line, exit status and age,
// then its first error lines.
func (b *Briefing) failLine(f Failure, lang i18n.Lang) string {
	exit := "?"
	if f.Exit != nil {
		exit = strconv.Itoa(*f.Exit)
	}
	line := msgNowFailLine.Format(lang, textcut.OneLine(f.Cmd), exit, Ago(b.At.Sub(f.At), lang))
	if f.Error != "" {
		line += "\n  " + strings.ReplaceAll(textcut.Chars(f.Error, 300), "\n", "\n  ")
	}
	return line
}

// failingItem lists every command still failing, newest first: the
// newest Failing with their error output, then up to FailingListed in all
// one line each, then one line counting the older ones.
func (b *Briefing) failingItem(lang i18n.Lang) string {
	lines := []string{msgNowFailing.In(lang)}
	for i, f := range b.Failing {
		if i == FailingListed {
			lines = append(lines, msgNowFailOlder.Format(lang, len(b.Failing)-i))
			break
		}
		if i >= Failing {
			f.Error = ""
		}
		lines = append(lines, b.failLine(f, lang))
	}
	return strings.Join(lines, "\n")
}

// shortMessage is the length up to which the agent's last message is shown
// in the place of what it said it would do next, which it holds.
const shortMessage = 400

func (b *Briefing) lastMessageItem(lang i18n.Lang) string {
	return msgNowLastMsg.Format(lang, Ago(b.At.Sub(b.LastMessageAt), lang)) + "\n" + mdQuote(b.LastMessage)
}

// otherCommands are the recent commands but those listed as still failing.
func (b *Briefing) otherCommands() []string {
	var out []string
	for _, c := range b.Commands {
		failing := false
		for _, f := range b.Failing {
			if strings.HasPrefix(c, "`"+textcut.OneLine(f.Cmd)+"`") || strings.HasPrefix(c, shownCommand(f.Cmd)) {
				failing = true
				break
			}
		}
		if !failing {
			out = append(out, c)
		}
	}
	return out
}

func leftNote(left map[recall.Layer]int, o BriefOptions) string {
	var parts []string
	for _, p := range []struct {
		l   recall.Layer
		msg i18n.Msg
	}{{recall.L3, msgLeftL3}, {recall.LTeam, recall.MsgLeftTeam}, {recall.LNow, msgLeftNow}, {recall.L1, msgLeftL1}, {recall.L2, msgLeftL2}} {
		if left[p.l] > 0 {
			parts = append(parts, p.msg.Format(o.Lang, left[p.l]))
		}
	}
	sep := ", "
	if o.Lang == i18n.JA {
		sep = "、"
	}
	return msgLeftOutBrief.Format(o.Lang, o.Budget, strings.Join(parts, sep))
}

func lastOf(s *wtstate.Session) (t time.Time) {
	if s.Last.IsZero() {
		return s.Started
	}
	return s.Last
}

func stamp(t time.Time, o BriefOptions) string {
	return t.In(o.Now.Location()).Format("2006-01-02 15:04")
}

func mdQuote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ")
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = "- " + textcut.OneLine(textcut.Chars(it, 300))
	}
	return out
}
