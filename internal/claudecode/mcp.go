package claudecode

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// InstallMCPServer registers an MCP server named name, started as command
// with args, in an MCP configuration file such as a repository's .mcp.json
// ({"mcpServers": {name: {"command": …, "args": […]}}}), creating the file if
// needed. An existing entry of that name keeps its other keys (env, …) and
// gets command and args; if it already has them, nothing changes. The rest of
// the file is kept as InstallHooks keeps a settings file.
func InstallMCPServer(ctx context.Context, path, name, command string, args []string) (Change, error) {
	return editFile(ctx, path, true, func(d *document) (added, _ []string, err error) {
		servers, err := d.mcpServers()
		if err != nil {
			return nil, nil, err
		}
		var server object
		if n, ok := servers.get(name); ok {
			if n.kind() != '{' {
				return nil, nil, d.invalid(n, "MCP server %q is not an object", name)
			}
			server = parseObject(n)
			if sameServer(server, command, args) {
				return nil, nil, nil
			}
		}
		server.set("command", encodeString(command))
		server.set("args", stringsArray(args))
		servers.set(name, server.bytes())
		d.root.set("mcpServers", servers.bytes())
		return []string{name}, nil, nil
	})
}

// UninstallMCPServer removes the MCP server named name from an MCP
// configuration file, and "mcpServers" if that leaves it empty. A missing
// file or server is left as it is.
func UninstallMCPServer(ctx context.Context, path, name string) (Change, error) {
	return editFile(ctx, path, false, func(d *document) (_, removed []string, err error) {
		servers, err := d.mcpServers()
		if err != nil {
			return nil, nil, err
		}
		if _, ok := servers.get(name); !ok {
			return nil, nil, nil
		}
		servers.remove(name)
		if len(servers) == 0 {
			d.root.remove("mcpServers")
		} else {
			d.root.set("mcpServers", servers.bytes())
		}
		return nil, []string{name}, nil
	})
}

// mcpServers returns the live "mcpServers" object of d, nil if there is none.
func (d *document) mcpServers() (object, error) {
	n, ok := d.root.get("mcpServers")
	if !ok {
		return nil, nil
	}
	if n.kind() != '{' {
		return nil, d.invalid(n, `"mcpServers" is not an object`)
	}
	return parseObject(n), nil
}

// sameServer reports whether server already runs command with args; a
// missing "args" is no arguments.
func sameServer(server object, command string, args []string) bool {
	n, ok := server.get("command")
	if !ok {
		return false
	}
	if s, ok := stringValue(n); !ok || s != command {
		return false
	}
	var have []node
	if n, ok := server.get("args"); ok {
		if n.kind() != '[' {
			return false
		}
		have = parseArray(n)
	}
	if len(have) != len(args) {
		return false
	}
	for i, a := range have {
		if s, ok := stringValue(a); !ok || s != args[i] {
			return false
		}
	}
	return true
}

// stringsArray returns ss as a JSON array of strings.
func stringsArray(ss []string) []byte {
	elems := make([]node, len(ss))
	for i, s := range ss {
		elems[i] = node{raw: encodeString(s), off: -1}
	}
	return arrayBytes(elems)
}

// ApproveMCPServer adds name to "enabledMcpjsonServers" in the settings
// file path, creating both if needed: Claude Code then starts the project's
// .mcp.json server of that name without asking. Only that name is approved,
// never every server a repository's .mcp.json may list.
func ApproveMCPServer(ctx context.Context, path, name string) (Change, error) {
	return editFile(ctx, path, true, func(d *document) (added, _ []string, err error) {
		names, err := d.approved()
		if err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			if s, ok := stringValue(n); ok && s == name {
				return nil, nil, nil
			}
		}
		names = append(names, node{raw: encodeString(name), off: -1})
		d.root.set(approvedKey, arrayBytes(names))
		return []string{name}, nil, nil
	})
}

// UnapproveMCPServer removes name from "enabledMcpjsonServers" in the
// settings file path, and the key if that leaves it empty.
func UnapproveMCPServer(ctx context.Context, path, name string) (Change, error) {
	return editFile(ctx, path, false, func(d *document) (_, removed []string, err error) {
		names, err := d.approved()
		if err != nil {
			return nil, nil, err
		}
		var kept []node
		for _, n := range names {
			if s, ok := stringValue(n); ok && s == name {
				removed = []string{name}
				continue
			}
			kept = append(kept, n)
		}
		switch {
		case removed == nil:
		case len(kept) == 0:
			d.root.remove(approvedKey)
		default:
			d.root.set(approvedKey, arrayBytes(kept))
		}
		return nil, removed, nil
	})
}

const approvedKey = "enabledMcpjsonServers"

// approved returns the elements of d's "enabledMcpjsonServers".
func (d *document) approved() ([]node, error) {
	n, ok := d.root.get(approvedKey)
	if !ok {
		return nil, nil
	}
	if n.kind() != '[' {
		return nil, d.invalid(n, "%q is not an array", approvedKey)
	}
	return parseArray(n), nil
}

// RemoveIfEmpty removes the JSON file path when it holds an empty object
// and nothing else: what is left of a file whose last entry baton took out.
// A missing file is not an error.
func RemoveIfEmpty(path string) (removed bool, err error) {
	data, exists, err := readFile(path)
	if err != nil || !exists {
		return false, err
	}
	var v map[string]json.RawMessage
	if json.Unmarshal(data, &v) != nil || v == nil || len(v) > 0 {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, nil
}

// MCPServerEnabled reports whether Claude Code starts the MCP server name
// for the project at root without asking: root's .mcp.json defines it, a
// settings file (the project's personal and shared ones, the user's)
// approves it by name or approves every project server, and none disables
// it. Approvals kept elsewhere (Claude Code's own ~/.claude.json, a dialog
// answered in a session) are not seen: a server reported not enabled may
// still run, one reported enabled does unless the person turned it off in a
// session.
func MCPServerEnabled(home, root, name string) bool {
	if !MCPServerDefined(filepath.Join(root, MCPConfigFile), name) {
		return false
	}
	local, shared, user := SettingsPaths(home, root)
	enabled := false
	for _, path := range []string{local, shared, user} {
		var s struct {
			All      bool     `json:"enableAllProjectMcpServers"`
			Enabled  []string `json:"enabledMcpjsonServers"`
			Disabled []string `json:"disabledMcpjsonServers"`
		}
		if !readSmallJSON(path, &s) {
			continue
		}
		if slices.Contains(s.Disabled, name) {
			return false
		}
		enabled = enabled || s.All || slices.Contains(s.Enabled, name)
	}
	return enabled
}

// MCPConfigFile is the project's MCP configuration, at the top of its
// folder.
const MCPConfigFile = ".mcp.json"

// readSmallJSON decodes the file path into v when it is at most 1 MiB of
// valid JSON, and reports whether it did.
func readSmallJSON(path string, v any) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil || len(data) > 1<<20 {
		return false
	}
	return json.Unmarshal(data, v) == nil
}

// MCPServerDefined reports whether the MCP configuration file path defines
// a server named name.
func MCPServerDefined(path, name string) bool {
	var mcp struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	return readSmallJSON(path, &mcp) && mcp.Servers[name] != nil
}
