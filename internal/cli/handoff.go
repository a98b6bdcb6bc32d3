package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
	"github.com/baton-cli/baton/internal/resume"
	"github.com/baton-cli/baton/internal/share"
	"github.com/baton-cli/baton/internal/teammem"
	"github.com/baton-cli/baton/internal/transcript"
)

// HandoffOptions are the inputs of `baton handoff`.
type HandoffOptions struct {
	Factory *Factory
	Session string
	JSON    bool
	Lang    string
}

// NewCmdHandoff builds `baton handoff`.
func NewCmdHandoff(f *Factory, runF func(context.Context, *HandoffOptions) error) *cobra.Command {
	opts := &HandoffOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "handoff",
		Short: "Hand this worktree's session to another machine",
		Long: "Pushes the current branch to origin and puts the session's transcript (redacted) and its\n" +
			"briefing on the shared memory's ref " + teammem.Ref + ", then prints the id to pick it up\n" +
			"with on another machine: `baton pickup <id>` in a clone of the same repository. Changes not\n" +
			"committed stay on this machine. --session picks the session; the worktree's newest by default.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return handoffRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session to hand off (default: the worktree's newest)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the handoff as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgHandoffDone  = i18n.Msg{JA: "セッション %s（ブランチ %s、コミット %s）を引き継ぎに出しました。別のマシンのクローンで次を実行してください:\n  baton pickup %s", EN: "handed off session %s (branch %s, commit %s). On another machine, in a clone of this repository, run:\n  baton pickup %s"}
	msgHandoffDirty = i18n.Msg{JA: "コミットしていない変更はこのマシンに残っています（引き継がれません）。", EN: "changes not committed stay on this machine (they are not handed off)."}
	msgHandoffNone  = i18n.Msg{JA: "このワークツリーには引き継げるセッションの記録がありません（--session で指定できます）", EN: "this worktree has no session transcript to hand off (--session names one)"}
	msgHandoffHeld  = i18n.Msg{JA: "タスクの文に秘密情報が含まれるため引き継ぎを送りませんでした", EN: "the handoff was not sent: its task line would carry a secret"}
	msgDetached     = i18n.Msg{JA: "HEAD がブランチを指していません。引き継ぐブランチをチェックアウトしてください", EN: "HEAD is detached: check out the branch to hand off"}
)

func handoffRun(ctx context.Context, opts *HandoffOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openRepo(f, opts.Lang)
	if err != nil {
		return err
	}
	bo := resume.BriefConfigured(cfg, f.Getenv, lang)
	bo.Options = resumeOptions(w, cfg, f)
	bo.Source = "resume"
	bo.Pulls = recall.PullsFor(f.Getenv("HOME"), w.root)
	br, err := resume.BuildBrief(ctx, bo)
	if err != nil {
		return err
	}
	h, err := share.HandOff(ctx, share.Handoff{
		Options: syncOptions(f, w, cfg), Home: f.Getenv("HOME"), Session: opts.Session,
		Task: br.Task, Briefing: br.Text,
	})
	if err != nil {
		return handoffError(err, lang)
	}
	id := teammem.ShortID(h.Entry.ID)
	if opts.JSON {
		return printJSON(f, map[string]any{"id": id, "entry": h.Entry, "dirty": h.Dirty})
	}
	fmt.Fprintln(f.IO.Out, msgHandoffDone.Format(lang, h.Entry.Session, h.Entry.Branch, teammem.ShortID(h.Entry.Commit)[:8], id))
	if h.Dirty {
		fmt.Fprintln(f.IO.Out, msgHandoffDirty.In(lang))
	}
	return nil
}

var (
	msgPickupNone    = i18n.Msg{JA: "id %q の引き継ぎはありません（`baton sync` のあとでも見つからなければ、id を確かめてください）", EN: "no handoff has id %q (check the id; the handoff may not be pushed yet)"}
	msgPickupAmbig   = i18n.Msg{JA: "id %q に当てはまる引き継ぎが複数あります。もっと長く指定してください", EN: "id %q matches more than one handoff; give more of it"}
	msgPickupTwice   = i18n.Msg{JA: "この引き継ぎは %s が %s にもう引き取っています（もう一度引き取るなら --again）", EN: "this handoff was picked up already, by %s at %s (--again picks it up once more)"}
	msgPickupBad     = i18n.Msg{JA: "この引き継ぎは baton が使えないブランチ名・コミット・セッションを指しています: %v", EN: "this handoff names a branch, commit or session baton does not use: %v"}
	msgPickupDone    = i18n.Msg{JA: "引き継ぎ %s（%s から、ブランチ %s）を %s に用意しました。", EN: "picked up %s (from %s, branch %s) in %s."}
	msgPickupCreated = i18n.Msg{JA: "ワークツリー %s を作りました。", EN: "created the worktree %s."}
	msgPickupMark    = i18n.Msg{JA: "引き取った印をリモートに付けられませんでした（次の `baton sync` で付きます）: %v", EN: "could not mark it picked up on the remote (the next `baton sync` does): %v"}
)

// PickupOptions are the inputs of `baton pickup`.
type PickupOptions struct {
	Factory      *Factory
	ID           string
	PrintCommand bool
	Again        bool
	Dir          string
	// AgentArgs are given to the agent after --resume <session>.
	AgentArgs []string
	Lang      string
}

// NewCmdPickup builds `baton pickup`.
func NewCmdPickup(f *Factory, runF func(context.Context, *PickupOptions) error) *cobra.Command {
	opts := &PickupOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "pickup <id> [-- agent arguments]",
		Short: "Pick up a session handed off from another machine",
		Long: "Fetches the handoff from origin, checks its branch out at the handed-off commit (in this\n" +
			"worktree when it is on that branch, else in the worktree that has it, else in a new one\n" +
			"beside the main worktree, or at --dir), lays the session's transcript where Claude Code\n" +
			"looks for that worktree and starts `claude --resume <session>` there (the agent.command of\n" +
			"your configuration). --print-command prints the command instead. A handoff is marked picked\n" +
			"up; picking it up again needs --again. Arguments after -- go to the agent.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				if n != 1 {
					return flagError{errors.New("baton pickup takes one id before --")}
				}
				opts.AgentArgs = args[1:]
			} else if len(args) > 1 {
				return flagError{errors.New("baton pickup takes one id; give agent arguments after --")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pickupRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.PrintCommand, "print-command", false, "print the command that resumes the session instead of running it")
	cmd.Flags().BoolVar(&opts.Again, "again", false, "pick up a handoff picked up before")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "where to create the worktree when one is needed")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

func pickupRun(ctx context.Context, opts *PickupOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openRepo(f, opts.Lang)
	if err != nil {
		return err
	}
	p, err := share.PickUp(ctx, share.Pickup{Options: syncOptions(f, w, cfg), Home: f.Getenv("HOME"), ID: opts.ID, Again: opts.Again, Dir: opts.Dir})
	var twice *share.PickedUpError
	switch {
	case errors.As(err, &twice):
		last := twice.Before[len(twice.Before)-1]
		return errors.New(msgPickupTwice.Format(lang, last.Author, last.TS.In(f.Now().Location()).Format("2006-01-02 15:04")))
	case errors.Is(err, share.ErrNoHandoff):
		return errors.New(msgPickupNone.Format(lang, opts.ID))
	case errors.Is(err, share.ErrAmbiguous):
		return errors.New(msgPickupAmbig.Format(lang, opts.ID))
	case errors.Is(err, share.ErrBadHandoff):
		return errors.New(msgPickupBad.Format(lang, err))
	case err != nil:
		return handoffError(err, lang)
	}
	out := f.IO.ErrOut
	if opts.PrintCommand {
		out = f.IO.Out
	}
	fmt.Fprintln(out, msgPickupDone.Format(lang, teammem.ShortID(p.Entry.ID), p.Entry.Author, p.Entry.Branch, p.Worktree))
	if p.Created {
		fmt.Fprintln(out, msgPickupCreated.Format(lang, p.Worktree))
	}
	if p.MarkErr != nil {
		fmt.Fprintln(f.IO.ErrOut, msgPickupMark.Format(lang, p.MarkErr))
	}
	args := append([]string{"--resume", p.Entry.Session}, opts.AgentArgs...)
	if opts.PrintCommand {
		words := []string{"cd", shellWord(p.Worktree), "&&", shellWord(cfg.AgentCommand())}
		for _, a := range args {
			words = append(words, shellWord(a))
		}
		_, err := fmt.Fprintln(f.IO.Out, strings.Join(words, " "))
		return err
	}
	cmd := exec.CommandContext(ctx, cfg.AgentCommand(), args...)
	cmd.Dir, cmd.Env = p.Worktree, f.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f.IO.In, f.IO.Out, f.IO.ErrOut
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd.Run()
}

// handoffError is a handoff's or a pickup's error in the person's words
// where baton has them.
func handoffError(err error, lang i18n.Lang) error {
	switch {
	case errors.Is(err, share.ErrNoRemote):
		return errors.New(msgSyncNoRemote.In(lang))
	case errors.Is(err, share.ErrDetached):
		return errors.New(msgDetached.In(lang))
	case errors.Is(err, share.ErrHeldBack):
		return errors.New(msgHandoffHeld.In(lang))
	case errors.Is(err, transcript.ErrSession):
		return errors.New(msgHandoffNone.In(lang))
	}
	return err
}

// shellWord is s as one word of a shell command line, quoted when it
// needs to be.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
