package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/panes"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/tmux"
)

// DebateOptions are the inputs of the `baton debate` commands.
type DebateOptions struct {
	Factory *Factory
	// Action is start, reply, status, list, stop or watch.
	Action string
	// ID is the debate; empty means the newest active one.
	ID        string
	Topic     string
	Rounds    int
	Agent     string
	Transport string
	Lang      string
	JSON      bool
	// Side is the role resume-pane starts again.
	Side string
	// Summary: stop asks the moderator for a summary.
	Summary bool
}

// NewCmdDebate builds `baton debate` and its subcommands.
func NewCmdDebate(f *Factory, runF func(context.Context, *DebateOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debate",
		Short: "Run a debate between a pro and a con agent, with a moderator, taking rounds through files",
		Long: "A debate lives in three files in ~/.claude/dialogues (debate.dir): <id>.md with the topic and\n" +
			"state, and <id>-pro.md and <id>-con.md, where each side appends '## Round N' sections.\n" +
			"When both sides have written a round, the next round's instruction goes to both; after the\n" +
			"last round, or when a side writes [CONCLUDED], the moderator is asked for a summary.\n" +
			"Instructions are typed into tmux panes, or, with --transport headless, given to agent runs.",
	}
	run := func(opts *DebateOptions) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return debateRun(c.Context(), opts)
		}
	}
	newOpts := func(action string) *DebateOptions { return &DebateOptions{Factory: f, Action: action} }
	langFlag := func(c *cobra.Command, o *DebateOptions) {
		c.Flags().StringVar(&o.Lang, "lang", "", "message language: ja or en")
	}

	start := newOpts("start")
	startCmd := &cobra.Command{
		Use:   "start --topic TEXT",
		Short: "Open pro and con panes running the agent and send both sides round 1",
		Long: "Inside tmux, splits the current window into a pro and a con pane and makes the current pane\n" +
			"the moderator; outside tmux, creates a detached session baton-debate-<id> with three panes.\n" +
			"Waits until the agents in the new panes report to the pane registry, writes the files and\n" +
			"sends each side its round 1 instruction. With --transport headless no tmux is used: each side\n" +
			"is an agent run of its own (-p), and `baton debate reply` or `watch` runs the next rounds.",
		Args: cobra.NoArgs,
		RunE: run(start),
	}
	startCmd.Flags().StringVar(&start.Topic, "topic", "", "what the debate is about (required)")
	startCmd.Flags().IntVar(&start.Rounds, "rounds", 0, "rounds each side writes (default debate.rounds, 3)")
	startCmd.Flags().StringVar(&start.Agent, "agent", "", "agent command, split at spaces (default agent.command, claude)")
	startCmd.Flags().StringVar(&start.Transport, "transport", "", "tmux or headless (default debate.transport, tmux)")
	langFlag(startCmd, start)

	reply := newOpts("reply")
	replyCmd := &cobra.Command{
		Use:   "reply [<id>]",
		Short: "Hand the round off if both sides have written it (run by a side after writing its round)",
		Long: "Checks the debate (the newest active one when no id is given): if both sides have written the\n" +
			"next round, moves current_round on and sends the next round to both sides, or ends the debate\n" +
			"and asks the moderator for a summary. If only one side has written, says so and sends nothing.\n" +
			"When both sides call it at once, exactly one hands the round off.",
		Args: cobra.MaximumNArgs(1),
		RunE: run(reply),
	}
	langFlag(replyCmd, reply)

	status := newOpts("status")
	statusCmd := &cobra.Command{
		Use:   "status [<id>]",
		Short: "Show a debate's state and how far each side has written",
		Args:  cobra.MaximumNArgs(1),
		RunE:  run(status),
	}
	statusCmd.Flags().BoolVar(&status.JSON, "json", false, "print as JSON")
	langFlag(statusCmd, status)

	list := newOpts("list")
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List debates, newest first",
		Args:  cobra.NoArgs,
		RunE:  run(list),
	}
	listCmd.Flags().BoolVar(&list.JSON, "json", false, "print as JSON")
	langFlag(listCmd, list)

	stop := newOpts("stop")
	stopCmd := &cobra.Command{
		Use:   "stop <id>",
		Short: "Abort a debate and tell the sides",
		Args:  cobra.ExactArgs(1),
		RunE:  run(stop),
	}
	stopCmd.Flags().BoolVar(&stop.Summary, "summary", false, "also ask the moderator to sum up what was written")
	langFlag(stopCmd, stop)

	resume := newOpts("resume-pane")
	resumeCmd := &cobra.Command{
		Use:   "resume-pane <id> pro|con|moderator",
		Short: "Start a side (or the moderator) of a debate again in a new pane, after its pane closed",
		Long: "Opens a new pane next to the debate's live panes running the agent, waits for it to register,\n" +
			"makes it the side's pane and, when the side has not written the round it is at, sends it that\n" +
			"round's instruction: the agent reads the debate's files, so it goes on from what was written.",
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			resume.ID, resume.Side = args[0], args[1]
			if runF != nil {
				return runF(c.Context(), resume)
			}
			return debateRun(c.Context(), resume)
		},
	}
	langFlag(resumeCmd, resume)

	watch := newOpts("watch")
	watchCmd := &cobra.Command{
		Use:   "watch [<id>]",
		Short: "Hand rounds off as soon as both sides have written them, until the debate ends",
		Long: "Watches the debate's files and does what `reply` does the moment a round is complete, so the\n" +
			"agents only need to write their files. Runs until the debate ends or it is interrupted.",
		Args: cobra.MaximumNArgs(1),
		RunE: run(watch),
	}
	langFlag(watchCmd, watch)

	cmd.AddCommand(startCmd, replyCmd, statusCmd, listCmd, stopCmd, watchCmd, resumeCmd)
	return cmd
}

var (
	msgDebateNoTopic     = i18n.Msg{JA: "--topic でテーマを指定してください", EN: "say what the debate is about with --topic"}
	msgDebateRounds      = i18n.Msg{JA: "--rounds は 1 から %d までです", EN: "--rounds must be between 1 and %d"}
	msgDebateTransport   = i18n.Msg{JA: "--transport は tmux か headless です（指定: %q）", EN: "--transport must be tmux or headless (got %q)"}
	msgDebateNoAgent     = i18n.Msg{JA: "エージェントのコマンドが空です（--agent か agent.command）", EN: "the agent command is empty (--agent or agent.command)"}
	msgDebateNoTmux      = i18n.Msg{JA: "tmux が見つかりません。インストールするか --transport headless を使ってください", EN: "tmux not found: install it or use --transport headless"}
	msgDebateWaiting     = i18n.Msg{JA: "pane %s（賛成派）と %s（反対派）でエージェントの起動を待っています…", EN: "Waiting for the agents in panes %s (pro) and %s (con) to start…"}
	msgDebateFiles       = i18n.Msg{JA: "ファイル: %s（賛成派 %s、反対派 %s）", EN: "Files: %s (pro %s, con %s)"}
	msgDebateAttach      = i18n.Msg{JA: "見るには: %s", EN: "To watch it: %s"}
	msgDebateNext        = i18n.Msg{JA: "続きは baton debate reply %s（または watch）で進めます。", EN: "Run baton debate reply %s (or watch) to go on."}
	msgDebateSummary     = i18n.Msg{JA: "モデレーターのまとめ: %s", EN: "The moderator's summary: %s"}
	msgDebateNoModerator = i18n.Msg{
		JA: "このペイン %s ではエージェントが動いていません（ペイン登録簿にありません）。モデレーターになる Claude Code をこのペインで起動してから始めるか、tmux の外で実行してください（baton がモデレーターのペインも起動します）",
		EN: "no agent runs in this pane, %s (it is not in the pane registry): start the debate from the Claude Code session that moderates it, or from outside tmux, where baton starts a moderator pane too",
	}
	msgDebateStoppedTold  = i18n.Msg{JA: "ディベート %s を中止し、%sに伝えました。", EN: "Stopped debate %s and told the %s."}
	msgDebateStoppedNone  = i18n.Msg{JA: "ディベート %s を中止しました。どちらの側にも伝えていません。", EN: "Stopped debate %s; no side was told."}
	msgDebateAnd          = i18n.Msg{JA: "と", EN: " and the "}
	msgDebateNotTold      = i18n.Msg{JA: "  伝えていません: %s", EN: "  not told: %s"}
	msgDebateAlreadyHere  = i18n.Msg{JA: "ディベート %[1]s がこのペイン %[2]s をモデレーターにして進行中です。終えてから始めるか（baton debate stop %[1]s）、別のペインか tmux の外から始めてください", EN: "debate %[1]s is running with this pane, %[2]s, as its moderator: end it first (baton debate stop %[1]s), or start from another pane or from outside tmux"}
	msgDebateBadSide      = i18n.Msg{JA: "pro、con、moderator のどれかを指定してください（指定: %q）", EN: "name pro, con or moderator (got %q)"}
	msgDebateNotResumable = i18n.Msg{JA: "ディベート %s は続けられません（status: %s、transport: %s）。tmux で進行中のディベートだけです", EN: "debate %s cannot go on (status %s, transport %s): only an active tmux debate can"}
	msgDebateStillRuns    = i18n.Msg{JA: "pane %s（%s）はまだ動いています", EN: "pane %s (%s) still runs"}
	msgDebateResumed      = i18n.Msg{JA: "%sを pane %s で起動し直しました。", EN: "Started the %s again in pane %s."}
	msgDebateResent       = i18n.Msg{JA: "Round %d の指示を送信しました。", EN: "Sent it the round %d instruction."}
	msgDebateAskedSummary = i18n.Msg{JA: "モデレーター（pane %s）にまとめを依頼しました。", EN: "Asked the moderator (pane %s) for a summary."}
	msgDebateNoSummary    = i18n.Msg{JA: "  まとめを依頼できませんでした: %s", EN: "  no summary asked for: %s"}
	msgDebateTwice        = i18n.Msg{JA: "%sは Round %d を2回書いています（両方とも残してあります）", EN: "the %s wrote round %d twice (both copies are kept)"}
	msgDebateNone         = i18n.Msg{JA: "ディベートはありません（%s）", EN: "No debates in %s"}
	msgDebateStatus       = i18n.Msg{
		JA: "%s  status: %s  Round %d/%d  transport: %s\nテーマ: %s\n賛成派: pane %s、Round %d まで（%s）\n反対派: pane %s、Round %d まで（%s）\nモデレーター: pane %s\n",
		EN: "%s  status: %s  round %d/%d  transport: %s\nTopic: %s\nPro: pane %s, up to round %d (%s)\nCon: pane %s, up to round %d (%s)\nModerator: pane %s\n",
	}
)

// debateEnv is what every debate command needs.
type debateEnv struct {
	f    *Factory
	cfg  *config.Config
	lang i18n.Lang
	dir  debate.Dir
	home string
}

func newDebateEnv(f *Factory, langFlag string) (*debateEnv, error) {
	root := ""
	if repo, err := f.Repo(); err == nil {
		root = repo.Worktree
	}
	cfg, err := f.Config(root)
	if err != nil {
		return nil, err
	}
	lang := cfg.Language(f.Getenv)
	if langFlag != "" {
		if lang, err = i18n.Parse(langFlag); err != nil {
			return nil, flagError{err}
		}
	}
	home := f.Getenv("HOME")
	dir := debate.Dir{Root: cfg.DebateDir(f.Getenv), Old: cfg.DebateOldDir(f.Getenv), Lang: lang}
	return &debateEnv{f: f, cfg: cfg, lang: lang, dir: dir, home: home}, nil
}

func (e *debateEnv) tmux() tmux.Client {
	return tmux.Client{Socket: e.cfg.Debate.TmuxSocket, Env: e.f.Environ()}
}

// transport returns how instructions reach s's agents.
func (e *debateEnv) transport(s *debate.Session) (debate.Transport, error) {
	agent := strings.Fields(s.Agent)
	if len(agent) == 0 {
		agent = strings.Fields(e.cfg.AgentCommand())
	}
	if s.Transport == debate.TransportHeadless {
		p, err := e.dir.Paths(s.ID)
		if err != nil {
			return nil, err
		}
		return &debate.Headless{Agent: agent, Args: e.cfg.DebateHeadlessArgs(), Paths: p, Env: e.f.Environ()}, nil
	}
	tr := &debate.Tmux{Client: e.tmux(), Registry: panes.Path(e.home), EnterDelay: e.cfg.DebateEnterDelay()}
	if isClaude(agent) {
		// Claude Code's screen tells when it takes input and when a
		// dialog holds the pane.
		tr.Screen = claudecode.ParseScreen
	}
	return tr, nil
}

// isClaude reports whether the agent command runs Claude Code.
func isClaude(agent []string) bool { return len(agent) > 0 && filepath.Base(agent[0]) == "claude" }

// id returns the debate named on the command line, else the one active debate.
func (e *debateEnv) id(given string) (string, error) {
	if given != "" {
		return given, debate.ValidID(given)
	}
	return e.dir.Current()
}

func debateRun(ctx context.Context, opts *DebateOptions) error {
	e, err := newDebateEnv(opts.Factory, opts.Lang)
	if err != nil {
		return err
	}
	switch opts.Action {
	case "start":
		err = e.start(ctx, opts)
	case "reply":
		err = e.reply(ctx, opts)
	case "status":
		err = e.status(ctx, opts)
	case "list":
		err = e.list(ctx, opts)
	case "stop":
		err = e.stop(ctx, opts)
	case "watch":
		err = e.watch(ctx, opts)
	case "resume-pane":
		err = e.resumePane(ctx, opts)
	default:
		err = fmt.Errorf("unknown debate action %q", opts.Action)
	}
	return e.localize(err)
}

// localize words an error the debate package can word in the chosen language.
func (e *debateEnv) localize(err error) error {
	var le debate.Localized
	var fe flagError
	if err == nil || errors.As(err, &fe) || !errors.As(err, &le) {
		return err
	}
	if err == le {
		return errors.New(le.In(e.lang))
	}
	return fmt.Errorf("%s\n%w", le.In(e.lang), err)
}

func (e *debateEnv) start(ctx context.Context, opts *DebateOptions) error {
	out := e.f.IO.Out
	topic := strings.TrimSpace(opts.Topic)
	if topic == "" {
		return flagError{errors.New(msgDebateNoTopic.In(e.lang))}
	}
	rounds := opts.Rounds
	if rounds == 0 {
		rounds = e.cfg.DebateRounds()
	}
	if rounds < 1 || rounds > config.MaxDebateRounds {
		return flagError{errors.New(msgDebateRounds.Format(e.lang, config.MaxDebateRounds))}
	}
	transport := opts.Transport
	if transport == "" {
		transport = e.cfg.DebateTransport()
	}
	if transport != debate.TransportTmux && transport != debate.TransportHeadless {
		return flagError{errors.New(msgDebateTransport.Format(e.lang, transport))}
	}
	agentCmd := opts.Agent
	if agentCmd == "" {
		agentCmd = e.cfg.AgentCommand()
	}
	agent := strings.Fields(agentCmd)
	if len(agent) == 0 {
		return flagError{errors.New(msgDebateNoAgent.In(e.lang))}
	}

	s := &debate.Session{
		ID:        debate.NewID(e.f.Now()),
		Topic:     redact.Redact(topic),
		MaxRounds: rounds,
		Transport: transport,
		Lang:      e.lang,
		Agent:     strings.Join(agent, " "),
	}
	var attach string
	if transport == debate.TransportTmux {
		if _, err := exec.LookPath("tmux"); err != nil {
			return errors.New(msgDebateNoTmux.In(e.lang))
		}
		wd, err := e.f.Getwd()
		if err != nil {
			return err
		}
		current := ""
		if e.f.Getenv("TMUX") != "" && e.cfg.Debate.TmuxSocket == "" {
			current = e.f.Getenv("TMUX_PANE")
		}
		if current != "" {
			// One debate at a time per moderator: each start splits
			// this window again.
			active, err := e.dir.Active()
			if err != nil {
				return err
			}
			for _, a := range active {
				if a.Session.PaneModerator == current && a.Session.Transport == debate.TransportTmux {
					return errors.New(msgDebateAlreadyHere.Format(e.lang, a.ID, current))
				}
			}
			// The moderator is the agent in this pane: without one, the
			// summary request at the end would have nobody to go to.
			reg, err := panes.Read(panes.Path(e.home))
			if err != nil {
				return err
			}
			if _, ok := reg[current]; !ok {
				return errors.New(msgDebateNoModerator.Format(e.lang, current))
			}
		}
		run := agent
		if isClaude(agent) {
			run = append(slices.Clip(agent), claudecode.AccessArgs(e.dir.Root, "baton debate reply")...)
		}
		before, err := panes.Read(panes.Path(e.home))
		if err != nil {
			return err
		}
		p, err := debate.OpenPanes(ctx, e.tmux(), s.ID, current, wd, run)
		if err != nil {
			return err
		}
		s.PaneModerator, s.PanePro, s.PaneCon = p.Moderator, p.Pro, p.Con
		want := map[string]debate.Role{p.Pro: debate.Pro, p.Con: debate.Con}
		if p.Session != "" {
			want[p.Moderator] = debate.Moderator
			attach = "tmux attach -t " + p.Session
			if sock := e.cfg.Debate.TmuxSocket; sock != "" {
				attach = "tmux -L " + sock + " attach -t " + p.Session
			}
		}
		fmt.Fprintln(out, msgDebateWaiting.Format(e.lang, p.Pro, p.Con))
		if err := debate.WaitRegistered(ctx, panes.Path(e.home), want, before, e.cfg.DebateRegisterTimeout()); err != nil {
			return err
		}
	}
	tr, err := e.transport(s)
	if err != nil {
		return err
	}
	res, err := e.dir.Open(ctx, s, tr)
	if err != nil {
		return err
	}
	p, _ := e.dir.Paths(s.ID)
	fmt.Fprintln(out, res.Message(e.lang))
	fmt.Fprintln(out, msgDebateFiles.Format(e.lang, p.Main, p.Pro, p.Con))
	if attach != "" {
		fmt.Fprintln(out, msgDebateAttach.Format(e.lang, attach))
	}
	if transport == debate.TransportHeadless {
		fmt.Fprintln(out, msgDebateNext.Format(e.lang, s.ID))
	}
	return nil
}

// session loads the debate named by idFlag (else the current one) and its
// transport.
func (e *debateEnv) session(idFlag string) (*debate.Session, debate.Transport, error) {
	id, err := e.id(idFlag)
	if err != nil {
		return nil, nil, err
	}
	s, err := e.dir.Load(id)
	if err != nil {
		return nil, nil, err
	}
	tr, err := e.transport(s)
	return s, tr, err
}

func (e *debateEnv) reply(ctx context.Context, opts *DebateOptions) error {
	s, tr, err := e.session(opts.ID)
	if err != nil {
		return err
	}
	for {
		res, err := e.dir.Reply(ctx, s.ID, tr)
		if gone := (*debate.PaneGoneError)(nil); errors.As(err, &gone) {
			fmt.Fprintln(e.f.IO.ErrOut, debate.GoneHint(s.ID, gone.Role, e.lang))
		}
		if err != nil {
			return err
		}
		e.report(res)
		// A headless hand-off has run both sides' next round already.
		if s.Transport != debate.TransportHeadless || res.Kind != debate.HandedOff {
			return nil
		}
	}
}

// report prints one outcome.
func (e *debateEnv) report(res debate.Result) {
	fmt.Fprintln(e.f.IO.Out, res.Message(e.lang))
	if res.Kind == debate.Ended && res.Session.Transport == debate.TransportHeadless {
		if p, err := e.dir.Paths(res.Session.ID); err == nil {
			fmt.Fprintln(e.f.IO.Out, msgDebateSummary.Format(e.lang, p.Summary))
		}
	}
}

func (e *debateEnv) watch(ctx context.Context, opts *DebateOptions) error {
	s, tr, err := e.session(opts.ID)
	if err != nil {
		return err
	}
	err = e.dir.Watch(ctx, s.ID, tr, e.report)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func (e *debateEnv) stop(ctx context.Context, opts *DebateOptions) error {
	if err := debate.ValidID(opts.ID); err != nil {
		return err
	}
	s, err := e.dir.Load(opts.ID)
	if err != nil {
		return err
	}
	var tr debate.Transport
	if s.Transport == debate.TransportTmux {
		if tr, err = e.transport(s); err != nil {
			return err
		}
	}
	res, err := e.dir.Stop(ctx, opts.ID, tr)
	if err != nil {
		return err
	}
	// One account on one stream: stopped, who was told (their message
	// confirmed submitted), and why the others were not.
	out := e.f.IO.Out
	names := make([]string, len(res.Told))
	for i, r := range res.Told {
		names[i] = r.Name(e.lang)
	}
	if len(names) == 0 {
		fmt.Fprintln(out, msgDebateStoppedNone.Format(e.lang, opts.ID))
	} else {
		fmt.Fprintln(out, msgDebateStoppedTold.Format(e.lang, opts.ID, strings.Join(names, msgDebateAnd.In(e.lang))))
	}
	for _, err := range res.NotTold {
		fmt.Fprintln(out, msgDebateNotTold.Format(e.lang, e.localize(err)))
	}
	if opts.Summary && tr != nil {
		if err := e.dir.Summarize(ctx, opts.ID, tr); err != nil {
			fmt.Fprintln(out, msgDebateNoSummary.Format(e.lang, e.localize(err)))
		} else {
			fmt.Fprintln(out, msgDebateAskedSummary.Format(e.lang, debateOrDash(s.PaneModerator)))
		}
	}
	return nil
}

// resumePane starts a side of an active tmux debate again in a new pane.
func (e *debateEnv) resumePane(ctx context.Context, opts *DebateOptions) error {
	role := debate.Role(opts.Side)
	if role != debate.Pro && role != debate.Con && role != debate.Moderator {
		return flagError{errors.New(msgDebateBadSide.Format(e.lang, opts.Side))}
	}
	if err := debate.ValidID(opts.ID); err != nil {
		return err
	}
	s, err := e.dir.Load(opts.ID)
	if err != nil {
		return err
	}
	if s.Status != debate.Active || s.Transport != debate.TransportTmux {
		return errors.New(msgDebateNotResumable.Format(e.lang, s.ID, s.Status, s.Transport))
	}
	c := e.tmux()
	live, err := c.ListPanes(ctx)
	if err != nil && !tmux.IsNoServer(err) {
		return err
	}
	reg, err := panes.Read(panes.Path(e.home))
	if err != nil {
		return err
	}
	if _, ok := reg[s.Pane(role)]; ok && live[s.Pane(role)] {
		return errors.New(msgDebateStillRuns.Format(e.lang, s.Pane(role), role.Name(e.lang)))
	}
	next := ""
	for _, r := range []debate.Role{debate.Pro, debate.Con, debate.Moderator} {
		if r != role && live[s.Pane(r)] {
			next = s.Pane(r)
			break
		}
	}
	agent := strings.Fields(s.Agent)
	if len(agent) == 0 {
		agent = strings.Fields(e.cfg.AgentCommand())
	}
	if isClaude(agent) {
		agent = append(slices.Clip(agent), claudecode.AccessArgs(filepath.Dir(e.mainOf(s.ID)), "baton debate reply")...)
	}
	wd, err := e.f.Getwd()
	if err != nil {
		return err
	}
	pane, err := debate.OpenPane(ctx, c, s.ID, role, next, wd, agent)
	if err != nil {
		return err
	}
	if err := debate.WaitRegistered(ctx, panes.Path(e.home), map[string]debate.Role{pane: role}, reg, e.cfg.DebateRegisterTimeout()); err != nil {
		return err
	}
	tr, err := e.transport(s)
	if err != nil {
		return err
	}
	res, err := e.dir.Replace(ctx, s.ID, role, pane, tr)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.f.IO.Out, msgDebateResumed.Format(e.lang, role.Name(e.lang), pane))
	if len(res.Sent) > 0 {
		fmt.Fprintln(e.f.IO.Out, msgDebateResent.Format(e.lang, res.Round))
	}
	for _, de := range res.Pending {
		fmt.Fprintln(e.f.IO.Out, de.In(e.lang))
	}
	return nil
}

// mainOf is debate id's main file.
func (e *debateEnv) mainOf(id string) string {
	p, _ := e.dir.Paths(id)
	return p.Main
}

// debateJSON is a debate as `status --json` and `list --json` print it.
type debateJSON struct {
	ID           string            `json:"id"`
	Topic        string            `json:"topic"`
	Status       string            `json:"status"`
	CurrentRound int               `json:"current_round"`
	MaxRounds    int               `json:"max_rounds"`
	Transport    string            `json:"transport"`
	Panes        map[string]string `json:"panes"`
	Files        map[string]string `json:"files,omitempty"`
	Written      map[string]int    `json:"written,omitempty"`
	Concluded    bool              `json:"concluded,omitempty"`
	// Notes are what needs the person (see notes).
	Notes []string `json:"notes,omitempty"`
	Error string   `json:"error,omitempty"`
}

func toJSON(s *debate.Session) debateJSON {
	return debateJSON{
		ID: s.ID, Topic: s.Topic, Status: string(s.Status), CurrentRound: s.CurrentRound, MaxRounds: s.MaxRounds,
		Transport: s.Transport,
		Panes:     map[string]string{"moderator": s.PaneModerator, "pro": s.PanePro, "con": s.PaneCon},
	}
}

// livePanes are the panes of the debates' tmux server; nil when it cannot
// be asked (no server: the panes may live on another one).
func (e *debateEnv) livePanes(ctx context.Context) map[string]bool {
	live, err := e.tmux().ListPanes(ctx)
	if err != nil {
		return nil
	}
	return live
}

func (e *debateEnv) status(ctx context.Context, opts *DebateOptions) error {
	id := opts.ID
	if id == "" {
		// The one active debate, else the newest of all; with several
		// active, the person names one.
		active, err := e.dir.Active()
		if err != nil {
			return err
		}
		if len(active) > 0 {
			if id, err = e.dir.Current(); err != nil {
				return err
			}
		} else {
			list, err := e.dir.List()
			if err != nil {
				return err
			}
			if len(list) == 0 {
				_, err := e.dir.Current()
				return err
			}
			id = list[0].ID
		}
	}
	r, err := e.dir.Inspect(id)
	if err != nil {
		return err
	}
	s := r.Session
	if opts.JSON {
		j := toJSON(s)
		j.Files = map[string]string{"main": r.Paths.Main, "pro": r.Paths.Pro, "con": r.Paths.Con}
		j.Written = map[string]int{"pro": r.Pro.Written(), "con": r.Con.Written()}
		j.Concluded = r.Pro.Concluded() || r.Con.Concluded()
		j.Notes = e.notes(r, e.livePanes(ctx))
		return writeDebateJSON(e.f, j)
	}
	fmt.Fprintf(e.f.IO.Out, msgDebateStatus.In(e.lang),
		s.ID, s.Status, s.CurrentRound, s.MaxRounds, s.Transport, s.Topic,
		debateOrDash(s.PanePro), r.Pro.Written(), r.Paths.Pro,
		debateOrDash(s.PaneCon), r.Con.Written(), r.Paths.Con,
		debateOrDash(s.PaneModerator))
	for _, note := range e.notes(r, e.livePanes(ctx)) {
		fmt.Fprintln(e.f.IO.Out, "  ! "+note)
	}
	return nil
}

// notes are what needs the person in an active debate: a pane that closed
// (live lists the tmux server's panes; nil when it could not be asked), a
// message typed but not submitted or held back by a dialog, a round written
// twice.
func (e *debateEnv) notes(r debate.Report, live map[string]bool) []string {
	s := r.Session
	if s.Status != debate.Active {
		return nil
	}
	var out []string
	if live != nil && s.Transport == debate.TransportTmux {
		for _, role := range []debate.Role{debate.Pro, debate.Con, debate.Moderator} {
			if pane := s.Pane(role); pane != "" && !live[pane] {
				gone := &debate.PaneGoneError{Role: role, Pane: pane}
				out = append(out, gone.In(e.lang), debate.GoneHint(s.ID, role, e.lang))
			}
		}
	}
	for _, side := range []debate.Role{debate.Pro, debate.Con} {
		rounds := r.Pro
		if side == debate.Con {
			rounds = r.Con
		}
		if de := s.Pending(side, rounds.Written()); de != nil {
			out = append(out, de.In(e.lang))
		}
		for _, n := range rounds.Twice() {
			out = append(out, msgDebateTwice.Format(e.lang, side.Name(e.lang), n))
		}
	}
	return out
}

func (e *debateEnv) list(ctx context.Context, opts *DebateOptions) error {
	list, err := e.dir.List()
	if err != nil {
		return err
	}
	live := e.livePanes(ctx)
	if opts.JSON {
		out := []debateJSON{}
		for _, en := range list {
			if en.Err != nil {
				out = append(out, debateJSON{ID: en.ID, Error: e.localize(en.Err).Error()})
				continue
			}
			j := toJSON(en.Session)
			if r, err := e.dir.Inspect(en.ID); err == nil {
				j.Notes = e.notes(r, live)
			}
			out = append(out, j)
		}
		return writeDebateJSON(e.f, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.f.IO.Out, msgDebateNone.Format(e.lang, e.dir.Root))
		return nil
	}
	tw := tabwriter.NewWriter(e.f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tROUND\tTRANSPORT\tTOPIC")
	var notes []string
	for _, en := range list {
		if en.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t\t\t%s\n", en.ID, "error", e.localize(en.Err))
			continue
		}
		s := en.Session
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", s.ID, s.Status, s.CurrentRound, s.MaxRounds, s.Transport, debateTruncate(s.Topic, 60))
		if r, err := e.dir.Inspect(en.ID); err == nil {
			for _, note := range e.notes(r, live) {
				notes = append(notes, "  ! "+s.ID+": "+note)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.f.IO.Out, n)
	}
	return nil
}

func writeDebateJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func debateOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// debateTruncate shortens s to at most n runes.
func debateTruncate(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
