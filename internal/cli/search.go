package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/index"
	"github.com/baton-cli/baton/internal/textcut"
)

// SearchOptions are the inputs of `baton search`.
type SearchOptions struct {
	Factory *Factory
	Query   string
	Kinds   []string
	Agent   string
	Since   string
	JSON    bool
	Limit   int
	Page    int
	Newest  bool
	Lang    string
}

// NewCmdSearch builds `baton search`.
func NewCmdSearch(f *Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Search the journal, transcripts, decisions, summaries, worker runs and debates",
		Long: "Searches everything baton keeps for this repository, best match first, with the matching\n" +
			"words marked. Approved decisions, summaries and sentences that state a decision count most,\n" +
			"then prompts, the agent's answers, tool output and pasted logs; --newest orders by time.\n" +
			"The query takes words, \"phrases\", prefix*, AND, OR, NOT and parentheses; a path or file\n" +
			"name is searched as a phrase, Japanese by any run of its characters, full-width and\n" +
			"half-width alike. A question in plain words that nothing holds whole is searched again\n" +
			"for any of its content words, and the output says so.\n" +
			"The index (index.db) is caught up first.",
		Example: "  baton search \"streaming writer\"\n  baton search csv --kind decision --since 7d\n  baton search 'export OR 出力' --json --page 2\n  baton search what did we decide about the queue",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return searchRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Kinds, "kind", nil, "only these kinds: journal, transcript, decision, summary, run, debate, codex, gemini (repeatable)")
	fl.StringVar(&opts.Agent, "agent", "", "only what this agent's sessions wrote: claude, codex or gemini")
	fl.StringVar(&opts.Since, "since", "", "only since then: 7d, 12h, 2026-09-01")
	fl.BoolVar(&opts.JSON, "json", false, "print JSON")
	fl.IntVar(&opts.Limit, "limit", index.DefaultLimit, fmt.Sprintf("hits per page (at most %d)", index.MaxLimit))
	fl.IntVar(&opts.Page, "page", 1, "page of hits to show")
	fl.BoolVar(&opts.Newest, "newest", false, "newest first instead of best first")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgSearchNone   = i18n.Msg{JA: "%q に一致するものはありません", EN: "nothing matches %q"}
	msgSearchPage   = i18n.Msg{JA: "%s 件中 %d–%d 件目", EN: "%d–%d of %s"}
	msgSearchOver   = i18n.Msg{JA: "%s 件超のうち %d–%d 件目", EN: "%d–%d of more than %s"}
	msgSearchMore   = i18n.Msg{JA: "続きは --page %d", EN: "more with --page %d"}
	msgSearchRecent = i18n.Msg{JA: "新しい順", EN: "newest first"}
	msgSearchRelax  = i18n.Msg{JA: "すべての語を含むものがないため、次の語のどれかを含むものを関連の高い順に表示しています: %s", EN: "nothing holds every word; showing what holds some of these, best first: %s"}
	msgSearchQuery  = i18n.Msg{JA: "検索語を解釈できません: %s", EN: "cannot read the query: %s"}
	msgSearchKind   = i18n.Msg{JA: "--kind %q は使えません: journal, transcript, decision, summary, run, debate, codex, gemini のどれかです", EN: "--kind %q is not one of journal, transcript, decision, summary, run, debate, codex, gemini"}
	msgSearchAgent  = i18n.Msg{JA: "--agent %q は使えません: claude, codex, gemini のどれかです", EN: "--agent %q is not one of claude, codex, gemini"}
	msgSearchPaging = i18n.Msg{JA: "--limit と --page は 1 以上です", EN: "--limit and --page must be at least 1"}
)

// searchJSON is the --json output.
type searchJSON struct {
	Query string `json:"query"`
	Total int    `json:"total"`
	// More: more than Total match (counting stops at index.CountLimit,
	// or at the end of the page asked for).
	More  bool `json:"more,omitempty"`
	Page  int  `json:"page"`
	Limit int  `json:"limit"`
	// Ranked: best first; false with --newest.
	Ranked bool `json:"ranked"`
	// Relaxed: nothing held every word; the hits hold some of Words.
	Relaxed bool      `json:"relaxed,omitempty"`
	Words   []string  `json:"words,omitempty"`
	Hits    []hitJSON `json:"hits"`
}

type hitJSON struct {
	Kind index.Kind `json:"kind"`
	// Agent is the agent whose session the hit came from.
	Agent    agentlog.Agent `json:"agent"`
	Session  string         `json:"session,omitempty"`
	Time     *time.Time     `json:"time,omitempty"`
	Worktree string         `json:"worktree,omitempty"`
	Branch   string         `json:"branch,omitempty"`
	File     string         `json:"file,omitempty"`
	Issue    int            `json:"issue,omitempty"`
	Event    string         `json:"event,omitempty"`
	Title    string         `json:"title"`
	// Snippet marks the matches with « and ».
	Snippet string `json:"snippet"`
	Ref     string `json:"ref"`
}

func searchRun(ctx context.Context, opts *SearchOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}
	q := index.Query{Text: opts.Query, Limit: opts.Limit, Newest: opts.Newest}
	if opts.Limit < 1 || opts.Page < 1 {
		return flagError{errors.New(msgSearchPaging.In(lang))}
	}
	q.Limit = min(opts.Limit, index.MaxLimit)
	q.Offset = (opts.Page - 1) * q.Limit
	for _, k := range opts.Kinds {
		kind, err := index.ParseKind(strings.TrimSpace(k))
		if err != nil {
			return flagError{errors.New(msgSearchKind.Format(lang, k))}
		}
		q.Kinds = append(q.Kinds, kind)
	}
	if opts.Agent != "" {
		a, err := agentlog.ParseAgent(opts.Agent)
		if err != nil {
			return flagError{errors.New(msgSearchAgent.Format(lang, opts.Agent))}
		}
		q.Kinds = agentKinds(q.Kinds, a)
	}
	if opts.Since != "" {
		if q.Since, err = parseSince(opts.Since, f.Now()); err != nil {
			return flagError{errors.New(msgBadSince.Format(lang, opts.Since))}
		}
	}
	ix, err := openIndex(ctx, f, w, cfg, lang)
	if err != nil {
		return err
	}
	defer func() { ix.Close() }()
	if err := catchUpIndex(ctx, f, &ix, w, cfg, lang); err != nil {
		return err
	}
	res, err := ix.Search(ctx, q)
	if errors.Is(err, index.ErrQuery) {
		return flagError{errors.New(msgSearchQuery.Format(lang, strings.TrimPrefix(err.Error(), index.ErrQuery.Error()+": ")))}
	}
	if err != nil {
		return err
	}
	if opts.JSON {
		out := searchJSON{Query: opts.Query, Total: res.Total, More: res.More, Page: opts.Page, Limit: q.Limit, Ranked: res.Ranked,
			Relaxed: res.Relaxed, Words: res.Words, Hits: []hitJSON{}}
		for _, h := range res.Hits {
			j := hitJSON{Kind: h.Kind, Agent: h.Kind.Agent(), Session: h.Session, Worktree: h.Worktree, Branch: h.Branch, File: h.File,
				Issue: h.Issue, Event: h.Event, Title: h.Title, Snippet: h.Marked("«", "»"), Ref: h.Ref}
			if !h.Time.IsZero() {
				t := h.Time.In(f.Now().Location())
				j.Time = &t
			}
			out.Hits = append(out.Hits, j)
		}
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if res.Total == 0 {
		fmt.Fprintln(f.IO.ErrOut, msgSearchNone.Format(lang, opts.Query))
		return nil
	}
	open, close := "«", "»"
	if f.IO.IsTerminal && f.Getenv("NO_COLOR") == "" {
		open, close = "\x1b[1;33m", "\x1b[0m"
	}
	out := f.IO.Out
	if res.Relaxed {
		fmt.Fprintln(out, msgSearchRelax.Format(lang, strings.Join(res.Words, " ")))
	}
	for _, h := range res.Hits {
		when := "-"
		if !h.Time.IsZero() {
			when = h.Time.In(f.Now().Location()).Format("2006-01-02 15:04")
		}
		// The branch goes with the session it ran on, on the hit's first
		// line: a transcript hit has it from the journal's copy of the
		// message.
		head := fmt.Sprintf("%s  %-6s %-10s %s  %s", when, h.Kind.Agent(), h.Kind, shortID(h.Session), h.Title)
		if h.Branch != "" {
			head += "  (" + h.Branch + ")"
		}
		fmt.Fprintln(out, head)
		if s := h.Marked(open, close); s != "" {
			fmt.Fprintf(out, "    %s\n", s)
		}
		var where []string
		if h.File != "" {
			where = append(where, displayRel(h.File, w.root))
		}
		if h.Issue != 0 {
			where = append(where, fmt.Sprintf("#%d", h.Issue))
		}
		if len(where) > 0 {
			fmt.Fprintf(out, "    %s\n", strings.Join(where, "  "))
		}
	}
	first, last := q.Offset+1, q.Offset+len(res.Hits)
	total := strconv.Itoa(res.Total)
	page := msgSearchPage
	if res.More {
		page = msgSearchOver
	}
	footer := fmt.Sprintf(page.In(lang), first, last, total)
	if lang == i18n.JA {
		footer = fmt.Sprintf(page.In(lang), total, first, last)
	}
	if last < res.Total || res.More {
		footer += "  (" + msgSearchMore.Format(lang, opts.Page+1) + ")"
	}
	if !res.Ranked {
		footer += "  " + msgSearchRecent.In(lang)
	}
	fmt.Fprintln(out, footer)
	return nil
}

// shortID keeps the start of a session id, enough to tell sessions apart.
func shortID(id string) string {
	if id == "" {
		return "-"
	}
	return textcut.ShortID(id)
}

// agentKinds narrows the kinds asked for to those agent a's sessions make;
// none asked for means all of them. A kind of another agent leaves nothing,
// which matches no document.
func agentKinds(kinds []index.Kind, a agentlog.Agent) []index.Kind {
	own := index.AgentKinds(a)
	if len(kinds) == 0 {
		return own
	}
	var out []index.Kind
	for _, k := range kinds {
		if slices.Contains(own, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return []index.Kind{"none"}
	}
	return out
}
