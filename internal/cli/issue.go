package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/tracker"
)

// NewCmdIssue builds `baton issue`, which manages issues on the tracker
// chooseTracker picks: GitHub or the local one in the state folder.
func NewCmdIssue(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "issue",
		Short: "Create, list, show and label issues on the configured tracker",
		Long: "Issues live on the tracker set in the config (tracker.kind). auto, the default, uses the\n" +
			"repository's GitHub issues when GH_REPO (or tracker.github.repo, or the origin remote) names a\n" +
			"GitHub repository and a token is found (GH_TOKEN, GITHUB_TOKEN, `gh auth token`), else the\n" +
			"local tracker; local keeps them in .claude/session-state/tracker.db, so decisions and work have\n" +
			"an issue to belong to without GitHub; github always uses GitHub. `baton doctor` says which one\n" +
			"is in use and why.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(
		NewCmdIssueNew(f, nil),
		NewCmdIssueList(f, nil),
		NewCmdIssueShow(f, nil),
		NewCmdIssueLabel(f, nil),
	)
	return cmd
}

// IssueNewOptions are the inputs of `baton issue new`.
type IssueNewOptions struct {
	Factory  *Factory
	Title    string
	Body     string
	BodyFile string
	Labels   []string
	JSON     bool
	Lang     string
}

// NewCmdIssueNew builds `baton issue new`.
func NewCmdIssueNew(f *Factory, runF func(context.Context, *IssueNewOptions) error) *cobra.Command {
	opts := &IssueNewOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "new --title TITLE [--body TEXT | --body-file FILE] [--label NAME]...",
		Short: "Create an issue",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(opts.Title) == "" {
				return flagError{errors.New("--title is required")}
			}
			if opts.Body != "" && opts.BodyFile != "" {
				return flagError{errors.New("--body and --body-file cannot be used together")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return issueNewRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Title, "title", "", "the issue's title")
	cmd.Flags().StringVar(&opts.Body, "body", "", "the issue's text")
	cmd.Flags().StringVar(&opts.BodyFile, "body-file", "", "read the issue's text from a file (- for standard input)")
	cmd.Flags().StringSliceVar(&opts.Labels, "label", nil, "add a label (repeat, or separate with commas)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the issue as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// IssueListOptions are the inputs of `baton issue list`.
type IssueListOptions struct {
	Factory *Factory
	State   string
	Labels  []string
	JSON    bool
	Lang    string
}

// NewCmdIssueList builds `baton issue list`.
func NewCmdIssueList(f *Factory, runF func(context.Context, *IssueListOptions) error) *cobra.Command {
	opts := &IssueListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list [--state open|closed|all] [--label NAME]...",
		Short: "List issues, lowest number first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, ok := tracker.NormalizeState(opts.State); !ok {
				return flagError{fmt.Errorf("--state %q: want open, closed or all", opts.State)}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return issueListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.State, "state", "open", "open, closed or all")
	cmd.Flags().StringSliceVar(&opts.Labels, "label", nil, "only issues with this label (repeat: all must match)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the issues as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// IssueShowOptions are the inputs of `baton issue show`.
type IssueShowOptions struct {
	Factory *Factory
	Number  int
	JSON    bool
	Lang    string
}

// NewCmdIssueShow builds `baton issue show N`.
func NewCmdIssueShow(f *Factory, runF func(context.Context, *IssueShowOptions) error) *cobra.Command {
	opts := &IssueShowOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "show NUMBER",
		Short: "Show an issue with its comments",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := issueNumber(args[0])
			if err != nil {
				return err
			}
			opts.Number = n
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return issueShowRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the issue and its comments as JSON")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// IssueLabelOptions are the inputs of `baton issue label`.
type IssueLabelOptions struct {
	Factory     *Factory
	Number      int
	Add, Remove []string
	Lang        string
}

// NewCmdIssueLabel builds `baton issue label N --add x --remove y`.
func NewCmdIssueLabel(f *Factory, runF func(context.Context, *IssueLabelOptions) error) *cobra.Command {
	opts := &IssueLabelOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "label NUMBER [--add NAME]... [--remove NAME]...",
		Short: "Add labels to an issue or remove them",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := issueNumber(args[0])
			if err != nil {
				return err
			}
			opts.Number = n
			if len(opts.Add) == 0 && len(opts.Remove) == 0 {
				return flagError{errors.New("give --add or --remove")}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return issueLabelRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Add, "add", nil, "label to add (created when missing)")
	cmd.Flags().StringSliceVar(&opts.Remove, "remove", nil, "label to remove")
	cmd.Flags().StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

// issueNumber reads an issue number, with or without a leading '#'.
func issueNumber(arg string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
	if err != nil || n <= 0 {
		return 0, flagError{fmt.Errorf("%q is not an issue number", arg)}
	}
	return n, nil
}

var (
	msgIssueCreated  = i18n.Msg{JA: "issue #%d を作成しました: %s", EN: "Created issue #%d: %s"}
	msgIssueNone     = i18n.Msg{JA: "該当する issue はありません（%s）", EN: "No issues (%s)."}
	msgIssueLabels   = i18n.Msg{JA: "ラベル", EN: "labels"}
	msgIssueNoLabels = i18n.Msg{JA: "（なし）", EN: "(none)"}
	msgIssueNoBody   = i18n.Msg{JA: "（本文なし）", EN: "(no description)"}
	msgIssueComments = i18n.Msg{JA: "コメント (%d 件)", EN: "comments (%d)"}
	msgIssueLabelNow = i18n.Msg{JA: "#%d のラベル: %s", EN: "Labels of #%d: %s"}
	msgIssueState    = i18n.Msg{JA: "状態 %s", EN: "state %s"}
)

// withIssueTracker opens the tracker of the working directory's repository,
// runs fn with it and closes it. Tracker failures are told to the person
// with a hint.
func withIssueTracker(ctx context.Context, f *Factory, langFlag string, fn func(tracker.Tracker, i18n.Lang) error) error {
	repo, _ := f.Repo() // outside a repository: root "", which the GitHub tracker can live with
	lang, err := commandLang(f, langFlag, repo.Worktree)
	if err != nil {
		return err
	}
	t, closeFn, err := openTracker(ctx, f, repo.Worktree)
	if err != nil {
		var te *tracker.Error
		if errors.As(err, &te) {
			return trackerFailure(f, lang, err)
		}
		return err
	}
	defer closeFn()
	err = fn(t, lang)
	var te *tracker.Error
	if errors.As(err, &te) {
		return trackerFailure(f, lang, err)
	}
	return err
}

// issueCreator is a tracker that can open issues; both of baton's can.
type issueCreator interface {
	CreateIssue(ctx context.Context, in tracker.NewIssue) (*tracker.Issue, error)
}

func issueNewRun(ctx context.Context, opts *IssueNewOptions) error {
	f := opts.Factory
	body := opts.Body
	if opts.BodyFile != "" {
		b, err := readBodyFile(f, opts.BodyFile)
		if err != nil {
			return err
		}
		body = string(b)
	}
	return withIssueTracker(ctx, f, opts.Lang, func(t tracker.Tracker, lang i18n.Lang) error {
		c, ok := t.(issueCreator)
		if !ok {
			return errors.New("this tracker cannot create issues")
		}
		is, err := c.CreateIssue(ctx, tracker.NewIssue{Title: opts.Title, Body: body, Labels: opts.Labels})
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeIssueJSON(f.IO.Out, toIssueJSON(is, nil))
		}
		fmt.Fprintln(f.IO.Out, msgIssueCreated.Format(lang, is.Number, is.Title))
		if is.URL != "" {
			fmt.Fprintln(f.IO.Out, is.URL)
		}
		return nil
	})
}

// readBodyFile reads --body-file: standard input for "-", else a file
// relative to the working directory.
func readBodyFile(f *Factory, name string) ([]byte, error) {
	if name == "-" {
		b, err := io.ReadAll(f.IO.In)
		if err != nil {
			return nil, fmt.Errorf("read standard input: %w", err)
		}
		return b, nil
	}
	if !filepath.IsAbs(name) {
		wd, err := f.Getwd()
		if err != nil {
			return nil, err
		}
		name = filepath.Join(wd, name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read --body-file: %w", err)
	}
	return b, nil
}

func issueListRun(ctx context.Context, opts *IssueListOptions) error {
	f := opts.Factory
	return withIssueTracker(ctx, f, opts.Lang, func(t tracker.Tracker, lang i18n.Lang) error {
		list, err := t.ListIssues(ctx, tracker.ListOptions{State: opts.State, Labels: opts.Labels})
		if err != nil {
			return err
		}
		if opts.JSON {
			out := make([]issueJSON, 0, len(list))
			for _, is := range list {
				out = append(out, toIssueJSON(is, nil))
			}
			return writeIssueJSON(f.IO.Out, out)
		}
		if len(list) == 0 {
			filter := msgIssueState.Format(lang, opts.State)
			if len(opts.Labels) > 0 {
				filter += ", " + msgIssueLabels.In(lang) + " " + strings.Join(opts.Labels, ", ")
			}
			fmt.Fprintln(f.IO.Out, msgIssueNone.Format(lang, filter))
			return nil
		}
		for _, is := range list {
			line := fmt.Sprintf("#%-4d %-6s %s", is.Number, is.State, is.Title)
			if len(is.Labels) > 0 {
				line += "  [" + strings.Join(is.Labels, ", ") + "]"
			}
			fmt.Fprintln(f.IO.Out, line)
		}
		return nil
	})
}

func issueShowRun(ctx context.Context, opts *IssueShowOptions) error {
	f := opts.Factory
	return withIssueTracker(ctx, f, opts.Lang, func(t tracker.Tracker, lang i18n.Lang) error {
		is, err := t.Issue(ctx, opts.Number)
		if err != nil {
			return err
		}
		comments, err := t.Comments(ctx, opts.Number)
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeIssueJSON(f.IO.Out, toIssueJSON(is, comments))
		}
		out := f.IO.Out
		fmt.Fprintf(out, "#%d %s\n", is.Number, is.Title)
		fmt.Fprintf(out, "%s · %s · %s\n", is.State, is.Author, shortTime(is.CreatedAt))
		labels := msgIssueNoLabels.In(lang)
		if len(is.Labels) > 0 {
			labels = strings.Join(is.Labels, ", ")
		}
		fmt.Fprintf(out, "%s: %s\n", msgIssueLabels.In(lang), labels)
		if is.URL != "" {
			fmt.Fprintln(out, is.URL)
		}
		fmt.Fprintln(out)
		if body := strings.TrimSpace(is.Body); body != "" {
			fmt.Fprintln(out, body)
		} else {
			fmt.Fprintln(out, msgIssueNoBody.In(lang))
		}
		if len(comments) == 0 {
			return nil
		}
		fmt.Fprintf(out, "\n── %s ──\n", msgIssueComments.Format(lang, len(comments)))
		for i, c := range comments {
			if i > 0 {
				fmt.Fprintln(out)
			}
			fmt.Fprintf(out, "%s · %s · id %d\n%s\n", c.Author, shortTime(c.CreatedAt), c.ID, strings.TrimSpace(c.Body))
		}
		return nil
	})
}

func issueLabelRun(ctx context.Context, opts *IssueLabelOptions) error {
	f := opts.Factory
	return withIssueTracker(ctx, f, opts.Lang, func(t tracker.Tracker, lang i18n.Lang) error {
		if len(opts.Add) > 0 {
			if err := t.AddLabels(ctx, opts.Number, opts.Add...); err != nil {
				return err
			}
		}
		for _, l := range opts.Remove {
			if err := t.RemoveLabel(ctx, opts.Number, l); err != nil {
				return err
			}
		}
		is, err := t.Issue(ctx, opts.Number)
		if err != nil {
			return err
		}
		labels := msgIssueNoLabels.In(lang)
		if len(is.Labels) > 0 {
			labels = strings.Join(is.Labels, ", ")
		}
		fmt.Fprintln(f.IO.Out, msgIssueLabelNow.Format(lang, is.Number, labels))
		return nil
	})
}

func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// issueJSON is an issue in `--json` output.
type issueJSON struct {
	Number            int           `json:"number"`
	Title             string        `json:"title"`
	Body              string        `json:"body"`
	State             string        `json:"state"`
	Labels            []string      `json:"labels"`
	Author            string        `json:"author"`
	AuthorAssociation string        `json:"author_association"`
	URL               string        `json:"url,omitempty"`
	CreatedAt         time.Time     `json:"created_at"`
	UpdatedAt         time.Time     `json:"updated_at"`
	Comments          []commentJSON `json:"comments,omitempty"`
}

// commentJSON is a comment in `--json` output.
type commentJSON struct {
	ID        int64     `json:"id"`
	Body      string    `json:"body"`
	Author    string    `json:"author"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url,omitempty"`
}

func toIssueJSON(is *tracker.Issue, comments []*tracker.Comment) issueJSON {
	out := issueJSON{
		Number: is.Number, Title: is.Title, Body: is.Body, State: is.State, Labels: is.Labels,
		Author: is.Author, AuthorAssociation: is.AuthorAssociation, URL: is.URL,
		CreatedAt: is.CreatedAt, UpdatedAt: is.UpdatedAt,
	}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	for _, c := range comments {
		out.Comments = append(out.Comments, commentJSON{ID: c.ID, Body: c.Body, Author: c.Author, CreatedAt: c.CreatedAt, URL: c.URL})
	}
	return out
}

func writeIssueJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
