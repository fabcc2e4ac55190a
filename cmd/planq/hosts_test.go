package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// fakeCLI puts an executable named name in a new directory and returns the
// directory, for a PATH on which that host looks installed.
func fakeCLI(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// With no --host, install wires the hosts found on the machine and says
// which; with none found, Claude Code.
func TestInstallWiresTheHostsItFinds(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	t.Setenv("PATH", fakeCLI(t, "opencode")+":/usr/local/bin:/usr/bin:/bin")
	out, errs, code := runIn(t, repo, "mcp", "install")
	if code != 0 || !strings.Contains(errs, "found OpenCode on this machine") {
		t.Fatalf("mcp install: exit %d\n%s%s", code, out, errs)
	}
	for _, p := range []string{".opencode/opencode.json", ".opencode/plugin/planq.js"} {
		if _, err := os.Stat(filepath.Join(repo, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".claude")); !os.IsNotExist(err) {
		t.Errorf("Claude Code was wired though it is not on this machine (%v)", err)
	}
	// doctor reports OpenCode's wiring, and passes without Claude Code's.
	out, _, code = runIn(t, repo, "doctor")
	if !strings.Contains(out, "ok   opencode-server") || !strings.Contains(out, "ok   opencode-hooks 6 of 6 OpenCode hooks wired") || strings.Contains(out, "FAIL server") {
		t.Errorf("doctor (exit %d):\n%s", code, out)
	}

	// No host on the machine: Claude Code, the default, and a note.
	repo2 := testenv.JJRepo(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
	out, errs, code = runIn(t, repo2, "mcp", "install")
	if code != 0 || !strings.Contains(errs, "found no agent host") || !strings.Contains(out, "Claude Code") {
		t.Fatalf("mcp install with no host: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(repo2, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	// A host planq does not know is a one-line error naming those it knows.
	_, errs, code = runIn(t, repo2, "mcp", "install", "--host", "cursor")
	if code == 0 || !strings.Contains(errs, `unknown host "cursor": planq knows claude, opencode`) {
		t.Fatalf("--host cursor: exit %d, %q", code, errs)
	}
}

// start, continue and resume launch the host's own CLI: OpenCode with
// --prompt, and a session recorded from OpenCode resumes in OpenCode.
func TestSessionsLaunchTheirHost(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
	out, errs, code := runIn(t, repo, "start", "Add a greeting file", "--agent", "opencode", "--agent-cmd", "none")
	if code != 0 || !strings.Contains(out, "opencode --prompt 'Add a greeting file'") {
		t.Fatalf("start --agent opencode: exit %d\n%s%s", code, out, errs)
	}
	// OpenCode's session-start hook records its session in the lineage.
	payload := `{"sessionID":"ses_0123abc","directory":"` + repo + `","source":"startup"}`
	if out, errs, code := runHookIn(t, repo, payload, "hook", "session-start", "--host", "opencode"); code != 0 || !strings.Contains(out, "planq_jj_describe") {
		t.Fatalf("session-start --host opencode: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	out, errs, code = runIn(t, repo, "resume", "@", "--agent-cmd", "none")
	if code != 0 || !strings.Contains(out, "opencode --session ses_0123abc") || !strings.Contains(errs, "resuming OpenCode session ses_0123abc") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errs)
	}
	_, errs, code = runIn(t, repo, "resume", "@", "--agent", "claude", "--agent-cmd", "none")
	if code == 0 || !strings.Contains(errs, "ran in OpenCode, so Claude Code cannot resume it") {
		t.Fatalf("resume --agent claude: exit %d, %q", code, errs)
	}
}
