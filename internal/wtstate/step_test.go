package wtstate

import (
	"slices"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

func TestNextStep(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"The lexer is done. Next I will write the parser. Tests pass.", "Next I will write the parser."},
		{"Done.\nI'll add benchmarks after lunch", "I'll add benchmarks after lunch"},
		{"字句解析は終わりました。次はパーサを書きます。", "次はパーサを書きます。"},
		{"All tests pass.", ""},
		{"", ""},
		{"First I fixed the build. Next, the docs. Then I will tag v1.2.", "Then I will tag v1.2."},
		{"The nexus of the two modules is config.go.", ""},
	}
	for _, tt := range tests {
		if got := NextStep(tt.msg); got != tt.want {
			t.Errorf("NextStep(%q) = %q; want %q", tt.msg, got, tt.want)
		}
	}
}

// TestNextStepStaysOpen: the next step the agent announced stays the
// worktree's open loop through the person's acknowledgements, the agent's
// short answers, compactions and a new session, until the agent announces
// another or reports it done; a new task closes it.
func TestCommandWords(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"./deploy.sh staging", []string{"deploy.sh"}},
		{"DB_URL=postgres://db/app ./scripts/deploy.sh --env staging", []string{"deploy.sh"}},
		{"go test ./...", []string{"go test"}},
		{"sudo -E npm run build", []string{"npm run"}},
		{"bash -c 'make test'", []string{"make test"}},
		{"pytest", []string{"pytest"}},
		{"make", nil},
		{"cat config.yaml", []string{"config.yaml"}},
	}
	for _, tt := range tests {
		if got := commandWords(tt.cmd); !slices.Equal(got, tt.want) {
			t.Errorf("commandWords(%q) = %q; want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestNextStepStaysOpen(t *testing.T) {
	const step1 = "Next I will set DB_URL in deploy.sh and rerun it."
	type call struct {
		event, session, source, text string
		want                         string // the open step after the call
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"acknowledgements keep it", []call{
			{"SessionStart", "s1", "startup", "", ""},
			{"UserPromptSubmit", "s1", "", "fix the deploy", ""},
			{"Stop", "s1", "", "The script reads no DB_URL. " + step1, step1},
			{"UserPromptSubmit", "s1", "", "LGTM", step1},
			{"Stop", "s1", "", "OK.", step1},
			{"PreCompact", "s1", "", "", step1},
			{"SessionStart", "s1", "compact", "", step1},
			{"UserPromptSubmit", "s1", "", "go on", step1},
			{"Stop", "s1", "", "Sure, carrying on.", step1},
			{"SessionEnd", "s1", "", "", step1},
			{"SessionStart", "s2", "startup", "", step1},
		}},
		{"another step replaces it", []call{
			{"Stop", "s1", "", step1, step1},
			{"Stop", "s1", "", "It runs now. Then I will tag v1.2.", "Then I will tag v1.2."},
		}},
		{"done closes it", []call{
			{"Stop", "s1", "", step1, step1},
			{"UserPromptSubmit", "s1", "", "go ahead", step1},
			{"Stop", "s1", "", "Done: deploy.sh sets DB_URL and the rerun passed.", ""},
		}},
		{"done in Japanese closes it", []call{
			{"Stop", "s1", "", "次に deploy.sh の DB_URL を設定します。", "次に deploy.sh の DB_URL を設定します。"},
			{"Stop", "s1", "", "設定が完了しました。", ""},
		}},
		{"not done yet keeps it", []call{
			{"Stop", "s1", "", step1, step1},
			{"Stop", "s1", "", "The rerun is not done yet; it still fails.", step1},
		}},
		{"the agent saying it works closes it", []call{
			{"Stop", "s1", "", step1, step1},
			{"Stop", "s1", "", "deploy now works with DB_URL set.", ""},
		}},
		// The failing command the step is about works: the step is done,
		// whatever the agent says of it.
		{"the command it names works", []call{
			{"PostToolUseFailure", "s1", "", "./deploy.sh staging", step1[:0]},
			{"Stop", "s1", "", step1, step1},
			{"PostToolUse", "s1", "", "go test ./...", step1},
			{"PostToolUse", "s1", "", "DB_URL=postgres://x ./deploy.sh staging", ""},
		}},
		{"the command that failed before it works", []call{
			{"Stop", "s1", "", "Starting.", ""},
			{"PostToolUseFailure", "s1", "", "make release", ""},
			{"Stop", "s1", "", "It needs the signing key. Next I will export it and rerun.", "Next I will export it and rerun."},
			{"PostToolUse", "s1", "", "make release", ""},
		}},
		{"a command failing before the turn is not its own", []call{
			{"PostToolUseFailure", "s1", "", "make lint", ""},
			{"Stop", "s1", "", "Lint fails, ignoring it.", ""},
			{"Stop", "s1", "", "Next I will write the changelog.", "Next I will write the changelog."},
			{"PostToolUse", "s1", "", "make lint", "Next I will write the changelog."},
		}},
		{"a new task closes it", []call{
			{"UserPromptSubmit", "s1", "", "fix the deploy", ""},
			{"Stop", "s1", "", step1, step1},
			{"UserPromptSubmit", "s1", "", "new task: write the release notes", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := At("", t.TempDir())
			for i, c := range tt.calls {
				r := journal.Record{TS: t0.Add(time.Duration(i) * time.Minute), Event: c.event, Session: c.session, Source: c.source}
				e := Event{Record: r}
				switch c.event {
				case "Stop":
					e.Message = c.text
				case "PostToolUse", "PostToolUseFailure":
					exit := 0
					if c.event == "PostToolUseFailure" {
						exit = 3
					}
					e.Record.Tool, e.Record.Cmd, e.Record.Exit = "Bash", c.text, &exit
				default:
					e.Prompt = c.text
				}
				if err := d.Observe(e); err != nil {
					t.Fatal(err)
				}
				s, err := d.Read()
				if err != nil {
					t.Fatal(err)
				}
				got := ""
				if s.Next != nil {
					got = s.Next.Text
				}
				if got != c.want {
					t.Errorf("after call %d (%s %q): next step %q; want %q", i, c.event, c.text, got, c.want)
				}
			}
		})
	}
}

func TestIsTalk(t *testing.T) {
	for _, tt := range []struct {
		prompt string
		want   bool
	}{
		{"hello", true}, {"thanks!", true}, {"go on", true}, {"where are we?", true}, {"/compact", true},
		{"今どこまで？", true}, {"了解です", true},
		{"Tidy up the build scripts", false},
		{"Add a /health endpoint that returns the build version", false},
		{"can you set up CI for the repository?", false},
		{"ログイン画面の500エラーを調べて直して", false},
		{"new task: write the release notes", false},
	} {
		if got := IsTalk(tt.prompt); got != tt.want {
			t.Errorf("IsTalk(%q) = %v; want %v", tt.prompt, got, tt.want)
		}
	}
}
