package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
)

// hookResult is what one `planq hook pre-tool-use` process did.
type hookResult struct {
	stdout, stderr string
	code           int
}

// decision is the hook's answer: allow (silent), deny or warn.
func (r hookResult) decision(t *testing.T) (string, string) {
	t.Helper()
	if strings.TrimSpace(r.stdout) == "" {
		return "allow", ""
	}
	var out struct {
		SystemMessage string `json:"systemMessage"`
		Specific      struct {
			HookEventName            string `json:"hookEventName"`
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
			AdditionalContext        string `json:"additionalContext"`
			UpdatedInput             struct {
				Command string `json:"command"`
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("hook stdout is not JSON: %q", r.stdout)
	}
	if out.Specific.HookEventName != "PreToolUse" {
		t.Fatalf("hookSpecificOutput.hookEventName = %q", out.Specific.HookEventName)
	}
	if out.Specific.PermissionDecision == "deny" {
		return "deny", out.Specific.PermissionDecisionReason
	}
	if c := out.Specific.UpdatedInput.Command; c != "" {
		return "sandbox", c // runs rewritten, in the OS sandbox
	}
	if out.SystemMessage != "" {
		return "warn", out.Specific.AdditionalContext
	}
	t.Fatalf("unexpected hook output %q", r.stdout)
	return "", ""
}

// runHook runs the built binary as Claude Code does: the hook JSON on stdin,
// CLAUDE_PROJECT_DIR set, in the project directory.
func runHook(t *testing.T, bin, projectDir string, stdin []byte) hookResult {
	t.Helper()
	return runHookArgs(t, []string{bin, "hook", "pre-tool-use"}, projectDir, stdin)
}

// runHookArgs is runHook for any hook command line (argv), such as
// planq-hook's.
func runHookArgs(t *testing.T, argv []string, projectDir string, stdin []byte) hookResult {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = projectDir
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+projectDir)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return hookResult{out.String(), errb.String(), code}
}

// hookJSON is a PreToolUse payload in the shape Claude Code sends.
func hookJSON(session, cwd, tool string, input any) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id":      session,
		"transcript_path": filepath.Join(os.TempDir(), session+".jsonl"),
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": "PreToolUse",
		"tool_name":       tool,
		"tool_input":      input,
		"tool_use_id":     "toolu_" + session,
	})
	return b
}

// TestPreToolUseHookEndToEnd drives the real binary with real Claude Code
// hook JSON in a real jj repo, before and after the change is declared with
// the real MCP jj_init tool.
func TestPreToolUseHookEndToEnd(t *testing.T) {
	bin := buildPlanq(t) // before Isolate: the build needs the real module and build caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	write := map[string]any{"file_path": filepath.Join(repo, "greet.go"), "content": "package greet\n"}
	edit := map[string]any{"file_path": filepath.Join(repo, "greet.go"), "old_string": "a", "new_string": "b"}
	bash := func(cmd string) map[string]any { return map[string]any{"command": cmd, "description": "test"} }

	expect := func(name string, r hookResult, want string, reasonHas ...string) {
		t.Helper()
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", name, r.code, r.stderr)
		}
		got, reason := r.decision(t)
		if got != want {
			t.Fatalf("%s: %s (%s), want %s", name, got, reason, want)
		}
		for _, s := range reasonHas {
			if !strings.Contains(reason, s) {
				t.Errorf("%s: reason %q lacks %q", name, reason, s)
			}
		}
	}

	// Before declaring: reading and searching pass silently...
	expect("Read", runHook(t, bin, repo, hookJSON("s1", repo, "Read", map[string]any{"file_path": filepath.Join(repo, "x")})), "allow")
	expect("Grep", runHook(t, bin, repo, hookJSON("s1", repo, "Grep", map[string]any{"pattern": "TODO"})), "allow")
	expect("jj_status", runHook(t, bin, repo, hookJSON("s1", repo, "mcp__planq__jj_status", map[string]any{})), "allow")
	if _, err := os.Stat(filepath.Join(repo, ".jj", "planq-gate.json")); !os.IsNotExist(err) {
		t.Fatal("read-only calls touched the gate cache")
	}
	// ...read-only shell commands run in the OS sandbox where there is one
	// (the parser alone lets them through elsewhere)...
	lockedShell := "allow"
	if sandbox.Detect().Available() {
		lockedShell = "sandbox"
	}
	expect("Bash git status", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash("git status && git log --oneline | head"))), lockedShell)
	expect("Bash grep rm -rf", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash(`grep -r "rm -rf" .`))), lockedShell)
	// ...and modifying calls are denied, saying what to do next.
	expect("Write", runHook(t, bin, repo, hookJSON("s1", repo, "Write", write)), "deny",
		"Write", "greet.go", "mcp__planq__jj_init", "one-line description")
	expect("Edit", runHook(t, bin, repo, hookJSON("s1", repo, "Edit", edit)), "deny", "mcp__planq__jj_init")
	expect("Bash chain", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash("git status && rm -rf build"))), "deny",
		"rm -rf build", "rm deletes files")
	expect("Bash redirect", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash("ls > files.txt"))), "deny", "> files.txt")
	expect("the declaring tool itself", runHook(t, bin, repo, hookJSON("s1", repo, "mcp__planq__jj_init", map[string]any{"description": "x"})), "allow")

	// Declare the change through planq's MCP server, as the agent would.
	srv := startServer(t, repo)
	srv.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "hook-e2e", "version": "1"}})
	srv.notify("notifications/initialized")
	srv.callTool("jj_init", map[string]any{"description": "Add the greet package"})

	// After: the same calls pass, for this session and for a subagent in the
	// same working copy, from the root or a subdirectory.
	sub := filepath.Join(repo, "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	expect("Write after jj_init", runHook(t, bin, repo, hookJSON("s1", repo, "Write", write)), "allow")
	expect("Bash after jj_init", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash("git status && rm -rf build"))), "allow")
	expect("subagent Edit", runHook(t, bin, repo, hookJSON("subagent-7", sub, "Edit", edit)), "allow")
	// Git history rewrites stay denied in a jj repo, with the jj way.
	expect("git commit", runHook(t, bin, repo, hookJSON("s1", repo, "Bash", bash("git add . && git commit -m wip"))), "deny",
		"git commit", "jj commit")

	// A new undescribed change (jj new by hand) locks the gate again.
	testenv.Run(t, repo, "jj", "new")
	expect("Write after jj new", runHook(t, bin, repo, hookJSON("s1", repo, "Write", write)), "deny", "mcp__planq__jj_init")

	// gate.mode: warn lets it through with a warning for the user and the model.
	testenv.WriteFile(t, repo, ".planq/config.yaml", "gate:\n  mode: warn\n")
	expect("Write in warn mode", runHook(t, bin, repo, hookJSON("s1", repo, "Write", write)), "warn", "mcp__planq__jj_init")
}

func TestPreToolUseHookOutsideJJAndBadInput(t *testing.T) {
	bin := buildPlanq(t)
	testenv.Isolate(t)
	dir := t.TempDir()

	r := runHook(t, bin, dir, hookJSON("s", dir, "Write", map[string]any{"file_path": filepath.Join(dir, "a")}))
	if got, reason := r.decision(t); got != "deny" || !strings.Contains(reason, "mcp__planq__jj_git_init") {
		t.Fatalf("outside a jj repo: %s %q", got, reason)
	}

	for name, stdin := range map[string]string{
		"empty":         "",
		"not JSON":      "Write please",
		"array":         `["PreToolUse"]`,
		"no tool name":  `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/"}`,
		"wrong event":   `{"session_id":"s","hook_event_name":"Stop","tool_name":"Write","cwd":"/"}`,
		"trailing junk": `{"tool_name":"Read"}}`,
		"case twin":     `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Read","Tool_Name":"Bash"}`,
		"duplicate key": `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"},"tool_input":{"command":"rm -rf x"}}`,
	} {
		// The hook fails closed: a denial naming the problem on stdout (exit
		// 0), and the problem as one line on stderr.
		r := runHook(t, bin, dir, []byte(stdin))
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		got, reason := r.decision(t)
		if r.code != 0 || got != "deny" || !strings.Contains(reason, "could not judge") || len(lines) != 1 || !strings.HasPrefix(lines[0], "planq hook pre-tool-use: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a denial and one line on stderr", name, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%s: %s", name, r.stderr)
		}
	}
}

// planq-hook serves the tool hooks with the same code as `planq hook`: for
// the same input it answers the same, byte for byte, with the same status.
func TestPlanqHookAnswersAsPlanqHook(t *testing.T) {
	bin := buildPlanq(t)
	hookBin := filepath.Join(filepath.Dir(bin), "planq-hook")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	run := func(args []string, stdin string) hookResult {
		return runHookArgs(t, args, repo, []byte(stdin))
	}
	pre := func(tool string, input any) string {
		return string(hookJSON("s1", repo, tool, input))
	}
	inputs := []string{
		pre("Write", map[string]any{"file_path": filepath.Join(repo, "a.go"), "content": "x"}),
		pre("Write", map[string]any{"file_path": "/tmp/planq-hook-test-outside.txt", "content": "x"}),
		pre("Bash", map[string]any{"command": "git status && ls"}),
		pre("Bash", map[string]any{"command": "rm -rf build"}),
		pre("Bash", map[string]any{"command": "git -c alias.x='!rm y' x"}),
		pre("Read", map[string]any{"file_path": filepath.Join(repo, "a.go")}),
		pre("mcp__planq__jj_init", map[string]any{"description": "x"}),
		`{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"` + repo + `","tool_name":"Bash","tool_input":{"command":"rm x","Command":"ls"}}`,
		"not json",
		"",
	}
	for _, in := range inputs {
		a := run([]string{bin, "hook", "pre-tool-use"}, in)
		b := run([]string{hookBin, "pre-tool-use"}, in)
		if a.code != b.code || a.stdout != b.stdout {
			t.Errorf("input %.80q:\nplanq hook: exit %d %s\nplanq-hook: exit %d %s", in, a.code, a.stdout, b.code, b.stdout)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{hookBin, "version"}, 0, "planq-hook "},
		{[]string{hookBin}, 2, ""},
		{[]string{hookBin, "session-start"}, 2, ""},
		{[]string{hookBin, "--help"}, 0, "pre-tool-use"},
	} {
		if r := run(c.args, ""); r.code != c.code || !strings.Contains(r.stdout, c.out) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d", c.args[1:], r.code, r.stdout, r.stderr, c.code)
		}
	}
}

// Any failure of `planq hook pre-tool-use` outside the hook itself (a bad
// flag, an argument) exits 2, which Claude Code takes as blocking.
func TestPreToolUseHookFailuresExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"hook", "pre-tool-use", "extra"}, {"hook", "pre-tool-use", "--bogus"}} {
		_, errOut, code := runIn(t, t.TempDir(), args...)
		if code != 2 || !strings.Contains(errOut, "blocked") {
			t.Errorf("planq %v: exit %d, stderr %q; want 2", args, code, errOut)
		}
	}
}

// A call the gate cannot judge in time is denied at the gate's deadline,
// never left to the host's timeout (which may let it through): here the
// host never finishes writing the hook's input. Both binaries answer with
// a denial that says why, and end.
func TestPreToolUseHookDeniesAtItsDeadline(t *testing.T) {
	bin := buildPlanq(t)
	hookBin := filepath.Join(filepath.Dir(bin), "planq-hook")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	for _, argv := range [][]string{{bin, "hook", "pre-tool-use"}, {hookBin, "pre-tool-use"}} {
		t.Run(filepath.Base(argv[0]), func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close() // open until the hook has answered: its input never ends
			// A hook that misses its own deadline hangs: bound the wait well
			// past it, so that a hang fails here rather than at the package's.
			ctx, cancel := context.WithTimeout(testenv.Context(t), 10*session.PreToolUseDeadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Dir, cmd.Env, cmd.Stdin = repo, append(os.Environ(), "CLAUDE_PROJECT_DIR="+repo), r
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if _, err := w.WriteString(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write",`); err != nil {
				t.Fatal(err)
			}
			err = cmd.Run()
			r.Close()
			res := hookResult{out.String(), errb.String(), 0}
			if err != nil {
				t.Fatalf("%v: %v, stdout %q, stderr %q", argv[1:], err, res.stdout, res.stderr)
			}
			if got, reason := res.decision(t); got != "deny" || !strings.Contains(reason, "did not answer within") {
				t.Fatalf("%v: %s %q; want a denial at the deadline", argv[1:], got, reason)
			}
		})
	}
}
