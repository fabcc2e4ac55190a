package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestSandboxRewriteRunsInBash takes the real planq-hook's answer to a
// locked Bash call and runs the command it hands back with bash, the way
// Claude Code does: the original runs in the sandbox through planq-sandbox
// (which the hook finds beside itself), with its output, its exit status,
// and the one line when it failed on the read-only project.
func TestSandboxRewriteRunsInBash(t *testing.T) {
	if e := sandbox.Detect(); !e.Available() {
		t.Skipf("!!! SKIPPED: no OS sandbox here, the gate is %s", e)
	}
	bin := buildPlanq(t)
	hookBin := filepath.Join(filepath.Dir(bin), "planq-hook")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.WriteFile(t, repo, "notes.txt", "notes\n")
	testenv.Run(t, repo, "jj", "commit", "-m", "Base")
	for _, tt := range []struct {
		cmd      string
		code     int
		out, err string
	}{
		{`cat notes.txt && echo "it's" 'read'`, 0, "notes\nit's read\n", ""},
		{`f=notes.txt; echo changed > "$f"`, 1, "", "is read-only until the change is declared"}, // a name the parser cannot see
		// A revision known only at run time: the parser cannot be sure it is
		// not @ (jj describe -r @- it denies without running), the kernel
		// refuses the rewrite.
		{`jj log -r @ --no-graph -T '"at:" ++ change_id.short()' && jj describe -m x -r "$(echo @-)"`, 255, "at:", "read-only"},
		{`exit 7`, 7, "", ""},
	} {
		r := runHookArgs(t, []string{hookBin, "pre-tool-use"}, repo, hookJSON("s1", repo, "Bash", map[string]any{"command": tt.cmd}))
		got, rewritten := r.decision(t)
		if got != "sandbox" || !strings.HasPrefix(rewritten, "'"+filepath.Join(filepath.Dir(bin), sandbox.LeanBinary)+"' '--root' ") {
			t.Fatalf("%s: the hook answered %s %q, want a rewrite into planq-sandbox", tt.cmd, got, rewritten)
		}
		c := exec.Command("bash", "-c", rewritten)
		c.Dir, c.Env = repo, os.Environ()
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errb.String(), tt.err) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.cmd, code, out.String(), errb.String(), tt.code, tt.out, tt.err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "notes.txt")); string(got) != "notes\n" {
		t.Errorf("notes.txt = %q: the sandboxed write landed", got)
	}
}

// TestSandboxTurnedOff: PLANQ_SANDBOX=off in the hook's environment keeps
// the parser-only gate where the machine has a sandbox: the real hook
// denies a locked command the parser cannot judge (naming jj_init) instead
// of rewriting it, and lets a read-only one run as it is; doctor says the
// gate is parser-only, why, and how to turn the sandbox on again. So does
// gate.sandbox: off in the project's configuration.
func TestSandboxTurnedOff(t *testing.T) {
	if e := sandbox.Detect(); !e.Available() {
		t.Skipf("!!! SKIPPED: no OS sandbox here, the gate is %s", e)
	}
	bin := buildPlanq(t)
	hookBin := filepath.Join(filepath.Dir(bin), "planq-hook")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	hook := func(cmd string) (string, string) {
		t.Helper()
		return runHookArgs(t, []string{hookBin, "pre-tool-use"}, repo, hookJSON("s1", repo, "Bash", map[string]any{"command": cmd})).decision(t)
	}
	if got, _ := hook(`python3 -c 'print(1)'`); got != "sandbox" {
		t.Fatalf("with the sandbox on, the hook answered %s, want a rewrite", got)
	}
	for _, off := range []struct{ name, why, fix string }{
		{"PLANQ_SANDBOX=off", "PLANQ_SANDBOX=off in the hook's environment", "unset PLANQ_SANDBOX"},
		{"gate.sandbox: off", "gate.sandbox: off in .planq/config.yaml", "remove gate.sandbox: off"},
	} {
		if off.name == "PLANQ_SANDBOX=off" {
			t.Setenv("PLANQ_SANDBOX", "off")
		} else {
			t.Setenv("PLANQ_SANDBOX", "")
			testenv.WriteFile(t, repo, ".planq/config.yaml", "gate:\n  sandbox: off\n")
		}
		if got, reason := hook(`python3 -c 'print(1)'`); got != "deny" || !strings.Contains(reason, "mcp__planq__jj_init") {
			t.Errorf("%s: the hook answered %s (%s), want the parser's denial naming jj_init", off.name, got, reason)
		}
		if got, cmd := hook(`cat README.md`); got != "allow" || cmd != "" {
			t.Errorf("%s: a read-only command got %s %q, want it allowed as it is", off.name, got, cmd)
		}
		out, _, _ := runIn(t, repo, "doctor")
		if !strings.Contains(out, "parser-only (the OS sandbox is turned off: "+off.why+") for Claude Code") || !strings.Contains(out, off.fix) {
			t.Errorf("%s: doctor lacks why the gate is parser-only and the fix:\n%s", off.name, out)
		}
	}
}
