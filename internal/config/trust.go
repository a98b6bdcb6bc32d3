package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-cli/baton/internal/atomicfile"
)

// People clone repositories they have not read and run agents in them, so a
// repository's .baton.yaml is not the person's word. The settings that name
// a program baton runs, what makes the agent CLI run one, or a service baton
// connects to with the person's credentials are taken from it only when the
// user's own file trusts it: `baton trust` records the repository's path and
// the SHA-256 of its .baton.yaml, and a file that changed is not trusted
// until it is trusted again. The other settings (language, budgets, sizes,
// labels, …) apply from the repository as before.

// GuardedKeys are the settings a repository's .baton.yaml sets only when it
// is trusted, as key paths (a whole section when the path names one).
func GuardedKeys() []string {
	return []string{
		// The agent CLI summaries, extractors and debates run.
		"agent.command",
		// claude runs the agent CLI; anthropic and openai send the
		// session's text to an API with the person's key.
		"context.summarizers.l1.use",
		"context.summarizers.l2.use",
		"context.summarizers.l3.use",
		"decisions.extractor",
		// Where decisions are posted with the person's token; a
		// host/owner/name also picks the API host the token goes to.
		"tracker.github.repo",
		// Arguments of the agent CLI: --settings, --mcp-config or
		// --plugin-dir make it run programs.
		"debate.headless_args",
		// The tmux server debates start panes in and type into.
		"debate.tmux_socket",
		// Folders outside the repository that baton writes into: the
		// agent memory another project's sessions load (its MEMORY.md is
		// read into every new session), and the debate files whose text
		// goes to the agents.
		"decisions.memory_dir",
		"debate.dir",
		// The worker's repositories and clones, its agent command,
		// arguments and environment, and its queue's database.
		"worker",
	}
}

// userOnlyKeys are never taken from a repository's file, trusted or not.
func userOnlyKeys() []string { return []string{"trusted", "usage.prices"} }

// TrustedRepo is a repository whose .baton.yaml the person trusted.
type TrustedRepo struct {
	// Path is the repository's folder, the one holding .baton.yaml.
	Path string `yaml:"path"`
	// SHA256 is the hex SHA-256 of the .baton.yaml that was trusted.
	SHA256 string `yaml:"sha256"`
}

// TrustState says whether a repository's .baton.yaml is trusted.
type TrustState string

// Trust states.
const (
	// RepoUntrusted: the person never trusted this repository's file.
	RepoUntrusted TrustState = "untrusted"
	// RepoTrusted: the file is trusted as it is.
	RepoTrusted TrustState = "trusted"
	// RepoChanged: the file was trusted with other contents.
	RepoChanged TrustState = "changed"
)

// RepoConfig is what loading found in a repository's .baton.yaml.
type RepoConfig struct {
	// Path is the file read; empty when the repository has none.
	Path  string
	Trust TrustState
	// Ignored are the settings of the file that were not applied, in the
	// file's order.
	Ignored []IgnoredSetting
}

// IgnoredSetting is a setting of a repository's file that was not applied.
type IgnoredSetting struct {
	// Key is the key path: agent.command, worker, …
	Key  string
	Line int
	// UserOnly is set for a key no repository may set, trusted or not.
	UserOnly bool
}

// Sum returns the hex SHA-256 of a .baton.yaml's contents, as `baton trust`
// records it.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TrustOf says whether the person trusts the .baton.yaml of the repository
// at root whose contents are b: trusted when the user's file lists root with
// the SHA-256 of b, changed when it lists root with another. It is the one
// place that decides whether a repository's file is trusted.
func (c *Config) TrustOf(root string, b []byte) TrustState {
	if len(c.Trusted) == 0 {
		return RepoUntrusted
	}
	sum, state, key := Sum(b), RepoUntrusted, repoKey(root)
	for _, t := range c.Trusted {
		if filepath.Clean(t.Path) != key {
			continue
		}
		if strings.EqualFold(t.SHA256, sum) {
			return RepoTrusted
		}
		state = RepoChanged
	}
	return state
}

// repoKey is how a repository's folder is recorded and compared: with links
// resolved, so that the folder reached through a link is the same
// repository.
func repoKey(root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		return r
	}
	return filepath.Clean(root)
}

// guard removes from n, the tree of a repository's file, the keys it may not
// set: the user-only ones, and the guarded ones unless trusted. It returns
// what it removed.
func guard(n *yaml.Node, trusted bool) []IgnoredSetting {
	var out []IgnoredSetting
	drop := func(keys []string, userOnly bool) {
		for _, k := range keys {
			if line := removeKey(n, strings.Split(k, ".")); line > 0 {
				out = append(out, IgnoredSetting{Key: k, Line: line, UserOnly: userOnly})
			}
		}
	}
	drop(userOnlyKeys(), true)
	if !trusted {
		drop(GuardedKeys(), false)
	}
	slices.SortFunc(out, func(a, b IgnoredSetting) int { return a.Line - b.Line })
	return out
}

// removeKey removes the key at path from the mapping n and returns the line
// it was on; 0 when it is not there.
func removeKey(n *yaml.Node, path []string) int {
	if n == nil || n.Kind != yaml.MappingNode {
		return 0
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value != path[0] {
			continue
		}
		if len(path) > 1 {
			return removeKey(n.Content[j+1], path[1:])
		}
		line := n.Content[j].Line
		n.Content = slices.Delete(n.Content, j, j+2)
		return line
	}
	return 0
}

// refuseIndirection refuses aliases and merge keys in a repository's file:
// through them a value reaches a key without being written under it, where
// guard would not see it.
func refuseIndirection(n *yaml.Node) error {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode || n.Tag == "!!merge" {
		return fmt.Errorf("line %d: anchors, aliases and merge keys are not allowed in a repository's %s", n.Line, RepoFile)
	}
	for _, c := range n.Content {
		if err := refuseIndirection(c); err != nil {
			return err
		}
	}
	return nil
}

// Trust records in the user's file at path that the repository at root (its
// links resolved) is trusted with the .baton.yaml whose SHA-256 is sum, replacing what it said
// about root before. It reports whether the file changed.
func Trust(path, root, sum string) (bool, error) {
	root = repoKey(root)
	return editTrusted(path, func(list []TrustedRepo) []TrustedRepo {
		return append(without(list, root), TrustedRepo{Path: root, SHA256: sum})
	})
}

// Revoke removes the repository at root from the trusted ones of the user's
// file at path. It reports whether the file changed.
func Revoke(path, root string) (bool, error) {
	root = repoKey(root)
	return editTrusted(path, func(list []TrustedRepo) []TrustedRepo { return without(list, root) })
}

// without returns list with the entries of the repository key root left out.
func without(list []TrustedRepo, root string) []TrustedRepo {
	return slices.DeleteFunc(list, func(t TrustedRepo) bool { return filepath.Clean(t.Path) == root })
}

// editTrusted rewrites the trusted list of the user's file at path with
// edit, atomically and under a lock. A link is followed: the file it points
// to is edited and the link stays (the file is the person's own).
func editTrusted(path string, edit func([]TrustedRepo) []TrustedRepo) (changed bool, err error) {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return false, fmt.Errorf("config %s: %w", path, err)
		}
	}
	err = atomicfile.Update(target, 0o600, func(old []byte) ([]byte, error) {
		out, err := spliceTrusted(old, edit)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
		if bytes.Equal(out, old) {
			return nil, atomicfile.ErrUnchanged
		}
		changed = true
		return out, nil
	})
	return changed, err
}

// spliceTrusted returns the user's file old with its trusted list replaced
// by what edit makes of it. Only the lines of that list change; the rest of
// the file (comments, order, layout) stays as the person wrote it. An empty
// list removes the key.
func spliceTrusted(old []byte, edit func([]TrustedRepo) []TrustedRepo) ([]byte, error) {
	root, err := parse(old, &Config{})
	if err != nil {
		return nil, err
	}
	if root != nil && root.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a mapping of settings")
	}
	var key, val *yaml.Node
	var list []TrustedRepo
	if root != nil {
		for j := 0; j+1 < len(root.Content); j += 2 {
			if root.Content[j].Value == "trusted" {
				key, val = root.Content[j], root.Content[j+1]
			}
		}
	}
	if val != nil {
		if err := val.Decode(&list); err != nil {
			return nil, err
		}
	}
	block, err := trustedBlock(edit(list))
	if err != nil {
		return nil, err
	}
	text := string(old)
	if key == nil {
		if block != "" && text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += block
	} else {
		first, last := key.Line, lastLine(val)
		if root.Style&yaml.FlowStyle != 0 || sharesLines(root, key, first, last) {
			return nil, fmt.Errorf("line %d: trusted shares its lines with other settings; put it on lines of its own", first)
		}
		lines := strings.SplitAfter(text, "\n")
		text = strings.Join(lines[:first-1], "") + block + strings.Join(lines[min(last, len(lines)):], "")
	}
	if _, err := parse([]byte(text), &Config{}); err != nil {
		return nil, fmt.Errorf("the edited file would not load: %w", err)
	}
	return []byte(text), nil
}

// trustedBlock is the trusted key with list, as lines of YAML; empty for an
// empty list.
func trustedBlock(list []TrustedRepo) (string, error) {
	if len(list) == 0 {
		return "", nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(struct {
		Trusted []TrustedRepo `yaml:"trusted"`
	}{list}); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// lastLine is the last line a node and its children are on.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// sharesLines reports whether a top-level key other than key, or its value,
// is on the lines first to last.
func sharesLines(root, key *yaml.Node, first, last int) bool {
	for j := 0; j+1 < len(root.Content); j += 2 {
		k := root.Content[j]
		if k == key {
			continue
		}
		if k.Line <= last && lastLine(root.Content[j+1]) >= first {
			return true
		}
	}
	return false
}
