package recall

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
)

// fixedNow is the tests' clock: 2026-05-13 10:00 in Tokyo.
func fixedNow() time.Time { return time.Date(2026, 5, 13, 10, 0, 0, 0, time.FixedZone("JST", 9*3600)) }

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// stateDir is a fresh state folder.
func stateDir(t *testing.T) state.Dir {
	t.Helper()
	return state.Dir{Root: t.TempDir()}
}

// writeJournal appends records to the journal of d.
func writeJournal(t *testing.T, d state.Dir, recs ...journal.Record) *journal.Journal {
	t.Helper()
	j := journal.Open(d.Root, journal.Options{})
	if len(recs) > 0 {
		if err := j.Append(recs...); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

func files(t *testing.T, d state.Dir) Files {
	t.Helper()
	f, err := FilesFor(d, "")
	if err != nil {
		t.Fatal(err)
	}
	return f
}
