// Package codextest writes Codex CLI rollout lines for baton's tests and
// benchmarks, laid out as the CLI writes them, so that generated histories
// take the readers' real paths.
package codextest

import (
	"encoding/json"
	"strconv"
	"time"
)

// Line is one rollout line as the Codex CLI lays it out: timestamp, type,
// payload, and the payload's own "type" first (the rest of a map payload's
// keys in order).
func Line(ts time.Time, typ string, payload any) []byte {
	p, _ := json.Marshal(payload)
	if m, ok := payload.(map[string]any); ok {
		if pt, ok := m["type"].(string); ok {
			rest := map[string]any{}
			for k, v := range m {
				if k != "type" {
					rest[k] = v
				}
			}
			p = []byte(`{"type":` + strconv.Quote(pt) + `}`)
			if len(rest) > 0 {
				r, _ := json.Marshal(rest)
				p = append([]byte(`{"type":`+strconv.Quote(pt)+`,`), r[1:]...)
			}
		}
	}
	return []byte(`{"timestamp":"` + ts.Format("2006-01-02T15:04:05.000Z") + `","type":` + strconv.Quote(typ) + `,"payload":` + string(p) + `}`)
}
