package claude

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
)

// statusLineOf returns the statusLine object in a settings file, or nil.
func statusLineOf(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	sl, _ := decode(t, string(data))["statusLine"].(map[string]any)
	return sl
}

func TestInstallStatusLineWiresAndIsIdempotent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	settings := filepath.Join(w.repo, ".claude", "settings.json")
	write(t, settings, userSettings)
	o := w.opts(ScopeProject)
	o.StatusLine = true

	// A dry run shows it and writes nothing.
	dry := o
	dry.DryRun = true
	res, err := Install(ctx, dry)
	if err != nil {
		t.Fatal(err)
	}
	var diff string
	for _, e := range res.Edits {
		diff += unified.Edit(e)
	}
	if !strings.Contains(diff, `+    "statusLine": {`) || !strings.Contains(diff, `+        "command": "/opt/planq/bin/planq statusline"`) {
		t.Errorf("dry run diff lacks the status line:\n%s", diff)
	}
	if sl := statusLineOf(t, settings); sl != nil {
		t.Fatalf("dry run wrote %v", sl)
	}

	res, err = Install(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	sl := statusLineOf(t, settings)
	if sl["type"] != "command" || sl["command"] != "/opt/planq/bin/planq statusline" {
		t.Fatalf("statusLine = %v", sl)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "status line wired in "+settings) || len(res.Warnings) != 0 {
		t.Errorf("notes %q, warnings %q", res.Notes, res.Warnings)
	}
	if got := decode(t, read(t, settings)); got["model"] != "opus" || len(planqHooks(t, got)) != len(Hooks) {
		t.Errorf("the rest of the file: %v", got)
	}
	before := read(t, settings)
	if res, err := Install(ctx, o); err != nil || res.Changed() {
		t.Fatalf("second install: changed %v, %v", res.Edits, err)
	}
	// An install without --statusline keeps it.
	if res, err := Install(ctx, w.opts(ScopeProject)); err != nil || res.Changed() || read(t, settings) != before {
		t.Fatalf("install without the status line: changed %v, %v", res.Edits, err)
	}

	// With planq-hook installed, the status line runs it, keeping what the
	// user added to planq's entry.
	edited := strings.Replace(before, `"command": "/opt/planq/bin/planq statusline"`, `"command": "/opt/planq/bin/planq statusline",
    "refreshInterval": 5`, 1)
	write(t, settings, edited)
	o.HookExe = "/opt/planq/bin/planq-hook"
	if _, err := Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	if sl := statusLineOf(t, settings); sl["command"] != "/opt/planq/bin/planq-hook statusline" || sl["refreshInterval"] != 5.0 {
		t.Errorf("statusLine after planq-hook = %v", sl)
	}

	// Uninstall takes it out with the rest of planq, and only that.
	un := w.opts(ScopeProject)
	un.Uninstall = true
	if _, err := Install(ctx, un); err != nil {
		t.Fatal(err)
	}
	got := decode(t, read(t, settings))
	if _, ok := got["statusLine"]; ok || got["model"] != "opus" {
		t.Errorf("after uninstall: %v", got)
	}
}

func TestInstallStatusLineKeepsTheUsersOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const mine = `{
  "statusLine": {"type": "command", "command": "~/bin/my status.sh", "padding": 1}
}
`
	t.Run("in the same file", func(t *testing.T) {
		w := newWorld(t)
		settings := filepath.Join(w.repo, ".claude", "settings.local.json")
		write(t, settings, mine)
		o := w.opts(ScopeLocal)
		o.StatusLine = true
		for _, dry := range []bool{true, false} {
			o.DryRun = dry
			res, err := Install(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "status line in "+settings+" is your own, so planq left it") {
				t.Fatalf("dry run %v: warnings %q", dry, res.Warnings)
			}
		}
		sl := statusLineOf(t, settings)
		if sl["command"] != "~/bin/my status.sh" || sl["padding"] != 1.0 {
			t.Errorf("the user's status line became %v", sl)
		}
		if len(planqHooks(t, decode(t, read(t, settings)))) != len(Hooks) {
			t.Errorf("the hooks were not wired beside it")
		}
		// Uninstall leaves it too.
		un := w.opts(ScopeLocal)
		un.Uninstall = true
		if _, err := Install(ctx, un); err != nil {
			t.Fatal(err)
		}
		if sl := statusLineOf(t, settings); sl["command"] != "~/bin/my status.sh" {
			t.Errorf("uninstall took the user's status line: %v", sl)
		}
	})
	t.Run("in the user's settings, which a project's would hide", func(t *testing.T) {
		w := newWorld(t)
		user := filepath.Join(w.home, ".claude", "settings.json")
		write(t, user, mine)
		o := w.opts(ScopeProject)
		o.StatusLine = true
		res, err := Install(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], user) {
			t.Fatalf("warnings %q, want one naming %s", res.Warnings, user)
		}
		if sl := statusLineOf(t, filepath.Join(w.repo, ".claude", "settings.json")); sl != nil {
			t.Errorf("planq wired a status line over the user's: %v", sl)
		}
	})
}

// TestCombineAdviceRuns runs the command the warning advises in a real
// shell: both status lines get the same input, and come out joined.
func TestCombineAdviceRuns(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "my status.sh")
	write(t, script, "#!/bin/sh\nprintf 'mine:%s\\n' \"$(cat)\"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	advice := combineAdvice(statusLineSetting{File: "settings.json", Command: conffile.Line(script)}, "sed s/^/planq:/")
	_, quoted, ok := strings.Cut(advice, "set its command to ")
	if !ok {
		t.Fatalf("advice %q has no command", advice)
	}
	var command string
	if err := json.Unmarshal([]byte(quoted), &command); err != nil {
		t.Fatalf("the advised command %s is not a JSON string: %v", quoted, err)
	}
	cmd := exec.Command(sh, "-c", command)
	cmd.Stdin = strings.NewReader(`{"cwd":"/x"}`)
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != `mine:{"cwd":"/x"} · planq:{"cwd":"/x"}`+"\n" {
		t.Errorf("the advised command printed %q, %v", out, err)
	}
}

func TestStatusLineFinding(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	settings := filepath.Join(w.repo, ".claude", "settings.json")
	local := filepath.Join(w.repo, ".claude", "settings.local.json")
	bin := filepath.Join(w.home, "planq-hook")
	write(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		project, locals string
		ok              bool
		detail          string
	}{
		{"none", "", "", true, "no status line (optional: `planq mcp install --statusline`"},
		{"planq's", `{"statusLine":{"type":"command","command":"` + bin + ` statusline"}}`, "", true, "planq's status line is wired (" + settings + ")"},
		{"planq's, binary gone", `{"statusLine":{"type":"command","command":"/gone/planq statusline"}}`, "", false, "/gone/planq is not an executable"},
		{"the user's own hides planq's", `{"statusLine":{"type":"command","command":"` + bin + ` statusline"}}`, `{"statusLine":{"type":"command","command":"mine"}}`, true, "the status line is your own (" + local + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(settings)
			os.Remove(local)
			if tt.project != "" {
				write(t, settings, tt.project)
			}
			if tt.locals != "" {
				write(t, local, tt.locals)
			}
			var found []conffile.Finding
			for _, st := range Installed(w.repo, w.home) {
				for _, f := range st.Findings {
					if f.Check == "statusline" {
						found = append(found, f)
					}
				}
			}
			if len(found) != 1 || found[0].OK != tt.ok || !strings.Contains(found[0].Detail, tt.detail) || found[0].OK != (found[0].Fix == "") {
				t.Errorf("findings %+v, want one, ok %v, with %q", found, tt.ok, tt.detail)
			}
		})
	}
}

func TestIsPlanqStatusLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, exe string
		want     bool
	}{
		{"/opt/planq/bin/planq statusline", "", true},
		{"/opt/planq/bin/planq-hook statusline", "", true},
		{`'/my dir/planq.exe' statusline`, "", true},
		{`'C:\tools\planq-hook.exe' statusline`, "", true},
		{"/usr/local/bin/pq statusline", "/usr/local/bin/pq", true},
		{"/usr/local/bin/pq statusline", "", false},
		{"planq statusline --verbose", "", false},
		{"~/bin/status.sh", "", false},
		{"sh -c 'planq statusline'", "", false},
		{"planq hook statusline", "", false},
	}
	for _, tt := range tests {
		if got := isPlanqStatusLine(tt.cmd, tt.exe); got != tt.want {
			t.Errorf("isPlanqStatusLine(%q, %q) = %v, want %v", tt.cmd, tt.exe, got, tt.want)
		}
	}
}
