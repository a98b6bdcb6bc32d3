package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// Call is what a Responder knows about a prompt or a tool call.
type Call struct {
	Payload *Payload
	// Record is the journal record of the call (redacted, cut).
	Record  journal.Record
	Where   Where
	State   state.Dir
	Journal *journal.Journal
	Config  *config.Config
	Lang    i18n.Lang
	Now     time.Time
}

// A Responder answers a prompt (UserPromptSubmit) or a tool call about to
// run (PreToolUse) with text for the model; "" for nothing. It is on the
// agent's path for every prompt and tool call: it may read small files,
// never write, wait or call out.
type Responder func(ctx context.Context, c *Call) (string, error)

// responds reports whether event is one a Responder answers.
func responds(event string) bool { return event == UserPromptSubmit || event == PreToolUse }

// respond asks r, turning a panic into an error, and writes its answer as
// the event's hook output.
func respond(ctx context.Context, r Responder, c *Call, out io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	text, err := r(ctx, c)
	if err != nil || text == "" {
		return err
	}
	return WriteOutput(out, c.Payload.Event, text)
}

// output is the hook output Claude Code reads: additionalContext reaches
// the model (at session start, with the prompt, or after the tool's
// result).
type output struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// WriteOutput prints text as event's hook output, the one shape every
// event that gives the model context uses (Claude Code's, and the Gemini
// and Codex CLIs' SessionStart hooks read it too).
func WriteOutput(out io.Writer, event, text string) error {
	var o output
	o.HookSpecificOutput.HookEventName = event
	o.HookSpecificOutput.AdditionalContext = text
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}
