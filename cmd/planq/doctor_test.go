package main

import (
	"encoding/json"
	"os"
	"os/exec"
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

// doctor reports planq-hook beside planq and checks that its version is
// planq's.
func TestDoctorReportsTheHookBinary(t *testing.T) {
	bin := buildPlanq(t) // planq-hook is built beside it
	testenv.Isolate(t)
	t.Setenv("PATH", filepath.Dir(bin)+":/usr/local/bin:/usr/bin:/bin")
	repo := testenv.JJRepo(t)
	run := func(exe string, args ...string) (string, int) {
		cmd := exec.Command(exe, args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	if out, code := run(bin, "mcp", "install", "--scope", "project", "--claude", "none"); code != 0 {
		t.Fatalf("mcp install: exit %d\n%s", code, out)
	}
	settings, _ := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
	if !strings.Contains(string(settings), "planq-hook pre-tool-use") || !strings.Contains(string(settings), "planq hook session-start") {
		t.Fatalf("settings.json does not wire the tool hooks to planq-hook:\n%s", settings)
	}
	out, _ := run(bin, "doctor")
	if !strings.Contains(out, "ok   hook-bin") || !strings.Contains(out, "serves the tool hooks") {
		t.Fatalf("doctor with a matching planq-hook:\n%s", out)
	}
	// A planq-hook of another version beside a copy of planq is reported.
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "planq")
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planq-hook"), []byte("#!/bin/sh\necho planq-hook 0.0.1-other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := run(other, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL hook-bin") || !strings.Contains(out, "0.0.1-other") || !strings.Contains(out, "make install") {
		t.Fatalf("doctor with a planq-hook of another version: exit %d\n%s", code, out)
	}
}
