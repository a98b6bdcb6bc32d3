package recall

import (
	"fmt"
	"strings"
	"sync"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/i18n"
)

// MCPServer is the name `baton init` registers `baton mcp` under; Claude
// Code shows its tools as mcp__baton__<tool>.
const MCPServer = "baton"

// Pulls names, in the text baton gives an agent, the ways to pull more:
// the tools of `baton mcp` where the set-up has them, else the baton
// commands that print the same. It is the one place that decides which
// names are printed, so no text points to a tool that is not there.
type Pulls struct {
	// MCP is set when the agent has baton's MCP tools.
	MCP bool
	// lookup, when set, decides MCP the first time a name is printed.
	lookup func() bool
}

// PullsFor returns the Pulls of an agent working in the project at root:
// the MCP tools when root's .mcp.json registers baton mcp and a settings
// file approves it (see claudecode.MCPServerEnabled), else the commands.
// The few small files that tell are read when a name is first printed, so
// a prompt whose recall prints nothing reads none of them.
func PullsFor(home, root string) Pulls {
	return Pulls{lookup: sync.OnceValue(func() bool {
		return root != "" && claudecode.MCPServerEnabled(home, root, MCPServer)
	})}
}

// mcp reports whether the names are the MCP tools'.
func (p Pulls) mcp() bool { return p.MCP || p.lookup != nil && p.lookup() }

// Decisions names the pull of the approved decisions.
func (p Pulls) Decisions() string {
	if p.mcp() {
		return "mcp__baton__decisions"
	}
	return "`baton context show --layer l3`"
}

// Search names a search for query.
func (p Pulls) Search(query string) string {
	if p.mcp() {
		return fmt.Sprintf("mcp__baton__search {\"query\": %q}", query)
	}
	return "`baton search '" + strings.ReplaceAll(query, "'", `'\''`) + "'`"
}

// SessionLog names the pull of the journal's newest records, of session
// when one is given.
func (p Pulls) SessionLog(session string) string {
	switch {
	case p.mcp() && session != "":
		return fmt.Sprintf("mcp__baton__session_log {\"session\": %q}", session)
	case p.mcp():
		return "mcp__baton__session_log"
	}
	return "`baton resume`"
}

var (
	msgPullMCP = i18n.Msg{
		JA: "さらに必要なら MCP ツール mcp__baton__decisions / mcp__baton__session_log / mcp__baton__search（ToolSearch で読み込み）か、`baton resume`・`baton search` で取得できます。",
		EN: "Pull more with the MCP tools mcp__baton__decisions, mcp__baton__session_log and mcp__baton__search (load them with ToolSearch), or `baton resume` and `baton search`.",
	}
	msgPullCLI = i18n.Msg{
		JA: "さらに必要なら `baton context show --layer l3`（承認済みの決定）か、`baton resume`・`baton search` で取得できます。",
		EN: "Pull more with `baton context show --layer l3` (the approved decisions), or `baton resume` and `baton search`.",
	}
)

// Line is the briefing's closing line on how to pull more.
func (p Pulls) Line(lang i18n.Lang) string {
	if p.mcp() {
		return msgPullMCP.In(lang)
	}
	return msgPullCLI.In(lang)
}
