package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/safepath"
	"github.com/baton-cli/baton/internal/statefile"
)

// SaveOptions are the inputs of `baton save`.
type SaveOptions struct {
	Factory *Factory
	Change  statefile.Change
	// TaskGiven is set when --task was given, even empty.
	TaskGiven bool
	// Edit opens the file in $EDITOR; From reads a whole file from a path,
	// or stdin for "-".
	Edit bool
	From string
	Lang string
}

// NewCmdSave builds `baton save`, the only writer of current.md.
func NewCmdSave(f *Factory, runF func(context.Context, *SaveOptions) error) *cobra.Command {
	opts := &SaveOptions{Factory: f}
	c := &opts.Change
	cmd := &cobra.Command{
		Use:   "save",
		Short: "Save where you are in .claude/session-state/current.md",
		Long: "Updates the hand-kept state file that `baton resume` and the next session start from.\n" +
			"Only the parts named by flags change; everything else in the file is kept, and\n" +
			"`updated` is set to now. --complete marks the task done; a new --task after that starts\n" +
			"a fresh task and moves the old one to the done list. --edit opens the file in $EDITOR,\n" +
			"--from - reads a whole file on stdin. Nothing is written if the result is not valid.",
		Example: "  baton save --task \"CSV export refactor\" --doing \"streaming writer\" --next \"add tests\"\n" +
			"  baton save --done-item \"writer takes io.Writer\" --file internal/export/csv.go\n" +
			"  baton save --complete",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.TaskGiven = cmd.Flags().Changed("task")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return saveRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&c.Task, "task", "", "the current task (one line)")
	fl.StringVar(&c.Doing, "doing", "", "what is being done right now (replaces that section)")
	fl.StringVar(&c.Next, "next", "", "the first thing to do on coming back (replaces that section)")
	fl.StringArrayVar(&c.DoneItems, "done-item", nil, "add a finished item to the done list (repeatable)")
	fl.StringArrayVar(&c.Files, "file", nil, "add a related file (repeatable)")
	fl.StringVar(&c.Note, "note", "", "add a note")
	fl.BoolVar(&c.Complete, "complete", false, "mark the task completed")
	fl.BoolVar(&opts.Edit, "edit", false, "edit the file in $EDITOR")
	fl.StringVar(&opts.From, "from", "", "read the whole file from a path, or - for stdin")
	fl.StringVar(&opts.Lang, "lang", "", "message language: ja or en")
	return cmd
}

var (
	msgSaveNothing   = i18n.Msg{JA: "保存する内容がありません: --task, --doing, --next, --done-item, --file, --note, --complete, --edit, --from のどれかを指定してください", EN: "nothing to save: give --task, --doing, --next, --done-item, --file, --note, --complete, --edit or --from"}
	msgSaveEditFrom  = i18n.Msg{JA: "--edit と --from は同時に使えません", EN: "--edit and --from cannot be used together"}
	msgSaveEditFlags = i18n.Msg{JA: "--edit は他の変更フラグと同時に使えません（エディタで直接書いてください）", EN: "--edit cannot be combined with other changes (make them in the editor)"}
	msgSaveDoneTask  = i18n.Msg{JA: "--complete と --task は同時に使えません（先に --complete、次に新しい --task）", EN: "--complete and --task cannot be used together (complete first, then give the new --task)"}
	msgSaveEmptyTask = i18n.Msg{JA: "--task が空です", EN: "--task is empty"}
	msgSaveBroken    = i18n.Msg{JA: "%s が壊れているため更新できません（%s）。`baton save --edit` で直すか、`baton save --from -` で置き換えてください。ファイルは変更していません", EN: "cannot update %s, it is broken (%s); fix it with `baton save --edit` or replace it with `baton save --from -`. The file was not changed"}
	msgSaveInvalid   = i18n.Msg{JA: "入力が current.md として正しくありません（%s）。ファイルは変更していません", EN: "the input is not a valid current.md (%s). The file was not changed"}
	msgSaveNoTask    = i18n.Msg{JA: "タスクがありません: --task で指定してください。ファイルは変更していません", EN: "there is no task: give one with --task. The file was not changed"}
	msgSaved         = i18n.Msg{JA: "%s を保存しました（タスク: %s、状態: %s）", EN: "Saved %s (task: %s, status: %s)"}
	msgEditUnchanged = i18n.Msg{JA: "変更がないため保存しませんでした", EN: "No changes; nothing was saved"}
	msgEditKept      = i18n.Msg{JA: "編集した内容は %s に残しています", EN: "Your edit is kept in %s"}
	msgEditConflict  = i18n.Msg{JA: "%s。ファイルは変更していません", EN: "%s. The file was not changed"}
	msgEditorFailed  = i18n.Msg{JA: "エディタ %q が失敗しました: %v", EN: "editor %q failed: %v"}
	msgEditorBad     = i18n.Msg{JA: "EDITOR を解釈できません: %v", EN: "cannot parse EDITOR: %v"}
	msgFromRead      = i18n.Msg{JA: "%s を読めません: %v", EN: "cannot read %s: %v"}
	msgFromTooBig    = i18n.Msg{JA: "入力が大きすぎます（上限 %d バイト）", EN: "the input is too large (at most %d bytes)"}
)

// maxStateInput is the largest current.md `baton save` accepts.
const maxStateInput = 1 << 20

func saveRun(ctx context.Context, opts *SaveOptions) error {
	f := opts.Factory
	w, _, lang, err := openWorkspace(f, opts.Lang)
	if err != nil {
		return err
	}
	if err := opts.validate(lang); err != nil {
		return err
	}
	s := &saver{path: w.state.CurrentOf(w.root, w.main), root: w.state.Base(), now: f.Now(), lang: lang, worktree: w.root}

	var saved *statefile.File
	switch {
	case opts.Edit:
		saved, err = s.edit(ctx, f)
	case opts.From != "":
		saved, err = s.from(f, opts.From, opts.Change)
	default:
		saved, err = s.apply(opts.Change)
	}
	if err != nil || saved == nil {
		return err
	}
	fmt.Fprintln(f.IO.Out, msgSaved.Format(lang, displayRel(s.path, w.root), saved.Task, saved.Status))
	return nil
}

// validate reports flag combinations that make no sense.
func (o *SaveOptions) validate(lang i18n.Lang) error {
	c := o.Change
	switch {
	case o.Edit && o.From != "":
		return flagError{errors.New(msgSaveEditFrom.In(lang))}
	case o.Edit && (!c.Empty() || o.TaskGiven):
		return flagError{errors.New(msgSaveEditFlags.In(lang))}
	case c.Complete && o.TaskGiven:
		return flagError{errors.New(msgSaveDoneTask.In(lang))}
	case o.TaskGiven && strings.TrimSpace(c.Task) == "":
		return flagError{errors.New(msgSaveEmptyTask.In(lang))}
	case !o.Edit && o.From == "" && c.Empty():
		return flagError{errors.New(msgSaveNothing.In(lang))}
	}
	return nil
}

// saver writes one state file.
type saver struct {
	// path is current.md, root the folder trusted above it (no link is
	// followed below it: see package safepath).
	path, root string
	now        time.Time
	lang       i18n.Lang
	worktree   string
}

// parseOld reads the file's current contents: a new file when there are none.
func (s *saver) parseOld(old []byte) (*statefile.File, error) {
	if old == nil {
		return statefile.New(s.lang), nil
	}
	sf, err := statefile.Parse(old)
	var fe *statefile.FormatError
	if errors.As(err, &fe) {
		return nil, errors.New(msgSaveBroken.Format(s.lang, displayRel(s.path, s.worktree), fe.Message(s.lang)))
	}
	return sf, err
}

// finish applies c to sf and returns the bytes to write.
func (s *saver) finish(sf *statefile.File, c statefile.Change) ([]byte, error) {
	if err := sf.Apply(c, s.now, s.lang); err != nil {
		if errors.Is(err, statefile.ErrNoTask) {
			return nil, errors.New(msgSaveNoTask.In(s.lang))
		}
		return nil, err
	}
	return sf.Bytes(), nil
}

// apply makes a flag change under the file's lock, so a concurrent save's
// change is read and kept.
func (s *saver) apply(c statefile.Change) (*statefile.File, error) {
	var saved *statefile.File
	err := atomicfile.UpdateIn(s.root, s.path, 0o600, func(old []byte) ([]byte, error) {
		sf, err := s.parseOld(old)
		if err != nil {
			return nil, err
		}
		saved = sf
		return s.finish(sf, c)
	})
	return saved, err
}

// from replaces the file with a whole file read from path ("-": stdin), then
// applies the flags' change. A body without frontmatter replaces only the
// sections and keeps the existing frontmatter.
func (s *saver) from(f *Factory, path string, c statefile.Change) (*statefile.File, error) {
	in, err := readInput(f, path, s.lang)
	if err != nil {
		return nil, err
	}
	var saved *statefile.File
	err = atomicfile.UpdateIn(s.root, s.path, 0o600, func(old []byte) ([]byte, error) {
		sf, err := s.parseInput(in, old)
		if err != nil {
			return nil, err
		}
		saved = sf
		return s.finish(sf, c)
	})
	return saved, err
}

func (s *saver) parseInput(in, old []byte) (*statefile.File, error) {
	body := strings.TrimPrefix(string(in), "\xef\xbb\xbf")
	if strings.HasPrefix(strings.TrimLeft(body, "\r\n"), "---") {
		sf, err := statefile.Parse([]byte(strings.TrimLeft(body, "\r\n")))
		var fe *statefile.FormatError
		if errors.As(err, &fe) {
			return nil, errors.New(msgSaveInvalid.Format(s.lang, fe.Message(s.lang)))
		}
		return sf, err
	}
	// Sections only: keep the frontmatter there is.
	sf, err := s.parseOld(old)
	if err != nil {
		return nil, err
	}
	withFront, err := statefile.Parse([]byte("---\nstatus: in_progress\n---\n" + body))
	if err != nil {
		return nil, errors.New(msgSaveInvalid.Format(s.lang, err))
	}
	sf.Preamble, sf.Sections = withFront.Preamble, withFront.Sections
	return sf, nil
}

func readInput(f *Factory, path string, lang i18n.Lang) ([]byte, error) {
	var r io.Reader = f.IO.In
	if path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return nil, errors.New(msgFromRead.Format(lang, path, err))
		}
		defer file.Close()
		r = file
	}
	b, err := io.ReadAll(io.LimitReader(r, maxStateInput+1))
	if err != nil {
		return nil, errors.New(msgFromRead.Format(lang, path, err))
	}
	if len(b) > maxStateInput {
		return nil, errors.New(msgFromTooBig.Format(lang, maxStateInput))
	}
	return b, nil
}

// edit runs the editor on a copy of the file, without holding the lock, then
// saves the copy if it is valid. A save made meanwhile is merged in; if both
// changed the same part, nothing is written. When the edit is not saved, the
// copy is kept and its path shown, so no typing is lost.
func (s *saver) edit(ctx context.Context, f *Factory) (*statefile.File, error) {
	argv, err := editorCommand(f.Getenv)
	if err != nil {
		return nil, errors.New(msgEditorBad.Format(s.lang, err))
	}
	base, err := safepath.ReadFile(s.root, s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		base = nil
	case err != nil:
		return nil, fmt.Errorf("read state file: %w", err)
	}
	start := base
	if start == nil {
		// A new file, with the task key there to be filled in.
		start = bytes.Replace(statefile.New(s.lang).Bytes(), []byte("status: in_progress\n"), []byte("status: in_progress\ncurrent_task:\n"), 1)
	}
	if err := safepath.MkdirAll(s.root, filepath.Dir(s.path), 0o700); err != nil {
		return nil, fmt.Errorf("create state folder: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), "current-edit-*.md")
	if err != nil {
		return nil, fmt.Errorf("create edit copy: %w", err)
	}
	tmpPath := tmp.Name()
	_, err = tmp.Write(start)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmpPath)
		return nil, fmt.Errorf("write edit copy: %w", err)
	}
	keep := false
	defer func() {
		if keep {
			fmt.Fprintln(f.IO.ErrOut, msgEditKept.Format(s.lang, tmpPath))
		} else {
			os.Remove(tmpPath)
		}
	}()

	if err := runEditor(ctx, f, argv, tmpPath); err != nil {
		keep = true
		return nil, errors.New(msgEditorFailed.Format(s.lang, strings.Join(argv, " "), err))
	}
	edited, err := os.ReadFile(tmpPath)
	if err != nil {
		keep = true
		return nil, fmt.Errorf("read edit copy: %w", err)
	}
	if bytes.Equal(edited, start) {
		fmt.Fprintln(f.IO.ErrOut, msgEditUnchanged.In(s.lang))
		return nil, nil
	}
	mine, err := statefile.Parse(edited)
	var fe *statefile.FormatError
	if errors.As(err, &fe) {
		keep = true
		return nil, errors.New(msgSaveInvalid.Format(s.lang, fe.Message(s.lang)))
	}
	if err != nil {
		keep = true
		return nil, err
	}

	var saved *statefile.File
	err = atomicfile.UpdateIn(s.root, s.path, 0o600, func(old []byte) ([]byte, error) {
		result := mine
		if !bytes.Equal(old, base) {
			merged, err := s.merge(base, old, mine)
			if err != nil {
				return nil, err
			}
			result = merged
		}
		saved = result
		return s.finish(result, statefile.Change{})
	})
	if err != nil {
		keep = true
		return nil, err
	}
	return saved, nil
}

// merge combines an edit of base with old, what the file holds now.
func (s *saver) merge(base, old []byte, mine *statefile.File) (*statefile.File, error) {
	conflict := func(parts ...string) error {
		ce := &statefile.ConflictError{Parts: parts}
		return errors.New(msgEditConflict.Format(s.lang, ce.Message(s.lang)))
	}
	if base == nil || old == nil {
		return nil, conflict(filepath.Base(s.path))
	}
	b, err1 := statefile.Parse(base)
	theirs, err2 := statefile.Parse(old)
	if err1 != nil || err2 != nil {
		// Without two readable versions there are no parts to compare.
		return nil, conflict(filepath.Base(s.path))
	}
	merged, err := statefile.Merge(b, mine, theirs)
	var ce *statefile.ConflictError
	if errors.As(err, &ce) {
		return nil, conflict(ce.Parts...)
	}
	return merged, err
}

// editorCommand is the user's editor as an argument list: $EDITOR, else
// $VISUAL, else vi. The variable may hold arguments and quotes
// ("code --wait", "'/opt/my editor/bin/ed' -f").
func editorCommand(getenv func(string) string) ([]string, error) {
	for _, key := range []string{"EDITOR", "VISUAL"} {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			argv, err := splitArgs(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			return argv, nil
		}
	}
	return []string{"vi"}, nil
}

// splitArgs splits a command line on unquoted white space, as a POSIX shell
// would for a simple command: '…' keeps everything literally, "…" keeps
// white space and takes \ before " \ $ `, and \ outside quotes escapes the
// next character. No expansion is done.
func splitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inArg = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated \" quote")
			}
			inArg = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inArg = true
		case c == ' ' || c == '\t' || c == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}

// runEditor runs the editor on path with the terminal's streams and waits
// for it.
func runEditor(ctx context.Context, f *Factory, argv []string, path string) error {
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f.IO.In, f.IO.Out, f.IO.ErrOut
	cmd.Env = f.Environ()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}

// displayRel shows path relative to the worktree when it is inside it.
func displayRel(path, worktree string) string {
	if rel, err := filepath.Rel(worktree, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
