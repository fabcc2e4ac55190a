package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

func TestDoctorRepoKinds(t *testing.T) {
	testenv.Isolate(t)
	gitOnly := t.TempDir()
	testenv.Run(t, gitOnly, "git", "init", "-q")
	tests := []struct {
		name, dir, kind, fix string
	}{
		{"jj colocated", testenv.JJRepo(t), "jj colocated", ""},
		{"jj only", testenv.JJOnlyRepo(t), "jj", ""},
		{"git only", gitOnly, "git only", "jj git init --colocate"},
		{"none", t.TempDir(), "none", "jj git init --colocate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _ := runIn(t, tt.dir, "doctor", "--json")
			var rep doctorReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("doctor --json printed non-JSON: %v\n%s", err, out)
			}
			if rep.RepoKind != tt.kind || rep.JJ == "" {
				t.Errorf("repo_kind = %q, jj = %q; want %q and a jj version", rep.RepoKind, rep.JJ, tt.kind)
			}
			for _, c := range rep.Checks {
				if c.Name == "repo" && tt.fix != "" && !strings.Contains(c.Fix, tt.fix) {
					t.Errorf("repo fix = %q, want %q", c.Fix, tt.fix)
				}
			}
		})
	}
}

func TestDoctorReportsClaudeCodeWiring(t *testing.T) {
	testenv.Isolate(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin") // no claude: install edits the files itself
	repo := testenv.JJRepo(t)
	out, _, code := runIn(t, repo, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL server") || !strings.Contains(out, "FAIL hooks") || !strings.Contains(out, "planq mcp install") {
		t.Fatalf("doctor before install: exit %d\n%s", code, out)
	}
	if _, errOut, code := runIn(t, repo, "mcp", "install", "--scope", "project"); code != 0 {
		t.Fatalf("mcp install: exit %d: %s", code, errOut)
	}
	out, _, code = runIn(t, repo, "doctor")
	if code != 0 || !strings.Contains(out, "ok   server") || !strings.Contains(out, "6 of 6") {
		settings, _ := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
		t.Fatalf("doctor after install: exit %d\n%s\nsettings.json:\n%s", code, out, settings)
	}
}

func TestUnknownCommandPointsAtHelp(t *testing.T) {
	for _, args := range [][]string{{"nosuch"}, {"doctor", "--bogus"}} {
		_, errOut, code := runIn(t, t.TempDir(), args...)
		if code != 1 || !strings.Contains(errOut, "planq --help") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("planq %v: exit %d, stderr %q; want one line pointing at --help", args, code, errOut)
		}
	}
}
