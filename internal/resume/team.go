package resume

import (
	"slices"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/teammem"
)

var (
	msgTeamDecision = i18n.Msg{JA: "%s（%s が共有、%s）", EN: "%s (shared by %s, %s)"}
	msgTeamBranch   = i18n.Msg{JA: "**ブランチ %s の状況**（%s が %s に残したもの）", EN: "**Where branch %s stands** (as %s left it, %s)"}
	msgTeamTask     = i18n.Msg{JA: "タスク：%s", EN: "Task: %s"}
	msgTeamLoops    = i18n.Msg{JA: "未完了：", EN: "Open loops:"}
)

// teamItems are the briefing's items from the memory teammates shared
// (the view the last `baton sync` wrote; no git runs here): the state
// someone else left this branch in, then their approved decisions, newest
// first within the budget's quarter, the older ones last. hide reports the
// worktree's own decisions a teammate retracted; nil when none was.
func teamItems(o BriefOptions, branch string) (items []recall.Item, hide func(*recall.Decision) bool, err error) {
	v, err := teammem.DirOf(o.State).ReadView()
	if err != nil {
		return nil, nil, err
	}
	if len(v.Hidden) > 0 {
		hidden := map[string]bool{}
		for _, id := range v.Hidden {
			hidden[id] = true
		}
		hide = func(d *recall.Decision) bool { return hidden[teammem.FromDecision(*d).ID] }
	}
	if e, ok := v.Branches[branch]; ok && branch != "" {
		text := msgTeamBranch.Format(o.Lang, branch, e.Author, stamp(e.TS, o))
		if e.Task != "" {
			text += "\n" + msgTeamTask.Format(o.Lang, e.Task)
		}
		if len(e.Loops) > 0 {
			text += "\n" + msgTeamLoops.In(o.Lang)
			for _, l := range e.Loops {
				text += "\n- " + l
			}
		}
		items = append(items, recall.Item{Layer: recall.LTeam, Text: text, Priority: recall.TierPriority(recall.TierNow, 0)})
	}
	room := o.Budget / 4
	first := len(items)
	for i := len(v.Decisions) - 1; i >= 0; i-- {
		e := v.Decisions[i]
		d := recall.Decision{Date: e.Date, Summary: e.Summary, Source: e.Source}
		if d.Date == "" {
			d.Date = e.TS.Format(recall.DateLayout)
		}
		text := msgTeamDecision.Format(o.Lang, d.Line(), e.Author, stamp(e.TS, o))
		tier := recall.TierDecisions
		if room -= hook.Len(text) + 1; room < 0 {
			tier = recall.TierOlderDecisions
		}
		// Own decisions come first within the tier.
		items = append(items, recall.Item{Layer: recall.LTeam, Text: text, Priority: recall.TierPriority(tier, 500000+len(v.Decisions)-1-i)})
	}
	// Shown oldest first, as the decision log is.
	slices.Reverse(items[first:])
	return items, hide, nil
}
