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
