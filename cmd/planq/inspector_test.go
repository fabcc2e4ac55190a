package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// inspector returns the MCP Inspector CLI, installing it with npm (through
// scripts/install-inspector.sh) when missing. It skips loudly only when npm
// cannot reach its registry.
func inspector(t *testing.T) string {
	t.Helper()
	testenv.SkipShort(t, "drives MCP Inspector, installed with npm")
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("SKIPPED: npm is not installed, so MCP Inspector cannot be installed")
	}
	script, _ := filepath.Abs("../../scripts/install-inspector.sh")
	cmd := exec.Command("bash", script)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		t.Skip("SKIPPED LOUDLY: npm cannot reach its registry; MCP Inspector could not be installed")
	}
	if err != nil {
		t.Fatalf("install-inspector.sh: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestMCPServeUnderInspector(t *testing.T) {
	insp := inspector(t)
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	planq := buildPlanq(t)

	run := func(args ...string) map[string]any {
		t.Helper()
		out := testenv.Run(t, dir, insp, append([]string{"--cli", planq, "mcp", "serve", "--repo", dir}, args...)...)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("inspector printed non-JSON: %q", out)
		}
		return v
	}

	list := run("--method", "tools/list")
	tools, _ := list["tools"].([]any)
	found := false
	for _, tl := range tools {
		if tl.(map[string]any)["name"] == "jj_init" {
			found = true
		}
	}
	if !found {
		t.Fatalf("tools/list through Inspector lacks jj_init: %v", list)
	}

	res := run("--method", "tools/call", "--tool-name", "jj_init", "--tool-arg", "description=Declared through Inspector")
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["gate_unlocked"] != true {
		t.Fatalf("tools/call jj_init through Inspector = %v", res)
	}
	desc := testenv.Run(t, dir, "jj", "log", "--no-graph", "-r", "@", "-T", "description")
	if strings.TrimSpace(desc) != "Declared through Inspector" {
		t.Errorf("jj shows @ described as %q", desc)
	}
}
