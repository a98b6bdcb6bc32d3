package hookcmd

import (
	"errors"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/config"
	"github.com/baton-cli/baton/internal/hook"
	"github.com/baton-cli/baton/internal/state"
	"github.com/baton-cli/baton/internal/teammem"
)

// TestSyncAtSessionEnd: a session's end starts the background sync only in
// a repository synced before, not within memory.sync_minutes, and only
// while sharing is on.
func TestSyncAtSessionEnd(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	off := false
	tests := []struct {
		name   string
		event  string
		synced time.Time // zero: never synced
		cfg    config.Config
		want   bool
	}{
		{"never synced", hook.SessionEnd, time.Time{}, config.Config{}, false},
		{"synced an hour ago", hook.SessionEnd, now.Add(-time.Hour), config.Config{}, true},
		{"synced a minute ago", hook.SessionEnd, now.Add(-time.Minute), config.Config{}, false},
		{"a minute, with a shorter interval", hook.SessionEnd, now.Add(-time.Minute), config.Config{Memory: config.Memory{SyncMinutes: 1}}, true},
		{"sharing off", hook.SessionEnd, now.Add(-time.Hour), config.Config{Memory: config.Memory{Share: &off}}, false},
		{"not a session end", hook.Stop, now.Add(-time.Hour), config.Config{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := state.Dir{Root: t.TempDir()}
			if !tt.synced.IsZero() {
				if err := teammem.DirOf(d).WriteStatus(teammem.Status{At: tt.synced}); err != nil {
					t.Fatal(err)
				}
			}
			started := false
			f := &cmdenv.Factory{
				Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: func() time.Time { return now },
				Executable: func() (string, error) { started = true; return "", errors.New("not started in this test") },
			}
			res := hook.Result{Payload: hook.Payload{Event: tt.event, SessionID: "s1", Cwd: d.Root}, State: d, Config: &tt.cfg}
			err := syncAtSessionEnd(f, res)
			if started != tt.want || tt.want != (err != nil) {
				t.Errorf("started %v (err %v); want %v", started, err, tt.want)
			}
		})
	}
}
