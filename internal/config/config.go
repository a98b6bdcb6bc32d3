// Package config loads baton's settings: the user's file
// ${XDG_CONFIG_HOME:-~/.config}/baton/config.yaml, overridden key by key by
// .baton.yaml at the repository's root. Command-line flags override both; the
// commands apply them.
//
// A repository is not trusted: the settings that name a program or a service
// baton connects to are taken from its .baton.yaml only when the person has
// trusted that file as it is now (see trust.go).
//
// An unknown key is an error that names the key and the file, so a typo never
// silently does nothing.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/baton-cli/baton/internal/i18n"
)

// RepoFile is the name of the per-repository file at the repository's root.
const RepoFile = ".baton.yaml"

// Config is everything baton can be told. Zero values mean "use the default";
// read settings through the methods, which apply the defaults.
type Config struct {
	// Lang is the language of messages: ja or en. Empty: from the locale.
	Lang string `yaml:"lang"`

	Journal   Journal   `yaml:"journal"`
	Agent     Agent     `yaml:"agent"`
	Resume    Resume    `yaml:"resume"`
	Debate    Debate    `yaml:"debate"`
	Worker    Worker    `yaml:"worker"`
	Context   Context   `yaml:"context"`
	Tracker   Tracker   `yaml:"tracker"`
	Decisions Decisions `yaml:"decisions"`
	Archive   Archive   `yaml:"archive"`
	Memory    Memory    `yaml:"memory"`
	Usage     Usage     `yaml:"usage"`

	// Trusted lists the repositories whose .baton.yaml the person trusted
	// (`baton trust`). Only the user's own file can set it.
	Trusted []TrustedRepo `yaml:"trusted"`

	// Repo is what loading found in the repository's .baton.yaml: whether
	// it is trusted and which of its settings were not applied.
	Repo RepoConfig `yaml:"-"`
}

// Journal configures the activity journal.
type Journal struct {
	// MaxSize is the size past which the active journal file is archived.
	MaxSize Size `yaml:"max_size"`
}

// Agent configures the agent CLI baton starts.
type Agent struct {
	// Command is the agent program (default "claude").
	Command string `yaml:"command"`
}

// DefaultJournalMaxSize is the default rotation size of the journal.
const DefaultJournalMaxSize = 32 << 20

// JournalMaxSize returns the journal's rotation size.
func (c *Config) JournalMaxSize() int64 {
	if c.Journal.MaxSize > 0 {
		return int64(c.Journal.MaxSize)
	}
	return DefaultJournalMaxSize
}

// AgentCommand returns the agent program to run.
func (c *Config) AgentCommand() string {
	if c.Agent.Command != "" {
		return c.Agent.Command
	}
	return "claude"
}

// Language returns the configured language, else the locale's.
func (c *Config) Language(getenv func(string) string) i18n.Lang {
	if l, err := i18n.Parse(c.Lang); err == nil {
		return l
	}
	return i18n.FromEnv(getenv)
}

// UserPath returns the user's config file path.
func UserPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "baton", "config.yaml")
}

// Load reads the person's own files in order (the user's file, files named
// on the command line), each overriding the keys it sets. Missing files are
// skipped; an empty path is ignored. A repository's file is read by
// LoadRepo, never by Load.
func Load(paths ...string) (*Config, error) {
	return load(paths, "")
}

// LoadRepo reads the user's file, then the .baton.yaml at the root of the
// repository root (none when root is empty or the file is missing), which
// overrides the keys it sets, except the guarded ones when the user's file
// does not trust it as it is (see TrustOf). What was left out is in
// Config.Repo.
func LoadRepo(user, root string) (*Config, error) {
	return load([]string{user}, root)
}

func load(own []string, root string) (*Config, error) {
	c := &Config{}
	var files []loaded
	// read returns a file's contents and tree; nil contents when it is
	// missing.
	read := func(p string) ([]byte, *yaml.Node, error) {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read config: %w", err)
		}
		n, err := parse(b, c)
		if err != nil {
			return nil, nil, fmt.Errorf("config %s: %w", p, err)
		}
		if b == nil {
			b = []byte{}
		}
		return b, n, nil
	}
	for _, p := range own {
		if p == "" {
			continue
		}
		_, n, err := read(p)
		if err != nil {
			return nil, err
		}
		if err := decode(n, c, p); err != nil {
			return nil, err
		}
		files = append(files, loaded{p, n})
	}
	if root != "" {
		own := c.Memory
		own.Kinds = slices.Clone(own.Kinds)
		if own.Share != nil {
			// decode writes through the pointer
			share := *own.Share
			own.Share = &share
		}
		p := filepath.Join(root, RepoFile)
		b, n, err := read(p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if err := refuseIndirection(n); err != nil {
				return nil, fmt.Errorf("config %s: %w", p, err)
			}
			c.Repo = RepoConfig{Path: p, Trust: c.TrustOf(root, b)}
			c.Repo.Ignored = guard(n, c.Repo.Trust == RepoTrusted)
			if err := decode(n, c, p); err != nil {
				return nil, err
			}
			for _, k := range c.narrowMemory(own) {
				c.Repo.Ignored = append(c.Repo.Ignored, IgnoredSetting{Key: k, Line: keyLine(n, k)})
			}
			files = append(files, loaded{p, n})
		}
	}
	if err := c.validate(); err != nil {
		return nil, locateError(err, files)
	}
	return c, nil
}

// loaded is a config file read and its YAML tree (nil when empty).
type loaded struct {
	path string
	root *yaml.Node
}

// errorKey is the key path a validation error starts with, after
// "config: ": lang, journal.max_size, worker.repositories[0].repo, …
func errorKey(msg string) string {
	end := strings.IndexFunc(msg, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || strings.ContainsRune("_-.[]", r))
	})
	if end < 0 {
		end = len(msg)
	}
	return strings.TrimRight(msg[:end], ".")
}

// locateError names the file and line that set the value a validation error
// is about: the last file that sets its key, since it is the one that counts.
// Validation runs on the merged settings, because a value may be right only
// with another file's; the error still points at the line to fix.
func locateError(err error, files []loaded) error {
	msg := strings.TrimPrefix(err.Error(), "config: ")
	key := errorKey(msg)
	if key == "" {
		return err
	}
	for i := len(files) - 1; i >= 0; i-- {
		if line := keyLine(files[i].root, key); line > 0 {
			return fmt.Errorf("config %s: line %d: %s", files[i].path, line, msg)
		}
	}
	return err
}

// keyLine returns the line of key (a path such as context.routes.a.b or
// worker.repositories[1].repo) in the mapping n, or of the deepest part of
// it that is there; 0 when even its first part is not.
func keyLine(n *yaml.Node, key string) int {
	line := 0
	for _, part := range strings.Split(strings.ReplaceAll(key, "[", ".["), ".") {
		if n == nil {
			break
		}
		var next *yaml.Node
		switch {
		case strings.HasPrefix(part, "[") && n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(strings.Trim(part, "[]")); err == nil && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		case n.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == part {
					next, line = n.Content[j+1], n.Content[j].Line
				}
			}
		}
		n = next
	}
	return line
}

func (c *Config) validate() error {
	if c.Lang != "" {
		if _, err := i18n.Parse(c.Lang); err != nil {
			return fmt.Errorf("config: lang: %w", err)
		}
	}
	if c.Journal.MaxSize < 0 {
		return errors.New("config: journal.max_size must be positive")
	}
	if err := c.Resume.validate(); err != nil {
		return err
	}
	if err := c.Debate.validate(); err != nil {
		return err
	}
	if err := c.Worker.validate(); err != nil {
		return err
	}
	if err := c.Context.validate(); err != nil {
		return err
	}
	if err := c.Archive.validate(); err != nil {
		return err
	}
	if err := c.Tracker.validate(); err != nil {
		return err
	}
	if err := c.Memory.validate(); err != nil {
		return err
	}
	if err := c.Decisions.validate(); err != nil {
		return err
	}
	return nil
}

// parse reads the YAML document b, refusing keys c has no field for, and
// returns its tree (nil for an empty one).
func parse(b []byte, c *Config) (*yaml.Node, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if err := checkKeys(root, reflect.TypeOf(*c), ""); err != nil {
		return nil, err
	}
	return root, nil
}

// decode overlays the tree n of the file at path onto c.
func decode(n *yaml.Node, c *Config, path string) error {
	if n == nil {
		return nil
	}
	if err := n.Decode(c); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// checkKeys reports the first mapping key in n that t has no field for.
func checkKeys(n *yaml.Node, t reflect.Type, prefix string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			f, ok := fieldByTag(t, key.Value)
			if !ok {
				return fmt.Errorf("line %d: unknown key %q", key.Line, prefix+key.Value)
			}
			if err := checkKeys(val, f.Type, prefix+key.Value+"."); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			if err := checkKeys(item, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(prefix, "."), i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == name && tag != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Size is a byte count written as a number or with a unit: 512KiB, 32MiB, 1GiB
// (also KB, MB, GB as powers of 1000).
type Size int64

// UnmarshalYAML parses a Size.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*s = v
	return nil
}

// ParseSize parses "1048576", "32MiB", "10 MB".
func ParseSize(text string) (Size, error) {
	t := strings.TrimSpace(text)
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (want a number of bytes or e.g. 32MiB)", text)
	}
	return Size(n * mult), nil
}
