// Command gen writes baton benchmark data of real shape and size: journals
// (auto.jsonl) and Claude Code transcripts. The output is deterministic for a
// given seed, so runs can be compared.
//
//	go run ./bench/gen journal -size 1GiB -out /tmp/bench/auto.jsonl
//	go run ./bench/gen transcript -size 700MiB -out /tmp/bench/big.jsonl
//	go run ./bench/gen transcripts -files 3000 -size 300MiB -out /tmp/bench/projects
//	go run ./bench/gen transcripts -vocab 50000 -size 300MiB -out /tmp/bench/words
//	go run ./bench/gen transcripts -pricing -files 300 -size 60MiB -out /tmp/bench/priced
//
// -pricing writes transcripts that exercise every part of a cost: more
// Claude models, cache writes split by lifetime, requests over 200,000
// tokens of context, fast mode, and pauses of hours between prompts (so
// that usage falls on many days and 5-hour blocks).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	mrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/journal"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: gen journal|transcript|transcripts [flags]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	size := fs.String("size", "100MiB", "total size to write")
	out := fs.String("out", "", "output file (journal, transcript) or folder (transcripts)")
	files := fs.Int("files", 3000, "number of transcript files (transcripts)")
	seed := fs.Uint64("seed", 1, "random seed")
	worktrees := fs.Int("worktrees", 3, "number of worktrees recorded in the journal")
	vocab := fs.Int("vocab", 0, "draw words from this many made-up words with Zipf's law (0: a short fixed list)")
	priced := fs.Bool("pricing", false, "transcripts that exercise cost: more models, 1-hour cache writes, long contexts, fast mode, pauses")
	long := fs.Int("long", 60, "with -pricing, one response in this many has a context over 200,000 tokens (0: none)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	n, err := config.ParseSize(*size)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("-out is required")
	}
	g := &gen{r: rand.New(rand.NewPCG(*seed, 42)), t: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), priced: *priced, long: *long}
	if *vocab > 0 {
		g.makeVocab(*vocab, *seed)
	}
	switch args[0] {
	case "journal":
		return g.writeFile(*out, int64(n), func(w *bufio.Writer, limit int64) error { return g.journal(w, limit, *worktrees) })
	case "transcript":
		return g.writeFile(*out, int64(n), g.transcript)
	case "transcripts":
		per := int64(n) / int64(*files)
		for i := range *files {
			project := filepath.Join(*out, fmt.Sprintf("-home-dev-project-%d", i%20))
			path := filepath.Join(project, g.uuid()+".jsonl")
			if err := g.writeFile(path, per, g.transcript); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown kind %q", args[0])
}

type gen struct {
	r *rand.Rand
	t time.Time
	// vocab, when set, is a vocabulary of made-up words drawn with
	// Zipf's law (as words are in real text) instead of the short list.
	vocab []string
	zipf  *mrand.Zipf
	// priced makes transcripts that exercise every part of a cost; one
	// response in long has a long context.
	priced bool
	long   int
}

// pricedModels are the models of -pricing transcripts: Claude models with
// and without long-context rates, with and without a fast mode.
var pricedModels = []string{
	"claude-sonnet-4-5-20250929", "claude-sonnet-4-20250514", "claude-sonnet-4-6", "claude-opus-4-1-20250805",
	"claude-opus-4-5-20251101", "claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-3-5-haiku-20241022",
}

// pricedUsage reshapes a response's usage for -pricing: now and then a
// long context, half the time the cache writes split by lifetime, fast
// mode on a model that has it.
func (g *gen) pricedUsage(model string, usage map[string]any) {
	if g.long > 0 && g.r.IntN(g.long) == 0 {
		usage["cache_read_input_tokens"] = 200_000 + g.r.IntN(200_000)
	}
	if g.r.IntN(2) == 0 {
		total := usage["cache_creation_input_tokens"].(int)
		h := g.r.IntN(total + 1)
		usage["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": total - h, "ephemeral_1h_input_tokens": h}
	}
	if model == "claude-opus-4-6" && g.r.IntN(10) == 0 {
		usage["speed"] = "fast"
	}
}

// makeVocab makes n distinct words: pronounceable Latin ones and, one in
// five, katakana and kanji ones.
func (g *gen) makeVocab(n int, seed uint64) {
	syll := strings.Fields("ka ri to mo ne sa lu vi de po ga zen tor qua bel fin ost rum ix ade")
	kana := []rune("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモラリルレロ")
	kanji := []rune("日本語設計実装変更確認関数試験修正処理記録保存通知設定接続検索索引分析構成")
	seen := map[string]bool{}
	for len(g.vocab) < n {
		var w string
		switch g.r.IntN(5) {
		case 0:
			k := 2 + g.r.IntN(3)
			for range k {
				w += string(kana[g.r.IntN(len(kana))])
			}
			if g.r.IntN(2) == 0 {
				w += string(kanji[g.r.IntN(len(kanji))]) + string(kanji[g.r.IntN(len(kanji))])
			}
		default:
			for range 2 + g.r.IntN(3) {
				w += syll[g.r.IntN(len(syll))]
			}
		}
		if !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	g.zipf = mrand.NewZipf(mrand.New(mrand.NewSource(int64(seed))), 1.07, 2, uint64(n-1))
}

func (g *gen) word() string {
	if g.vocab != nil {
		return g.vocab[g.zipf.Uint64()]
	}
	return g.pick(words)
}

func (g *gen) writeFile(path string, limit int64, body func(*bufio.Writer, int64) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := body(w, limit); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *gen) uuid() string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint32()&0xffff, g.r.Uint64()&0xffffffffffff)
}

// timeLayout is how Claude Code writes times: UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

var (
	tools    = []string{"Bash", "Edit", "Read", "Write", "Grep", "Glob", "MultiEdit", "TodoWrite", "WebFetch"}
	dirs     = []string{"internal/journal", "internal/hook", "cmd/baton", "docs", "web/src/components", "pkg/api", "scripts"}
	names    = []string{"main.go", "journal.go", "tail.go", "README.md", "handler_test.go", "index.tsx", "config.yaml", "Makefile"}
	commands = []string{"go test ./...", "git status", "npm run build", "make lint", "git diff --stat", "go vet ./...", "ls -la", "rg TODO"}
	failures = []string{"--- FAIL: TestTail (0.01s)\n    tail_test.go:42: got 3 records, want 4", "npm ERR! code ELIFECYCLE", "make: *** [Makefile:12: lint] Error 1", "fatal: not a git repository"}
	descs    = []string{"Run the test suite", "Show working tree status", "Build the front end", "Check formatting", "List changed files", "テストを実行", "差分を確認"}
	words    = strings.Fields("the journal record hook session resume decision context agent worktree branch file test build error fix refactor 関数 テスト 修正 設計 確認 実装 変更")
)

func (g *gen) sentence(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	return b.String()
}

// journal writes records as `baton hook` does: mostly tool calls, with the
// session events around them, spread over several worktrees and sessions.
func (g *gen) journal(w *bufio.Writer, limit int64, worktrees int) error {
	var written int64
	session := g.uuid()
	for written < limit {
		g.t = g.t.Add(time.Duration(g.r.IntN(20_000)) * time.Millisecond)
		wt := g.r.IntN(worktrees)
		rec := journal.Record{
			TS:       g.t,
			Event:    "PostToolUse",
			Session:  session,
			Cwd:      fmt.Sprintf("/home/dev/project/wt%d", wt),
			Worktree: fmt.Sprintf("/home/dev/project/wt%d", wt),
			Branch:   fmt.Sprintf("feat/%d-work", 100+wt),
		}
		switch k := g.r.IntN(100); {
		case k < 2:
			session = g.uuid()
			rec.Event, rec.Session, rec.Source = "SessionStart", session, "startup"
		case k < 8:
			rec.Event, rec.Prompt = "UserPromptSubmit", g.sentence(5+g.r.IntN(30))
		case k < 12:
			rec.Event, rec.Message = "Stop", g.sentence(10+g.r.IntN(40))
		default:
			rec.Tool = g.pick(tools)
			if rec.Tool == "Bash" {
				// As the hook records Bash calls: the command line, and
				// for one in 25 a failure with its exit status and first
				// error line.
				rec.Cmd = g.pick(commands)
				rec.Desc = g.pick(descs)
				exit := 0
				if g.r.IntN(25) == 0 {
					exit = 1 + g.r.IntN(2)
					rec.Event, rec.Error = "PostToolUseFailure", g.pick(failures)
				}
				rec.Exit = &exit
			} else {
				rec.File = filepath.Join(rec.Worktree, g.pick(dirs), g.pick(names))
			}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
		written += int64(len(b))
	}
	return nil
}

// transcript writes lines shaped like Claude Code's: user prompts, assistant
// messages with text and tool_use blocks and usage, tool results, and the
// other line types readers must skip. As Claude Code does, it writes one line
// per content block of a response (same message and request id; the first
// carries the usage counted so far), times with milliseconds, now and then a
// response without a request id or from the synthetic model, a sidechain
// replay of a response (same message id, new request id) and a torn line.
func (g *gen) transcript(w *bufio.Writer, limit int64) error {
	var written int64
	session := g.uuid()
	parent := ""
	emit := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		_, err = w.Write(b)
		written += int64(len(b))
		return err
	}
	base := func(typ string) map[string]any {
		g.t = g.t.Add(time.Duration(g.r.IntN(5000)) * time.Millisecond)
		id := g.uuid()
		m := map[string]any{
			"type": typ, "uuid": id, "parentUuid": parent, "sessionId": session,
			"timestamp": g.t.Format(timeLayout), "cwd": "/home/dev/project", "version": "2.1.328",
			"gitBranch": "main", "isSidechain": false, "userType": "external",
		}
		parent = id
		return m
	}
	for written < limit {
		if g.priced && g.r.IntN(40) == 0 {
			// A pause of up to 8 hours: another day, another 5-hour block.
			g.t = g.t.Add(time.Duration(g.r.IntN(8*3600)) * time.Second)
		}
		u := base("user")
		u["message"] = map[string]any{"role": "user", "content": g.sentence(5 + g.r.IntN(40))}
		if err := emit(u); err != nil {
			return err
		}
		for range 1 + g.r.IntN(6) {
			msgID := "msg_" + strings.ReplaceAll(g.uuid(), "-", "")[:24]
			toolID := "toolu_" + strings.ReplaceAll(g.uuid(), "-", "")[:24]
			reqID := "req_" + strings.ReplaceAll(g.uuid(), "-", "")[:24]
			models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001"}
			if g.priced {
				models = pricedModels
			}
			model := g.pick(models)
			if g.r.IntN(200) == 0 {
				model = "<synthetic>"
			}
			usage := map[string]any{
				"input_tokens": g.r.IntN(5000), "output_tokens": g.r.IntN(2000),
				"cache_creation_input_tokens": g.r.IntN(20000), "cache_read_input_tokens": g.r.IntN(100000),
			}
			if g.priced {
				g.pricedUsage(model, usage)
			}
			partial := maps.Clone(usage)
			partial["output_tokens"] = 1 + g.r.IntN(20)
			noRequest := g.r.IntN(50) == 0
			blocks := []struct {
				block any
				usage map[string]any
			}{
				{map[string]any{"type": "text", "text": g.sentence(20 + g.r.IntN(120))}, partial},
				{map[string]any{"type": "tool_use", "id": toolID, "name": "Bash", "input": map[string]any{"command": g.pick(commands), "description": g.pick(descs)}}, usage},
			}
			var last map[string]any
			for _, b := range blocks {
				a := base("assistant")
				if !noRequest {
					a["requestId"] = reqID
				}
				a["message"] = map[string]any{
					"id": msgID, "type": "message", "role": "assistant", "model": model,
					"content": []any{b.block}, "stop_reason": "tool_use", "usage": b.usage,
				}
				if err := emit(a); err != nil {
					return err
				}
				last = a
			}
			if g.r.IntN(40) == 0 {
				replay := maps.Clone(last)
				replay["uuid"], replay["isSidechain"] = g.uuid(), true
				replay["requestId"] = "req_" + strings.ReplaceAll(g.uuid(), "-", "")[:24]
				if err := emit(replay); err != nil {
					return err
				}
			}
			if g.r.IntN(500) == 0 {
				b, err := json.Marshal(last)
				if err != nil {
					return err
				}
				if _, err := w.Write(append(b[:len(b)/2], '\n')); err != nil {
					return err
				}
				written += int64(len(b)/2 + 1)
			}
			r := base("user")
			r["message"] = map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": toolID, "content": g.sentence(30 + g.r.IntN(300))},
			}}
			if err := emit(r); err != nil {
				return err
			}
		}
		if g.r.IntN(4) == 0 {
			s := base("system")
			s["content"] = "Conversation compacted"
			s["subtype"] = "info"
			if err := emit(s); err != nil {
				return err
			}
		}
		if g.r.IntN(6) == 0 {
			if err := emit(map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": g.t.Format(timeLayout), "sessionId": session}); err != nil {
				return err
			}
		}
	}
	return nil
}
