package copilot_test

import (
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
)

// TestSandboxInCopilot drives the real Copilot CLI (`copilot -p`) in a
// session whose change is not declared: its bash write is refused by the
// kernel, leaving no file, and the model reads why; its bash read runs and
// prints.
func TestSandboxInCopilot(t *testing.T) {
	e2e.RequireSandbox(t)
	bin := fakemodel.EnsureCopilot(t)
	w := e2e.Wired(t, "../..", "copilot")
	w.PlayLocked(w.CLI(bin, fakemodel.HostRun.Copilot), func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": command, "description": "run it"}}
	}, "is read-only until the change is declared", "call planq-jj_init")
}
