package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/llm"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
)

// A Summarizer writes one layer's summary from its input. Implementations:
// Extractive (the default: deterministic, no network) and ModelSummarizer
// (a language model), which Budgeted keeps within a daily token budget.
type Summarizer interface {
	// Name is the summarizer's name as config and the layer files write it.
	Name() string
	Summarize(ctx context.Context, in Input) (Output, error)
}

// Input is what a summary is made from.
type Input struct {
	Layer Layer
	Route string
	Lang  i18n.Lang
	// Loc is the time zone of times in the text; nil means UTC.
	Loc *time.Location
	// Entries are the records summarized, oldest first.
	Entries []Entry
	// Phrases are the approval phrases: a prompt that is only an approval
	// is not a goal.
	Phrases []string

	// L1: a goal known from before the entries (the session's last real
	// prompt) and open loops known from elsewhere (approvals waiting).
	Goal    string
	Pending []string

	// L2: the newest earlier day's entry, the day's L1 entries and the
	// decisions approved that day.
	Previous  *Daily
	Recents   []Recent
	Decisions []Decision

	// L3: the proposal a person approved and their approving words.
	Proposal, Approval string
}

// Output is a summary: the layer's sections, and the LLM tokens it cost.
type Output struct {
	Sections []Section
	Tokens   int
	// By names the summarizer that answered, when it is not the one asked
	// (a budget fallback).
	By string
}

// ErrSummary marks an answer that is not a summary of the asked shape.
var ErrSummary = errors.New("summary not in the asked format")

// JobEnv is set in the environment of the agent CLI a summary runs, so that
// the hooks of that run start no context job of their own: a summary must
// never cause another summary.
const JobEnv = "BATON_CONTEXT_JOB"

// ModelSummarizer summarizes with a language model: it sends the layer's
// prompt (redacted) and reads the answer into the layer's sections. An
// answer that is not of the asked shape, or that the client could not
// read, is ErrSummary.
type ModelSummarizer struct {
	Client llm.Client
}

var _ Summarizer = ModelSummarizer{}

// Name implements Summarizer: the client's name.
func (m ModelSummarizer) Name() string { return m.Client.Name() }

// Summarize implements Summarizer. Output.Tokens is what the model
// reported, failed answers included.
func (m ModelSummarizer) Summarize(ctx context.Context, in Input) (Output, error) {
	r, err := m.Client.Complete(ctx, prompt(in))
	tokens := int(r.Tokens())
	if errors.Is(err, llm.ErrOutput) {
		return Output{Tokens: tokens}, fmt.Errorf("%s summary: %w: %w", m.Name(), ErrSummary, err)
	}
	if err != nil {
		return Output{Tokens: tokens}, fmt.Errorf("%s summary: %w", m.Name(), err)
	}
	secs, err := parseAnswer(in.Layer, r.Text)
	if err != nil {
		return Output{Tokens: tokens}, fmt.Errorf("%s summary: %w", m.Name(), err)
	}
	return Output{Sections: secs, Tokens: tokens}, nil
}

// prompt is the request an LLM summarizer sends: the instructions, then the
// input as text. Everything in it is redacted.
func prompt(in Input) string {
	var b strings.Builder
	sc := schemaOf(in.Layer)
	switch in.Layer {
	case L1:
		b.WriteString("Summarize the most recent activity of an AI coding agent session below, so that the agent can pick up where it left off after a restart. ")
		b.WriteString("Recent Actions: the 5 to 7 main actions in time order. Open Loops: what is unresolved (waiting on the person, on a result, unfinished work). ")
	case L2:
		b.WriteString("Summarize one day of an AI coding agent's work below, updating the previous day's summary. ")
		b.WriteString("Threads Engaged: the sessions or threads and their subject. Decisions Made: only decisions stated in the input. Pending Tasks: what carries over to the next day. ")
	case L3:
		b.WriteString("A person approved the proposal below. State in one line what was decided, as a decision, without the reasoning. ")
	}
	b.WriteString("Use only facts from the input; never invent. Write in the language of the input. Answer with exactly this format and nothing else:\n\n")
	for _, n := range sc.names {
		if sc.single[n] {
			fmt.Fprintf(&b, "%s: <one line>\n", n)
		} else {
			fmt.Fprintf(&b, "%s:\n- <item>\n", n)
		}
	}
	b.WriteString("\n--- input ---\n")
	b.WriteString(inputText(in))
	return redact.Redact(b.String())
}

// inputText renders an input for a model.
func inputText(in Input) string {
	var b strings.Builder
	loc := in.Loc
	if loc == nil {
		loc = time.UTC
	}
	switch in.Layer {
	case L1:
		if in.Goal != "" {
			fmt.Fprintf(&b, "Earlier request: %s\n", textcut.OneLine(in.Goal))
		}
		for _, p := range in.Pending {
			fmt.Fprintf(&b, "Waiting: %s\n", textcut.OneLine(p))
		}
	case L2:
		if in.Previous != nil {
			fmt.Fprintf(&b, "Previous day's summary (%s):\n%s\n\n", in.Previous.Date, in.Previous.Text())
		}
		for _, r := range in.Recents {
			fmt.Fprintf(&b, "Recent summary at %s:\n%s\n\n", r.TS.In(loc).Format("15:04"), r.Text())
		}
		for _, d := range in.Decisions {
			fmt.Fprintf(&b, "Decision: %s\n", d.Line())
		}
		for _, p := range in.Pending {
			fmt.Fprintf(&b, "Awaiting approval: %s\n", textcut.OneLine(p))
		}
	case L3:
		fmt.Fprintf(&b, "Proposal:\n%s\n\nApproval: %s\n", in.Proposal, textcut.OneLine(in.Approval))
		return b.String()
	}
	for _, e := range in.Entries {
		if line := entryLine(e, loc); line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// entryLine is one entry as a line of model input.
func entryLine(e Entry, loc *time.Location) string {
	who := e.Session
	if e.Thread != "" {
		who = "thread " + e.Thread
	}
	head := e.TS.In(loc).Format("2006-01-02 15:04") + " [" + textcut.ShortID(who) + "] "
	switch {
	case e.Tool != "":
		return head + "tool " + e.Tool + " " + strings.TrimSpace(e.File+" "+textcut.OneLine(e.Desc))
	case e.Prompt != "":
		return head + "person: " + textcut.OneLine(e.Prompt)
	case e.Message != "":
		return head + "agent: " + textcut.OneLine(e.Message)
	}
	return ""
}

// checkOutput accepts an LLM's parsed answer when the layer's main section
// is there.
func checkOutput(l Layer, secs []Section) error {
	var need string
	switch l {
	case L1:
		if len(find(secs, secGoal)) == 0 && len(find(secs, secActions)) == 0 {
			need = secGoal + " or " + secActions
		}
	case L2:
		if len(find(secs, secDailyGoal)) == 0 && len(find(secs, secThreads)) == 0 {
			need = secDailyGoal + " or " + secThreads
		}
	case L3:
		if len(find(secs, secDecision)) == 0 {
			need = secDecision
		}
	}
	if need != "" {
		return fmt.Errorf("%w: no %s", ErrSummary, need)
	}
	return nil
}

// parseAnswer turns an LLM's text into the layer's sections.
func parseAnswer(l Layer, text string) ([]Section, error) {
	secs, _ := parseSections(text, schemaOf(l))
	if err := checkOutput(l, secs); err != nil {
		return nil, err
	}
	return secs, nil
}
