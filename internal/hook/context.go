package hook

import (
	"context"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// MaxContext is the most characters Claude Code takes as a SessionStart hook's
// additionalContext before it replaces the text with a short preview. It
// counts UTF-16 code units, as the agent does.
const MaxContext = 10000

// Start is what a context provider knows about a session that is starting.
type Start struct {
	Payload *Payload
	Where   Where
	State   state.Dir
	// Journal is the state folder's journal, shared by the providers: it
	// keeps the end of the file the first of them reads for the others.
	Journal *journal.Journal
	Config  *config.Config
	Lang    i18n.Lang
	Now     time.Time
	// JournalErr is why this call's record could not be appended, nil
	// when it was: the context must not say the session is recorded.
	JournalErr error
}

// A Provider contributes one section to the context injected at session
// start. Providers are asked in priority order; an empty section is skipped.
type Provider interface {
	SessionContext(ctx context.Context, s *Start) (string, error)
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, s *Start) (string, error)

func (f ProviderFunc) SessionContext(ctx context.Context, s *Start) (string, error) {
	return f(ctx, s)
}

var leftOut = i18n.Msg{
	JA: "（baton: 文字数の上限のため %d 件の項目を省きました。`baton resume` や `baton context show` で確認できます）",
	EN: "(baton: left out %d section(s) to stay within the context limit; see `baton resume` or `baton context show`)",
}

// Assemble joins the sections, highest priority first, keeping whole sections
// only and staying within limit characters. When some must be left out it
// keeps as many high-priority ones as fit beside a last line saying so.
func Assemble(sections []string, limit int, lang i18n.Lang) string {
	var nonEmpty []string
	for _, s := range sections {
		if s = strings.TrimSpace(s); s != "" {
			nonEmpty = append(nonEmpty, s)
		}
	}
	if all := strings.Join(nonEmpty, "\n\n"); Len(all) <= limit {
		return all
	}
	// Something has to go: reserve room for the note (its count has at most
	// a few digits) and keep what fits, in order.
	budget := limit - Len(leftOut.In(lang)) - 2 - 4
	var kept []string
	used := 0
	for _, s := range nonEmpty {
		n := Len(s)
		if len(kept) > 0 {
			n += 2 // the blank line between sections
		}
		if used+n > budget {
			continue
		}
		kept = append(kept, s)
		used += n
	}
	if budget >= 0 {
		kept = append(kept, leftOut.Format(lang, len(nonEmpty)-len(kept)))
	}
	return strings.Join(kept, "\n\n")
}

// Len counts s in UTF-16 code units, the unit of Claude Code's limit.
func Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // ranging yields U+FFFD for invalid bytes: one unit
	}
	return n
}
