package claude

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCleanupPeriodAsClaudeCodeReadsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		user, project, local string // settings files' contents; "" for none
		days                 int
		from                 string // "user", "project", "local" or ""
	}{
		{name: "default", days: 30},
		{name: "user", user: `{"cleanupPeriodDays": 7}`, days: 7, from: "user"},
		{name: "other keys only", user: `{"model": "opus"}`, days: 30},
		{name: "project over user", user: `{"cleanupPeriodDays": 7}`, project: `{"cleanupPeriodDays": 90}`, days: 90, from: "project"},
		{name: "local over project", project: `{"cleanupPeriodDays": 90}`, local: `{"cleanupPeriodDays": 3}`, days: 3, from: "local"},
		{name: "comments and trailing commas", user: "{\n  // a week\n  \"cleanupPeriodDays\": 7,\n}", days: 7, from: "user"},
		{name: "zero is rejected, so no cleanup", user: `{"cleanupPeriodDays": 0}`, days: 0, from: "user"},
		{name: "a fraction is rejected", user: `{"cleanupPeriodDays": 2.5}`, days: 0, from: "user"},
		{name: "a string is rejected", user: `{"cleanupPeriodDays": "7"}`, days: 0, from: "user"},
		{name: "an unreadable file is passed over", user: `{"cleanupPeriodDays": 7}`, local: `{not json`, days: 7, from: "user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, project := t.TempDir(), t.TempDir()
			files := map[string]string{
				"user":    filepath.Join(home, ".claude", "settings.json"),
				"project": filepath.Join(project, ".claude", "settings.json"),
				"local":   filepath.Join(project, ".claude", "settings.local.json"),
			}
			for which, data := range map[string]string{"user": tc.user, "project": tc.project, "local": tc.local} {
				if data == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(files[which]), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(files[which], []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
			// The managed settings are the machine's: left out here.
			got := cleanupIn(settingsFiles(project, getenv))
			if got.Days != tc.days || got.From != files[tc.from] {
				t.Fatalf("cleanup = %+v, want %d days from %q", got, tc.days, files[tc.from])
			}
		})
	}
}

func TestManagedCleanupPeriodComesFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	managed, user := filepath.Join(dir, "managed-settings.json"), filepath.Join(dir, "settings.json")
	os.WriteFile(managed, []byte(`{"cleanupPeriodDays": 365}`), 0o644)
	os.WriteFile(user, []byte(`{"cleanupPeriodDays": 7}`), 0o644)
	if got := cleanupIn([]string{managed, user}); got.Days != 365 || got.From != managed {
		t.Fatalf("cleanup = %+v, want the managed 365 days", got)
	}
}
