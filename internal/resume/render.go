package resume

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
)

var (
	msgStateTitle   = i18n.Msg{JA: "### 前回の続き", EN: "### Where you left off"}
	msgJournalTitle = i18n.Msg{JA: "### 前回の続き（自動ログより推定）", EN: "### Where you left off (estimated from the activity log)"}
	msgTask         = i18n.Msg{JA: "**タスク**：%s", EN: "**Task**: %s"}
	msgNoTask       = i18n.Msg{JA: "（未設定）", EN: "(not set)"}
	msgUpdated      = i18n.Msg{JA: "**更新時刻**：%s（%s）", EN: "**Updated**: %s (%s)"}
	msgDoing        = i18n.Msg{JA: "**いまやってること**：", EN: "**Now**:"}
	msgNext         = i18n.Msg{JA: "**次の一手**：", EN: "**Next**:"}
	msgLastFileOp   = i18n.Msg{JA: "**最終ファイル操作**：%s", EN: "**Last file activity**: %s"}
	msgReadWhole    = i18n.Msg{JA: "（全文: %s）", EN: "(Full state: %s)"}
	msgContinue     = i18n.Msg{JA: "続きから再開しますか？（または「別件」とお伝えください）", EN: "Continue from here? (Or say \"something else\".)"}
	msgStale        = i18n.Msg{JA: "前回ステートが古い（%s）ですが、まだ続けますか？（または「別件」とお伝えください）", EN: "This state is old (%s). Is it still worth continuing? (Or say \"something else\".)"}
	msgBroken       = i18n.Msg{JA: "ステートファイル %s が壊れているようです（%s）。ファイルはそのままにして、自動ログから推定しています。", EN: "The state file %s looks broken (%s). It was left as it is; this is estimated from the activity log."}
	msgBrokenAlone  = i18n.Msg{JA: "ステートファイル %s が壊れているようです（%s）。ファイルはそのままにしています。`baton save --edit` で直せます。", EN: "The state file %s looks broken (%s). It was left as it is; `baton save --edit` fixes it."}
	msgLastActivity = i18n.Msg{JA: "**最終アクティビティ**：%s", EN: "**Last activity**: %s"}
	msgTopFiles     = i18n.Msg{JA: "**直近に触ってたファイル**：", EN: "**Files touched most recently**:"}
	msgFileCount    = i18n.Msg{JA: "- %s（%d 回）", EN: "- %s (%d×)"}
	msgCommands     = i18n.Msg{JA: "**直近のコマンド**：", EN: "**Recent commands**:"}
	msgSetupOnly    = i18n.Msg{JA: "前回は baton の仕組み（ステートファイルや設定）の調整だけだったようです。", EN: "Last time only baton's own setup (its state files and settings) was adjusted."}
	msgSetupAsk     = i18n.Msg{JA: "その続きをしますか？（または「別件」とお伝えください）", EN: "Carry on with that? (Or say \"something else\".)"}
	msgJournalAsk   = i18n.Msg{JA: "このあたりの作業の続きから入りますか？（または「別件」とお伝えください）", EN: "Pick up this work again? (Or say \"something else\".)"}
	msgElsewhere    = i18n.Msg{JA: "このワークツリーには最近の作業記録がありません。直近の作業は %[3]s、別のワークツリー %[1]s（ブランチ %[2]s）でした。", EN: "This worktree has no recent recorded work. The latest work was in another worktree, %[1]s (branch %[2]s), %[3]s."}
	msgContext      = i18n.Msg{
		JA: "baton: このワークツリーの前回の作業状況です（%s より）。ユーザーの依頼が具体的でなければ、これを伝えて続けるかどうか確認してから動いてください。",
		EN: "baton: where work in this worktree left off (from %s). Unless the user's request says what to do, tell them this and ask whether to continue before acting.",
	}
	msgFromJournal = i18n.Msg{JA: "作業記録 %s", EN: "the activity log %s"}
	msgFromState   = i18n.Msg{JA: "ステートファイル %s", EN: "the state file %s"}
)

// Text renders the briefing for a person in lang; "" when there is nothing to
// say.
func (b *Briefing) Text(lang i18n.Lang) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }
	switch b.Source {
	case FromState:
		add(msgStateTitle.In(lang))
		task := b.Task
		if task == "" {
			task = msgNoTask.In(lang)
		}
		add(msgTask.Format(lang, task))
		if !b.Updated.IsZero() {
			add(msgUpdated.Format(lang, b.Updated.Format("2006-01-02 15:04 -07:00"), Ago(b.At.Sub(b.Updated), lang)))
		}
		if len(b.Doing) > 0 {
			add(msgDoing.In(lang))
			add(bulleted(b.Doing)...)
		}
		if len(b.Next) > 0 {
			add(msgNext.In(lang))
			add(bulleted(b.Next)...)
		}
		if !b.LastActivity.IsZero() && !b.Updated.IsZero() && b.LastActivity.Sub(b.Updated) > ActivityGap {
			add(msgLastFileOp.Format(lang, Ago(b.At.Sub(b.LastActivity), lang)))
		}
		add(msgReadWhole.Format(lang, b.statePath()))
		if b.Stale {
			add(msgStale.Format(lang, Ago(b.At.Sub(b.Updated), lang)))
		} else {
			add(msgContinue.In(lang))
		}
	case FromJournal:
		add(msgJournalTitle.In(lang))
		if b.StateError != nil {
			add(msgBroken.Format(lang, b.statePath(), b.StateError.Message(lang)))
		}
		add(msgLastActivity.Format(lang, Ago(b.At.Sub(b.LastActivity), lang)))
		if b.SetupOnly {
			add(msgSetupOnly.In(lang), msgSetupAsk.In(lang))
			break
		}
		if len(b.TopFiles) > 0 {
			add(msgTopFiles.In(lang))
			for _, f := range b.TopFiles {
				add(msgFileCount.Format(lang, f.Path, f.Count))
			}
		}
		if len(b.Commands) > 0 {
			add(msgCommands.In(lang))
			add(bulleted(b.Commands)...)
		}
		add(msgJournalAsk.In(lang))
	default:
		if b.StateError != nil {
			add(msgBrokenAlone.Format(lang, b.statePath(), b.StateError.Message(lang)))
		}
		if e := b.Elsewhere; e != nil {
			branch := e.Branch
			if branch == "" {
				branch = "-"
			}
			add(msgElsewhere.Format(lang, e.Worktree, branch, Ago(b.At.Sub(e.At), lang)))
		}
	}
	return strings.Join(lines, "\n")
}

// SessionContext is the briefing as injected at session start: the text
// with a line telling the agent what it is; "" when there is nothing to say.
func (b *Briefing) SessionContext(lang i18n.Lang) string {
	text := b.Text(lang)
	if text == "" {
		return ""
	}
	from := msgFromJournal.Format(lang, displayPath(b.Journal, b.Worktree))
	if b.Source == FromState || (b.StateError != nil && b.Elsewhere == nil) {
		from = msgFromState.Format(lang, displayPath(b.StateFile, b.Worktree))
	}
	return msgContext.Format(lang, from) + "\n\n" + text
}

func bulleted(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = "- " + it
	}
	return out
}

// statePath is current.md's path as a person in the worktree would type it.
func (b *Briefing) statePath() string { return displayPath(b.StateFile, b.Worktree) }

var (
	msgJustNow = i18n.Msg{JA: "たった今", EN: "just now"}
	msgMinutes = i18n.Msg{JA: "%d 分前", EN: "%d minutes ago"}
	msgMinute  = i18n.Msg{JA: "%d 分前", EN: "%d minute ago"}
	msgHours   = i18n.Msg{JA: "%d 時間前", EN: "%d hours ago"}
	msgHour    = i18n.Msg{JA: "%d 時間前", EN: "%d hour ago"}
	msgDays    = i18n.Msg{JA: "%d 日前", EN: "%d days ago"}
	msgDay     = i18n.Msg{JA: "%d 日前", EN: "%d day ago"}
)

// Ago says how long ago something happened d before now: minutes under an
// hour, hours under a day, days after that, rounded down. A moment in the
// future (a clock that moved back) is "just now".
func Ago(d time.Duration, lang i18n.Lang) string {
	unit := func(n int, one, many i18n.Msg) string {
		if n == 1 {
			return one.Format(lang, n)
		}
		return many.Format(lang, n)
	}
	switch {
	case d < time.Minute:
		return msgJustNow.In(lang)
	case d < time.Hour:
		return unit(int(d/time.Minute), msgMinute, msgMinutes)
	case d < 24*time.Hour:
		return unit(int(d/time.Hour), msgHour, msgHours)
	}
	return unit(int(d/(24*time.Hour)), msgDay, msgDays)
}

// jsonBriefing is the briefing as `baton resume --json` prints it. Times are
// RFC 3339; a time that is not known is null.
type jsonBriefing struct {
	Source          Source      `json:"source"`
	Task            string      `json:"task"`
	Updated         *string     `json:"updated"`
	Status          string      `json:"status"`
	Stale           bool        `json:"stale"`
	Now             []string    `json:"now"`
	Next            []string    `json:"next"`
	StateFile       string      `json:"state_file"`
	StateFileBroken bool        `json:"state_file_broken"`
	StateFileError  string      `json:"state_file_error,omitempty"`
	LastActivity    *string     `json:"last_activity"`
	LastActivityAge *int64      `json:"last_activity_age_seconds"`
	Records         int         `json:"records"`
	TopFiles        []FileCount `json:"top_files"`
	Commands        []string    `json:"commands"`
	SetupOnly       bool        `json:"setup_only"`
	Worktree        string      `json:"worktree"`
	Branch          string      `json:"branch"`
	OtherWorktree   *jsonOther  `json:"other_worktree"`
	Text            string      `json:"text"`
}

type jsonOther struct {
	Worktree     string `json:"worktree"`
	Branch       string `json:"branch"`
	LastActivity string `json:"last_activity"`
}

// JSON renders the briefing as one JSON object, its text in lang.
func (b *Briefing) JSON(lang i18n.Lang) ([]byte, error) {
	j := jsonBriefing{
		Source: b.Source, Task: b.Task, Updated: timeOrNull(b.Updated), Status: string(b.Status),
		Stale: b.Stale, Now: orEmpty(b.Doing), Next: orEmpty(b.Next),
		StateFile: b.StateFile, StateFileBroken: b.StateBroken(),
		LastActivity: timeOrNull(b.LastActivity), Records: b.Records,
		TopFiles: b.TopFiles, Commands: orEmpty(b.Commands), SetupOnly: b.SetupOnly,
		Worktree: b.Worktree, Branch: b.Branch, Text: b.Text(lang),
	}
	if j.TopFiles == nil {
		j.TopFiles = []FileCount{}
	}
	if b.StateError != nil {
		j.StateFileError = b.StateError.Error()
	}
	if !b.LastActivity.IsZero() {
		age := int64(b.At.Sub(b.LastActivity) / time.Second)
		j.LastActivityAge = &age
	}
	if e := b.Elsewhere; e != nil {
		j.OtherWorktree = &jsonOther{Worktree: e.Worktree, Branch: e.Branch, LastActivity: e.At.Format(time.RFC3339)}
	}
	out, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode briefing: %w", err)
	}
	return out, nil
}

func timeOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
