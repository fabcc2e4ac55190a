package opencode_test

import (
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestSandboxInOpenCode drives the real OpenCode (`opencode run`) in a
// session whose change is not declared: its bash write is refused by the
// kernel, leaving no file, and the model reads why; its bash read runs and
// prints. A command one of the user's bash rules is about is not rewritten,
// so OpenCode's own rule still refuses it.
func TestSandboxInOpenCode(t *testing.T) {
	e2e.RequireSandbox(t)
	oc := fakemodel.EnsureOpenCode(t)
	w := e2e.Wired(t, "../..", "opencode")
	opencode := w.CLI(oc, fakemodel.HostRun.OpenCode)
	bash := func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": command, "description": "run it"}}
	}
	w.PlayLocked(opencode, bash, "is read-only until the change is declared", "call planq_jj_init")

	// The user denies wc; a locked wc is left to that rule.
	testenv.WriteFile(t, w.Repo, "opencode.json", `{"permission":{"bash":{"*":"allow","wc *":"deny"}}}`)
	s := w.Run(opencode, "Count.", fakemodel.Turn{Text: "Counting.", Tools: []fakemodel.ToolUse{bash("wc -l opencode.json")}}, fakemodel.Turn{Text: "Done."})
	w.ToolResult(s.Loop[len(s.Loop)-1], "a locked wc the user's rule denies", "prevents you from using this specific tool call", `"wc *"`)
}
