package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Claude Code deletes its own transcripts: at start-up it removes every file
// under <config dir>/projects/ last changed more than cleanupPeriodDays ago
// (default 30). The setting is read from the managed settings (and their
// drop-ins), the project's .claude/settings.local.json and
// .claude/settings.json and the user's settings.json, in that precedence; a
// value that is not a whole number of at least 1 is a settings error, and
// then Claude Code skips the cleanup (checked in Claude Code 2.1.197's
// source). planq doctor warns when the cleanup would take lines planq has
// not copied into its store yet.

// DefaultCleanupDays is cleanupPeriodDays when no settings file sets it.
const DefaultCleanupDays = 30

// Cleanup is Claude Code's transcript cleanup as it applies in a project.
type Cleanup struct {
	// Days is how long after its last change a transcript is deleted; 0
	// when Claude Code skips the cleanup (the setting is not valid).
	Days int
	// From is the settings file that sets it; "" for the default.
	From string
}

// CleanupOf reads Claude Code's cleanupPeriodDays for projectDir.
func CleanupOf(projectDir string, getenv func(string) string) Cleanup {
	return cleanupIn(cleanupFiles(projectDir, getenv))
}

// cleanupFiles are the settings files that may set cleanupPeriodDays, the
// one that counts first.
func cleanupFiles(projectDir string, getenv func(string) string) []string {
	var files []string
	if m := managedSettings(); m != "" {
		drop := filepath.Join(filepath.Dir(m), "managed-settings.d")
		if d, err := os.ReadDir(drop); err == nil {
			for _, e := range slices.Backward(d) { // the last drop-in wins
				if strings.HasSuffix(e.Name(), ".json") {
					files = append(files, filepath.Join(drop, e.Name()))
				}
			}
		}
		files = append(files, m)
	}
	return append(files, settingsFiles(projectDir, getenv)...)
}

// settingsFiles are the settings files of the user and of projectDir, the
// one that counts first: the project's local ones, the project's, the
// user's (managed settings, which come before them all, aside).
func settingsFiles(projectDir string, getenv func(string) string) []string {
	var files []string
	if projectDir != "" {
		files = append(files, filepath.Join(projectDir, ".claude", "settings.local.json"), filepath.Join(projectDir, ".claude", "settings.json"))
	}
	if dir := ConfigDir(getenv); dir != "" {
		files = append(files, filepath.Join(dir, "settings.json"))
	}
	return files
}

// cleanupIn is the cleanup the first of files that sets cleanupPeriodDays
// says, else the default.
func cleanupIn(files []string) Cleanup {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) > 4<<20 {
			continue
		}
		var s struct {
			Days json.RawMessage `json:"cleanupPeriodDays"`
		}
		std, err := hujson.Standardize(data) // Claude Code reads settings as JSON with comments
		if err != nil || json.Unmarshal(std, &s) != nil || s.Days == nil {
			continue
		}
		var n float64
		if json.Unmarshal(s.Days, &n) != nil || n < 1 || n != float64(int(n)) {
			return Cleanup{From: f} // a settings error: no cleanup
		}
		return Cleanup{Days: int(n), From: f}
	}
	return Cleanup{Days: DefaultCleanupDays}
}

// ProjectsDir is where Claude Code keeps the transcripts its cleanup
// deletes.
func ProjectsDir(configDir string) string { return filepath.Join(configDir, "projects") }
