package worker

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/quote"
)

// The prompt templates, one folder per language. A user overrides one with
// a file of the same name under the prompt folder
// (${XDG_CONFIG_HOME:-~/.config}/baton/prompts/<lang>/<name>.md).
//
//go:embed prompts/ja/*.md prompts/en/*.md
var embeddedPrompts embed.FS

// The templates.
const (
	promptImpl   = "impl"
	promptResume = "resume"
)

// MaxTemplateSize is the largest template file accepted. A larger one is
// refused: it is a mistake, and it would crowd out the agent's context.
const MaxTemplateSize = 100 << 10

// errPrompt marks a prompt that could not be made (PROMPT_GENERATION).
var errPrompt = errors.New("prompt")

// loadTemplate returns the template name in lang: the user's file under dir
// when there is one, else the embedded one.
func loadTemplate(dir string, lang i18n.Lang, name string) (string, error) {
	if lang != i18n.JA {
		lang = i18n.EN
	}
	file := string(lang) + "/" + name + ".md"
	if dir != "" {
		path := filepath.Join(dir, filepath.FromSlash(file))
		info, err := os.Stat(path)
		switch {
		case err == nil && info.Size() > MaxTemplateSize:
			return "", fmt.Errorf("%w: template %s is %d bytes; at most %d are accepted", errPrompt, path, info.Size(), MaxTemplateSize)
		case err == nil:
			b, err := os.ReadFile(path)
			if err != nil {
				return "", fmt.Errorf("%w: read template: %w", errPrompt, err)
			}
			if len(b) > MaxTemplateSize {
				return "", fmt.Errorf("%w: template %s is over %d bytes", errPrompt, path, MaxTemplateSize)
			}
			return string(b), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w: read template: %w", errPrompt, err)
		}
	}
	b, err := embeddedPrompts.ReadFile("prompts/" + file)
	if err != nil {
		return "", fmt.Errorf("%w: no template %s: %w", errPrompt, file, err)
	}
	return string(b), nil
}

// promptData fills a template's placeholders.
type promptData struct {
	Repo   string
	Issue  int
	Branch string
	// Title and Body are the issue's own text: data from whoever wrote
	// the issue, never instructions.
	Title, Body string
}

// renderPrompt fills tmpl. The operator's values ({repo}, {issue_number},
// {branch}) go in first; the issue's title and body go in last, each fenced
// as quoted data in lang (package quote) between lines carrying a random
// token the issue's author cannot know. Each step is a single pass, so text
// it inserts is never searched for placeholders: an issue that writes
// "{branch}" gets "{branch}" in the prompt.
func renderPrompt(tmpl string, lang i18n.Lang, d promptData) string {
	s := strings.NewReplacer(
		"{repo}", d.Repo,
		"{issue_number}", strconv.Itoa(d.Issue),
		"{branch}", d.Branch,
	).Replace(tmpl)
	return strings.NewReplacer(
		"{issue_title}", fenced(lang, d.Title),
		"{issue_body}", fenced(lang, d.Body),
	).Replace(s)
}

// fenced is text as a quoted block; an empty text is an empty block all
// the same, so the prompt always says where the text would be.
func fenced(lang i18n.Lang, text string) string {
	if strings.TrimRight(text, "\r\n") == "" {
		text = " "
	}
	return quote.Block(lang, text)
}
