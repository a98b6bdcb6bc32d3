package recall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/redact"
	"github.com/baton-cli/baton/internal/textcut"
)

// DateLayout is how layer entries write a day.
const DateLayout = "2006-01-02"

// A Decision is one line of the approved-decision log (L3). Writers other
// than this package (the decisions capability) append the same JSON shape
// through AppendDecisions; fields this version does not know are kept when
// the log is archived.
type Decision struct {
	// Date is the day the decision was approved, YYYY-MM-DD.
	Date string `json:"date"`
	// TS is when it was written.
	TS time.Time `json:"ts,omitzero"`
	// Slug is the decision's kebab-case name, when it has one.
	Slug string `json:"slug,omitempty"`
	// Summary is what was decided, one line.
	Summary string `json:"summary"`
	// Source says where it was decided: "issue #12", "thread
	// 1778246185.616809", "session 1a2b3c4d", or only the kind ("issue",
	// "thread", "session"), completed from the fields below.
	Source  string `json:"source,omitempty"`
	Issue   int    `json:"issue,omitempty"`
	Thread  string `json:"thread,omitempty"`
	Session string `json:"session,omitempty"`
	// Scope is how far it reaches, e.g. "issue" or "cross-issue".
	Scope string `json:"scope,omitempty"`
	Route string `json:"route,omitempty"`
}

// SourceText is the source as the log's text shows it.
func (d *Decision) SourceText() string {
	switch d.Source {
	case "issue":
		if d.Issue > 0 {
			return "issue #" + strconv.Itoa(d.Issue)
		}
	case "thread":
		if d.Thread != "" {
			return "thread " + d.Thread
		}
	case "session":
		if d.Session != "" {
			return "session " + textcut.ShortID(d.Session)
		}
	case "":
		switch {
		case d.Issue > 0:
			return "issue #" + strconv.Itoa(d.Issue)
		case d.Thread != "":
			return "thread " + d.Thread
		case d.Session != "":
			return "session " + textcut.ShortID(d.Session)
		}
		return "-"
	}
	return d.Source
}

// Line is the decision in the log's text format,
// "- [YYYY-MM-DD] <summary> (source: <issue/thread/session>)".
func (d *Decision) Line() string {
	return "- [" + d.Date + "] " + textcut.OneLine(d.Summary) + " (source: " + d.SourceText() + ")"
}

// ErrDecision marks a decision that cannot be logged.
var ErrDecision = errors.New("invalid decision")

func (d *Decision) check() error {
	if _, err := time.Parse(DateLayout, d.Date); err != nil {
		return fmt.Errorf("%w: date %q is not YYYY-MM-DD", ErrDecision, d.Date)
	}
	if strings.TrimSpace(d.Summary) == "" {
		return fmt.Errorf("%w: empty summary", ErrDecision)
	}
	return nil
}

// AppendDecisions adds decisions to the route's log, redacted and cut to
// one line of MaxItem characters each. A decision with a slug already in
// the log for the same issue is skipped, so replaying a capture does not
// log it twice. It returns how many were added.
func AppendDecisions(f Files, ds ...Decision) (int, error) {
	var add []Decision
	for _, d := range ds {
		if err := d.check(); err != nil {
			return 0, err
		}
		d.Summary = cutItem(redact.Redact(d.Summary))
		d.Source = redact.Redact(d.Source)
		if d.Route == "" {
			d.Route = f.Route
		}
		add = append(add, d)
	}
	if len(add) == 0 {
		return 0, nil
	}
	path := f.Decisions()
	if err := mkdirUnder(f.Dir); err != nil {
		return 0, err
	}
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return 0, fmt.Errorf("lock decisions: %w", err)
	}
	defer lock.Unlock()

	have, err := readAll[Decision](path, 0)
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	for _, d := range have {
		if d.Slug != "" {
			seen[slugKey(d)] = true
		}
	}
	var buf bytes.Buffer
	n := 0
	for _, d := range add {
		if d.Slug != "" {
			if seen[slugKey(d)] {
				continue
			}
			seen[slugKey(d)] = true
		}
		b, err := json.Marshal(d)
		if err != nil {
			return 0, fmt.Errorf("encode decision: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		n++
	}
	if n == 0 {
		return 0, nil
	}
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("append decisions: %w", err)
	}
	if _, err := fd.Write(buf.Bytes()); err != nil {
		fd.Close()
		return 0, fmt.Errorf("append decisions: %w", err)
	}
	if err := fd.Sync(); err != nil {
		fd.Close()
		return 0, fmt.Errorf("sync decisions: %w", err)
	}
	return n, fd.Close()
}

func slugKey(d Decision) string { return d.Slug + "\x00" + strconv.Itoa(d.Issue) }

// maxDecisionsRead bounds how much of the active log one read takes: far
// more than the archive age lets it grow to in practice.
const maxDecisionsRead = 4 << 20

// ReadDecisions returns the route's decisions, oldest first; with archived,
// the archived ones come first.
func ReadDecisions(f Files, archived bool) ([]Decision, error) {
	var out []Decision
	if archived {
		old, err := readAll[Decision](f.ArchivedDecisions(), 0)
		if err != nil {
			return nil, err
		}
		out = old
	}
	active, err := readAll[Decision](f.Decisions(), maxDecisionsRead)
	if err != nil {
		return nil, err
	}
	return append(out, active...), nil
}

// ArchiveDecisions moves the decisions approved more than after before now
// from the active log to the archive, where ReadDecisions(f, true) and
// search still find them. Lines are moved as they are, fields this version
// does not know included. It returns how many moved.
//
// The archive is written and synced before the active log is rewritten; a
// crash in between leaves a decision in both, and the next run does not
// archive it twice.
func ArchiveDecisions(f Files, now time.Time, after time.Duration) (int, error) {
	path := f.Decisions()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, nil // nothing to archive; take no lock, make no file
	}
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return 0, fmt.Errorf("lock decisions: %w", err)
	}
	defer lock.Unlock()

	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read decisions: %w", err)
	}
	cutoff := now.Add(-after).Format(DateLayout)
	var keep, move [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var d struct {
			Date string `json:"date"`
		}
		if json.Unmarshal(line, &d) == nil && d.Date != "" && d.Date < cutoff {
			move = append(move, line)
		} else {
			keep = append(keep, line)
		}
	}
	if len(move) == 0 {
		return 0, nil
	}
	if err := appendArchive(f.ArchivedDecisions(), move); err != nil {
		return 0, err
	}
	var rest []byte
	for _, l := range keep {
		rest = append(append(rest, l...), '\n')
	}
	if err := atomicfile.Write(path, rest, 0o600); err != nil {
		return 0, err
	}
	return len(move), nil
}

// appendArchive appends lines to the archive file, leaving out those it
// already holds.
func appendArchive(path string, lines [][]byte) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read decision archive: %w", err)
	}
	have := bytes.Split(old, []byte("\n"))
	var buf []byte
	for _, l := range lines {
		if slices.ContainsFunc(have, func(h []byte) bool { return bytes.Equal(h, l) }) {
			continue
		}
		buf = append(append(buf, l...), '\n')
	}
	if len(buf) == 0 {
		return nil
	}
	if err := mkdirUnder(filepath.Dir(path)); err != nil {
		return err
	}
	return appendRaw(path, buf)
}
