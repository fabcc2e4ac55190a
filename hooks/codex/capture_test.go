//go:build capture

package codex_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestCapturePayloads runs the real codex exec with a hook that saves every
// event's stdin into $CAPTURE_DIR (and, for PreToolUse, a copy of the
// rollout), for testdata: go test -tags capture -run TestCapturePayloads
// with CAPTURE_MODEL=gpt-5.5 (a model Codex offers apply_patch) and,
// optionally, CAPTURE_WORKDIR for the shell call's workdir. It is a tool,
// not a test: it asserts nothing.
func TestCapturePayloads(t *testing.T) {
	t.Parallel()
	out := os.Getenv("CAPTURE_DIR")
	if out == "" {
		t.Skip("CAPTURE_DIR not set")
	}
	bin := fakemodel.EnsureCodex(t)
	dir, home := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "PostCompact", "Stop", "SessionEnd", "SubagentStart", "SubagentStop"} {
		cmd := "cat > " + out + "/" + ev + "-$(date +%s%N).json"
		if ev == "PreToolUse" {
			cmd = "f=" + out + "/" + ev + "-$(date +%s%N).json; cat > $f; cp \"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"transcript_path\"])' $f)\" $f.rollout"
		}
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	os.WriteFile(filepath.Join(codexHome, "hooks.json"), b, 0o644)
	shell := map[string]any{"cmd": "echo hi > a.txt"}
	if wd := os.Getenv("CAPTURE_WORKDIR"); wd != "" {
		shell["workdir"] = wd
	}
	patch := "*** Begin Patch\n*** Add File: p.txt\n+patched\n*** End Patch\n"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "shell", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: shell}}},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			t.Logf("tools offered: %v", r.ToolNames())
			return fakemodel.Turn{Text: "patch", Tools: []fakemodel.ToolUse{{Name: "apply_patch", Input: patch}}}
		}},
		fakemodel.Turn{Text: "done"},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := testenv.Context(t)
	res, err := fakemodel.HostRun{Bin: bin, Dir: dir, Home: home, Model: m, Prompt: "go", Args: []string{"-c", `model="` + os.Getenv("CAPTURE_MODEL") + `"`}}.Codex(ctx)
	t.Logf("stdout: %s\nstderr: %s\nerr: %v", res.Stdout, res.Stderr, err)
	for i, r := range m.LoopRequests() {
		t.Logf("req %d model=%s tools=%v results=%+v", i, r.Model(), r.ToolNames(), r.ToolResults())
	}
}
