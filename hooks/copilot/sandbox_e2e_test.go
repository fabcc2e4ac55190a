package copilot_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

// TestSandboxKeepsWhoApprovesInCopilot: Copilot CLI judges its own
// checks on the command it runs, so a locked shell call one of them could
// judge reaches Copilot as the model wrote it, and Copilot still decides:
// with --allow-all-tools --deny-tool 'shell(printf)' --deny-url
// example.com, a printf is refused by the rule, a curl of
// https://example.com by the URL rule, and a read of /etc/hostname is
// asked about (outside the project, without --allow-all-paths: refused,
// since -p cannot ask). A rewrite into the sandbox would have run all three.
// A call none of them judges is still rewritten into the sandbox and runs
// there.
func TestSandboxKeepsWhoApprovesInCopilot(t *testing.T) {
	e2e.RequireSandbox(t)
	bin := fakemodel.EnsureCopilot(t)
	w := e2e.Wired(t, "../..", "copilot")
	bash := func(command string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": command, "description": "run it"}}
	}
	// planq installed as a user installs it: its directory on PATH and
	// outside Copilot's temp dir, so Copilot's path check would ask about
	// the entry point's own path (and refuse, in -p) if the rewrite named
	// it by that path.
	tmp := t.TempDir()
	env := append(slices.Clip(w.Env), "PATH="+filepath.Dir(w.Planq)+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
	host := func(ctx context.Context, m *fakemodel.Server, prompt string) (fakemodel.Result, error) {
		return fakemodel.HostRun{Bin: bin, Dir: w.Repo, Home: w.Home, Model: m, Prompt: prompt, Env: env,
			CopilotPermissions: []string{"--allow-all-tools"}, Args: []string{"--deny-tool", "shell(printf)", "--deny-url", "example.com"}}.Copilot(ctx)
	}
	s := w.Run(host, "Look around.",
		fakemodel.Turn{Text: "Printing.", Tools: []fakemodel.ToolUse{bash("printf 'hi from printf\\n'")}},
		fakemodel.Turn{Text: "Fetching.", Tools: []fakemodel.ToolUse{bash("curl -s -m 3 https://example.com/ -o /dev/null; echo fetched")}},
		fakemodel.Turn{Text: "Reading.", Tools: []fakemodel.ToolUse{bash("head -1 /etc/hostname; echo read it")}},
		fakemodel.Turn{Text: "Echoing.", Tools: []fakemodel.ToolUse{bash(`echo hi from echo; python3 -c "open('x','w')"`)}},
		fakemodel.Turn{Text: "Done."},
	)
	if len(s.Loop) < 5 {
		t.Fatalf("Copilot made %d agent-loop requests, want 5\nstdout: %s\nstderr: %s", len(s.Loop), e2e.Trunc(s.Stdout, 3000), e2e.Trunc(s.Stderr, 3000))
	}
	for i, c := range []struct{ what, want, ran string }{
		{"the printf a --deny-tool rule names", "shell(printf)", "hi from printf"},
		{"the curl of a URL --deny-url names", "url(https://example.com)", "fetched"},
		{"the read of a file outside the project", "Permission denied", "read it"},
	} {
		got := w.ToolResult(s.Loop[i+1], c.what, c.want)
		if strings.Contains(got.Text, c.ran) {
			t.Errorf("%s ran: %s", c.what, e2e.Trunc(got.Text, 2000))
		}
	}
	w.ToolResult(s.Loop[4], "the echo and python3 no check judges", "hi from echo", "is read-only until the change is declared", "planq-jj_init")
	if _, err := os.Lstat(filepath.Join(w.Repo, "x")); !os.IsNotExist(err) {
		t.Errorf("the locked session left x in the repo (%v)", err)
	}
}
