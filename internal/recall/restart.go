package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/baton-cli/baton/internal/journal"
)

// Case is why a session (re)starts.
type Case string

// The restart cases.
const (
	// CaseStartup is a process start: the first session, or a new one after
	// the previous ended cleanly.
	CaseStartup Case = "startup"
	// CaseResume is a session taken up again (--continue, --resume).
	CaseResume Case = "resume"
	// CaseCompact is a compaction (/compact or at the context limit): the conversation was
	// compacted and goes on.
	CaseCompact Case = "compact"
	// CaseClear is a conversation cleared by the person.
	CaseClear Case = "clear"
	// CaseCrash is a start after a run that never reached SessionEnd.
	CaseCrash Case = "crash"
	// CaseSwitch is a new session id taking over the route without the
	// host saying why (an account switch).
	CaseSwitch Case = "switch"
)

// Restart is what is known about a session start.
type Restart struct {
	Case Case
	// Previous is the session of the newest earlier record, when there is
	// one; PreviousAt and PreviousEvent are that record's time and event.
	Previous      string
	PreviousAt    time.Time
	PreviousEvent string
}

// DefaultScanBytes is how far back from the journal's end restart
// detection reads: the newest earlier record is almost always in the last
// block.
const DefaultScanBytes = 256 << 10

// DetectRestart tells the restart case of session starting with source
// ("startup", "resume", "compact", "clear", or "" when the host does not
// say) from the journal's newest records, reading at most scan bytes back.
//
// The newest record before this start decides: one that is not SessionEnd
// means the previous run ended without one (crashed or killed, or it is
// still running elsewhere). A compaction is a rotation inside a live
// process, so it is never called a crash. A record of another session with
// no source given means a new session id took over the route.
func DetectRestart(ctx context.Context, j *journal.Journal, session, source string, scan int64) (Restart, error) {
	if scan <= 0 {
		scan = DefaultScanBytes
	}
	r := Restart{Case: sourceCase(source)}
	if r.Case == CaseCompact {
		return r, nil
	}
	recs, err := j.Tail(ctx, 2, journal.TailOptions{MaxBytes: scan})
	if err != nil {
		return r, fmt.Errorf("detect restart: %w", err)
	}
	// The hook has just appended this start; look past it.
	if n := len(recs); n > 0 && recs[n-1].Event == evSessionStart && recs[n-1].Session == session {
		recs = recs[:n-1]
	}
	if len(recs) == 0 {
		return r, nil
	}
	prev := recs[len(recs)-1]
	r.Previous, r.PreviousAt, r.PreviousEvent = prev.Session, prev.TS, prev.Event
	switch {
	case prev.Event != evSessionEnd && prev.Event != "":
		r.Case = CaseCrash
	case source == "" && prev.Session != "" && prev.Session != session:
		r.Case = CaseSwitch
	}
	return r, nil
}

func sourceCase(source string) Case {
	switch source {
	case "resume":
		return CaseResume
	case "compact":
		return CaseCompact
	case "clear":
		return CaseClear
	case "crash":
		return CaseCrash
	case "switch":
		return CaseSwitch
	}
	return CaseStartup
}
