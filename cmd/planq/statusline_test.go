package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestStatuslineCommand runs `planq statusline` in-process, and both
// binaries as Claude Code would, on the same payload: one line, exit 0,
// whatever the input.
func TestStatuslineCommand(t *testing.T) {
	bin := testenv.BuildPlanqWithHook(t, "../..") // before Isolate: the builds need the real caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.Run(t, repo, "jj", "describe", "-m", "Show the status\n\nLeft to do:\n- one\n")
	other := t.TempDir()
	payload := func(dir string) string {
		return `{"session_id":"s","cwd":"/elsewhere","workspace":{"current_dir":"` + dir + `"}}`
	}
	t.Setenv("COLUMNS", "200")

	tests := []struct {
		name, stdin, want string
	}{
		{"a payload", payload(repo), " · gate open · Show the status · 1 left to do\n"},
		{"no payload: the working directory", "", " · gate open · Show the status · 1 left to do\n"},
		{"outside a repo", payload(other), "planq: not in a jj repo · jj git init --colocate starts one\n"},
		{"bad input", "not json", "planq: bad status input: not JSON: invalid character 'o' in literal null (expecting 'u')\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runHookIn(t, repo, tt.stdin, "statusline")
			if code != 0 || errs != "" || !strings.HasSuffix(out, tt.want) || strings.Count(out, "\n") != 1 {
				t.Errorf("planq statusline: exit %d, stdout %q, stderr %q; want one line ending in %q", code, out, errs, tt.want)
			}
			// planq-hook statusline, which install wires, prints the same.
			cmd := exec.Command(filepath.Join(filepath.Dir(bin), "planq-hook"), "statusline")
			cmd.Dir, cmd.Stdin = repo, strings.NewReader(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			hookOut, err := cmd.Output()
			if err != nil || string(hookOut) != out || stderr.Len() > 0 {
				t.Errorf("planq-hook statusline: %v, %q (stderr %q), want %q", err, hookOut, stderr.String(), out)
			}
		})
	}
	// Run by hand with no input at all (stdin at /dev/null), it looks at
	// the current directory.
	cmd := exec.Command(bin, "statusline")
	cmd.Dir = repo
	if devnull, err := os.Open(os.DevNull); err == nil {
		defer devnull.Close()
		cmd.Stdin = devnull
	}
	if out, err := cmd.Output(); err != nil || !strings.HasSuffix(string(out), " · gate open · Show the status · 1 left to do\n") {
		t.Errorf("planq statusline < /dev/null: %v, %q", err, out)
	}
}

// TestInstallStatuslineFlag wires the status line through the CLI: a dry
// run shows it, doctor reports it, and a user's own status line is kept
// with a one-line warning, in a dry run too.
func TestInstallStatuslineFlag(t *testing.T) {
	testenv.Isolate(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin") // no claude: install edits the files itself
	repo := testenv.JJRepo(t)
	settings := filepath.Join(repo, ".claude", "settings.local.json")

	out, errs, code := runIn(t, repo, "mcp", "install", "--host", "claude", "--statusline", "--dry-run")
	if code != 0 || !strings.Contains(out, `+  "statusLine": {`) || !strings.Contains(out, ` statusline"`) {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if out, _, _ := runIn(t, repo, "doctor"); !strings.Contains(out, "statusline Claude Code: no status line (optional") {
		t.Errorf("doctor before install:\n%s", out)
	}
	if out, errs, code := runIn(t, repo, "mcp", "install", "--host", "claude", "--statusline"); code != 0 || !strings.Contains(out, "status line wired in "+settings) {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	if out, _, _ := runIn(t, repo, "doctor"); !strings.Contains(out, "ok   statusline Claude Code: planq's status line is wired ("+settings+")") {
		t.Errorf("doctor after install:\n%s", out)
	}
	if _, errs, code := runIn(t, repo, "mcp", "uninstall", "--host", "claude"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, errs)
	}

	// A status line of the user's own, in their user settings.
	user := filepath.Join(os.Getenv("HOME"), ".claude", "settings.json")
	testenv.WriteFile(t, filepath.Dir(user), "settings.json", `{"statusLine": {"type": "command", "command": "my-status"}}`)
	for _, dry := range []string{"--dry-run", "--statusline"} {
		_, errs, code := runIn(t, repo, "mcp", "install", "--host", "claude", "--statusline", dry)
		warn := "planq: Claude Code: the status line in " + user + " is your own, so planq left it as it is; to show both, set its command to "
		if code != 0 || !strings.Contains(errs, warn) || strings.Count(errs[strings.Index(errs, warn):], "\n") != 1 {
			t.Errorf("install %s with the user's own: exit %d, stderr:\n%s", dry, code, errs)
		}
	}
	if data, err := os.ReadFile(settings); err != nil || strings.Contains(string(data), "statusLine") {
		t.Errorf("planq wired its status line over the user's: %s %v", data, err)
	}
}
