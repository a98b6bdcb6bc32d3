package claudecode

import "context"

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
