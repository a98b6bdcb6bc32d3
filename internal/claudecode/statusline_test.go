package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestStatusLineInstallUninstall(t *testing.T) {
	ctx := context.Background()
	original := "{\n    \"model\": \"opus\",\n    \"statusLine\": {\"type\": \"command\", \"command\": \"~/bin/my-line.sh\", \"padding\": 2},\n    \"env\": {\"A\": \"1\"}\n}\n"
	tests := []struct {
		name      string
		before    string // "" for no file
		force     bool
		wantErr   error
		wantAfter string // the statusLine command after install
	}{
		{name: "no file", wantAfter: StatusLineProgram},
		{name: "no status line", before: "{\n  \"model\": \"opus\"\n}\n", wantAfter: StatusLineProgram},
		{name: "the person's own is kept", before: original, wantErr: ErrOwnStatusLine, wantAfter: "~/bin/my-line.sh"},
		{name: "forced over the person's own", before: original, force: true, wantAfter: StatusLineProgram},
		{name: "baton's older one is replaced", before: "{\"statusLine\": {\"type\": \"command\", \"command\": \"baton statusline\"}}\n", wantAfter: StatusLineProgram},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path, save := filepath.Join(dir, "settings.json"), filepath.Join(dir, "saved.json")
			if tt.before != "" {
				os.WriteFile(path, []byte(tt.before), 0o644)
			}
			_, err := InstallStatusLine(ctx, path, "", save, StatusLineProgram, tt.force)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("install: err = %v; want %v", err, tt.wantErr)
			}
			after, _ := os.ReadFile(path)
			if err != nil {
				if string(after) != tt.before {
					t.Errorf("refused install changed the file:\n%s", after)
				}
				return
			}
			if got := settingsStatusLine(t, after); got != tt.wantAfter {
				t.Errorf("status line after install = %q; want %q", got, tt.wantAfter)
			}
			again, err := InstallStatusLine(ctx, path, "", save, StatusLineProgram, tt.force)
			if err != nil || len(again.Added) != 0 {
				t.Errorf("second install = %+v, %v; want no change", again, err)
			}
			if _, err := UninstallStatusLine(ctx, path, "", save); err != nil {
				t.Fatal(err)
			}
			restored, _ := os.ReadFile(path)
			switch {
			case tt.before == "":
				if got := settingsStatusLine(t, restored); got != "" {
					t.Errorf("uninstall left %q", got)
				}
			case tt.force:
				// The person's own status line comes back as it was, and
				// the rest of the file with it.
				if !sameJSON(restored, []byte(tt.before)) {
					t.Errorf("uninstall gave\n%s\nwant\n%s", restored, tt.before)
				}
				if _, err := os.Stat(save); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("saved copy still there: %v", err)
				}
			default:
				if got := settingsStatusLine(t, restored); got != "" && got != "baton statusline" {
					t.Errorf("uninstall left %q", got)
				}
			}
		})
	}
}

func settingsStatusLine(t *testing.T, b []byte) string {
	t.Helper()
	var v struct {
		StatusLine struct {
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("settings %q: %v", b, err)
	}
	return v.StatusLine.Command
}
