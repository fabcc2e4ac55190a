package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// requireSandbox skips a test that needs the OS sandbox where this machine
// has none, saying so.
func requireSandbox(t *testing.T) {
	t.Helper()
	if e := sandbox.Detect(); !e.Available() {
		t.Skipf("!!! SKIPPED: no OS sandbox here, the gate is %s", e)
	}
}

// TestEndToEndSandboxInClaudeCode drives the real Claude Code CLI against a
// scripted model in a locked jj repo wired with planq-hook: a locked
// session's Bash calls run rewritten into the OS sandbox. A write leaves no
// file and the model is told why in the tool result (the one line naming
// jj_init); a read-only interpreter call prints its output; jj reads work
// and a jj history rewrite is refused by the kernel; the by-hand
// declaration runs unsandboxed and unlocks the gate, after which nothing is
// sandboxed.
func TestEndToEndSandboxInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	requireSandbox(t)
	planq := testenv.BuildPlanqWithHook(t, "..") // before Isolate: the build uses the real Go caches
	w := claudeWorld(t, claude, planq)
	w.Debug = func() { dumpDebug(t, w.Home) }
	testenv.WriteFile(t, w.Repo, "base.txt", "base\n")
	w.JJ("commit", "-m", "Base")
	before := w.JJ("log", "-r", "@-", "--no-graph", "-T", "description")
	bash := func(cmd string) fakemodel.Turn {
		return fakemodel.Turn{Text: "Running.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": cmd, "description": "run"}}}}
	}
	s := w.Play(claudeCode(w, claude), "Look around",
		bash(`python3 -c "open('x','w')"`),
		bash(`python3 -c 'print(1)'`),
		bash(`jj log -r @ --no-graph -T 'change_id.short() ++ "|"' && git status --short && echo read-ok`),
		bash(`jj describe -r @- -m hacked`),
		bash(`jj describe -m "Add a greeting file"`),
		bash(`python3 -c "open('y','w').write('y')" && echo wrote`),
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": e2e.Summary}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	tr := w.ToolResult(s.Loop[1], "the locked write", "is read-only until the change is declared", "mcp__planq__jj_init")
	if !tr.IsError {
		t.Errorf("the locked write's result is not an error: %s", tr.Text)
	}
	if _, err := os.Stat(filepath.Join(w.Repo, "x")); !os.IsNotExist(err) {
		t.Errorf("the locked write left x in the project (stat: %v)", err)
	}
	w.ToolOK(s.Loop[2], "the locked print", "1")
	w.ToolOK(s.Loop[3], "jj and git reads", "read-ok")
	// The parser is sure of this one (issue #21's example): denied without
	// running, the message naming jj_init, as the sandbox's line does.
	w.ToolResult(s.Loop[4], "jj describe -r @-", "mcp__planq__jj_init")
	if after := w.JJ("log", "-r", "@-", "--no-graph", "-T", "description"); after != before {
		t.Errorf("jj describe -r @- rewrote @-'s description: %q, was %q", after, before)
	}
	w.ToolOK(s.Loop[5], "the declaration")
	w.ToolOK(s.Loop[6], "the write once declared", "wrote")
	if got, err := os.ReadFile(filepath.Join(w.Repo, "y")); err != nil || string(got) != "y" {
		t.Errorf("the write once declared: y = %q, %v", got, err)
	}
}

// TestSandboxKeepsWhoApprovesInClaudeCode: Claude Code judges a rewritten
// call's input against the user's permission rules, so the hook answers
// with the decision those rules give the original command. Each case runs
// a locked session with one user rule and one permission mode; headless,
// a call Claude Code would ask about fails with the question instead.
func TestSandboxKeepsWhoApprovesInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	requireSandbox(t)
	planq := testenv.BuildPlanqWithHook(t, "..")
	const cmd = `python3 -c "open('z','w')" ; python3 -c 'print(7*6)'`
	tests := []struct {
		name  string
		mode  string
		rules map[string][]string
		args  []string // more of claude's arguments
		ran   bool     // the command ran (in the sandbox)
		want  string   // the tool result says
	}{
		{"default mode, no rule: asked", "default", nil, nil, false, "requires approval"},
		{"default mode, allow rule: runs sandboxed", "default", map[string][]string{"allow": {"Bash(python3:*)"}}, nil, true, "42"},
		{"default mode, allow rule of the untrusted project: asked", "default", nil, nil, false, "requires approval"},
		{"bypass, deny rule: denied", "bypassPermissions", map[string][]string{"deny": {"Bash(python3:*)"}}, nil, false, "Bash(python3:*)"},
		{"bypass, ask rule: asked", "bypassPermissions", map[string][]string{"ask": {"Bash(python3 -c:*)"}}, nil, false, "asks about it"},
		{"bypass, no rule: runs sandboxed", "bypassPermissions", nil, nil, true, "42"},
		{"dontAsk, allow rule: runs sandboxed", "dontAsk", map[string][]string{"allow": {"Bash(python3:*)"}}, nil, true, "42"},
		{"bypass, deny rule on the command line: denied", "bypassPermissions", nil, []string{"--disallowedTools", "Bash(python3:*)"}, false, "Bash(python3:*)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := claudeWorld(t, claude, planq)
			settings := map[string]any{}
			if tt.rules != nil {
				settings["permissions"] = tt.rules
			}
			data, _ := json.Marshal(settings)
			if err := os.MkdirAll(filepath.Join(w.Home, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.Home, ".claude", "settings.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tt.name, "untrusted project") {
				// The project's own allow rule does not count until the user trusts it.
				testenv.WriteFile(t, w.Repo, ".claude/settings.local.json", `{"permissions":{"allow":["Bash(python3:*)"]}}`)
			}
			host := func(ctx context.Context, m *fakemodel.Server, prompt string) (fakemodel.Result, error) {
				return claudeInMode(ctx, fakemodel.Run{Claude: claude, Dir: w.Repo, Home: w.Home, Env: claudeEnv(), Model: m, Args: tt.args}, tt.mode, prompt)
			}
			s := w.Play(host, "Compute",
				fakemodel.Turn{Text: "Running.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": cmd}}}},
				fakemodel.Turn{Text: "Done."},
			)
			tr := w.ToolResult(s.Loop[1], tt.name, tt.want)
			if tt.ran && !strings.Contains(tr.Text, "Permission denied") {
				t.Errorf("%s: the command ran, but not in the sandbox: %s", tt.name, tr.Text)
			}
			if _, err := os.Stat(filepath.Join(w.Repo, "z")); !os.IsNotExist(err) {
				t.Errorf("%s: the locked write left z in the project", tt.name)
			}
		})
	}
}

// claudeInMode runs Claude Code headless in permission mode (not the
// bypass every other end-to-end test uses), with r.Args after the prompt.
func claudeInMode(ctx context.Context, r fakemodel.Run, mode, prompt string) (fakemodel.Result, error) {
	args := append([]string{"--output-format", "json", "--permission-mode", mode, "-p", prompt}, r.Args...)
	if mode == "bypassPermissions" {
		args = append(args, "--dangerously-skip-permissions")
	}
	cmd := exec.CommandContext(ctx, r.Claude, args...)
	cmd.Dir, cmd.Env = r.Dir, r.Environ()
	out, err := cmd.Output()
	return fakemodel.Result{Stdout: string(out)}, err
}
