package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/charmbracelet/huh"

	"github.com/baton-cli/baton/internal/decision"
	"github.com/baton-cli/baton/internal/formstyle"
	"github.com/baton-cli/baton/internal/i18n"
)

// formUI asks at the terminal with forms: a multi-select of the candidates,
// one of those to mark cross-issue, a choice of what to do when posting
// fails. On a terminal that cannot draw (TERM=dumb) the same questions are
// asked line by line.
type formUI struct {
	f      *Factory
	lang   i18n.Lang
	scopes map[string]string
}

var (
	msgFormKeys       = i18n.Msg{JA: "↑↓ で移動、space で切り替え、enter で決定", EN: "↑↓ move, space toggles, enter confirms"}
	msgFormCrossNone  = i18n.Msg{JA: "選ばなければすべてこの issue だけの決定になります", EN: "Leave all unmarked to keep them to this issue"}
	msgFormSave       = i18n.Msg{JA: "保存して後で再投稿する（baton decisions retry）", EN: "Save them and retry later (baton decisions retry)"}
	msgFormDiscard    = i18n.Msg{JA: "破棄する", EN: "Discard them"}
	msgFormAbort      = i18n.Msg{JA: "中断する（何も記録しない）", EN: "Abort (record nothing)"}
	msgFormCandidate  = i18n.Msg{JA: "%s — %s", EN: "%s — %s"}
	candidateWhatCols = 72
)

// run shows form and turns the user leaving it into decision.ErrCancelled.
func (u *formUI) run(ctx context.Context, groups ...*huh.Group) error {
	formstyle.Detect(u.f.IO.Out)
	form := huh.NewForm(groups...).
		WithInput(u.f.IO.In).
		WithOutput(u.f.IO.Out).
		WithAccessible(u.f.Getenv != nil && u.f.Getenv("TERM") == "dumb")
	err := form.RunWithContext(ctx)
	if errors.Is(err, huh.ErrUserAborted) {
		return decision.ErrCancelled
	}
	return err
}

func (u *formUI) ChooseIssue(ctx context.Context, issues []int) (int, error) {
	opts := make([]huh.Option[int], 0, len(issues))
	for _, n := range issues {
		opts = append(opts, huh.NewOption(fmt.Sprintf("#%d", n), n))
	}
	var n int
	sel := huh.NewSelect[int]().Title(msgWhichIssue.In(u.lang)).Options(opts...).Value(&n)
	if err := u.run(ctx, huh.NewGroup(sel)); err != nil {
		return 0, err
	}
	return n, nil
}

// Approve asks which candidates to post (all are marked to start with) and
// which of those are cross-issue (marked as the extractor or --scope
// suggested).
func (u *formUI) Approve(ctx context.Context, cands []decision.Candidate) ([]decision.UserDecision, error) {
	all := make([]huh.Option[int], 0, len(cands))
	for i, c := range cands {
		all = append(all, huh.NewOption(msgFormCandidate.Format(u.lang, c.Slug, oneLine(c.What, candidateWhatCols)), i).Selected(true))
	}
	var chosen, cross []int
	post := huh.NewMultiSelect[int]().
		Title(msgApprove.In(u.lang)).
		Description(msgFormKeys.In(u.lang)).
		Options(all...).
		Value(&chosen)
	mark := huh.NewMultiSelect[int]().
		Title(msgCross.In(u.lang)).
		Description(msgFormCrossNone.In(u.lang)).
		OptionsFunc(func() []huh.Option[int] {
			// The suggested ones first: the list opens scrolled to the
			// first marked option, and none may hide above it.
			var marked, rest []huh.Option[int]
			for _, i := range chosen {
				if u.scope(cands[i]) == decision.ScopeCrossIssue {
					marked = append(marked, huh.NewOption(cands[i].Slug, i).Selected(true))
				} else {
					rest = append(rest, huh.NewOption(cands[i].Slug, i))
				}
			}
			return append(marked, rest...)
		}, &chosen).
		Value(&cross)
	if err := u.run(ctx,
		huh.NewGroup(post),
		huh.NewGroup(mark).WithHideFunc(func() bool { return len(chosen) == 0 }),
	); err != nil {
		return nil, err
	}
	isCross := map[int]bool{}
	for _, i := range cross {
		isCross[i] = true
	}
	var out []decision.UserDecision
	for _, i := range chosen {
		scope := decision.ScopeIssue
		if isCross[i] {
			scope = decision.ScopeCrossIssue
		}
		out = append(out, decision.UserDecision{Candidate: cands[i], FinalScope: scope})
	}
	return out, nil
}

// scope is the suggested scope of c: --scope's, else the extractor's.
func (u *formUI) scope(c decision.Candidate) string {
	if s, ok := u.scopes[c.Slug]; ok {
		return s
	}
	return c.ScopeHint
}

// OnFailure asks what to do with decisions that could not be posted; leaving
// the form aborts.
func (u *formUI) OnFailure(ctx context.Context, failed []decision.Failure) (decision.Choice, error) {
	choice := decision.ChoiceSave
	sel := huh.NewSelect[decision.Choice]().
		Title(msgOnFailure.Format(u.lang, len(failed))).
		Options(
			huh.NewOption(msgFormSave.In(u.lang), decision.ChoiceSave),
			huh.NewOption(msgFormDiscard.In(u.lang), decision.ChoiceDiscard),
			huh.NewOption(msgFormAbort.In(u.lang), decision.ChoiceAbort),
		).
		Value(&choice)
	if err := u.run(ctx, huh.NewGroup(sel)); err != nil {
		return decision.ChoiceAbort, nil
	}
	return choice, nil
}
