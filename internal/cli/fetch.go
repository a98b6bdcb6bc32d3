package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/recall"
)

// FetchOptions are the inputs of `baton fetch`.
type FetchOptions struct {
	Factory *Factory
	contextFlags
	Channel string
	Timeout time.Duration
}

// maxFetchInput is the most of stdin `baton fetch` reads: far more than
// one model answer.
const maxFetchInput = 16 << 20

// NewCmdFetch builds `baton fetch`, which serves the <<FETCH>> tags in a
// model's answer.
func NewCmdFetch(f *Factory, runF func(context.Context, *FetchOptions) error) *cobra.Command {
	opts := &FetchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "fetch",
		Short: "Serve the <<FETCH>> tags in a model's answer (read on stdin)",
		Long: "Reads a model's answer on stdin, finds the tags\n\n" +
			"  <<FETCH>>{\"target\": \"thread_history\", \"thread_ts\": \"1778246185.616809\", \"depth\": 50}<</FETCH>>\n\n" +
			"and prints, for each, the text to give the model in its next round. Targets:\n" +
			"thread_history (thread_ts, channel), session_log (session), issue_body (issue). depth is\n" +
			"capped at context.max_depth (50); at most context.max_tags (5) tags are served per call.\n" +
			"A malformed tag or an unknown target gets an error entry; the call still succeeds.",
		Example: "  claude -p \"$PROMPT\" | tee answer.txt | baton fetch --channel C0123ABCD > more-context.txt",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return fetchRun(cmd.Context(), opts)
		},
	}
	opts.contextFlags.add(cmd)
	cmd.Flags().StringVar(&opts.Channel, "channel", "", "Slack channel of thread_history tags that name none (default context.slack_channel)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 30*time.Second, "time allowed for each tag")
	return cmd
}

// FetchResult is one tag's entry in the output.
type FetchResult struct {
	Index   int         `json:"index"`
	Request *recall.Tag `json:"request,omitempty"`
	OK      bool        `json:"ok"`
	Text    string      `json:"text,omitempty"`
	Error   string      `json:"error,omitempty"`
}

var (
	msgFetchSkipped   = i18n.Msg{JA: "残り %d 個のタグは扱いません（1 回に %d 個まで）", EN: "%d more tag(s) not served (at most %d per call)"}
	msgFetchTruncated = i18n.Msg{JA: "baton: 入力が %d バイトを超えたため、先頭だけを読みました", EN: "baton: input longer than %d bytes; only its start was read"}
)

func fetchRun(ctx context.Context, opts *FetchOptions) error {
	f := opts.Factory
	e, err := newContextEnv(f, opts.contextFlags)
	if err != nil {
		return err
	}
	in, err := io.ReadAll(io.LimitReader(f.IO.In, maxFetchInput+1))
	if err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(in) > maxFetchInput {
		in = in[:maxFetchInput]
		fmt.Fprintln(f.IO.ErrOut, msgFetchTruncated.Format(e.lang, maxFetchInput))
	}
	maxTags := e.cfg.ContextMaxTags()
	tags, skipped := recall.ParseTags(string(in), maxTags, e.cfg.ContextMaxDepth())
	p := newPuller(f, e)
	if opts.Channel != "" {
		p.SlackChannel = opts.Channel
	}
	results := []FetchResult{}
	for i, t := range tags {
		r := FetchResult{Index: i + 1}
		if t.Err == nil {
			r.Request = &t
		}
		tctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		text, err := p.Fetch(tctx, t)
		cancel()
		if err != nil {
			r.Error = err.Error()
		} else {
			// Fetched text that holds a tag must not ask for more when the
			// model repeats it.
			r.OK, r.Text = true, strings.ReplaceAll(text, recall.TagOpen, "<<FETCH (quoted)>>")
		}
		results = append(results, r)
	}
	if skipped > 0 {
		results = append(results, FetchResult{Index: len(tags) + 1, Error: msgFetchSkipped.Format(e.lang, skipped, maxTags)})
	}
	if opts.JSON {
		return printJSON(f, map[string]any{"results": results})
	}
	w := f.IO.Out
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		n := fmt.Sprintf("%d/%d", r.Index, len(results))
		if !r.OK {
			fmt.Fprintf(w, "[baton fetch %s: error] %s\n", n, r.Error)
			continue
		}
		fmt.Fprintf(w, "[baton fetch %s: %s]\n%s\n[/baton fetch %s]\n", n, r.Request.Describe(), strings.TrimRight(r.Text, "\n"), n)
	}
	return nil
}
