package copilot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestEndToEndInCopilot drives the real Copilot CLI (`copilot -p`, BYOK
// against a scripted model speaking Chat Completions, offline) in a fresh
// jj repo wired with `planq mcp install --host copilot`: the first create
// is denied naming planq-jj_init, planq-jj_init unlocks the gate, a create
// and a bash edit land in the change, the Stop hook's nudge comes back as a
// new turn whose planq-jj_describe writes the summary, and a second
// session gets planq's instructions, reads the change's summary with
// planq-jj_status and the first session's transcript with
// planq-query_ancestor.
func TestEndToEndInCopilot(t *testing.T) {
	bin := fakemodel.EnsureCopilot(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../..")) // before Isolate: the build uses the real Go caches
	w.Install("--host", "copilot")
	copilot := w.CLI(bin, fakemodel.HostRun.Copilot)

	hello := filepath.Join(w.Repo, "hello.txt")
	var nudge string
	s := w.Play(copilot, "Add a greeting file",
		fakemodel.Turn{Text: "Creating the file.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": hello, "file_text": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Creating the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": hello, "file_text": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending with bash.", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo more >> hello.txt", "description": "append"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			nudge = r.LastUserText()
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_describe", Input: map[string]any{"description": e2e.Summary}}}}
		}},
		fakemodel.Turn{Text: "Summarised."},
	)
	// The first create was denied, the model told to call planq-jj_init.
	w.ToolResult(s.Loop[1], "the first create", "planq gate: blocked", "planq-jj_init")
	// planq-jj_init unlocked the gate; the create and the bash edit landed
	// in the declared change, without the local wiring, and the summary the
	// nudge asked for is its description.
	w.CheckGreeting(".github")
	// The Stop hook's nudge came back as a new turn naming planq-jj_describe.
	if !strings.Contains(nudge, "planq: the diff of change") || !strings.Contains(nudge, "planq-jj_describe") {
		t.Fatalf("the turn after the first stop got %q, want planq's nudge naming planq-jj_describe", e2e.Trunc(nudge, 2000))
	}

	// A second session has planq's instructions, reads the summary with
	// planq-jj_status and the first session's transcript with
	// planq-query_ancestor; its stop does not nudge (the summary is
	// current).
	s = w.Play(copilot, "What did the last session do?",
		fakemodel.Turn{Text: "Looking at the change.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_status", Input: map[string]any{}}}},
		e2e.AskAncestor("planq-query_ancestor", "okapi"),
		fakemodel.Turn{Text: "Found it."},
	)
	if sys := s.Loop[0].System(); !strings.Contains(sys, "call `planq-jj_status`") || !strings.Contains(sys, "declare the change with `planq-jj_init`") {
		t.Fatalf("session 2's system prompt lacks planq's instructions:\n%s", e2e.Trunc(sys, 4000))
	}
	w.ToolResult(s.Loop[1], "planq-jj_status", "zebra-decision")
	w.ToolOK(s.Loop[2], "query_ancestor", "Transcript:", "Creating the okapi file again.", "assistant calls create")
}

// TestSubagentInCopilot: a subagent Copilot starts with the task tool gets
// planq's context through subagentStart (prepended to its prompt), and its
// own write is gated, denied naming planq-jj_init, like its parent's.
func TestSubagentInCopilot(t *testing.T) {
	bin := fakemodel.EnsureCopilot(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../.."))
	w.Install("--host", "copilot")
	var subPrompt string
	s := w.Play(w.CLI(bin, fakemodel.HostRun.Copilot), "Delegate it",
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "task", Input: map[string]any{
			"name": "helper", "description": "write sub.txt", "prompt": "write sub.txt", "agent_type": "general-purpose", "mode": "sync"}}}},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			subPrompt = r.LastUserText()
			return fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": filepath.Join(w.Repo, "sub.txt"), "file_text": "sub\n"}}}}
		}},
		fakemodel.Turn{Text: "Could not write."},
		fakemodel.Turn{Text: "Done."},
	)
	if !strings.Contains(subPrompt, "write sub.txt") || !strings.Contains(subPrompt, "planq: this session works in jj change") || !strings.Contains(subPrompt, "planq-jj_init") {
		t.Fatalf("the subagent's prompt lacks planq's context:\n%s", e2e.Trunc(subPrompt, 3000))
	}
	w.ToolResult(s.Loop[2], "the subagent's create", "planq gate: blocked", "planq-jj_init")
	if _, err := os.Stat(filepath.Join(w.Repo, "sub.txt")); !os.IsNotExist(err) {
		t.Fatalf("the subagent's denied create landed (%v)", err)
	}
}
