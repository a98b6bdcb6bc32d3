package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// Extractive summarizes without a model: it picks facts from the records
// (prompts, files touched, commands run, the agent's last answer, the
// questions and TODOs left in it). The same input always gives the same
// summary.
type Extractive struct{}

var _ Summarizer = Extractive{}

// Name implements Summarizer.
func (Extractive) Name() string { return "extractive" }

// Summarize implements Summarizer.
func (Extractive) Summarize(_ context.Context, in Input) (Output, error) {
	if in.Loc == nil {
		in.Loc = time.UTC
	}
	switch in.Layer {
	case L1:
		return Output{Sections: extractRecent(in)}, nil
	case L2:
		return Output{Sections: extractDaily(in)}, nil
	case L3:
		return Output{Sections: []Section{{secDecision, oneOrNone(cutItem(firstNonEmpty(proposedDecision(in.Proposal), firstSentence(in.Approval))))}}}, nil
	}
	return Output{}, fmt.Errorf("unknown layer %q", in.Layer)
}

var (
	msgAsked    = i18n.Msg{JA: "依頼: %s", EN: "asked: %s"}
	msgAnswered = i18n.Msg{JA: "回答: %s", EN: "answered: %s"}
	msgWaiting  = i18n.Msg{JA: "エージェントの回答待ち: %s", EN: "waiting for the agent to answer: %s"}
	msgQuestion = i18n.Msg{JA: "人の返答待ち: %s", EN: "waiting for the person's answer: %s"}
	msgTimes    = i18n.Msg{JA: "%s（%d 回）", EN: "%s (%d×)"}
	msgThread   = i18n.Msg{JA: "%s: %s（操作 %d 件）", EN: "%s: %s (%d actions)"}
	msgAwaiting = i18n.Msg{JA: "承認待ち: %s", EN: "awaiting approval: %s"}
)

func extractRecent(in Input) []Section {
	goal := ""
	for i := len(in.Entries) - 1; i >= 0 && goal == ""; i-- {
		if p := in.Entries[i].Prompt; p != "" && !IsApproval(p, in.Phrases) {
			goal = cutItem(p)
		}
	}
	if goal == "" {
		goal = cutItem(in.Goal)
	}
	return []Section{
		{secGoal, oneOrNone(goal)},
		{secActions, actions(in)},
		{secLoops, capItems(openLoops(in), MaxLoops)},
	}
}

// actions lists what happened, time-ordered, the newest MaxActions,
// folding repeats of the same action into one with a count.
func actions(in Input) []string {
	type act struct {
		at    time.Time
		text  string
		count int
	}
	var acts []act
	for _, e := range in.Entries {
		if !isActivity(&e) {
			continue
		}
		text := actionText(e, in.Lang)
		if text == "" {
			continue
		}
		if n := len(acts); n > 0 && acts[n-1].text == text {
			acts[n-1].count++
			continue
		}
		acts = append(acts, act{at: e.TS, text: text, count: 1})
	}
	if len(acts) > MaxActions {
		acts = acts[len(acts)-MaxActions:]
	}
	out := make([]string, 0, len(acts))
	for _, a := range acts {
		text := a.text
		if a.count > 1 {
			text = msgTimes.Format(in.Lang, text, a.count)
		}
		out = append(out, cutItem(a.at.In(in.Loc).Format("15:04")+" "+text))
	}
	return out
}

func actionText(e Entry, lang i18n.Lang) string {
	switch {
	case e.Tool != "" && e.File != "":
		return e.Tool + " " + displayPath(e.File, e.Worktree)
	case e.Tool != "" && e.Desc != "":
		return e.Tool + ": " + textcut.OneLine(e.Desc)
	case e.Tool != "":
		return e.Tool
	case e.Prompt != "":
		return msgAsked.Format(lang, textcut.Chars(textcut.OneLine(e.Prompt), 160))
	case e.Message != "":
		return msgAnswered.Format(lang, textcut.Chars(firstSentence(e.Message), 160))
	}
	return ""
}

// openLoops finds what is unresolved: a prompt the agent has not answered,
// questions and TODOs in the agent's last answer, and loops known from
// elsewhere.
func openLoops(in Input) []string {
	var loops []string
	last := -1
	for i := len(in.Entries) - 1; i >= 0; i-- {
		if isActivity(&in.Entries[i]) {
			last = i
			break
		}
	}
	if last >= 0 {
		if e := in.Entries[last]; e.Prompt != "" && !IsApproval(e.Prompt, in.Phrases) {
			loops = append(loops, msgWaiting.Format(in.Lang, textcut.OneLine(e.Prompt)))
		}
	}
	answered := false // a prompt came after the answer looked at
	for i := len(in.Entries) - 1; i >= 0; i-- {
		e := in.Entries[i]
		if e.Prompt != "" {
			answered = true
		}
		if e.Message == "" {
			continue
		}
		for _, s := range sentences(e.Message) {
			switch {
			case strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？"):
				if !answered {
					loops = append(loops, msgQuestion.Format(in.Lang, s))
				}
			case hasTodoWord(s):
				loops = append(loops, s)
			}
		}
		break // only the last answer: older questions were answered or dropped
	}
	loops = append(loops, in.Pending...)
	return dedup(loops)
}

// todoWords mark a sentence that leaves work open.
func hasTodoWord(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"todo", "fixme", "next step", "still need", "remaining", "not yet", "pending", "次に", "残り", "未対応", "未完", "要対応", "待ち"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func extractDaily(in Input) []Section {
	goal := ""
	for _, e := range in.Entries {
		if e.Prompt != "" && !IsApproval(e.Prompt, in.Phrases) {
			goal = cutItem(e.Prompt)
			break
		}
	}
	if goal == "" && len(in.Recents) > 0 {
		goal = in.Recents[0].Goal
	}

	var decisions []string
	for _, d := range in.Decisions {
		decisions = append(decisions, strings.TrimPrefix(d.Line(), "- "))
	}
	for _, p := range in.Pending {
		decisions = append(decisions, msgAwaiting.Format(in.Lang, p))
	}

	var pending []string
	if n := len(in.Recents); n > 0 {
		pending = append(pending, in.Recents[n-1].OpenLoops...)
	}
	if in.Previous != nil {
		// Carried over until newer loops push them out.
		pending = append(pending, in.Previous.Pending...)
	}
	pending = dedup(pending)
	if len(pending) > MaxLoops {
		pending = pending[:MaxLoops] // today's loops first
	}
	return []Section{
		{secDailyGoal, oneOrNone(goal)},
		{secThreads, threads(in)},
		{secDecisions, capItems(decisions, MaxDayDecisions)},
		{secPending, capItems(pending, MaxLoops)},
	}
}

// threads lists the day's sessions (or chat threads), most active first.
func threads(in Input) []string {
	type thread struct {
		label, branch, prompt string
		acts, order           int
	}
	byKey := map[string]*thread{}
	for _, e := range in.Entries {
		key, label := e.Session, "session "+textcut.ShortID(e.Session)
		if e.Thread != "" {
			key, label = "t:"+e.Thread, "thread "+e.Thread
		}
		if key == "" {
			continue
		}
		t := byKey[key]
		if t == nil {
			t = &thread{label: label, order: len(byKey)}
			byKey[key] = t
		}
		if t.branch == "" {
			t.branch = e.Branch
		}
		if t.prompt == "" && e.Prompt != "" && !IsApproval(e.Prompt, in.Phrases) {
			t.prompt = textcut.Chars(textcut.OneLine(e.Prompt), 100)
		}
		if isActivity(&e) {
			t.acts++
		}
	}
	ts := make([]*thread, 0, len(byKey))
	for _, t := range byKey {
		if t.acts > 0 {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(a, b *thread) int {
		if a.acts != b.acts {
			return b.acts - a.acts
		}
		return a.order - b.order
	})
	if len(ts) > MaxThreads {
		ts = ts[:MaxThreads]
	}
	slices.SortFunc(ts, func(a, b *thread) int { return a.order - b.order })
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		label := t.label
		if t.branch != "" {
			label += " (" + t.branch + ")"
		}
		subject := t.prompt
		if subject == "" {
			subject = "-"
		}
		out = append(out, cutItem(msgThread.Format(in.Lang, label, subject, t.acts)))
	}
	return out
}

// IsApproval reports whether a prompt contains an approval phrase: as a
// whole word for phrases in Latin letters ("OK" is not in "book"), anywhere
// for others ("承認").
func IsApproval(prompt string, phrases []string) bool {
	return approvalPhrase(prompt, phrases) != ""
}

// approvalPhrase returns the first phrase found in prompt, or "".
func approvalPhrase(prompt string, phrases []string) string {
	low := strings.ToLower(prompt)
	for _, p := range phrases {
		lp := strings.ToLower(strings.TrimSpace(p))
		if lp == "" {
			continue
		}
		for from := 0; from < len(low); {
			i := strings.Index(low[from:], lp)
			if i < 0 {
				break
			}
			i += from
			if !wordy(lp) || (boundary(low, i-1) && boundary(low, i+len(lp))) {
				return p
			}
			from = i + len(lp)
		}
	}
	return ""
}

// wordy reports whether a phrase is written in Latin letters and digits,
// where word boundaries matter.
func wordy(p string) bool {
	for _, r := range p {
		if r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// boundary reports whether the byte at i of s is not part of a word.
func boundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')
}

// sentences splits text into sentences (see textcut.Sentences), each on
// one line.
func sentences(text string) []string {
	out := textcut.Sentences(text)
	for i, s := range out {
		out[i] = textcut.OneLine(s)
	}
	return out
}

func firstSentence(text string) string {
	for _, s := range sentences(text) {
		s = strings.TrimLeft(s, "#*- ")
		if s != "" {
			return s
		}
	}
	return ""
}

func dedup(items []string) []string {
	var out []string
	for _, it := range items {
		if it != "" && !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// displayPath shows a path inside worktree relative to it.
func displayPath(p, worktree string) string {
	if worktree != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(worktree, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
