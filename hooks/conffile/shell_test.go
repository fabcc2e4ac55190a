package conffile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The gate's command line fails closed and is still read back as planq's
// hook, wherever the binary is; other lines are not taken for it.
func TestHookArgv(t *testing.T) {
	t.Parallel()
	o := Options{Exe: "/opt/planq/bin/planq", HookExe: `/a b/it's/planq-hook`}
	gate := HookLine(o, GateHook, "codex", true)
	if !FailsClosed(gate) || !IsPlanqHook(gate, GateHook, "codex", "") || CommandBinary(gate) != o.HookExe {
		t.Fatalf("gate line %q: fails closed %v, planq's %v, binary %q", gate, FailsClosed(gate), IsPlanqHook(gate, GateHook, "codex", ""), CommandBinary(gate))
	}
	if stop := HookLine(o, "stop", "", false); FailsClosed(stop) || !IsPlanqHook(stop, "stop", "", "") {
		t.Fatalf("stop line %q", stop)
	}
	tests := []struct {
		line string
		want []string
	}{
		{"/x/planq-hook pre-tool-use", []string{"/x/planq-hook", "pre-tool-use"}},
		{"'/x y/planq' hook stop || exit 2", []string{"/x y/planq", "hook", "stop"}},
		{"a; b", nil},
		{"a | b", nil},
		{"X=1 planq hook stop", nil},
		{"planq hook stop > /tmp/log", nil},
		{"planq hook stop &", nil},
		{"if x; then y; fi", nil},
		{"'unterminated", nil},
	}
	for _, tt := range tests {
		if got := HookArgv(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("HookArgv(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// Run by a real shell, the gate's line passes the gate's own answer and
// exit status through, and turns any failure of its binary into exit 2
// with a reason on stderr: the answer hosts take as a denial.
func TestGateLineFailsClosedInAShell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hook := filepath.Join(dir, "planq-hook")
	line := HookLine(Options{Exe: filepath.Join(dir, "planq"), HookExe: hook}, GateHook, "", true)
	run := func() (string, string, int) {
		cmd := exec.Command("sh", "-c", line)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	write := func(body string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(hook, []byte("#!/bin/sh\n"+body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(hook, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(`echo '{"decision":"allow"}'`+"\n", 0o755)
	if out, _, code := run(); code != 0 || out != "{\"decision\":\"allow\"}\n" {
		t.Fatalf("an answer: %q, exit %d", out, code)
	}
	write("echo reason >&2; exit 2\n", 0o755)
	if _, errs, code := run(); code != 2 || !strings.HasPrefix(errs, "reason\n") {
		t.Fatalf("the gate's own exit 2: %q, exit %d", errs, code)
	}
	for name, setup := range map[string]func(){
		"missing":      func() { _ = os.Remove(hook) },
		"unexecutable": func() { write("exit 0\n", 0o644) },
		"crashing":     func() { write("kill -SEGV $$\n", 0o755) },
		"failing":      func() { write("exit 1\n", 0o755) },
	} {
		setup()
		if _, errs, code := run(); code != 2 || !strings.Contains(errs, "planq: the gate's hook failed (exit ") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and the reason", name, code, errs)
		}
	}
}

// Doctor's fail-open finding: fine with planq's gate line and its binary,
// failing for an older line without the tail, for a binary that is gone,
// and for no gate at all.
func TestFailOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hook := filepath.Join(dir, "planq-hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w := FailOpenWords{Ungated: "ungated", Open: "the host runs it", OK: "fine"}
	line := HookLine(Options{Exe: "/x/planq", HookExe: hook}, GateHook, "h", true)
	if f := FailOpen("h", []string{line}, w); !f.OK || f.Detail != "fine" {
		t.Errorf("current wiring: %+v", f)
	}
	if f := FailOpen("h", []string{Line(hook, GateHook)}, w); f.OK || !strings.HasPrefix(f.Detail, "the host runs it; planq's gate command here is an older one") || !strings.Contains(f.Fix, "planq mcp install --host h") {
		t.Errorf("an older line: %+v", f)
	}
	if f := FailOpen("h", []string{strings.Replace(line, hook, hook+".gone", 1)}, w); f.OK || !strings.Contains(f.Detail, "is not an executable, so every gated tool call is held back") {
		t.Errorf("binary gone: %+v", f)
	}
	if f := FailOpen("h", nil, w); f.OK || f.Detail != "ungated" {
		t.Errorf("no gate: %+v", f)
	}
}
