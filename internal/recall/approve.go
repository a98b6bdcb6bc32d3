package recall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/baton-cli/baton/internal/atomicfile"
	"github.com/baton-cli/baton/internal/textcut"
)

// A Candidate is a prompt with an approval phrase and the proposal it
// answered: maybe a decision. Only a person confirming it (Approve) puts it
// in the decision log.
type Candidate struct {
	ID      string    `json:"id"`
	TS      time.Time `json:"ts"` // when the approving prompt was sent
	Session string    `json:"session,omitempty"`
	Thread  string    `json:"thread,omitempty"`
	Phrase  string    `json:"phrase"`
	// Approval is the prompt; Proposal the agent's message before it.
	Approval string `json:"approval"`
	Proposal string `json:"proposal"`
	// Status is pending, approved or rejected; Decided when it changed.
	Status  string    `json:"status"`
	Decided time.Time `json:"decided,omitzero"`
}

// Candidate states.
const (
	StatusPending  = "pending"
	StatusApproved = "approved"
	StatusRejected = "rejected"
)

// candidateFile is the candidates file's shape.
type candidateFile struct {
	Candidates []Candidate `json:"candidates"`
}

// Limits of the candidates file: settled candidates are kept a while for
// reference, the file never grows without bound.
const (
	maxCandidates   = 200
	keepSettledDays = 30
	maxProposal     = 2000
)

// FindCandidates looks through entries (oldest first) for prompts holding
// one of phrases that answer an agent's message: the message before the
// prompt is the proposal. A prompt that is a question ("OK?") is not an
// approval; neither is one with no proposal before it.
func FindCandidates(entries []Entry, phrases []string) []Candidate {
	var out []Candidate
	proposal := map[string]string{} // newest agent message per session or thread
	for _, e := range entries {
		key := firstNonEmpty(e.Thread, e.Session)
		if e.Message != "" {
			proposal[key] = e.Message
			continue
		}
		if e.Prompt == "" {
			continue
		}
		p := strings.TrimSpace(e.Prompt)
		phrase := approvalPhrase(p, phrases)
		prev := proposal[key]
		delete(proposal, key) // answered, whatever the answer
		if phrase == "" || prev == "" || strings.HasSuffix(p, "?") || strings.HasSuffix(p, "？") {
			continue
		}
		out = append(out, Candidate{
			ID: candidateID(e), TS: e.TS, Session: e.Session, Thread: e.Thread, Phrase: phrase,
			Approval: cutItem(p), Proposal: textcut.Chars(strings.TrimSpace(prev), maxProposal), Status: StatusPending,
		})
	}
	return out
}

func candidateID(e Entry) string {
	h := sha256.Sum256([]byte(e.Session + "\x00" + e.Thread + "\x00" + e.TS.UTC().Format(time.RFC3339Nano) + "\x00" + e.Prompt))
	return hex.EncodeToString(h[:4])
}

// AddCandidates records new candidates; ones already known (by id) are left
// as they are, settled or not. It returns how many were added.
func AddCandidates(f Files, cs []Candidate, now time.Time) (int, error) {
	if len(cs) == 0 {
		return 0, nil
	}
	if err := mkdirUnder(f.Dir); err != nil {
		return 0, err
	}
	added := 0
	err := updateCandidates(f, now, func(list []Candidate) ([]Candidate, error) {
		for _, c := range cs {
			if slices.ContainsFunc(list, func(x Candidate) bool { return x.ID == c.ID }) {
				continue
			}
			list = append(list, c)
			added++
		}
		if added == 0 {
			return nil, atomicfile.ErrUnchanged
		}
		return list, nil
	})
	return added, err
}

// Candidates returns the route's candidates, oldest first.
func Candidates(f Files) ([]Candidate, error) {
	b, err := os.ReadFile(f.Candidates())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	var cf candidateFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return nil, fmt.Errorf("read candidates: %w", err)
	}
	return cf.Candidates, nil
}

// Pending returns the candidates waiting for a person.
func Pending(f Files) ([]Candidate, error) {
	all, err := Candidates(f)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(c Candidate) bool { return c.Status != StatusPending }), nil
}

// ErrNoCandidate means no pending candidate has the id asked for;
// ErrAmbiguous that several have an id starting with it.
var (
	ErrNoCandidate = errors.New("no such pending candidate")
	ErrAmbiguous   = errors.New("candidate id fits more than one")
)

// Settle marks the pending candidate whose id starts with id as approved or
// rejected and returns it. An id prefix that fits several is refused.
func Settle(f Files, id, status string, now time.Time) (Candidate, error) {
	var got Candidate
	err := updateCandidates(f, now, func(list []Candidate) ([]Candidate, error) {
		match := -1
		for i, c := range list {
			if c.Status != StatusPending || id == "" || !strings.HasPrefix(c.ID, id) {
				continue
			}
			if match >= 0 {
				return nil, fmt.Errorf("%w: %q", ErrAmbiguous, id)
			}
			match = i
		}
		if match < 0 {
			return nil, fmt.Errorf("%w: %q", ErrNoCandidate, id)
		}
		list[match].Status, list[match].Decided = status, now
		got = list[match]
		return list, nil
	})
	return got, err
}

func updateCandidates(f Files, now time.Time, fn func([]Candidate) ([]Candidate, error)) error {
	return atomicfile.Update(f.Candidates(), 0o600, func(old []byte) ([]byte, error) {
		var cf candidateFile
		if len(old) > 0 {
			if err := json.Unmarshal(old, &cf); err != nil {
				return nil, fmt.Errorf("read candidates: %w", err)
			}
		}
		list, err := fn(cf.Candidates)
		if err != nil {
			return nil, err
		}
		cf.Candidates = prune(list, now)
		return json.MarshalIndent(cf, "", "  ")
	})
}

// prune drops settled candidates past their keeping time, then the oldest
// settled ones past maxCandidates; pending ones go last.
func prune(list []Candidate, now time.Time) []Candidate {
	cutoff := now.AddDate(0, 0, -keepSettledDays)
	list = slices.DeleteFunc(list, func(c Candidate) bool {
		return c.Status != StatusPending && c.Decided.Before(cutoff)
	})
	for len(list) > maxCandidates {
		i := slices.IndexFunc(list, func(c Candidate) bool { return c.Status != StatusPending })
		if i < 0 {
			i = 0
		}
		list = slices.Delete(list, i, i+1)
	}
	return list
}

// Approve settles a pending candidate as approved and logs its decision:
// summary when given, else what the L3 summarizer makes of the proposal.
// The candidate stays pending when the summary or the log write fails.
func Approve(ctx context.Context, f Files, id, summary string, s Summarizer, in Input, now time.Time) (Decision, error) {
	var c Candidate
	pending, err := Pending(f)
	if err != nil {
		return Decision{}, err
	}
	n := 0
	for _, x := range pending {
		if id != "" && strings.HasPrefix(x.ID, id) {
			c, n = x, n+1
		}
	}
	switch {
	case n == 0:
		return Decision{}, fmt.Errorf("%w: %q", ErrNoCandidate, id)
	case n > 1:
		return Decision{}, fmt.Errorf("%w: %q", ErrAmbiguous, id)
	}
	if summary == "" {
		in.Layer, in.Proposal, in.Approval = L3, c.Proposal, c.Approval
		out, err := s.Summarize(ctx, in)
		if err != nil {
			return Decision{}, err
		}
		summary = first(find(out.Sections, secDecision))
	}
	loc := now.Location()
	d := Decision{Date: c.TS.In(loc).Format(DateLayout), TS: now, Summary: summary, Session: c.Session, Thread: c.Thread, Route: f.Route}
	if c.Thread != "" {
		d.Source = "thread"
	} else {
		d.Source = "session"
	}
	if _, err := AppendDecisions(f, d); err != nil {
		return Decision{}, err
	}
	if _, err := Settle(f, c.ID, StatusApproved, now); err != nil {
		return d, err
	}
	return d, nil
}
