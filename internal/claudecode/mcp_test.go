package claudecode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInstallMCPServer(t *testing.T) {
	tests := []struct {
		name          string
		input         *string // nil: no file
		args          []string
		want          string
		wantUnchanged bool
		wantCreated   bool
	}{
		{
			name:        "missing file",
			args:        []string{"mcp"},
			want:        "{\n  \"mcpServers\": {\n    \"baton\": {\n      \"command\": \"baton\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n",
			wantCreated: true,
		},
		{
			name:  "other servers kept in order",
			input: ptr(`{"mcpServers":{"zeta":{"command":"z","env":{"K":"1e3"}},"alpha":{"command":"a"}},"x":1.50}`),
			args:  nil,
			want:  `{"mcpServers":{"zeta":{"command":"z","env":{"K":"1e3"}},"alpha":{"command":"a"},"baton":{"command":"baton","args":[]}},"x":1.50}`,
		},
		{
			name:          "already registered",
			input:         ptr(`{"mcpServers":{"baton":{"type":"stdio","command":"baton","args":["mcp"]}}}`),
			args:          []string{"mcp"},
			want:          `{"mcpServers":{"baton":{"type":"stdio","command":"baton","args":["mcp"]}}}`,
			wantUnchanged: true,
		},
		{
			name:          "no args either way",
			input:         ptr(`{"mcpServers":{"baton":{"command":"baton"}}}`),
			want:          `{"mcpServers":{"baton":{"command":"baton"}}}`,
			wantUnchanged: true,
		},
		{
			name:  "different registration updated in place, env kept",
			input: ptr(`{"mcpServers":{"baton":{"command":"/old/baton","env":{"A":"b"}},"other":{"command":"o"}}}`),
			args:  []string{"mcp", "--stdio"},
			want:  `{"mcpServers":{"baton":{"command":"baton","env":{"A":"b"},"args":["mcp","--stdio"]},"other":{"command":"o"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".mcp.json")
			if tt.input != nil {
				if err := os.WriteFile(path, []byte(*tt.input), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ch, err := InstallMCPServer(context.Background(), path, "baton", "baton", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Unchanged != tt.wantUnchanged || ch.Created != tt.wantCreated {
				t.Errorf("got %+v; want unchanged %t, created %t", ch, tt.wantUnchanged, tt.wantCreated)
			}
			if !tt.wantUnchanged && !slices.Equal(ch.Added, []string{"baton"}) {
				t.Errorf("added: got %v; want [baton]", ch.Added)
			}
			if got := string(readSettings(t, path)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestUninstallMCPServer(t *testing.T) {
	tests := []struct {
		name        string
		input       string
		want        string
		wantRemoved []string
	}{
		{
			name:        "last server",
			input:       `{"a":1,"mcpServers":{"baton":{"command":"baton"}},"z":2}`,
			want:        `{"a":1,"z":2}`,
			wantRemoved: []string{"baton"},
		},
		{
			name:        "others stay",
			input:       `{"mcpServers":{"x":{"command":"x"},"baton":{"command":"baton"}}}`,
			want:        `{"mcpServers":{"x":{"command":"x"}}}`,
			wantRemoved: []string{"baton"},
		},
		{
			name:  "not registered",
			input: `{"mcpServers":{"x":{"command":"x"}}}`,
			want:  `{"mcpServers":{"x":{"command":"x"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".mcp.json")
			if err := os.WriteFile(path, []byte(tt.input), 0o644); err != nil {
				t.Fatal(err)
			}
			ch, err := UninstallMCPServer(context.Background(), path, "baton")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ch.Removed, tt.wantRemoved) || ch.Unchanged != (tt.wantRemoved == nil) {
				t.Errorf("got %+v; want removed %v", ch, tt.wantRemoved)
			}
			if got := string(readSettings(t, path)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestMCPInstallUninstallRestores(t *testing.T) {
	input := "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"o\",\n      \"args\": [\n        \"-v\"\n      ]\n    }\n  }\n}\n"
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := InstallMCPServer(ctx, path, "baton", "baton", []string{"mcp"}); err != nil {
		t.Fatal(err)
	}
	if _, err := UninstallMCPServer(ctx, path, "baton"); err != nil {
		t.Fatal(err)
	}
	if got := string(readSettings(t, path)); got != input {
		t.Errorf("got\n%s\nwant\n%s", got, input)
	}
}

func TestMCPInvalid(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{name: "servers array", input: `{"mcpServers":[]}`},
		{name: "server string", input: `{"mcpServers":{"baton":"baton mcp"}}`},
		{name: "not JSON", input: `{"mcpServers":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".mcp.json")
			if err := os.WriteFile(path, []byte(tt.input), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := InstallMCPServer(context.Background(), path, "baton", "baton", nil)
			if !errors.Is(err, ErrInvalidSettings) {
				t.Errorf("got %v; want ErrInvalidSettings", err)
			}
			if got := string(readSettings(t, path)); got != tt.input {
				t.Errorf("refused file changed: got %s", got)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestApproveMCPServer(t *testing.T) {
	tests := []struct {
		name, input, approved, unapproved string
	}{
		{
			name:       "first approval",
			input:      `{"model": "opus"}`,
			approved:   `{"model": "opus","enabledMcpjsonServers": ["baton"]}`,
			unapproved: `{"model": "opus"}`,
		},
		{
			name:       "beside the person's own approvals",
			input:      `{"enabledMcpjsonServers": ["lint"]}`,
			approved:   `{"enabledMcpjsonServers": ["lint","baton"]}`,
			unapproved: `{"enabledMcpjsonServers": ["lint"]}`,
		},
		{
			name:       "already approved",
			input:      `{"enabledMcpjsonServers": ["baton"]}`,
			approved:   `{"enabledMcpjsonServers": ["baton"]}`,
			unapproved: `{}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.local.json")
			if err := os.WriteFile(path, []byte(tt.input), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ApproveMCPServer(context.Background(), path, "baton"); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.approved {
				t.Errorf("approved: got %q; want %q", got, tt.approved)
			}
			if _, err := UnapproveMCPServer(context.Background(), path, "baton"); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.unapproved {
				t.Errorf("unapproved: got %q; want %q", got, tt.unapproved)
			}
		})
	}
}

func TestMCPServerEnabled(t *testing.T) {
	const server = `{"mcpServers": {"baton": {"command": "baton", "args": ["mcp"]}}}`
	tests := []struct {
		name             string
		mcp, local, user string // "" for no file
		want             bool
	}{
		{name: "registered and approved by name", mcp: server, local: `{"enabledMcpjsonServers": ["baton"]}`, want: true},
		{name: "all project servers approved", mcp: server, user: `{"enableAllProjectMcpServers": true}`, want: true},
		{name: "registered, not approved", mcp: server, local: `{}`},
		{name: "approved, not registered", local: `{"enabledMcpjsonServers": ["baton"]}`},
		{name: "another server registered", mcp: `{"mcpServers": {"lint": {"command": "l"}}}`, local: `{"enabledMcpjsonServers": ["baton"]}`},
		{name: "disabled", mcp: server, local: `{"disabledMcpjsonServers": ["baton"]}`, user: `{"enableAllProjectMcpServers": true}`},
		{name: "broken .mcp.json", mcp: `{"mcpServers": `, local: `{"enabledMcpjsonServers": ["baton"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, root := t.TempDir(), t.TempDir()
			local, _, user := SettingsPaths(home, root)
			for path, data := range map[string]string{filepath.Join(root, MCPConfigFile): tt.mcp, local: tt.local, user: tt.user} {
				if data == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := MCPServerEnabled(home, root, "baton"); got != tt.want {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}

func TestRemoveIfEmpty(t *testing.T) {
	for _, tt := range []struct {
		input string
		want  bool
	}{{"{}\n", true}, {"{ }", true}, {`{"model": "opus"}`, false}, {"not json", false}} {
		path := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(path, []byte(tt.input), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := RemoveIfEmpty(path)
		if _, serr := os.Stat(path); err != nil || got != tt.want || errors.Is(serr, os.ErrNotExist) != tt.want {
			t.Errorf("RemoveIfEmpty(%q) = %v, %v (file gone: %v); want %v", tt.input, got, err, serr != nil, tt.want)
		}
	}
}
