package web

import (
	"net/http"

	"github.com/baton-cli/baton/internal/worker"
)

type runsPage struct {
	Runs []*worker.Record
}

// runs lists the worker's runs, newest first.
func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	recs, err := s.o.Runs.List()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	s.render(w, r, http.StatusOK, "runs", "runs", msgNavRuns.In(s.o.Lang), runsPage{Runs: recs})
}

// run is one run: its timings, attempts and their outputs, and links to the
// issue, the pull request and the comment.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	recs, err := s.o.Runs.List()
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	for _, rec := range recs {
		if rec.ID == id {
			s.render(w, r, http.StatusOK, "run", "runs", msgRunTitle.Format(s.o.Lang, rec.Repo, rec.Issue), rec)
			return
		}
	}
	s.fail(w, r, http.StatusNotFound, errNotFound)
}
