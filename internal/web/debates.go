package web

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/baton-cli/baton/internal/debate"
)

type debatesPage struct {
	Debates []debate.Entry
}

// debates lists the debates, newest first.
func (s *Server) debates(w http.ResponseWriter, r *http.Request) {
	entries, err := s.o.Debates.List()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, http.StatusOK, "debates", "debates", msgNavDebates.In(s.o.Lang), debatesPage{Debates: entries})
}

// roundPair is one round as both sides wrote it.
type roundPair struct {
	N        int
	Pro, Con string
	// HasPro and HasCon say whether the side wrote the round at all.
	HasPro, HasCon bool
}

type debatePage struct {
	Session *debate.Session
	// Ended: no more rounds will be written, so a missing one is not
	// "not yet"; an active debate's page reloads itself.
	Ended   bool
	Rounds  []roundPair
	Summary string
	// SummaryPath is where the moderator writes the summary.
	SummaryPath string
	Warnings    []string
}

// debate shows a debate's rounds side by side, its state and, when the
// moderator wrote one, its summary.
func (s *Server) debate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if debate.ValidID(id) != nil {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	rep, err := s.o.Debates.Inspect(id)
	if errors.Is(err, fs.ErrNotExist) {
		s.fail(w, r, http.StatusNotFound, errNotFound)
		return
	}
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	p := debatePage{Session: rep.Session, Ended: rep.Session.Status != debate.Active, SummaryPath: rep.Paths.Summary}
	again := msgRoundAgain.In(s.o.Lang)
	pro, err := sideRounds(rep.Paths.Pro, again)
	if err != nil {
		p.Warnings = append(p.Warnings, err.Error())
	}
	con, err := sideRounds(rep.Paths.Con, again)
	if err != nil {
		p.Warnings = append(p.Warnings, err.Error())
	}
	last := max(rep.Pro.Written(), rep.Con.Written())
	for n := 1; n <= last; n++ {
		pt, hp := pro[n]
		ct, hc := con[n]
		p.Rounds = append(p.Rounds, roundPair{N: n, Pro: pt, Con: ct, HasPro: hp, HasCon: hc})
	}
	if b, err := os.ReadFile(rep.Paths.Summary); err == nil {
		p.Summary = string(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		p.Warnings = append(p.Warnings, err.Error())
	}
	s.render(w, r, http.StatusOK, "debate", "debates", rep.Session.Topic, p)
}

// sideRounds reads a side file and returns the text of each round by
// number. The headings are found by debate.ParseRounds, which gives the
// last section: the sections before it come from parsing the text up to
// each heading in turn. A round written twice shows both texts, in order,
// again between them.
func sideRounds(path, again string) (map[int]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read debate side: %w", err)
	}
	out := map[int]string{}
	text := string(b)
	for {
		rs := debate.ParseRounds(text)
		if len(rs.Numbers) == 0 {
			return out, nil
		}
		n, round := rs.Numbers[len(rs.Numbers)-1], strings.TrimSpace(rs.Last)
		if later, ok := out[n]; ok {
			round += "\n\n" + again + "\n\n" + later
		}
		out[n] = round
		// Drop the last section and its heading line.
		head := strings.TrimSuffix(text[:len(text)-len(rs.Last)], "\n")
		text = head[:strings.LastIndexByte(head, '\n')+1]
	}
}
