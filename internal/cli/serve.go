package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/claudecode"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/debate"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/web"
	"github.com/baton-cli/baton/internal/worker"
)

// ServeOptions are the inputs of `baton serve`.
type ServeOptions struct {
	Factory     *Factory
	Addr        string
	AllowRemote bool
	Token       string
	Open        bool
	Lang        string
	// Ready, when set, is called with the dashboard's address once it
	// listens (tests use it instead of reading the output).
	Ready func(url string)
}

// NewCmdServe builds `baton serve`, the local dashboard.
func NewCmdServe(f *Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:7433] [--open]",
		Short: "Serve a local dashboard of sessions, decisions, context layers, worker runs, debates and usage",
		Long: "Serves a read-only web dashboard of this repository: the sessions of every worktree with the\n" +
			"resume briefing, each session's journal and decisions, the context layers, the worker's runs,\n" +
			"debates, search and token usage. It listens on 127.0.0.1 only; another address needs\n" +
			"--allow-remote and a token (--token, or one is generated and printed), which every request\n" +
			"must carry. Requests naming another host or coming from another site are refused.\n" +
			"Stop it with Ctrl-C.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", web.DefaultAddr, "address to listen on, host:port")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow an address other than loopback (needs a token)")
	cmd.Flags().StringVar(&opts.Token, "token", "", "access token every request must carry (generated with --allow-remote when not given)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the dashboard in the browser")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgServeRemote    = i18n.Msg{JA: "%s はループバック以外のアドレスです。外部からのアクセスを許すには --allow-remote を付けてください（トークンが必須になります）。", EN: "%s is not a loopback address: add --allow-remote to allow access from elsewhere (a token is then required)."}
	msgServeListening = i18n.Msg{JA: "ダッシュボード: %s （Ctrl-C で終了）", EN: "Dashboard: %s (Ctrl-C to stop)"}
	msgServeToken     = i18n.Msg{JA: "アクセスにはトークンが必要です。上の URL を開くとブラウザに保存されます。", EN: "Access needs the token: opening the URL above stores it in the browser."}
	msgServeOpen      = i18n.Msg{JA: "ブラウザを開けませんでした: %v", EN: "could not open the browser: %v"}
	msgServeStopped   = i18n.Msg{JA: "ダッシュボードを停止しました。", EN: "Dashboard stopped."}
)

func serveRun(ctx context.Context, opts *ServeOptions) error {
	f := opts.Factory
	w, cfg, lang, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}

	token := opts.Token
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return flagError{fmt.Errorf("--addr %q: %w", opts.Addr, err)}
	}
	if !web.Loopback(host) && opts.AllowRemote && token == "" {
		if token, err = newToken(); err != nil {
			return err
		}
	}
	if err := web.CheckBind(opts.Addr, opts.AllowRemote, token); err != nil {
		if errors.Is(err, web.ErrRemote) {
			return flagError{errors.New(msgServeRemote.Format(lang, opts.Addr))}
		}
		return flagError{err}
	}

	log, closeLog := w.state.Logger(f.Getenv)
	defer closeLog.Close()
	home := f.Getenv("HOME")
	routes := make([]string, 0, len(cfg.Context.Routes))
	for r := range cfg.Context.Routes {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	// The dashboard works from the files alone when the index cannot be
	// opened; search then says it is not available.
	ix, err := openIndex(ctx, f, w, cfg, lang)
	if err != nil {
		log.Warn("serve: open index", "err", err)
		fmt.Fprintf(f.IO.ErrOut, "baton: %v\n", err)
		ix = nil
	} else {
		defer ix.Close()
	}
	prices, err := loadPrices(f, w.root)
	if err != nil {
		return err
	}
	queue := &sharedQueue{open: func(ctx context.Context) (*worker.Queue, error) { return openQueue(ctx, f, cfg, lang) }}
	defer queue.Close()
	srv, err := web.New(web.Options{
		State:  w.state,
		Resume: resumeOptions(w, cfg, f),
		Route:  cfg.ContextRoute(),
		Routes: routes,
		Runs:   worker.Store{Dir: workerDataDir(f)},
		Queue: func(ctx context.Context) (*worker.QueueStatus, error) {
			q, err := queue.get(ctx)
			if err != nil {
				return nil, err
			}
			return q.Status(ctx, 200)
		},
		Debates:        debate.Dir{Root: cfg.DebateDir(f.Getenv), Old: cfg.DebateOldDir(f.Getenv)},
		MemoryDir:      claudecode.MemoryDir(home, w.root),
		TranscriptDirs: workspaceTranscriptDirs(f, w, home),
		Prices:         prices,
		Index:          ix,
		IssueURL:       issueURL(ctx, f, w.root, cfg),
		Lang:           lang,
		Loc:            time.Local,
		Now:            f.Now,
		Log:            log,
	})
	if err != nil {
		return err
	}

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	hostname, _ := os.Hostname()
	guard := web.Guard{Hosts: web.Hosts(ln.Addr(), hostname), Token: token, Lang: lang}

	u := dashboardURL(ln.Addr(), hostname, token)
	fmt.Fprintln(f.IO.Out, msgServeListening.Format(lang, u))
	if token != "" {
		fmt.Fprintln(f.IO.Out, msgServeToken.In(lang))
	}
	if opts.Open {
		if err := openBrowser(ctx, u); err != nil {
			fmt.Fprintln(f.IO.ErrOut, msgServeOpen.Format(lang, err))
		}
	}
	if opts.Ready != nil {
		opts.Ready(u)
	}
	if err := web.Serve(ctx, ln, guard.Wrap(srv), log); err != nil {
		return fmt.Errorf("serve dashboard: %w", err)
	}
	fmt.Fprintln(f.IO.ErrOut, msgServeStopped.In(lang))
	return nil
}

// newToken is 32 random bytes in hex.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// dashboardURL is the address to open: the listening address, or the host
// name for a wildcard one, with the token when there is one.
func dashboardURL(addr net.Addr, hostname, token string) string {
	host := addr.String()
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		name := hostname
		if name == "" {
			name = "localhost"
		}
		host = net.JoinHostPort(name, fmt.Sprint(ta.Port))
	}
	u := url.URL{Scheme: "http", Host: host, Path: "/"}
	if token != "" {
		u.RawQuery = url.Values{"token": {token}}.Encode()
	}
	return u.String()
}

// issueURL links issues to GitHub when the repository's tracker is GitHub
// (see chooseTracker); nil otherwise.
func issueURL(ctx context.Context, f *Factory, root string, cfg *config.Config) func(int) string {
	c, err := chooseTracker(ctx, f, root, cfg)
	if err != nil || c.kind != config.TrackerKindGitHub {
		return nil
	}
	h, owner, name := c.github.Host, c.github.Owner, c.github.Repo
	if h == "" {
		h = "github.com"
	}
	return func(n int) string {
		return (&url.URL{Scheme: "https", Host: h, Path: fmt.Sprintf("/%s/%s/issues/%d", owner, name, n)}).String()
	}
}

// openBrowser asks the desktop to open u, without waiting for it. The
// opener (and a browser it starts) runs in a process group of its own and
// is not stopped with the dashboard: closing the dashboard must not close
// the person's browser.
func openBrowser(ctx context.Context, u string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.CommandContext(context.WithoutCancel(ctx), name, u)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// sharedQueue is the worker's queue of the dashboard: opened on the first
// view that needs it and kept, with its pool, for the server's life; an
// open that failed is tried again on the next view.
type sharedQueue struct {
	open func(context.Context) (*worker.Queue, error)

	mu sync.Mutex
	q  *worker.Queue
}

func (s *sharedQueue) get(ctx context.Context) (*worker.Queue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q != nil {
		return s.q, nil
	}
	q, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	s.q = q
	return q, nil
}

// Close closes the queue if it was opened.
func (s *sharedQueue) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q != nil {
		s.q.Close()
		s.q = nil
	}
}
