// Package formstyle settles whether the terminal's background is dark for
// baton's terminal forms (huh, drawn with Bubble Tea and Lip Gloss): when a
// form is about to be shown, and never before.
//
// Bubble Tea v1 asks the terminal for its background colour as the program
// starts, in its package initialisation, by writing a query to standard
// output and waiting up to five seconds for the answer. Every baton command
// run on a terminal paid a round trip for it, over SSH a network one, and on
// a terminal that does not answer (some pseudo-terminals, editors' shells,
// serial consoles) five seconds; a terminal that answers late may print the
// answer into the shell. Go initialises packages in the order of their import
// paths, each once its imports are; this package's path sorts before Bubble
// Tea's and it imports only Lip Gloss, so its init runs first and gives Lip
// Gloss an answer, and Bubble Tea's asks nothing. Detect asks the terminal a
// form is drawn on.
package formstyle

import (
	"io"
	"sync"

	"github.com/charmbracelet/lipgloss"
)

func init() {
	// Lip Gloss's own guess when it cannot ask: dark.
	lipgloss.SetHasDarkBackground(true)
}

var detected sync.Once

// Detect asks the terminal w (when it is one) whether its background is
// dark, for the forms drawn after: adaptive colours follow the answer. It
// asks once a process, however many forms follow.
func Detect(w io.Writer) {
	detected.Do(func() {
		lipgloss.SetHasDarkBackground(lipgloss.NewRenderer(w).HasDarkBackground())
	})
}
