package claudecode

import (
	"encoding/json"
	"os"
)

// DefaultCleanupPeriodDays is how long Claude Code keeps a session's
// transcript when no settings file says otherwise: at start-up it deletes
// transcripts older than this.
const DefaultCleanupPeriodDays = 30

// CleanupPeriodDays returns how many days Claude Code keeps transcripts for
// sessions run in repoRoot, and the settings file that says so ("" for the
// default). Settings are read in Claude Code's order of precedence: the
// repository's personal file, its shared file, then the user's. A file that
// cannot be read or parsed is passed over, as Claude Code would fall back to
// the next.
func CleanupPeriodDays(home, repoRoot string) (days int, from string) {
	local, shared, user := SettingsPaths(home, repoRoot)
	for _, path := range []string{local, shared, user} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var s struct {
			CleanupPeriodDays *float64 `json:"cleanupPeriodDays"`
		}
		if json.Unmarshal(data, &s) != nil || s.CleanupPeriodDays == nil {
			continue
		}
		return int(*s.CleanupPeriodDays), path
	}
	return DefaultCleanupPeriodDays, ""
}
