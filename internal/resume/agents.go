package resume

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/textcut"
)

// AgentWork is what another agent's session (Codex CLI, Gemini CLI) did in
// the worktree: the layer of the briefing that says who worked here last,
// so that Claude Code picks up after another agent.
type AgentWork struct {
	Agent   agentlog.Agent `json:"agent"`
	Session string         `json:"session"`
	// Start and Last are when it started and last wrote.
	Start time.Time `json:"start"`
	Last  time.Time `json:"last"`
	// Request is its person's last request, Answer its last answer.
	Request string `json:"request"`
	Answer  string `json:"answer"`
	// Commands are the shell commands it ran, the failing ones first, each
	// group newest first, at most MaxAgentCommands.
	Commands []AgentCommand `json:"commands"`
	// More counts the commands left out.
	More int `json:"more_commands"`
}

// AgentCommand is one command another agent ran.
type AgentCommand struct {
	Command string `json:"command"`
	// Exit is its exit status, -1 when its session did not say.
	Exit   int  `json:"exit"`
	Failed bool `json:"failed"`
	// Error is the first lines of a failing command's output.
	Error string `json:"error,omitempty"`
}

// Bounds of the layer: the commands listed, how much of a request, an
// answer and an error is kept, and how much of a long Codex history is read
// (its end).
const (
	MaxAgentCommands = 8
	agentTextChars   = 600
	agentErrorLines  = 2
	agentTailBytes   = 4 << 20
	// maxAgentSessions bounds the newest sessions read for one that did
	// something.
	maxAgentSessions = 3
)

// LastAgentWork finds the newest Codex CLI or Gemini CLI session (only
// agent a's, when a is set) that ran in worktree and wrote after since, and
// reads what it did; nil when there is none.
func LastAgentWork(ctx context.Context, d agentlog.Dirs, worktree string, since time.Time, a agentlog.Agent) (*AgentWork, error) {
	agents := []agentlog.Agent{agentlog.Codex, agentlog.Gemini}
	if a != "" {
		agents = []agentlog.Agent{a}
	}
	var cands []agentlog.RecentFile
	for _, ag := range agents {
		files, err := agentlog.Recent(ctx, ag, d, []string{worktree}, since)
		if err != nil {
			return nil, err
		}
		cands = append(cands, files...)
	}
	slices.SortFunc(cands, func(x, y agentlog.RecentFile) int { return y.Modified.Compare(x.Modified) })
	// The newest that did something: a session that has only started (the
	// other CLI's own, running the hook that asks for this) says nothing.
	for i, c := range cands {
		if i == maxAgentSessions {
			break
		}
		w, err := readAgentWork(ctx, c)
		if err != nil || w != nil {
			return w, err
		}
	}
	return nil, nil
}

// readAgentWork reads what one session did; nil when it did nothing yet.
func readAgentWork(ctx context.Context, c agentlog.RecentFile) (*AgentWork, error) {
	w := &AgentWork{Agent: c.Agent}
	var cmds []AgentCommand
	s, err := agentlog.ReadTail(ctx, c.File, agentTailBytes, func(_ *agentlog.Session, r *agentlog.Record) error {
		switch r.Kind {
		case agentlog.Request:
			w.Request = r.Text
		case agentlog.Answer:
			w.Answer = r.Text
		case agentlog.Command:
			cmd := AgentCommand{Command: textcut.OneLine(r.Text), Exit: r.Exit, Failed: r.Failed}
			if r.Failed {
				cmd.Error = firstLines(r.Output, agentErrorLines)
			}
			cmds = append(cmds, cmd)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w.Request == "" && w.Answer == "" && len(cmds) == 0 {
		return nil, nil
	}
	w.Session, w.Start, w.Last = s.ID, s.Start, cmp.Or(s.Last, c.Modified)
	// Newest first, the failing ones before the others; a command run
	// again counts once, as its latest run.
	slices.Reverse(cmds)
	seen := map[string]bool{}
	var failing, ok []AgentCommand
	for _, c := range cmds {
		if seen[c.Command] {
			continue
		}
		seen[c.Command] = true
		if c.Failed {
			failing = append(failing, c)
		} else {
			ok = append(ok, c)
		}
	}
	all := append(failing, ok...)
	if len(all) > MaxAgentCommands {
		w.More = len(all) - MaxAgentCommands
		all = all[:MaxAgentCommands]
	}
	w.Commands = all
	return w, nil
}

// firstLines is the first n non-blank lines of s.
func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, textcut.Chars(l, 200))
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, " / ")
}

var (
	agentCLIName = map[agentlog.Agent]string{agentlog.Codex: "Codex CLI", agentlog.Gemini: "Gemini CLI"}

	msgAgentLast = i18n.Msg{
		JA: "**最後に作業したのは別のエージェントです**：%s のセッション %s（%s 開始、最後の記録 %s）が、このワークツリーで最後の Claude Code のセッションより後に作業しました。その続きから始めてください。",
		EN: "**Another agent worked here last**: a %s session, %s (started %s, last record %s), worked in this worktree after the last Claude Code session. Pick up where it left off.",
	}
	msgAgentSession = i18n.Msg{
		JA: "**%s のセッション** %s（%s 開始、最後の記録 %s）",
		EN: "**The %s session** %s (started %s, last record %s)",
	}
	msgAgentRequest  = i18n.Msg{JA: "その最後の依頼：%s", EN: "Its last request: %s"}
	msgAgentAnswer   = i18n.Msg{JA: "その最後の返答：%s", EN: "Its last answer: %s"}
	msgAgentCommands = i18n.Msg{JA: "実行したコマンド（失敗したものが先）：", EN: "Commands it ran (failing ones first):"}
	msgAgentCmdFail  = i18n.Msg{JA: "- `%s` → exit %s（失敗）%s", EN: "- `%s` → exit %s (failed)%s"}
	msgAgentCmdOK    = i18n.Msg{JA: "- `%s` → exit %s", EN: "- `%s` → exit %s"}
	msgAgentCmdMore  = i18n.Msg{JA: "- ほかに %d 件", EN: "- … and %d more"}
)

// Item renders the layer: who worked last and when, its last request and
// answer, its commands. forNext says it is addressed to the agent that
// picks up (the briefing) rather than to a person asking for it.
func (w *AgentWork) Item(lang i18n.Lang, now time.Time, forNext bool) string {
	name := agentCLIName[w.Agent]
	start, last := "-", "-"
	if !w.Start.IsZero() {
		start = Ago(now.Sub(w.Start), lang)
	}
	if !w.Last.IsZero() {
		last = Ago(now.Sub(w.Last), lang)
	}
	id := textcut.ShortID(w.Session)
	head := msgAgentSession.Format(lang, name, id, start, last)
	if forNext {
		head = msgAgentLast.Format(lang, name, id, start, last)
	}
	lines := []string{head}
	if t := strings.TrimSpace(w.Request); t != "" {
		lines = append(lines, msgAgentRequest.Format(lang, textcut.OneLine(textcut.Chars(t, agentTextChars))))
	}
	if t := strings.TrimSpace(w.Answer); t != "" {
		lines = append(lines, msgAgentAnswer.Format(lang, textcut.OneLine(textcut.Chars(t, agentTextChars))))
	}
	if len(w.Commands) > 0 {
		lines = append(lines, msgAgentCommands.In(lang))
		for _, c := range w.Commands {
			exit := "?"
			if c.Exit >= 0 {
				exit = fmt.Sprint(c.Exit)
			}
			cmd := textcut.Chars(strings.ReplaceAll(c.Command, "`", "'"), 200)
			if c.Failed {
				tail := ""
				if c.Error != "" {
					tail = ": " + c.Error
				}
				lines = append(lines, msgAgentCmdFail.Format(lang, cmd, exit, tail))
			} else {
				lines = append(lines, msgAgentCmdOK.Format(lang, cmd, exit))
			}
		}
		if w.More > 0 {
			lines = append(lines, msgAgentCmdMore.Format(lang, w.More))
		}
	}
	return strings.Join(lines, "\n")
}

// agentItem is the briefing's layer on another agent's work: set when a
// Codex CLI or Gemini CLI session in the worktree wrote after its last
// Claude Code activity (with none, within the stale age). A session that
// cannot be read adds nothing: the briefing never fails for it.
func (br *Brief) agentItem(ctx context.Context, o BriefOptions) string {
	if o.Agents == (agentlog.Dirs{}) || o.Worktree == "" {
		return ""
	}
	since := br.LastActivity
	if since.IsZero() && o.Stale > 0 {
		since = o.Now.Add(-o.Stale)
	}
	w, err := LastAgentWork(ctx, o.Agents, o.Worktree, since, "")
	if err != nil || w == nil {
		return ""
	}
	br.AgentWork = w
	return w.Item(o.Lang, o.Now, true)
}
