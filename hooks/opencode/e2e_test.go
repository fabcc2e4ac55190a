package opencode_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestEndToEndInOpenCode drives the real OpenCode CLI (`opencode run`)
// against a scripted model speaking Chat Completions, in a fresh jj repo
// wired with `planq mcp install --host opencode`: the first write is denied
// naming planq_jj_init, planq_jj_init unlocks the gate, a write and a bash
// edit land in the change, planq_jj_describe writes the summary, and a
// second session gets the change's context and reads the first session's
// transcript back with planq_query_ancestor.
func TestEndToEndInOpenCode(t *testing.T) {
	oc := fakemodel.EnsureOpenCode(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../..")) // before Isolate: the build uses the real Go caches
	w.Install("--host", "opencode")
	opencode := w.CLI(oc, fakemodel.HostRun.OpenCode)

	hello := filepath.Join(w.Repo, "hello.txt")
	s := w.Play(opencode, "Add a greeting file",
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "write", Input: map[string]any{"filePath": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "planq_jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "write", Input: map[string]any{"filePath": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending with bash.", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo more >> hello.txt", "description": "append"}}}},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "planq_jj_describe", Input: map[string]any{"description": e2e.Summary}}}},
		fakemodel.Turn{Text: "Done."},
	)
	// The first write was denied, the model told to call planq_jj_init.
	w.ToolResult(s.Loop[1], "the first write", "planq gate: blocked", "call planq_jj_init")
	// planq_jj_init unlocked the gate; the write and the bash edit landed in
	// the declared change, which holds the summary.
	w.CheckGreeting(".opencode")

	// A second session starts with the change's context, and reads the first
	// session's transcript through planq_query_ancestor.
	s = w.Play(opencode, "What did the last session do?", e2e.AskAncestor("planq_query_ancestor", "okapi"), fakemodel.Turn{Text: "Found it."})
	sys := s.Loop[0].System()
	if !strings.Contains(sys, "planq: this session works in jj change") || !strings.Contains(sys, "zebra-decision") || !strings.Contains(sys, "planq_query_ancestor") {
		t.Fatalf("session 2's system prompt lacks planq's context:\n%s", e2e.Trunc(sys, 4000))
	}
	w.ToolOK(s.Loop[1], "query_ancestor", "Transcript:", "Writing the okapi file again.", "assistant calls write")
}
