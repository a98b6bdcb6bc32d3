package debate

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/i18n"
	"github.com/baton-cli/baton/internal/panes"
)

func TestWaitRegistered(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "pane-state.json")
	if err := panes.Update(reg, func(r panes.Registry) bool {
		r["%2"] = panes.Entry{Status: panes.Idle}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]Role{"%2": Pro, "%3": Con}

	err := WaitRegistered(context.Background(), reg, want, nil, 100*time.Millisecond)
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("WaitRegistered with %%3 missing: err = %v; want an *Error", err)
	}
	if got := de.In(i18n.EN); !strings.Contains(got, "waited 100ms, but the agent in pane %3 (con side) did not appear") || !strings.Contains(got, "baton init") {
		t.Errorf("English message = %q", got)
	}
	if got := de.In(i18n.JA); !strings.Contains(got, "pane %3（反対派）のエージェント") {
		t.Errorf("Japanese message = %q", got)
	}

	// The entry turns up while it waits.
	done := make(chan error, 1)
	go func() { done <- WaitRegistered(context.Background(), reg, want, nil, time.Minute) }()
	if err := panes.Update(reg, func(r panes.Registry) bool {
		r["%3"] = panes.Entry{Status: panes.Idle}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("WaitRegistered after %%3 registered: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WaitRegistered did not see the new entry")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitRegistered(ctx, reg, map[string]Role{"%9": Moderator}, nil, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitRegistered with a cancelled context: %v", err)
	}
}

// TestWaitRegisteredIgnoresStaleEntries: an entry left by a closed pane
// whose id tmux gave again does not count until the new agent registers.
func TestWaitRegisteredIgnoresStaleEntries(t *testing.T) {
	reg := filepath.Join(t.TempDir(), "pane-state.json")
	stale := panes.Entry{Status: panes.Idle, SessionID: "old"}
	if err := panes.Update(reg, func(r panes.Registry) bool { r["%1"] = stale; return true }); err != nil {
		t.Fatal(err)
	}
	before, err := panes.Read(reg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Role{"%1": Pro}
	if err := WaitRegistered(context.Background(), reg, want, before, 50*time.Millisecond); err == nil {
		t.Fatal("WaitRegistered took the stale entry of %1")
	}
	if err := panes.Update(reg, func(r panes.Registry) bool { r["%1"] = panes.Entry{Status: panes.Idle, SessionID: "new"}; return true }); err != nil {
		t.Fatal(err)
	}
	if err := WaitRegistered(context.Background(), reg, want, before, time.Minute); err != nil {
		t.Errorf("WaitRegistered after the new agent registered: %v", err)
	}
}
