package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
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
	if code != 0 || !strings.Contains(out, "ok   server") || !strings.Contains(out, "8 of 8") {
		settings, _ := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
		t.Fatalf("doctor after install: exit %d\n%s\nsettings.json:\n%s", code, out, settings)
	}
}

func TestUnknownCommandPointsAtHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"nosuch"}, {"doctor", "--bogus"}} {
		_, errOut, code := runIn(t, t.TempDir(), args...)
		if code != 1 || !strings.Contains(errOut, "planq --help") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("planq %v: exit %d, stderr %q; want one line pointing at --help", args, code, errOut)
		}
	}
}

func TestInstallHintsNameThePlatformsOwnCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ goos, tool, want string }{
		{"darwin", "jj", "brew install jj"},
		{"windows", "jj", "winget install jj-vcs.jj"},
		{"linux", "jj", "make install"},
		{"freebsd", "jj", "jj-vcs.github.io"},
		{"darwin", "git", "brew install git"},
		{"darwin", "git", "git.executable-path"},
		{"windows", "git", "Git for Windows >= 2.42"},
		{"linux", "git", "scripts/install-git.sh"},
		{"freebsd", "git", "git >= 2.42"},
	} {
		if got := installHint(tt.goos, tt.tool); !strings.Contains(got, tt.want) {
			t.Errorf("installHint(%s, %s) = %q, want it to name %q", tt.goos, tt.tool, got, tt.want)
		}
	}
}

// TestDoctorChecksTheGitJJRuns: doctor follows jj's git.executable-path and
// fails a git too old for jj to fetch with, naming the fix.
func TestDoctorChecksTheGitJJRuns(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	old := filepath.Join(t.TempDir(), "git")
	os.WriteFile(old, []byte("#!/bin/sh\necho 'git version 2.39.5'\n"), 0o755)
	for _, tt := range []struct {
		setting, detail string
		ok              bool
	}{
		{old, "2.39.5", false},
		{filepath.Join(t.TempDir(), "nosuchgit"), "not installed", false},
		{"", "", true}, // what make test set up (testenv.Isolate carries it over)
	} {
		if tt.setting != "" {
			os.WriteFile(os.Getenv("JJ_CONFIG"), []byte(fmt.Sprintf("[git]\nexecutable-path = %q\n", tt.setting)), 0o644)
		} else {
			testenv.Isolate(t)
			testenv.RequireGitForJJ(t)
		}
		out, _, _ := runIn(t, repo, "doctor", "--json")
		var rep doctorReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		var git *check
		for i := range rep.Checks {
			if rep.Checks[i].Name == "git" {
				git = &rep.Checks[i]
			}
		}
		if git == nil || git.OK != tt.ok || !strings.Contains(git.Detail, tt.detail) || (!tt.ok && !strings.Contains(git.Fix, installHint(runtime.GOOS, "git"))) {
			t.Errorf("git.executable-path %q: git check %+v", tt.setting, git)
		}
		if tt.setting != "" && (rep.Git == nil || rep.Git.Setting != tt.setting) {
			t.Errorf("report's git = %+v, want the setting %s", rep.Git, tt.setting)
		}
	}
}

// TestDoctorFindsWiringLeftInAnotherChange: project-scope wiring that a `jj
// new` took off the disk is named, with the change that holds it and a fix.
func TestDoctorFindsWiringLeftInAnotherChange(t *testing.T) {
	testenv.Isolate(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin") // no claude: install edits the files itself
	repo := testenv.JJRepo(t)
	if _, errOut, code := runIn(t, repo, "mcp", "install", "--scope", "project"); code != 0 {
		t.Fatalf("mcp install: exit %d: %s", code, errOut)
	}
	testenv.Run(t, repo, "jj", "describe", "-m", "Wire planq")
	wired := strings.TrimSpace(testenv.Run(t, repo, "jj", "log", "--no-graph", "-r", "@", "-T", "change_id.short(12)"))
	testenv.Run(t, repo, "jj", "new", "root()", "-m", "Elsewhere")

	out, _, code := runIn(t, repo, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL server") || !strings.Contains(out, "is in change "+wired) || !strings.Contains(out, "jj restore --from "+wired) {
		t.Fatalf("doctor with the wiring in another change: exit %d\n%s", code, out)
	}
	testenv.Run(t, repo, "jj", "restore", "--from", wired, ".mcp.json", ".claude/settings.json")
	if out, _, code := runIn(t, repo, "doctor"); code != 0 {
		t.Fatalf("doctor after the restore it suggested: exit %d\n%s", code, out)
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
	if out, code := run(bin, "mcp", "install", "--scope", "project", "--host", "claude"); code != 0 {
		t.Fatalf("mcp install: exit %d\n%s", code, out)
	}
	settings, _ := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
	if !strings.Contains(string(settings), "planq-hook pre-tool-use") || !strings.Contains(string(settings), "planq hook session-start") {
		t.Fatalf("settings.json does not wire the tool hooks to planq-hook:\n%s", settings)
	}
	out, _ := run(bin, "doctor")
	if !strings.Contains(out, "ok   hook-bin") || !strings.Contains(out, "serves the tool hooks") || !strings.Contains(out, "runs locked shell commands") {
		t.Fatalf("doctor with a matching planq-hook and planq-sandbox:\n%s", out)
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
	// So is a planq-sandbox of another version, though planq-hook matches.
	hook, err := os.ReadFile(filepath.Join(filepath.Dir(bin), "planq-hook"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planq-hook"), hook, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planq-sandbox"), []byte("#!/bin/sh\necho planq-sandbox 0.0.2-other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code = run(other, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL hook-bin") || !strings.Contains(out, "planq-sandbox is version 0.0.2-other") || !strings.Contains(out, "make install") {
		t.Fatalf("doctor with a planq-sandbox of another version: exit %d\n%s", code, out)
	}
}

// doctor reads every session record and names the bad ones, with the fix;
// valid records pass.
func TestDoctorNamesBadSessionRecords(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.WriteFile(t, repo, ".planq/config.yaml", "project: shop-api\n")
	sessions := filepath.Join(os.Getenv("PLANQ_HOME"), "sessions", "shop-api")
	good := filepath.Join(sessions, "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")
	testenv.WriteFile(t, good, "session.json", `{"project":"p","root":"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk","changes":["kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"]}`)
	out, _, _ := runIn(t, repo, "doctor")
	if !strings.Contains(out, "ok   sessions 1 session lineage record(s), all valid") {
		t.Fatalf("doctor with one valid record:\n%s", out)
	}
	bad := filepath.Join(sessions, "abc123")
	testenv.WriteFile(t, bad, "session.json", `{"project":"p","root":"abc123"}`)
	edited := filepath.Join(sessions, "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm")
	testenv.WriteFile(t, edited, "session.json", `{"project":"p","root":"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm","changes":["x) | all() | (y"]}`)
	out, _, code := runIn(t, repo, "doctor")
	if code != 1 || !strings.Contains(out, "FAIL sessions 2 session record(s) are not valid") || !strings.Contains(out, "fix or remove") ||
		!strings.Contains(out, bad) || !strings.Contains(out, edited) {
		t.Fatalf("doctor with two bad records: exit %d\n%s", code, out)
	}
}

// TestDoctorSaysHowTheGateIsEnforced: doctor names the enforcement in force
// for Claude Code on this machine: the OS sandbox where there is one,
// parser-only and why where there is none.
func TestDoctorSaysHowTheGateIsEnforced(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	out, _, _ := runIn(t, repo, "doctor")
	want := "gate    OS sandbox ("
	if e := sandbox.Detect(); !e.Available() {
		want = "gate    parser-only (" + e.Reason + ") for Claude Code"
	}
	if !strings.Contains(out, want) || !strings.Contains(out, "Claude Code") {
		t.Errorf("doctor lacks %q:\n%s", want, out)
	}
}
