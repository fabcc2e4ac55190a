package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// The two shell commands issue #21 promises about in every host that runs
// locked shell calls in planq's sandbox: a write the kernel refuses, and a
// read that runs.
const (
	SandboxWrite = `python3 -c "open('x','w')"`
	SandboxRead  = `python3 -c 'print(1)'`
)

// PlayLocked plays a session of host whose change is not declared: the model
// runs SandboxWrite, then SandboxRead, through the host's shell tool (shell
// makes the call for a command). It checks that the write left no file x in
// the repo and that the model was told why (its tool result holds each of
// why), and that the read ran and the model saw it print 1. It returns the
// session.
func (w *World) PlayLocked(host Host, shell func(command string) fakemodel.ToolUse, why ...string) Session {
	w.T.Helper()
	s := w.Run(host, "Look around.",
		fakemodel.Turn{Text: "Writing x.", Tools: []fakemodel.ToolUse{shell(SandboxWrite)}},
		fakemodel.Turn{Text: "Printing.", Tools: []fakemodel.ToolUse{shell(SandboxRead)}},
		fakemodel.Turn{Text: "Done."},
	)
	if len(s.Loop) < 3 {
		w.fail("the host made %d agent-loop requests, want 3\nstdout: %s\nstderr: %s", len(s.Loop), Trunc(s.Stdout, 3000), Trunc(s.Stderr, 3000))
	}
	if _, err := os.Lstat(filepath.Join(w.Repo, "x")); !os.IsNotExist(err) {
		w.fail("the locked session's %s left x in the repo (%v)", SandboxWrite, err)
	}
	w.ToolResult(s.Loop[1], "the locked write "+SandboxWrite, why...)
	read := w.ToolResult(s.Loop[2], "the locked read "+SandboxRead)
	if !printsLine(read.Text, "1") || strings.Contains(read.Text, "planq gate") {
		w.fail("the locked read %s: the model got %s\nwant it to print 1", SandboxRead, Trunc(read.Text, 3000))
	}
	return s
}

// printsLine reports whether a shell tool's result, as a host shows it,
// has out as a line of its output: the line itself, or (Gemini CLI) the
// first line after "Output: ".
func printsLine(result, out string) bool {
	for _, l := range strings.Split(result, "\n") {
		if l == out || strings.HasSuffix(l, "Output: "+out) {
			return true
		}
	}
	return false
}

// RequireSandbox skips the test, saying so, on a machine without an OS
// sandbox, where locked shell calls keep the parser-only gate.
func RequireSandbox(t *testing.T) {
	t.Helper()
	if e := sandbox.Detect(); !e.Available() {
		t.Skipf("SKIPPED: this machine has no OS sandbox (%s); the gate stays parser-only", e)
	}
}

// Wired is New with planq built from the module at root (with planq-hook and
// planq-sandbox) and `planq mcp install --host host` run in the repo.
func Wired(t *testing.T, root, host string) *World {
	t.Helper()
	w := New(t, testenv.BuildPlanqWithHook(t, root)) // before Isolate: the build uses the real Go caches
	w.Install("--host", host)
	return w
}
