package fakemodel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestClaudeCodeRunsScriptedBash proves the harness: the real Claude Code CLI,
// pointed at the fake model, runs the Bash call the model scripted and sends
// its output back in the next request.
func TestClaudeCodeRunsScriptedBash(t *testing.T) {
	t.Parallel()
	claude := EnsureClaude(t)
	m, err := Start(
		Turn{Text: "I will run a command.", Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo hi-from-bash > out.txt; echo hi-from-bash", "description": "say hi"}}}},
		Turn{Text: "All done."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir, home := t.TempDir(), t.TempDir()
	ctx := testenv.Context(t)
	res, err := Run{Claude: claude, Dir: dir, Home: home, Model: m, Args: []string{"-p", "say hi"}}.Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Requests() {
		t.Logf("request %d loop=%v turn=%d model=%s tools=%d body=%d bytes\n%s", i, r.Loop, r.Turn, r.Model(), len(r.ToolNames()), len(r.Body), truncate(r.LastUserText(), 300))
	}
	t.Logf("stdout: %s", res.Stdout)
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); strings.TrimSpace(string(got)) != "hi-from-bash" {
		t.Fatalf("out.txt = %q, want the Bash call to have run", got)
	}
	loop := m.LoopRequests()
	if len(loop) != 2 {
		t.Fatalf("got %d agent-loop requests, want 2", len(loop))
	}
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Text, "hi-from-bash") || trs[0].IsError {
		t.Fatalf("second request's tool results = %+v, want the echo output", trs)
	}
	if res.JSON["result"] != "All done." {
		t.Fatalf("result = %v, want the scripted final text", res.JSON["result"])
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
