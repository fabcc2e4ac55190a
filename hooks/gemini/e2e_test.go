package gemini_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestEndToEndInGemini drives the real Gemini CLI (`gemini -p`) against a
// scripted model speaking Gemini's streamGenerateContent SSE, in a fresh jj
// repo wired with `planq mcp install --host gemini` (local scope, the
// workspace trusted for the run): the first write_file is denied naming
// mcp_planq_jj_init, mcp_planq_jj_init unlocks the gate, a write_file and a
// run_shell_command in a dir_path land in the change, the AfterAgent nudge
// becomes a new user turn in which the model writes the summary with
// mcp_planq_jj_describe, and a second session gets the change's context
// (<hook_context> before the prompt) and reads the first session's
// transcript back with mcp_planq_query_ancestor.
func TestEndToEndInGemini(t *testing.T) {
	gm := fakemodel.EnsureGemini(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../..")) // before Isolate: the build uses the real Go caches
	if out := w.Install("--host", "gemini"); !strings.Contains(out, "not trusted") {
		t.Fatalf("install did not say the folder is not trusted yet:\n%s", out)
	}
	testenv.WriteFile(t, w.Repo, "sub/keep.txt", "")
	gemini := w.CLI(gm, fakemodel.HostRun.Gemini)

	hello := filepath.Join(w.Repo, "hello.txt")
	var vaulted bool
	s := w.Play(gemini, "Add a greeting file",
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "write_file", Input: map[string]any{"file_path": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "write_file", Input: map[string]any{"file_path": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending in sub.", Tools: []fakemodel.ToolUse{{Name: "run_shell_command", Input: map[string]any{"command": "echo more >> ../hello.txt", "dir_path": "sub", "description": "append"}}}},
		fakemodel.Turn{Text: "Done."},
		// The AfterAgent nudge arrives as a new user turn.
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			if !strings.Contains(r.LastUserText(), "call mcp_planq_jj_describe") {
				return fakemodel.Turn{Text: "no nudge arrived"}
			}
			vaulted = w.Vaulted("Writing the okapi file again.") // the turn is in planq's store
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_jj_describe", Input: map[string]any{"description": e2e.Summary}}}}
		}},
		fakemodel.Turn{Text: "Summary written."},
	)
	// Session 1 got planq's context before the prompt.
	if first := s.Loop[0].LastUserText(); !strings.Contains(first, "<hook_context>") || !strings.Contains(first, "call mcp_planq_jj_init") {
		t.Fatalf("session 1's first request lacks planq's context:\n%s", e2e.Trunc(first, 3000))
	}
	// The first write was denied, the model told to call mcp_planq_jj_init.
	w.ToolResult(s.Loop[1], "the first write", "Tool execution blocked: planq gate: blocked", "call mcp_planq_jj_init")
	if got := s.Loop[5].LastUserText(); !strings.Contains(got, "call mcp_planq_jj_describe") {
		t.Fatalf("the nudge did not arrive as a user turn: %q", e2e.Trunc(got, 1000))
	}
	if !vaulted {
		t.Fatal("the turn was not in planq's store when the AfterAgent hook had answered")
	}
	// The write and the shell append landed in the declared change, which
	// holds the summary.
	w.CheckGreeting(".gemini")

	// A second session starts with the change's context, and reads the first
	// session's transcript through mcp_planq_query_ancestor.
	s = w.Play(gemini, "What did the last session do?", e2e.AskAncestor("mcp_planq_query_ancestor", "okapi"), fakemodel.Turn{Text: "Found it."})
	first := s.Loop[0].LastUserText()
	if !strings.Contains(first, "<hook_context>") || !strings.Contains(first, "planq: this session works in jj change") || !strings.Contains(first, "zebra-decision") {
		t.Fatalf("session 2's first request lacks planq's context:\n%s", e2e.Trunc(first, 4000))
	}
	w.ToolOK(s.Loop[1], "query_ancestor", "Transcript:", "Writing the okapi file again.", "assistant calls write_file")
}
