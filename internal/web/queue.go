package web

import (
	"net/http"
	"strings"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/worker"
)

var (
	msgNavQueue  = i18n.Msg{JA: "キュー", EN: "Queue"}
	msgQueueNone = i18n.Msg{JA: "ワーカーのキューは設定されていません。", EN: "No worker queue is set up."}
)

type queueRow struct {
	State string
	Total int
	Hosts string
}

type queuePage struct {
	// Status is the queue's jobs; nil when it could not be read.
	Status *worker.QueueStatus
	Rows   []queueRow
	Error  string
}

// queue shows the worker's job queue: jobs by state and host, then the
// latest jobs. It only reads.
func (s *Server) queue(w http.ResponseWriter, r *http.Request) {
	var p queuePage
	if s.o.Queue == nil {
		p.Error = msgQueueNone.In(s.o.Lang)
	} else if st, err := s.o.Queue(r.Context()); err != nil {
		p.Error = err.Error()
	} else {
		p.Status = st
		for _, c := range st.ByState() {
			p.Rows = append(p.Rows, queueRow{State: c.State, Total: c.Total, Hosts: strings.Join(c.Hosts, ", ")})
		}
	}
	s.render(w, r, http.StatusOK, "queue", "queue", msgNavQueue.In(s.o.Lang), p)
}
