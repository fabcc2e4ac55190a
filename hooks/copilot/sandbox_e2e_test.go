package copilot_test

import (
	"os"
	"path/filepath"
	"strings"
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

// TestSandboxKeepsCopilotsDenyRules: a locked shell call that one of the
// user's --deny-tool rules names reaches Copilot CLI as the model wrote it,
// so Copilot's own rule still refuses it (a rewrite into the sandbox would
// not match the rule, and would run); a call no rule names is still
// rewritten into the sandbox and runs there. Copilot runs with
// --allow-all (the tools, paths and URLs) and --deny-tool 'shell(printf)'.
func TestSandboxKeepsCopilotsDenyRules(t *testing.T) {
	e2e.RequireSandbox(t)
	bin := fakemodel.EnsureCopilot(t)
	w := e2e.Wired(t, "../..", "copilot")
	bash := func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": command, "description": "run it"}}
	}
	s := w.Run(w.CLI(bin, fakemodel.HostRun.Copilot, "--deny-tool", "shell(printf)"), "Look around.",
		fakemodel.Turn{Text: "Printing.", Tools: []fakemodel.ToolUse{bash("printf 'hi from printf\\n'")}},
		fakemodel.Turn{Text: "Echoing.", Tools: []fakemodel.ToolUse{bash(`echo hi from echo; python3 -c "open('x','w')"`)}},
		fakemodel.Turn{Text: "Done."},
	)
	if len(s.Loop) < 3 {
		t.Fatalf("Copilot made %d agent-loop requests, want 3\nstdout: %s\nstderr: %s", len(s.Loop), e2e.Trunc(s.Stdout, 3000), e2e.Trunc(s.Stderr, 3000))
	}
	denied := w.ToolResult(s.Loop[1], "the printf a --deny-tool rule names", "shell(printf)")
	if strings.Contains(denied.Text, "planq-sandbox") {
		t.Errorf("the printf reached Copilot's rule rewritten: %s", e2e.Trunc(denied.Text, 2000))
	}
	w.ToolResult(s.Loop[2], "the echo and python3 no rule names", "hi from echo", "is read-only until the change is declared", "planq-jj_init")
	if strings.Contains(denied.Text, "hi from printf") {
		t.Errorf("the printf a --deny-tool rule names ran: %s", e2e.Trunc(denied.Text, 2000))
	}
	if _, err := os.Lstat(filepath.Join(w.Repo, "x")); !os.IsNotExist(err) {
		t.Errorf("the locked session left x in the repo (%v)", err)
	}
}
