package web

import (
	"fmt"
	"net/http"
	"slices"
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
		for _, state := range worker.States() {
			byHost := st.Counts[state]
			if len(byHost) == 0 {
				continue
			}
			row := queueRow{State: state}
			var hosts []string
			for h, n := range byHost {
				row.Total += n
				if h != "" {
					hosts = append(hosts, fmt.Sprintf("%s %d", h, n))
				}
			}
			slices.Sort(hosts)
			row.Hosts = strings.Join(hosts, ", ")
			p.Rows = append(p.Rows, row)
		}
	}
	s.render(w, r, http.StatusOK, "queue", "queue", msgNavQueue.In(s.o.Lang), p)
}
