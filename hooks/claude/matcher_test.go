package claude

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGatedToolsMatcherInJavaScript evaluates GatedTools as Claude Code
// does, as a JavaScript regex, and checks it skips exactly the tools the gate
// always allows while every other tool, known or not, still reaches the hook.
func TestGatedToolsMatcherInJavaScript(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: node is not installed; cannot evaluate the matcher as JavaScript")
	}
	gated := []string{"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "mcp__planq__jj_init",
		"mcp__github__create_issue", "FutureTool", "ReadWrite", "MyRead", "Readme", "GrepAndReplace", ""}
	skipped := ReadOnlyTools()
	names := append(append([]string{}, gated...), skipped...)
	script := `const re = new RegExp(process.argv[1]); for (const n of process.argv.slice(2)) console.log(re.test(n) ? "1" : "0")`
	out, err := exec.Command(node, append([]string{"-e", script, GatedTools}, names...)...).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(names) {
		t.Fatalf("node printed %d results for %d names", len(got), len(names))
	}
	for i, n := range names {
		want := "1"
		if i >= len(gated) {
			want = "0"
		}
		if got[i] != want {
			t.Errorf("matcher on %q = %s, want %s (1: the hook runs)", n, got[i], want)
		}
	}
}
