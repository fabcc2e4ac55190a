package fakemodel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestHostsRunScriptedShell proves each wire against its real host: the CLI,
// pointed at the fake model, runs the shell call the model scripted in the
// host's own tool, sends the output back in the next request, and prints the
// scripted final text.
func TestHostsRunScriptedShell(t *testing.T) {
	t.Parallel()
	const cmd = "echo hi-from-shell > out.txt; echo hi-from-shell"
	hosts := []struct {
		name   string
		ensure func(testing.TB) string
		tool   ToolUse
		wire   Wire
		run    func(HostRun, context.Context) (Result, error)
	}{
		{"opencode", EnsureOpenCode, ToolUse{Name: "bash", Input: map[string]any{"command": cmd, "description": "say hi"}}, WireChat, HostRun.OpenCode},
		{"codex", EnsureCodex, ToolUse{Name: "exec_command", Input: map[string]any{"cmd": cmd}}, WireResponses, HostRun.Codex},
		{"copilot", EnsureCopilot, ToolUse{Name: "bash", Input: map[string]any{"command": cmd, "description": "say hi"}}, WireChat, HostRun.Copilot},
		{"gemini", EnsureGemini, ToolUse{Name: "run_shell_command", Input: map[string]any{"command": cmd, "description": "say hi"}}, WireGemini, HostRun.Gemini},
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			bin := h.ensure(t)
			m, err := Start(
				Turn{Text: "I will run a command.", Tools: []ToolUse{h.tool}},
				Turn{Text: "All done."},
			)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			dir, home := t.TempDir(), t.TempDir()
			ctx := testenv.Context(t)
			res, err := h.run(HostRun{Bin: bin, Dir: dir, Home: home, Model: m, Prompt: "say hi"}, ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range m.Requests() {
				t.Logf("request %d %s loop=%v turn=%d tools=%d\n%s", i, r.Wire, r.Loop, r.Turn, len(r.ToolNames()), truncate(r.LastUserText(), 300))
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); strings.TrimSpace(string(got)) != "hi-from-shell" {
				t.Fatalf("out.txt = %q, want the shell call to have run\nstdout: %s\nstderr: %s", got, res.Stdout, truncate(res.Stderr, 2000))
			}
			loop := m.LoopRequests()
			if len(loop) < 2 || loop[1].Wire != h.wire {
				t.Fatalf("got %d agent-loop requests (want 2 on the %s wire)", len(loop), h.wire)
			}
			trs := loop[1].ToolResults()
			if len(trs) != 1 || !strings.Contains(trs[0].Text, "hi-from-shell") {
				t.Fatalf("second request's tool results = %+v, want the echo output", trs)
			}
			if !strings.Contains(res.Stdout, "All done.") {
				t.Fatalf("stdout lacks the scripted final text:\n%s", truncate(res.Stdout, 2000))
			}
			if res.SessionID == "" {
				t.Fatalf("no session id in the output:\n%s", truncate(res.Stdout, 2000))
			}
		})
	}
}
