//go:build capture

package codex_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestCaptureSubagent runs codex exec with a model that spawns a subagent,
// which runs a shell command, and waits for it, saving the hooks' stdin in
// $CAPTURE_DIR (go test -tags capture). A tool, not a test.
func TestCaptureSubagent(t *testing.T) {
	t.Parallel()
	out := os.Getenv("CAPTURE_DIR")
	bin := fakemodel.EnsureCodex(t)
	dir, home := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	hooks := map[string]any{}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop"} {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "cat > " + out + "/" + ev + "-$(date +%s%N).json"}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	os.WriteFile(filepath.Join(codexHome, "hooks.json"), b, 0o644)
	var agentID string
	turn := func(r *fakemodel.Request) fakemodel.Turn {
		txt := r.Text()
		if strings.Contains(txt, "SUBTASK please") && !strings.Contains(txt, "spawn_agent") {
			if len(r.ToolResults()) == 0 {
				return fakemodel.Turn{Text: "sub shell", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "echo sub > sub.txt"}}}}
			}
			return fakemodel.Turn{Text: "sub done"}
		}
		trs := r.ToolResults()
		if len(trs) == 1 && strings.Contains(trs[0].Text, "agent_id") {
			var v map[string]any
			json.Unmarshal([]byte(trs[0].Text), &v)
			agentID, _ = v["agent_id"].(string)
			return fakemodel.Turn{Text: "waiting", Tools: []fakemodel.ToolUse{{Name: "multi_agent_v1__wait_agent", Input: map[string]any{"targets": []string{agentID}, "timeout_ms": 30000}}}}
		}
		if len(trs) == 0 && !strings.Contains(txt, "waiting") {
			return fakemodel.Turn{Text: "spawning", Tools: []fakemodel.ToolUse{{Name: "multi_agent_v1__spawn_agent", Input: map[string]any{"message": "SUBTASK please"}}}}
		}
		return fakemodel.Turn{Text: "parent done"}
	}
	var script []fakemodel.Turn
	for i := 0; i < 10; i++ {
		script = append(script, fakemodel.Turn{Func: turn})
	}
	m, _ := fakemodel.Start(script...)
	defer m.Close()
	ctx := testenv.Context(t)
	res, err := fakemodel.HostRun{Bin: bin, Dir: dir, Home: home, Model: m, Prompt: "go"}.Codex(ctx)
	t.Logf("err: %v stderr: %s", err, res.Stderr)
	for i, r := range m.LoopRequests() {
		t.Logf("req %d: %.300s | results %.300v", i, r.LastUserText(), r.ToolResults())
	}
	for _, r := range m.LoopRequests()[:1] {
		i := strings.Index(string(r.Body), `"name":"wait_agent"`)
		if i > 0 {
			t.Logf("wait_agent: %.1500s", string(r.Body)[i:])
		}
	}
}
