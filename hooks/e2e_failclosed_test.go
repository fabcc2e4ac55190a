package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// planqWithHookBinary builds planq and planq-hook into one directory, as
// make install does, so planq mcp install wires the tool hooks to
// planq-hook.
func planqWithHookBinary(t *testing.T) string {
	t.Helper()
	return testenv.BuildPlanqWithHook(t, "..")
}

// TestHookFailureDeniesAWriteInClaudeCode checks, in real Claude Code with
// the tool hooks served by planq-hook, that the gate fails closed: when it
// cannot read the gate state (jj's operation heads are gone), a Write is
// denied with the error as the reason, and the file does not land.
func TestHookFailureDeniesAWriteInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	w := claudeWorld(t, claude, planqWithHookBinary(t)) // built before Isolate: the builds use the real Go caches
	repo := w.Repo
	settings, err := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "planq-hook pre-tool-use") {
		t.Fatalf("the tool hooks are not wired to planq-hook: %v\n%s", err, settings)
	}
	// Declare the change, so that only the failure can deny; then break the
	// state: jj can no longer read the repository's operations.
	testenv.Run(t, repo, "jj", "describe", "-m", "Declared before the failure")
	if err := os.RemoveAll(filepath.Join(repo, ".jj", "repo", "op_heads", "heads")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, ".jj", "planq-gate.json")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	target := filepath.Join(repo, "landed.txt")
	s := w.Run(claudeCode(w, claude), "Write the file",
		fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": target, "content": "must not land\n"}}}},
		fakemodel.Turn{Text: "Done."},
	)
	loop := s.Loop
	if len(loop) < 2 {
		t.Fatalf("the model was asked %d times; the Write did not come back", len(loop))
	}
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Text, "could not read the gate state") {
		t.Errorf("after the Write the model got %+v, want a denial naming the unreadable gate state", trs)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the Write landed (%v) although the gate could not judge it", err)
	}
}
