package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRepoOnlyNarrowsMemory(t *testing.T) {
	for _, tt := range []struct {
		name, user, repo string
		share            bool
		kinds            []string
		undone           []string
	}{
		{"defaults", "", "", true, []string{"decisions"}, nil},
		{"repo turns sharing off", "", "memory:\n  share: false\n", false, []string{"decisions"}, nil},
		{"repo cannot turn it on", "memory:\n  share: false\n", "memory:\n  share: true\n", false, []string{"decisions"}, []string{"memory.share"}},
		{"repo cannot add a kind", "", "memory:\n  kinds: [decisions, summaries, branch]\n", true, []string{"decisions"}, []string{"memory.kinds"}},
		{"repo shares fewer", "memory:\n  kinds: [decisions, branch]\n", "memory:\n  kinds: [branch]\n", true, []string{"branch"}, nil},
		{"person widens", "memory:\n  kinds: [decisions, summaries, branch]\n", "", true, []string{"decisions", "summaries", "branch"}, nil},
		{"repo trusted still only narrows", "memory:\n  share: false\n", "memory:\n  share: true\n", false, []string{"decisions"}, []string{"memory.share"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "repo")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			user := tt.user
			if strings.HasPrefix(tt.name, "repo trusted") {
				user += trustedYAML(root, Sum([]byte(tt.repo)))
			}
			up := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(up, []byte(user), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.repo != "" {
				if err := os.WriteFile(filepath.Join(root, RepoFile), []byte(tt.repo), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := LoadRepo(up, root)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.MemoryShare(); got != tt.share {
				t.Errorf("share = %v; want %v", got, tt.share)
			}
			if got := c.MemoryKinds(); !slices.Equal(got, tt.kinds) {
				t.Errorf("kinds = %v; want %v", got, tt.kinds)
			}
			var undone []string
			for _, ig := range c.Repo.Ignored {
				undone = append(undone, ig.Key)
			}
			if !slices.Equal(undone, tt.undone) {
				t.Errorf("ignored = %v; want %v", undone, tt.undone)
			}
		})
	}
}

func TestMemoryKindsAreChecked(t *testing.T) {
	dir := t.TempDir()
	up := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(up, []byte("memory:\n  kinds: [transcripts]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(up); err == nil || !strings.Contains(err.Error(), "memory.kinds[0]") {
		t.Errorf("err = %v; want one naming memory.kinds[0]", err)
	}
}
