package resume

import (
	"slices"
	"time"

	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
)

var (
	msgTeamSource = i18n.Msg{JA: "%s、%s が共有（%s）", EN: "%s; shared by %s, %s"}
	msgTeamBranch = i18n.Msg{JA: "**ブランチ %s の状況**（%s が %s に残したもの）", EN: "**Where branch %s stands** (as %s left it, %s)"}
	msgTeamTask   = i18n.Msg{JA: "タスク：%s", EN: "Task: %s"}
	msgTeamLoops  = i18n.Msg{JA: "未完了：", EN: "Open loops:"}
)

// Shared is what teammates shared, as the last `baton sync` left it for
// this clone (no git runs here).
type Shared struct {
	View teammem.View
	// Decisions are their approved decisions, oldest first, each source
	// saying who shared it and when.
	Decisions []recall.Decision
	// Hide reports the route's own decisions a teammate retracted; nil
	// when none was.
	Hide func(*recall.Decision) bool
	dir  teammem.Dir
}

// ReadShared reads what teammates shared from the state folder d, in lang
// with times in loc.
func ReadShared(d state.Dir, lang i18n.Lang, loc *time.Location) (Shared, error) {
	v, err := teammem.DirOf(d).ReadView()
	if err != nil {
		return Shared{}, err
	}
	s := Shared{View: v, dir: teammem.DirOf(d)}
	if len(v.HiddenOwn) > 0 {
		hidden := map[string]bool{}
		for _, k := range v.HiddenOwn {
			hidden[k] = true
		}
		s.Hide = func(d *recall.Decision) bool { return hidden[teammem.OwnKey(d.Date, d.Summary)] }
	}
	for _, e := range v.Decisions {
		d := recall.Decision{Date: e.Date, TS: e.TS, Slug: e.Slug, Summary: e.Summary, Source: e.Source}
		if d.Date == "" {
			d.Date = e.TS.Format(recall.DateLayout)
		}
		d.Source = msgTeamSource.Format(lang, d.SourceText(), e.Author, e.TS.In(loc).Format("2006-01-02 15:04"))
		s.Decisions = append(s.Decisions, d)
	}
	return s, nil
}

// teamItems are the briefing's items from what teammates shared: the state
// someone else left this branch in, then their approved decisions, newest
// first within the budget's quarter, the older ones last; older counts
// those past the whole budget, left out before assembly.
func teamItems(o BriefOptions, s Shared, branch string) (items []recall.Item, older int, err error) {
	e, ok := teammem.Entry{}, false
	if branch != "" && !s.View.SyncedAt.IsZero() {
		if e, ok, err = s.dir.ReadBranch(branch); err != nil {
			return nil, 0, err
		}
	}
	if ok {
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
	room, older := o.Budget/4, 0
	first := len(items)
	for i := len(s.Decisions) - 1; i >= 0; i-- {
		text := s.Decisions[i].Line()
		tier := recall.TierDecisions
		if room -= hook.Len(text) + 1; room < 0 {
			tier = recall.TierOlderDecisions
		}
		if room < -o.Budget {
			// Past the whole budget: these could not be kept beside the
			// newer ones, only counted.
			older = i + 1
			break
		}
		// The worktree's own decisions come first within the tier.
		items = append(items, recall.Item{Layer: recall.LTeam, Text: text, Priority: recall.TierPriority(tier, 500000+len(s.Decisions)-1-i)})
	}
	// Shown oldest first, as the decision log is.
	slices.Reverse(items[first:])
	return items, older, nil
}
