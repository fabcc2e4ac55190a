package codex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestSandboxInCodex drives the real Codex (`codex exec`) in a session
// whose change is not declared: its shell write is refused by the kernel,
// leaving no file, and the model reads why; its shell read runs and prints.
// A command one of the user's execpolicy rules is about is not rewritten,
// so Codex's own rule still refuses it.
func TestSandboxInCodex(t *testing.T) {
	e2e.RequireSandbox(t)
	bin := fakemodel.EnsureCodex(t)
	w := e2e.Wired(t, "../..", "codex")
	codexHome := filepath.Join(w.Home, ".codex")
	testenv.WriteFile(t, codexHome, "config.toml", fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", w.Repo))
	codex := w.CLI(bin, fakemodel.HostRun.Codex)
	shell := func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": command}}
	}
	w.PlayLocked(codex, shell, "is read-only until the change is declared", "call mcp__planq__jj_init")

	// The user forbids wc; a locked wc is left to that rule.
	testenv.WriteFile(t, filepath.Join(codexHome, "rules"), "default.rules", `prefix_rule(pattern = ["wc"], decision = "forbidden", justification = "no wc here")`+"\n")
	s := w.Run(codex, "Count.", fakemodel.Turn{Text: "Counting.", Tools: []fakemodel.ToolUse{shell("wc -l .gitignore")}}, fakemodel.Turn{Text: "Done."})
	w.ToolResult(s.Loop[len(s.Loop)-1], "a locked wc the user's rule forbids", "rejected: no wc here", "-lc 'wc -l .gitignore'")
	if _, err := os.Stat(filepath.Join(w.Repo, "x")); !os.IsNotExist(err) {
		t.Fatalf("x exists after the sessions (%v)", err)
	}
}
