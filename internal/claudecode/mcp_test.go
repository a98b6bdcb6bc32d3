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
