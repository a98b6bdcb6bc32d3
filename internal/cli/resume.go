package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/agentlog"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/gitrepo"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/state"
)

// ResumeOptions are the inputs of `baton resume`.
type ResumeOptions struct {
	Factory *Factory
	JSON    bool
	Lang    string
	// Agent, when set (codex, gemini), prints what that agent's newest
	// session in this worktree did instead of the briefing.
	Agent string
}

// NewCmdResume builds `baton resume`, which tells where work in this worktree
// left off.
func NewCmdResume(f *Factory, runF func(context.Context, *ResumeOptions) error) *cobra.Command {
	opts := &ResumeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "resume",
		Short: "Show where work in this worktree left off",
		Long: "Prints the briefing the agent gets at every session start and after every compaction:\n" +
			"the task (from current.md, kept with `baton save`, else the opening request of the work),\n" +
			"the approved decisions, where the worktree left off (prompts not answered, commands still\n" +
			"failing, the todo list, the agent's last message, files and commands) and the summaries,\n" +
			"within the hook's 10,000-character limit. Prints nothing when there is nothing to resume.\n\n" +
			"Settings: resume.records (30) is how many of the worktree's newest tool calls are used,\n" +
			"resume.stale_days (7) when a saved state counts as old, and resume.scan_bytes (256KiB) how\n" +
			"far back from its end the journal is searched for a worktree whose hooks kept no records\n" +
			"of their own yet (an older baton's).\n\n" +
			"--agent codex or gemini prints what that CLI's newest session in this worktree did (its\n" +
			"last request and answer, the commands it ran, failing ones first), the layer a Claude Code\n" +
			"briefing carries when that session worked after the last Claude Code session; paste it\n" +
			"into the other agent to hand the work back.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return resumeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the briefing's facts as a JSON object")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	cmd.Flags().StringVar(&opts.Agent, "agent", "", "show the newest session of this agent in the worktree: codex or gemini")
	return cmd
}

var (
	msgNothingToResume = i18n.Msg{
		JA: "再開できる作業はありません（current.md も、このワークツリーの作業記録もありません）。",
		EN: "Nothing to resume: no current.md task and no recorded work in this worktree.",
	}
	msgResumeAgent     = i18n.Msg{JA: "--agent %q は使えません: codex か gemini です", EN: "--agent %q is not codex or gemini"}
	msgNoAgentSession  = i18n.Msg{JA: "このワークツリーで動いた %s のセッションは見つかりませんでした。", EN: "No %s session ran in this worktree."}
	msgAgentSessionFor = i18n.Msg{JA: "## baton: このワークツリーでの %s の作業", EN: "## baton: %s's work in this worktree"}
)

func resumeRun(ctx context.Context, opts *ResumeOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}
	if opts.Agent != "" {
		return resumeAgentRun(ctx, opts, w, lang)
	}
	o := resume.BriefConfigured(cfg, f.Getenv, lang)
	o.Options = resumeOptions(w, cfg, f)
	o.Own = true // asked for: shown even when resume.inject is off
	o.ForPerson = true
	o.Pulls = recall.PullsFor(f.Getenv("HOME"), o.Worktree)
	br, err := resume.BuildBrief(ctx, o)
	if err != nil {
		return err
	}
	if opts.JSON {
		out, err := br.JSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f.IO.Out, "%s\n", out)
		return err
	}
	text := br.Text
	if text == "" {
		fmt.Fprintln(f.IO.ErrOut, msgNothingToResume.In(lang))
		return nil
	}
	_, err = fmt.Fprintln(f.IO.Out, text)
	return err
}

// resumeAgentRun prints what another agent's newest session in the
// worktree did.
func resumeAgentRun(ctx context.Context, opts *ResumeOptions, w workspace, lang i18n.Lang) error {
	f := opts.Factory
	a, err := agentlog.ParseAgent(opts.Agent)
	if err != nil || a == agentlog.Claude {
		return flagError{errors.New(msgResumeAgent.Format(lang, opts.Agent))}
	}
	work, err := resume.LastAgentWork(ctx, agentlog.DirsFrom(f.Getenv), w.root, time.Time{}, a)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(work)
	}
	if work == nil {
		fmt.Fprintln(f.IO.ErrOut, msgNoAgentSession.Format(lang, agentNames[a]))
		return nil
	}
	_, err = fmt.Fprintf(f.IO.Out, "%s\n\n%s\n", msgAgentSessionFor.Format(lang, agentNames[a]), work.Item(lang, f.Now(), false))
	return err
}

// workspace is where a command runs: the worktree (or, outside git, the
// project folder) and its state folder.
type workspace struct {
	root, main, branch string
	state              state.Dir
	repo               *gitrepo.Repo // nil outside git
}

// createState makes the state folder of a command that writes into it where
// nothing has run yet, keeping it out of git.
func (w workspace) createState() error {
	_, err := w.state.Create(w.repo)
	return err
}

// findWorkspace locates the worktree as `baton hook` does: outside git the
// project folder (CLAUDE_PROJECT_DIR, else the working directory) stands in
// for the repository.
func findWorkspace(f *Factory) (workspace, error) {
	repo, err := f.Repo()
	if err == nil {
		return workspace{root: repo.Worktree, main: repo.Main, branch: repo.Branch, state: state.For(repo), repo: &repo}, nil
	}
	if !errors.Is(err, gitrepo.ErrNotRepo) {
		return workspace{}, err
	}
	root := f.Getenv("CLAUDE_PROJECT_DIR")
	if root == "" {
		if root, err = f.Getwd(); err != nil {
			return workspace{}, err
		}
	}
	return workspace{root: root, main: root, state: state.At(root)}, nil
}

// openWorkspace is how most commands start: find the workspace, load its
// configuration and pick the message language (the flag, else the config,
// else the locale).
func openWorkspace(f *Factory, langFlag string) (workspace, *config.Config, i18n.Lang, error) {
	w, err := findWorkspace(f)
	if err != nil {
		return workspace{}, nil, "", err
	}
	cfg, err := f.Config(w.root)
	if err != nil {
		return workspace{}, nil, "", err
	}
	lang, err := flagLang(langFlag, cfg, f.Getenv)
	if err != nil {
		return workspace{}, nil, "", err
	}
	return w, cfg, lang, nil
}

// flagLang is the --lang flag's language, else the configured one.
func flagLang(flag string, cfg *config.Config, getenv func(string) string) (i18n.Lang, error) {
	if flag == "" {
		return cfg.Language(getenv), nil
	}
	l, err := i18n.Parse(flag)
	if err != nil {
		return "", flagError{err}
	}
	return l, nil
}

func resumeOptions(w workspace, cfg *config.Config, f *Factory) resume.Options {
	o := resume.Configured(cfg, f.Getenv)
	o.State, o.Worktree, o.Main, o.Branch, o.Now = w.state, w.root, w.main, w.branch, f.Now()
	return o
}
