//go:build linux

package hooks_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/ptyterm"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestStatusLineInClaudeCode runs the real Claude Code TUI in a
// pseudo-terminal, wired with `planq mcp install --statusline`, and reads
// its screen: Claude Code runs planq's statusLine command (planq-hook
// statusline) and shows its line under the prompt, and the line follows the
// change as the scripted model declares it (jj_init) and writes its living
// summary (jj_describe). Only the interactive TUI runs a statusLine
// command; `claude -p` never does (2.1.197).
func TestStatusLineInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	testenv.RequireJJ(t)
	planq := testenv.BuildPlanqWithHook(t, "..") // before Isolate: the build uses the real Go caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real // Claude Code keys its projects by the real path
	}
	home := os.Getenv("HOME")
	ctx := testenv.Context(t)

	// A Claude Code that has been set up before: onboarding done, the fake
	// API key approved, the project trusted (Claude Code runs no statusLine
	// in an untrusted workspace), planq's tools allowed.
	writeJSON(t, filepath.Join(home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{"x"}, "rejected": []string{}},
		"projects":               map[string]any{repo: map[string]any{"hasTrustDialogAccepted": true}},
	})
	writeJSON(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{
		"permissions": map[string]any{"allow": []string{"mcp__planq"}},
	})
	install := exec.CommandContext(ctx, planq, "mcp", "install", "--scope", "local", "--statusline", "--host", "claude")
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "status line wired in") {
		t.Fatalf("planq mcp install --statusline: %v\n%s", err, out)
	}
	var settings struct {
		StatusLine struct{ Type, Command string } `json:"statusLine"`
	}
	readJSON(t, filepath.Join(repo, ".claude", "settings.local.json"), &settings)
	if want := filepath.Join(filepath.Dir(planq), "planq-hook") + " statusline"; settings.StatusLine.Command != want {
		t.Fatalf("statusLine command = %q, want %q", settings.StatusLine.Command, want)
	}

	summary := "Add a greeting file\n\nDone:\n- declared the change\n\nKey decisions:\n- plain text\n\nLeft to do:\n- write hello.txt\n- test it\n\nOpen questions:\n- none"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": summary}}}},
		fakemodel.Turn{Text: "Declared and summarised."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	cmd := exec.Command(claude)
	cmd.Dir = repo
	cmd.Env = append(fakemodel.Run{Claude: claude, Dir: repo, Home: home, Model: m}.Environ(), claudeEnv()...)
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	const cols = 120
	term, err := ptyterm.Start(cmd, 40, cols)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Logf("screen:\n%s", term.Screen())
		if os.Getenv("PLANQ_E2E_DEBUG") != "" {
			t.Logf("raw output:\n%q", term.Raw())
		}
		t.Fatalf(format, args...)
	}
	// statusRow finds planq's line on the screen by its gate part: the
	// row's text up to the gap before what Claude Code shows on the right
	// of the same row (the effort level).
	statusRow := func(screen, part string) string {
		for _, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, " · "+part) {
				l, _, _ = strings.Cut(strings.TrimSpace(l), "   ")
				return l
			}
		}
		return ""
	}

	// (1) At the prompt, before anything is declared: the gate is locked.
	screen, err := term.WaitFor(ctx, func(s string) bool { return statusRow(s, "gate locked") != "" })
	if err != nil {
		fail("no locked status line: %v", err)
	}
	locked := statusRow(screen, "gate locked")
	id := e2e.JJ(t, repo, "log", "-r", "@", "--no-graph", "-T", "change_id.short(12)")
	if want := id + " · gate locked · no change declared: jj_init first"; locked != want {
		fail("status line %q, want %q", locked, want)
	}

	// (2) The model declares the change and summarises it: the line shows
	// the new change, the open gate, the task and what is left.
	if err := term.Type("Add a greeting file"); err != nil {
		t.Fatal(err)
	}
	if _, err := term.WaitFor(ctx, func(s string) bool { return strings.Contains(s, "Add a greeting file") }); err != nil {
		fail("the prompt was not typed: %v", err)
	}
	if err := term.Type("\r"); err != nil {
		t.Fatal(err)
	}
	screen, err = term.WaitFor(ctx, func(s string) bool { return strings.HasSuffix(statusRow(s, "gate open"), "left to do") })
	if err != nil {
		fail("no open status line with the summary: %v", err)
	}
	open := statusRow(screen, "gate open")
	id = e2e.JJ(t, repo, "log", "-r", "@", "--no-graph", "-T", "change_id.short(12)")
	if want := id + " · gate open · Add a greeting file · 2 left to do"; open != want {
		fail("status line %q, want %q", open, want)
	}
	if unused, _ := m.Remaining(); unused != 0 {
		fail("%d scripted turns unused", unused)
	}
	if w := len([]rune(open)); w > cols-4 {
		fail("the status line is %d columns wide in a %d-column terminal", w, cols)
	}
	t.Logf("the screen at the end:\n%s", screen)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
