package opencode_test

import (
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestSandboxInOpenCode drives the real OpenCode (`opencode run`) in a
// session whose change is not declared: its bash write is refused by the
// kernel, leaving no file, and the model reads why; its bash read runs and
// prints.
func TestSandboxInOpenCode(t *testing.T) {
	if e := sandbox.Detect(); !e.Available() {
		t.Skipf("SKIPPED: this machine has no OS sandbox (%s); the gate stays parser-only", e)
	}
	oc := fakemodel.EnsureOpenCode(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../.."))
	w.Install("--host", "opencode")
	w.PlayLocked(w.CLI(oc, fakemodel.HostRun.OpenCode), func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": command, "description": "run it"}}
	}, "is read-only until the change is declared", "call planq_jj_init")
}
