//go:build capture

package copilot_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestCapturePayloads runs the real copilot -p in a jj repo with a hook
// that saves every event's stdin into $CAPTURE_DIR, and planq's MCP server
// in .mcp.json, for testdata: go test -tags capture -run TestCapturePayloads
// ./hooks/copilot/ with CAPTURE_DIR set. The model runs bash, create, edit,
// view, one of planq's MCP tools (found by name among the tools offered)
// and a task (subagent) that runs bash. It is a tool, not a test: it
// asserts nothing.
func TestCapturePayloads(t *testing.T) {
	out := os.Getenv("CAPTURE_DIR")
	if out == "" {
		t.Skip("CAPTURE_DIR not set")
	}
	bin := fakemodel.EnsureCopilot(t)
	planq := testenv.BuildPlanqWithHook(t, "../..")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	home := os.Getenv("HOME")
	hooks := map[string]any{}
	events := strings.Fields(os.Getenv("CAPTURE_EVENTS"))
	if len(events) == 0 {
		events = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PreCompact", "Stop", "SessionEnd", "SubagentStart", "SubagentStop", "subagentStart", "agentStop", "ErrorOccurred"}
	}
	for _, ev := range events {
		cmd := "f=" + out + "/" + ev + "-$(date +%s%N).json; cat > $f; env | grep -i -e copilot -e planq > $f.env; pwd > $f.pwd"
		if strings.EqualFold(ev, "SubagentStart") && os.Getenv("CAPTURE_SUBCTX") != "" {
			cmd += `; echo '{"additionalContext":"subctx-marker-` + ev + `"}'`
		}
		if ev == os.Getenv("CAPTURE_BLOCK") {
			cmd += `; [ -e ` + out + `/blocked ] || { touch ` + out + `/blocked; echo '{"decision":"block","reason":"please write the summary now (nudge-marker)"}'; }`
		}
		hooks[ev] = []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 30}}
	}
	writeJSON(t, filepath.Join(repo, ".github", "hooks", "capture.json"), map[string]any{"version": 1, "hooks": hooks})
	writeJSON(t, filepath.Join(repo, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"planq": map[string]any{
		"type": "local", "command": planq, "args": []string{"mcp", "serve"}, "tools": []string{"*"},
		"env": map[string]any{"PLANQ_HOME": os.Getenv("PLANQ_HOME"), "JJ_CONFIG": os.Getenv("JJ_CONFIG"), "HOME": home}}}})
	var status string
	script := []fakemodel.Turn{
		{Func: func(r *fakemodel.Request) fakemodel.Turn {
			t.Logf("tools offered: %v", r.ToolNames())
			for _, n := range r.ToolNames() {
				if strings.HasSuffix(n, "jj_status") {
					status = n
				}
			}
			return fakemodel.Turn{Text: "shell", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo hi > a.txt", "description": "hi"}}}}
		}},
		{Text: "create", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": filepath.Join(repo, "b.txt"), "file_text": "bee\n"}}}},
		{Text: "edit", Tools: []fakemodel.ToolUse{{Name: "edit", Input: map[string]any{"path": filepath.Join(repo, "b.txt"), "old_str": "bee", "new_str": "wasp"}}}},
		{Text: "view", Tools: []fakemodel.ToolUse{{Name: "view", Input: map[string]any{"path": filepath.Join(repo, "b.txt")}}}},
		{Func: func(r *fakemodel.Request) fakemodel.Turn {
			return fakemodel.Turn{Text: "mcp", Tools: []fakemodel.ToolUse{{Name: status, Input: map[string]any{}}}}
		}},
		{Text: "done"},
		{Text: "done again"},
	}
	if os.Getenv("CAPTURE_SCRIPT") == "2" {
		// The other tools, and a subagent that runs bash.
		script = []fakemodel.Turn{
			{Text: "glob", Tools: []fakemodel.ToolUse{{Name: "glob", Input: map[string]any{"pattern": "*.txt"}}}},
			{Text: "grep", Tools: []fakemodel.ToolUse{{Name: "grep", Input: map[string]any{"pattern": "x"}}}},
			{Text: "list_bash", Tools: []fakemodel.ToolUse{{Name: "list_bash", Input: map[string]any{}}}},
			{Text: "sql", Tools: []fakemodel.ToolUse{{Name: "sql", Input: map[string]any{"description": "todos", "query": "SELECT 1"}}}},
			{Text: "task", Tools: []fakemodel.ToolUse{{Name: "task", Input: map[string]any{"name": "helper", "description": "write c", "prompt": "write c.txt", "agent_type": "general-purpose", "mode": "sync"}}}},
			{Func: func(r *fakemodel.Request) fakemodel.Turn {
				t.Logf("subagent? system starts %q, tools %v", e2e.Trunc(r.System(), 200), r.ToolNames())
				return fakemodel.Turn{Text: "sub shell", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo sub > c.txt", "description": "sub"}}}}
			}},
			{Text: "sub done"},
			{Text: "done"},
			{Text: "done again"},
		}
	}
	m, err := fakemodel.Start(script...)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := testenv.Context(t)
	env := []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG")}
	res, err := fakemodel.HostRun{Bin: bin, Dir: repo, Home: home, Model: m, Prompt: "go", Env: env}.Copilot(ctx)
	t.Logf("stdout: %s\nstderr: %s\nerr: %v", res.Stdout, res.Stderr, err)
	for i, r := range m.LoopRequests() {
		t.Logf("req %d model=%s results=%+v\nlast user: %s", i, r.Model(), r.ToolResults(), r.LastUserText())
	}
	if reqs := m.LoopRequests(); len(reqs) > 0 {
		os.WriteFile(filepath.Join(out, "system.txt"), []byte(reqs[0].System()), 0o644)
		os.WriteFile(filepath.Join(out, "request0.json"), reqs[0].Body, 0o644)
	}
	filepath.Walk(filepath.Join(home, ".copilot"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Logf("copilot home: %s (%d bytes)", p, info.Size())
			if filepath.Base(p) == "events.jsonl" {
				b, _ := os.ReadFile(p)
				os.WriteFile(filepath.Join(out, "events.jsonl"), b, 0o644)
			}
		}
		return nil
	})
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
