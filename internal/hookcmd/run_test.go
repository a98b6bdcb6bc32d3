package hookcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-cli/baton/internal/cmdenv"
	"github.com/baton-cli/baton/internal/hook"
)

// TestRunFailsOpen: whatever goes wrong, the call prints nothing but valid
// hook output, and the problem lands in baton.log.
func TestRunFailsOpen(t *testing.T) {
	tests := []struct {
		name      string
		payload   string
		providers []hook.Provider
		wantOut   string // a substring of stdout; "" for none at all
		wantLog   string
	}{
		{
			name:    "provider panics, the next one still speaks",
			payload: `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`,
			providers: []hook.Provider{
				hook.ProviderFunc(func(context.Context, *hook.Start) (string, error) { panic("provider bug") }),
				hook.ProviderFunc(func(context.Context, *hook.Start) (string, error) { return "still here", nil }),
			},
			wantOut: `"additionalContext":"still here"`,
			wantLog: "panic: provider bug",
		},
		{
			name:    "provider fails, the next one still speaks",
			payload: `{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}`,
			providers: []hook.Provider{
				hook.ProviderFunc(func(context.Context, *hook.Start) (string, error) { return "", errors.New("broken provider") }),
				hook.ProviderFunc(func(context.Context, *hook.Start) (string, error) { return "still here", nil }),
			},
			wantOut: `"additionalContext":"still here"`,
			wantLog: "broken provider",
		},
		{
			name:    "not a payload",
			payload: "garbage",
			wantLog: "invalid hook payload",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
				t.Skipf("git init: %v: %s", err, out)
			}
			home := t.TempDir()
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state")}
			var out, errOut bytes.Buffer
			f := &cmdenv.Factory{
				IO:         &cmdenv.IOStreams{In: strings.NewReader(tt.payload), Out: &out, ErrOut: &errOut},
				Getenv:     func(k string) string { return env[k] },
				Environ:    func() []string { return nil },
				Now:        time.Now,
				Getwd:      func() (string, error) { return repo, nil },
				Executable: func() (string, error) { return "", errors.New("no jobs in this test") },
			}
			Run(context.Background(), f, Options{Providers: tt.providers})

			if tt.wantOut == "" && out.Len() > 0 || !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout = %q; want %q", out.String(), tt.wantOut)
			}
			if errOut.Len() > 0 {
				t.Errorf("stderr = %q; want nothing", errOut.String())
			}
			log, err := os.ReadFile(filepath.Join(repo, ".claude", "session-state", "baton.log"))
			if err != nil || !strings.Contains(string(log), tt.wantLog) {
				t.Errorf("baton.log = %q, %v; want %q in it", log, err, tt.wantLog)
			}
		})
	}
}

// A hook installed for every project runs in folders nobody set up: it
// records nothing there, answers nothing, and logs nothing either, or the
// user-level log would grow by a line a call.
func TestRunOutsideASetUpFolderIsQuiet(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state")}
	for _, payload := range []string{
		fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, dir),
		fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"hello"}`, dir),
	} {
		var out, errOut bytes.Buffer
		f := &cmdenv.Factory{
			IO:         &cmdenv.IOStreams{In: strings.NewReader(payload), Out: &out, ErrOut: &errOut},
			Getenv:     func(k string) string { return env[k] },
			Environ:    func() []string { return nil },
			Now:        time.Now,
			Getwd:      func() (string, error) { return dir, nil },
			Executable: func() (string, error) { return "", errors.New("no jobs in this test") },
		}
		Run(context.Background(), f, Options{})
		if out.Len() > 0 || errOut.Len() > 0 {
			t.Errorf("stdout %q, stderr %q; want nothing", out.String(), errOut.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the hook made %s in a folder nobody set up", entries[0].Name())
	}
	if b, err := os.ReadFile(filepath.Join(home, ".state", "baton", "baton.log")); err == nil {
		t.Errorf("user-level log = %q; want none", b)
	}
}
