package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/testenv"
)

func toolInput(tool, cwd string, input any) Input {
	raw, _ := json.Marshal(input)
	return Input{SessionID: "s1", HookEventName: EventPreToolUse, Cwd: cwd, ToolName: tool, ToolInput: raw}
}

func decision(r *Response) string {
	switch {
	case r == nil:
		return "allow"
	case r.Specific != nil && r.Specific.PermissionDecision == "deny":
		return "deny"
	case r.SystemMessage != "":
		return "warn"
	}
	return "?"
}

func TestPreToolUseInAJJRepo(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	cache := filepath.Join(repo, ".jj", gate.CacheFile)
	write := toolInput("Write", repo, map[string]string{"file_path": filepath.Join(repo, "a.go"), "content": "x"})

	// Read-only tools are allowed and touch neither jj nor the cache.
	for _, in := range []Input{
		toolInput("Read", repo, map[string]string{"file_path": filepath.Join(repo, "go.mod")}),
		toolInput("Grep", repo, map[string]string{"pattern": "x"}),
		toolInput("mcp__planq__jj_init", repo, map[string]string{"description": "x"}),
	} {
		r, err := PreToolUse(ctx, in, repo)
		if err != nil || r != nil {
			t.Fatalf("%s: %+v, %v; want allowed silently", in.ToolName, r, err)
		}
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("read-only calls created the gate cache (%v)", err)
	}
	// A read-only shell call runs in the OS sandbox while locked, where
	// this machine has one (else the parser lets it through).
	bash := toolInput("Bash", repo, map[string]string{"command": "git status && ls -la"})
	r, err := PreToolUse(ctx, bash, repo)
	switch {
	case err != nil:
		t.Fatal(err)
	case sandbox.Detect().Available():
		if r == nil || r.Specific == nil || !strings.Contains(string(r.Specific.UpdatedInput), `'sandbox' '--root' '`+repo) {
			t.Fatalf("locked read-only Bash: %+v, want it rewritten into the sandbox", r)
		}
	case r != nil:
		t.Fatalf("locked read-only Bash without a sandbox: %+v, want it allowed silently", r)
	}

	r, err = PreToolUse(ctx, write, repo)
	if err != nil {
		t.Fatal(err)
	}
	if decision(r) != "deny" || !strings.Contains(r.Specific.PermissionDecisionReason, "mcp__planq__jj_init") {
		t.Fatalf("Write before declaring: %+v", r)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("a modifying call did not cache the gate state: %v", err)
	}

	testenv.Run(t, repo, "jj", "describe", "-m", "Add a.go")
	for _, in := range []Input{write, toolInput("Bash", filepath.Join(repo), map[string]string{"command": "rm -rf build"})} {
		if r, err := PreToolUse(ctx, in, repo); err != nil || r != nil {
			t.Fatalf("%s after declaring: %+v, %v; want allowed", in.ToolName, r, err)
		}
	}
	// Declared or not, git rewrites get the jj equivalent.
	r, _ = PreToolUse(ctx, toolInput("Bash", repo, map[string]string{"command": "git commit -am wip"}), repo)
	if decision(r) != "deny" || !strings.Contains(r.Specific.PermissionDecisionReason, "jj commit") {
		t.Fatalf("git commit in a jj repo: %+v", r)
	}
}

func TestPreToolUseConfig(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	write := toolInput("Write", repo, map[string]string{"file_path": filepath.Join(repo, "a.go")})
	setConfig := func(s string) {
		testenv.WriteFile(t, repo, ".planq/config.yaml", s)
	}

	setConfig("gate:\n  mode: warn\n")
	r, err := PreToolUse(ctx, write, repo)
	if err != nil || decision(r) != "warn" || !strings.Contains(r.Specific.AdditionalContext, "mcp__planq__jj_init") {
		t.Fatalf("warn mode: %+v, %v", r, err)
	}

	setConfig("gate:\n  mode: off\n")
	if r, err := PreToolUse(ctx, write, repo); err != nil || r != nil {
		t.Fatalf("gate off: %+v, %v", r, err)
	}

	setConfig("gate:\n  deny: [ls]\n")
	if r, _ := PreToolUse(ctx, toolInput("Bash", repo, map[string]string{"command": "ls"}), repo); decision(r) != "deny" {
		t.Fatalf("gate.deny [ls]: %+v", r)
	}

	setConfig("gate:\n  git: allow\n")
	testenv.Run(t, repo, "jj", "describe", "-m", "Declared")
	if r, _ := PreToolUse(ctx, toolInput("Bash", repo, map[string]string{"command": "git commit -m x"}), repo); r != nil {
		t.Fatalf("gate.git allow: %+v", r)
	}

	setConfig("gate:\n  mode: sometimes\n")
	r, _ = PreToolUse(ctx, write, repo)
	if decision(r) != "deny" || !strings.Contains(r.Specific.PermissionDecisionReason, "gate.mode") {
		t.Fatalf("invalid config: %+v; want a denial naming the bad key", r)
	}
	if r, _ := PreToolUse(ctx, toolInput("Read", repo, map[string]string{"file_path": "x"}), repo); r != nil {
		t.Fatalf("invalid config blocks reading: %+v", r)
	}
}

func TestPreToolUseOutsideJJ(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	r, err := PreToolUse(context.Background(), toolInput("Edit", dir, map[string]string{"file_path": filepath.Join(dir, "x")}), dir)
	if err != nil {
		t.Fatal(err)
	}
	reason := r.Specific.PermissionDecisionReason
	if decision(r) != "deny" || !strings.Contains(reason, "mcp__planq__jj_git_init") || !strings.Contains(reason, "not a jj repository") {
		t.Fatalf("outside jj: %+v", r)
	}
}

func TestPreToolUseBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	for name, in := range map[string]Input{
		"no tool name":     {HookEventName: EventPreToolUse, Cwd: dir},
		"wrong event":      {HookEventName: EventPostToolUse, Cwd: dir, ToolName: "Write"},
		"relative cwd":     {HookEventName: EventPreToolUse, Cwd: "rel", ToolName: "Write"},
		"no cwd or projet": {HookEventName: EventPreToolUse, ToolName: "Write"},
	} {
		pd := ""
		if name == "relative cwd" {
			pd = dir
		}
		if r, err := PreToolUse(ctx, in, pd); err == nil {
			t.Errorf("%s: %+v, no error", name, r)
		}
	}
}

func TestPreToolUseRepositoryBoundary(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	elsewhere := filepath.Join(t.TempDir(), "plan.md")

	// In a jj repo, an editor tool writing outside the workspace (Claude
	// Code's plan files, scratch files) is not held back; inside it is.
	if r, err := PreToolUse(ctx, toolInput("Write", repo, map[string]string{"file_path": elsewhere}), repo); err != nil || r != nil {
		t.Fatalf("Write outside the jj workspace: %+v, %v; want allowed", r, err)
	}
	if r, _ := PreToolUse(ctx, toolInput("Write", repo, map[string]string{"file_path": filepath.Join(repo, "x.go")}), repo); decision(r) != "deny" {
		t.Fatalf("Write inside the jj workspace: %+v; want denied", r)
	}

	// Outside a jj repo without a project directory there is no boundary:
	// the working directory is not one.
	plain := t.TempDir()
	sub := filepath.Join(plain, "sub")
	os.MkdirAll(sub, 0o755)
	if r, _ := PreToolUse(ctx, toolInput("Write", sub, map[string]string{"file_path": filepath.Join(plain, "a.go")}), ""); decision(r) != "deny" {
		t.Fatalf("Write beside the working directory, no project: %+v; want denied", r)
	}
	// With a project directory, that is the boundary.
	if r, _ := PreToolUse(ctx, toolInput("Write", sub, map[string]string{"file_path": filepath.Join(plain, "a.go")}), plain); decision(r) != "deny" {
		t.Fatalf("Write inside the project: %+v; want denied", r)
	}
	if r, _ := PreToolUse(ctx, toolInput("Write", sub, map[string]string{"file_path": elsewhere}), plain); r != nil {
		t.Fatalf("Write outside the project: %+v; want allowed", r)
	}
}

func runPre(t *testing.T, ctx context.Context, input string, env map[string]string) (code int, resp string, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	code = RunPreToolUse(ctx, strings.NewReader(input), &out, &errb, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

// The gate state is the session's project's: a command that declares a
// change in another jj repository (jj git init sub; jj -R sub describe) and
// moves there does not unlock the project's gate.
func TestPreToolUseJudgesTheProjectNotTheCwd(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	sub := filepath.Join(repo, "sub")
	testenv.Run(t, repo, "jj", "git", "init", "sub")
	testenv.Run(t, sub, "jj", "describe", "-m", "Declared in the nested repo")
	ctx := context.Background()
	for _, in := range []Input{
		toolInput("Bash", sub, map[string]string{"command": "rm -rf ../src"}),
		toolInput("Write", sub, map[string]string{"file_path": filepath.Join(repo, "main.go"), "content": "x"}),
		toolInput("Write", sub, map[string]string{"file_path": filepath.Join(sub, "x.go"), "content": "x"}),
	} {
		r, err := PreToolUse(ctx, in, repo)
		if err != nil || decision(r) != "deny" || !strings.Contains(r.Specific.PermissionDecisionReason, "no jj change is declared") {
			t.Errorf("%s in %s with the project locked: %+v, %v; want denied", in.ToolName, in.Cwd, r, err)
		}
	}
	// Once the project's own change is declared, both are allowed.
	testenv.Run(t, repo, "jj", "describe", "-m", "Declared in the project")
	if r, err := PreToolUse(ctx, toolInput("Bash", sub, map[string]string{"command": "rm -rf ../src"}), repo); err != nil || r != nil {
		t.Errorf("after declaring the project: %+v, %v", r, err)
	}
}

// A failure to judge a call denies it, unless gate.on_error: allow.
func TestRunPreToolUseFailsClosed(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	env := map[string]string{"CLAUDE_PROJECT_DIR": repo, "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"),
		"JJ_CONFIG": os.Getenv("JJ_CONFIG"), "JJ_USER": "T", "JJ_EMAIL": "t@example.com"}
	write := `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"` + repo + `","tool_name":"Write","tool_input":{"file_path":"` + repo + `/a.go","content":"x"}}`
	ctx := context.Background()

	// The gate state cannot be read: jj's operation heads are gone.
	heads := filepath.Join(repo, ".jj", "repo", "op_heads", "heads")
	if err := os.RemoveAll(heads); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runPre(t, ctx, write, env)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "could not read the gate state") {
		t.Fatalf("unreadable state: exit %d, %s; want a denial naming the error", code, out)
	}
	// Bad input and a missed deadline deny too.
	for name, c := range map[string]struct {
		input string
		ctx   func() (context.Context, context.CancelFunc)
		want  string
	}{
		"bad input": {`{"tool_name":"Write"`, func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }, "not the JSON"},
		"deadline":  {write, func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, time.Nanosecond) }, "did not answer"},
	} {
		cctx, cancel := c.ctx()
		code, out, errs := runPre(t, cctx, c.input, env)
		cancel()
		if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, c.want) || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %s, stderr %s; want a denial naming %q", name, code, out, errs, c.want)
		}
	}
	// gate.on_error: allow lets a failed call through with a warning.
	testenv.WriteFile(t, repo, ".planq/config.yaml", "gate:\n  on_error: allow\n")
	code, out, _ = runPre(t, ctx, write, env)
	if code != 0 || strings.Contains(out, `"deny"`) || !strings.Contains(out, "on_error: allow") {
		t.Fatalf("on_error: allow: exit %d, %s; want a warning and no denial", code, out)
	}
	code, out, _ = runPre(t, ctx, `{"tool_name":"Write"`, env)
	if code != 0 || strings.Contains(out, `"deny"`) || !strings.Contains(out, "on_error: allow") {
		t.Fatalf("on_error: allow, bad input: exit %d, %s", code, out)
	}
	// A read-only tool is never judged at all.
	if code, out, _ := runPre(t, ctx, `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"`+repo+`","tool_name":"Read","tool_input":{}}`, env); code != 0 || out != "" {
		t.Errorf("Read: exit %d, %q", code, out)
	}
}

// When the answer cannot be printed, the hook exits 2, which Claude Code
// takes as a denial.
func TestRunPreToolUseExits2WhenItCannotAnswer(t *testing.T) {
	t.Parallel()
	var errb strings.Builder
	code := RunPreToolUse(context.Background(), strings.NewReader("nonsense"), failingWriter{}, &errb, func(string) string { return "" })
	if code != 2 || !strings.Contains(errb.String(), "blocked") {
		t.Fatalf("exit %d, stderr %q; want 2 and a line saying the call is blocked", code, errb.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }
