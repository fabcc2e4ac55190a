package gemini_test

import (
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
)

// TestSandboxInGemini drives the real Gemini CLI (`gemini -p`) in a session
// whose change is not declared: its run_shell_command write is refused by
// the kernel, leaving no file, and the model reads why; its read runs and
// prints. A command Gemini CLI refuses itself ($(…)) is still refused by it.
func TestSandboxInGemini(t *testing.T) {
	e2e.RequireSandbox(t)
	gm := fakemodel.EnsureGemini(t)
	w := e2e.Wired(t, "../..", "gemini")
	gemini := w.CLI(gm, fakemodel.HostRun.Gemini)
	shell := func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": command, "description": "run it"}}
	}
	w.PlayLocked(gemini, shell, "is read-only until the change is declared", "call mcp_planq_jj_init")

	s := w.Run(gemini, "List.", fakemodel.Turn{Text: "Listing.", Tools: []fakemodel.ToolUse{shell("ls $(pwd)")}}, fakemodel.Turn{Text: "Done."})
	w.ToolResult(s.Loop[1], "a locked command with $(…)", "Command injection detected")
}
