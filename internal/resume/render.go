package resume

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/wtstate"
)

var (
	msgDoing     = i18n.Msg{JA: "**いまやってること**：", EN: "**Now**:"}
	msgNext      = i18n.Msg{JA: "**次の一手**：", EN: "**Next**:"}
	msgBroken    = i18n.Msg{JA: "ステートファイル %s が壊れているようです（%s）。ファイルはそのままにして、自動ログから推定しています。`baton save --edit` で直せます。", EN: "The state file %s looks broken (%s). It was left as it is; this is estimated from the activity log. `baton save --edit` fixes it."}
	msgFileCount = i18n.Msg{JA: "- %s（%d 回）", EN: "- %s (%d×)"}
	msgElsewhere = i18n.Msg{JA: "このワークツリーには最近の作業記録がありません。直近の作業は %[3]s、別のワークツリー %[1]s（ブランチ %[2]s）でした。", EN: "This worktree has no recent recorded work. The latest work was in another worktree, %[1]s (branch %[2]s), %[3]s."}
)

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

// jsonBriefing is the briefing as `baton resume --json` prints it: the
// fields of earlier versions, then the open loops and the restart. Times are
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
	StateIgnored    string      `json:"state_file_ignored,omitempty"`
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

	TaskSource   string         `json:"task_source"`
	PreviousTask string         `json:"previous_task,omitempty"`
	Failing      []Failure      `json:"failing_commands"`
	Unanswered   []string       `json:"unanswered_prompts"`
	Todo         []TodoItem     `json:"todo"`
	LastMessage  string         `json:"last_message"`
	NextStep     string         `json:"next_step"`
	Stated       []jsonStated   `json:"stated_decisions"`
	Crashed      *jsonSession   `json:"crashed_session"`
	Live         []jsonSession  `json:"live_sessions"`
	Left         map[string]int `json:"left_out,omitempty"`
}

// jsonStated is a decision stated in the conversation that no person
// approved.
type jsonStated struct {
	Text   string `json:"text"`
	By     string `json:"by"` // person or agent
	Stated string `json:"stated"`
}

type jsonOther struct {
	Worktree     string `json:"worktree"`
	Branch       string `json:"branch"`
	LastActivity string `json:"last_activity"`
}

type jsonSession struct {
	Session string `json:"session_id"`
	Started string `json:"started"`
	PID     int    `json:"pid,omitempty"`
}

func jsonSessionOf(s *wtstate.Session) jsonSession {
	return jsonSession{Session: s.ID, Started: s.Started.Format(time.RFC3339), PID: s.Agent.PID}
}

// JSON renders the briefing as one JSON object.
func (br *Brief) JSON() ([]byte, error) {
	b := br.Briefing
	j := jsonBriefing{
		Source: b.Source, Task: cmp.Or(b.Task, b.fileTask), Updated: timeOrNull(b.Updated), Status: string(b.Status),
		Stale: b.Stale, Now: orEmpty(b.Doing), Next: orEmpty(b.Next),
		StateFile: b.StateFile, StateFileBroken: b.StateBroken(), StateIgnored: b.StateIgnored,
		LastActivity: timeOrNull(b.lastActive()), Records: b.Records,
		TopFiles: b.TopFiles, Commands: orEmpty(b.Commands), SetupOnly: b.SetupOnly,
		Worktree: b.Worktree, Branch: b.Branch, Text: br.Text,
		TaskSource: b.TaskFrom, PreviousTask: b.PreviousTask, Failing: b.Failing, Unanswered: orEmpty(b.Unanswered),
		Todo: b.Todo, LastMessage: b.LastMessage, NextStep: b.NextStep, Live: []jsonSession{},
	}
	if j.TopFiles == nil {
		j.TopFiles = []FileCount{}
	}
	j.Stated = []jsonStated{}
	for _, st := range b.Stated {
		by := "agent"
		if st.Person {
			by = "person"
		}
		j.Stated = append(j.Stated, jsonStated{Text: st.Text, By: by, Stated: st.TS.Format(time.RFC3339)})
	}
	if j.Failing == nil {
		j.Failing = []Failure{}
	}
	if j.Todo == nil {
		j.Todo = []TodoItem{}
	}
	if b.StateError != nil {
		j.StateFileError = b.StateError.Error()
	}
	if last := b.lastActive(); !last.IsZero() {
		age := int64(b.At.Sub(last) / time.Second)
		j.LastActivityAge = &age
	}
	if e := b.Elsewhere; e != nil {
		j.OtherWorktree = &jsonOther{Worktree: e.Worktree, Branch: e.Branch, LastActivity: e.At.Format(time.RFC3339)}
	}
	if c := br.Crashed; c != nil {
		js := jsonSessionOf(c)
		j.Crashed = &js
	}
	for i := range br.Live {
		j.Live = append(j.Live, jsonSessionOf(&br.Live[i]))
	}
	for l, n := range br.Left {
		if n > 0 {
			if j.Left == nil {
				j.Left = map[string]int{}
			}
			j.Left[string(l)] = n
		}
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
