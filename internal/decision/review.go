package decision

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/journal"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/textcut"
	"github.com/baton-cli/baton/internal/wtstate"
)

// Unreviewed is a session whose transcript has grown past what capture has
// reviewed, as the journal's Stop, PreCompact and SessionEnd records tell.
type Unreviewed struct {
	Session    string `json:"session_id"`
	Transcript string `json:"transcript_path"`
	// Offset is the transcript's size at the session's last record;
	// Reviewed is how far capture has read.
	Offset   int64     `json:"offset"`
	Reviewed int64     `json:"last_processed_offset"`
	Event    string    `json:"event"`
	At       time.Time `json:"ts"`
	Branch   string    `json:"branch,omitempty"`
}

// ReviewScanBytes bounds how much of the journal's end FindUnreviewed reads,
// so the session-start hook stays a few file reads.
const ReviewScanBytes = 256 << 10

// FindUnreviewed lists up to max sessions, newest first, whose last Stop,
// PreCompact or SessionEnd record in the last ReviewScanBytes of the journal
// is past their reviewed offset. A session named in skip is left out.
func FindUnreviewed(ctx context.Context, j *journal.Journal, dir state.Dir, max int, skip string) ([]Unreviewed, error) {
	recs, err := j.Tail(ctx, 200, journal.TailOptions{
		MaxBytes:  ReviewScanBytes,
		Prefilter: endsTurn,
		Match: func(r *journal.Record) bool {
			switch r.Event {
			case "Stop", "PreCompact", "SessionEnd":
				// A debate agent's arguments are no decisions of the
				// work.
				return r.Session != "" && r.Transcript != "" && r.Offset > 0 && r.Debate == ""
			}
			return false
		},
	})
	if err != nil {
		return nil, err
	}
	latest := map[string]journal.Record{}
	for _, r := range recs {
		if r.Session == skip || CheckSessionID(r.Session) != nil {
			continue
		}
		if prev, ok := latest[r.Session]; !ok || r.Offset >= prev.Offset {
			latest[r.Session] = r
		}
	}
	var out []Unreviewed
	for id, r := range latest {
		st, _, err := LoadState(dir, id)
		if err != nil {
			continue
		}
		if st.LastProcessedOffset >= r.Offset {
			continue
		}
		out = append(out, Unreviewed{Session: id, Transcript: r.Transcript, Offset: r.Offset, Reviewed: st.LastProcessedOffset, Event: r.Event, At: r.TS, Branch: r.Branch})
	}
	return newestFirst(out, max), nil
}

// newestFirst sorts list newest first and keeps at most max of it (all of
// it when max is not positive).
func newestFirst(list []Unreviewed, max int) []Unreviewed {
	sort.Slice(list, func(i, k int) bool { return list[i].At.After(list[k].At) })
	if max > 0 && len(list) > max {
		list = list[:max]
	}
	return list
}

// endsTurn is the journal prefilter of the records that end a stretch of
// transcript: only their lines name one of those events.
func endsTurn(line []byte) bool {
	return bytes.Contains(line, []byte(`"Stop"`)) || bytes.Contains(line, []byte(`"SessionEnd"`)) || bytes.Contains(line, []byte(`"PreCompact"`))
}

var (
	msgUnreviewedHead = i18n.Msg{
		JA: "baton: 決定がまだ確認されていないセッションがあります（issue に残すには次のコマンド）:",
		EN: "baton: earlier sessions may hold decisions not yet captured (to record them on their issue):",
	}
	msgUnreviewedLine = i18n.Msg{
		JA: "- %s（%s, %s）: `baton decisions capture --session %s`",
		EN: "- %s (%s, %s): `baton decisions capture --session %s`",
	}
)

// ReviewNote is a few lines naming the sessions with decisions not yet
// captured and the command that captures them; "" when there are none. With
// the worktree's sessions (its state.json) it looks at those, whatever the
// journal holds; without, at the journal's last ReviewScanBytes. The
// session skip (the one starting) is left out.
func ReviewNote(ctx context.Context, j *journal.Journal, dir state.Dir, sessions *wtstate.State, max int, skip string, lang i18n.Lang) (string, error) {
	if max <= 0 {
		max = 3
	}
	var list []Unreviewed
	if sessions != nil {
		list = unreviewedOf(dir, sessions.Sessions, max, skip)
		// A worktree that has not yet had MaxSessions sessions may have
		// had sessions before baton kept its list (an upgrade): those are
		// found in the journal, as they were before.
		if len(sessions.Sessions) < wtstate.MaxSessions {
			journal, err := FindUnreviewed(ctx, j, dir, max, skip)
			if err != nil {
				return "", err
			}
			list = withEarlier(list, journal, sessions.Sessions, max)
		}
	} else {
		var err error
		if list, err = FindUnreviewed(ctx, j, dir, max, skip); err != nil {
			return "", err
		}
	}
	if len(list) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(msgUnreviewedHead.In(lang))
	for _, u := range list {
		branch := u.Branch
		if branch == "" {
			branch = "-"
		}
		fmt.Fprintf(&b, "\n"+msgUnreviewedLine.In(lang), textcut.ShortID(u.Session), branch, u.At.Local().Format("2006-01-02 15:04"), u.Session)
	}
	return b.String(), nil
}

// unreviewedOf lists the sessions, newest first, whose transcript has grown
// past what capture reviewed.
func unreviewedOf(dir state.Dir, sessions []wtstate.Session, max int, skip string) []Unreviewed {
	var out []Unreviewed
	for _, s := range sessions {
		if s.ID == skip || s.Offset <= 0 || s.Transcript == "" || CheckSessionID(s.ID) != nil {
			continue
		}
		st, _, err := LoadState(dir, s.ID)
		if err != nil || st.LastProcessedOffset >= s.Offset {
			continue
		}
		out = append(out, Unreviewed{Session: s.ID, Transcript: s.Transcript, Offset: s.Offset, Reviewed: st.LastProcessedOffset, Event: s.LastEvent, At: s.Last, Branch: s.Branch})
	}
	return newestFirst(out, max)
}

// withEarlier adds to list the sessions of found that ended before the
// first of sessions started and are not among them, newest first, keeping
// at most max.
func withEarlier(list, found []Unreviewed, sessions []wtstate.Session, max int) []Unreviewed {
	var first time.Time
	known := map[string]bool{}
	for _, s := range sessions {
		known[s.ID] = true
		if first.IsZero() || (!s.Started.IsZero() && s.Started.Before(first)) {
			first = s.Started
		}
	}
	for _, u := range found {
		if !known[u.Session] && (first.IsZero() || u.At.Before(first)) {
			list = append(list, u)
		}
	}
	return newestFirst(list, max)
}
