// Package agentlog reads the session histories that other coding agents'
// CLIs keep on this machine: OpenAI's Codex CLI (rollout files under
// ${CODEX_HOME:-~/.codex}/sessions and archived_sessions, plain or
// zstd-compressed) and Google's Gemini CLI (chat files under
// ~/.gemini/tmp/<project>/chats).
//
// Read streams one session file and hands its requests, answers, commands
// and token usage to a callback as Records, in memory that does not depend
// on the file's size. Files lists a CLI's session files; Within tells
// whether a session ran in one of a repository's worktrees.
//
// The package knows nothing of the index, usage reports or briefings; it
// owns the two CLIs' file formats. Claude Code's transcripts are read by
// package transcript.
package agentlog

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Agent names a coding agent's CLI.
type Agent string

// The agents baton knows.
const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// Agents are the agents in the order reports list them.
var Agents = []Agent{Claude, Codex, Gemini}

// ErrAgent reports an agent's name baton does not know.
var ErrAgent = errors.New("unknown agent")

// ParseAgent checks an agent's name: claude, codex or gemini.
func ParseAgent(s string) (Agent, error) {
	switch a := Agent(strings.ToLower(strings.TrimSpace(s))); a {
	case Claude, Codex, Gemini:
		return a, nil
	}
	return "", fmt.Errorf("%w %q (claude, codex or gemini)", ErrAgent, s)
}

// Session is what a session file says of its session.
type Session struct {
	Agent Agent
	// ID is the CLI's session id.
	ID string
	// Path is the file read.
	Path string
	// Cwd is the folder the session ran in: Codex writes it; for Gemini it
	// is the project folder the file's chats folder belongs to.
	Cwd string
	// Branch and Commit are the git branch and commit Codex recorded at
	// the start, when it did.
	Branch, Commit string
	// Start is when the session started; Last the time of its last record.
	Start, Last time.Time
}

// Kind is what a Record holds.
type Kind uint8

// Kinds of records.
const (
	// Request is what the person asked (their prompt).
	Request Kind = iota + 1
	// Answer is the agent's message to the person.
	Answer
	// Command is a shell command the agent ran, with its exit status and
	// output.
	Command
	// Usage is the tokens one model response used.
	Usage
)

func (k Kind) String() string {
	switch k {
	case Request:
		return "user"
	case Answer:
		return "assistant"
	case Command:
		return "command"
	case Usage:
		return "usage"
	}
	return "unknown"
}

// Record is one thing a session did.
type Record struct {
	Kind Kind
	Time time.Time
	// Text is a request's or an answer's text, or a command's command
	// line.
	Text string
	// Output is a command's output, cut to MaxOutput bytes.
	Output string
	// Exit is a command's exit status, -1 when the file does not say.
	Exit int
	// Failed marks a command that did not succeed: a non-zero exit, or a
	// call the CLI recorded as failed.
	Failed bool
	// Model is the model that wrote an answer or used the tokens.
	Model string
	// Tokens are a Usage record's counts.
	Tokens Tokens
	// ID tells the copies of one response apart from others: a Gemini
	// message id (a message written again carries the same); empty when
	// the file has one record per response.
	ID string
	// Offset is where the record's line starts in the file (for a
	// compressed file, in its uncompressed bytes).
	Offset int64
}

// Tokens are the counts of one response, split as a bill is: input not read
// from the cache, input read from the cache, and output, which includes the
// reasoning (thinking) tokens; Reasoning says how many of Output those were.
type Tokens struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_tokens"`
}

// Total is every token counted once: input, cached input and output.
func (t Tokens) Total() int64 { return t.Input + t.Cached + t.Output }

// Zero reports counts that are all zero.
func (t Tokens) Zero() bool { return t == Tokens{} }

// MaxOutput is how much of a command's output a Record keeps.
const MaxOutput = 4000

// File is one session file of an agent.
type File struct {
	Agent Agent
	Path  string
	// Cwd is the project folder the file belongs to, when its place says
	// so (Gemini's chats folders); Codex files say it in their first line.
	Cwd string
}

// Within reports whether the folder dir is root or inside it, for any of
// roots. Paths are compared cleaned; an empty dir is in none.
func Within(dir string, roots []string) bool {
	if dir == "" {
		return false
	}
	dir = filepath.Clean(dir)
	for _, r := range roots {
		r = filepath.Clean(r)
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
