package hook

import (
	"testing"

	"github.com/baton-cli/baton/internal/journal"
)

type recordView struct{ journal.Record }

func (r recordView) want(t *testing.T, tool, file, desc string) {
	t.Helper()
	if r.Tool != tool || r.File != file || r.Desc != desc {
		t.Errorf("tool/file/desc = %q %q %q; want %q %q %q", r.Tool, r.File, r.Desc, tool, file, desc)
	}
}

func (r recordView) wantRun(t *testing.T, cmd string, exit *int, errText string) {
	t.Helper()
	if r.Cmd != cmd || r.Error != errText {
		t.Errorf("cmd %q error %q; want %q and %q", r.Cmd, r.Error, cmd, errText)
	}
	switch {
	case exit == nil && r.Exit != nil:
		t.Errorf("exit = %d; want none", *r.Exit)
	case exit != nil && r.Exit == nil:
		t.Errorf("no exit status; want %d", *exit)
	case exit != nil && *exit != *r.Exit:
		t.Errorf("exit = %d; want %d", *r.Exit, *exit)
	}
}

func intp(n int) *int { return &n }
