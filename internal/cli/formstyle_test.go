package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"
)

// A baton command on a terminal writes only its own output: no query of
// the terminal's colours as it starts (Bubble Tea's, which waits up to five
// seconds for an answer this terminal never gives).
func TestNoTerminalQueryAtStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	baton := filepath.Join(dir, "baton")
	if err := os.Symlink(exe, baton); err != nil {
		t.Fatal(err)
	}
	// The terminal is the command's controlling one, as in a shell.
	cmd := exec.Command(baton, "version")
	cmd.Env = append(os.Environ(), "HOME="+dir, "TERM=xterm-256color")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	out := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with an error once the command's side closes
		out <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	var got []byte
	select {
	case got = <-out:
	case <-time.After(30 * time.Second):
		t.Fatal("the terminal did not close")
	}
	if !bytes.HasPrefix(got, []byte("baton ")) || bytes.Contains(got, []byte("\x1b]11;")) || bytes.Contains(got, []byte("\x1b[6n")) {
		t.Errorf("the terminal got %q; want only the version line", got)
	}
}
