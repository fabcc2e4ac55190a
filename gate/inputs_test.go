package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Class 8: tool inputs are decoded exactly; an ambiguous one is denied.
func TestToolInputDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, input string
		want        bool
		reason      string // part of the reason
	}{
		{"Bash", `{"command":"rm -rf build","Command":"ls"}`, modifies, "ambiguous"},
		{"Bash", `{"Command":"ls","command":"rm -rf build"}`, modifies, "ambiguous"},
		{"Bash", `{"command":"ls","command":"rm -rf build"}`, modifies, "twice"},
		{"Bash", `{"command":"rm -rf build","COMMAND":"ls"}`, modifies, "ambiguous"},
		{"Bash", `{"comm\u0061nd":"rm -rf build","command":"ls"}`, modifies, "twice"},
		{"Bash", `{"Command":"ls"}`, modifies, "ambiguous"},
		{"Bash", `{"command":["ls"]}`, modifies, "no command string"},
		{"Bash", `{"command":"ls"} {"command":"rm x"}`, modifies, "after"},
		{"Bash", `{"command":"ls"`, modifies, "malformed"},
		{"Bash", `{"command":"ls","description":"list","timeout":5}`, readOnly, ""},
		{"Bash", `{"command":"ls","Description":"x","description":"y"}`, readOnly, ""}, // fields the gate does not read
		{"Write", `{"file_path":"/r/a.go","File_Path":"/tmp/x"}`, modifies, "ambiguous"},
		{"Write", `{"File_Path":"/tmp/x"}`, modifies, "ambiguous"},
		{"Write", `{"file_path":"/tmp/a","file_path":"/r/a.go"}`, modifies, "twice"},
		{"Edit", `{"file_path":"/r/a.go","FILE_PATH":"/tmp/x","old_string":"a","new_string":"b"}`, modifies, "ambiguous"},
		{"NotebookEdit", `{"notebook_path":"/r/n.ipynb","Notebook_Path":"/tmp/n"}`, modifies, "ambiguous"},
		{"Write", `{"file_path":"/tmp/planq-decode-test.txt","content":"x"}`, readOnly, ""},
	}
	for _, tt := range tests {
		v := Classify(ToolCall{Name: tt.tool, Tool: testTool(tt.tool), Input: json.RawMessage(tt.input), Root: "/r", Cwd: "/r"}, DefaultPolicy())
		if v.Modifies != tt.want || !strings.Contains(v.Reason, tt.reason) {
			t.Errorf("%s %s: modifies=%v (%s), want %v and a reason with %q", tt.tool, tt.input, v.Modifies, v.Reason, tt.want, tt.reason)
		}
	}
}

// Class 7: an editor tool's path is resolved before deciding in or out:
// /proc/self/cwd, /proc/self/root, symbolic links into the project, .., and
// places programs load code from.
func TestEditorPathsResolved(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	home := filepath.Join(base, "home")
	out := filepath.Join(base, "out")
	for _, d := range []string{repo, home, out, filepath.Join(repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link outside pointing into the project, and one inside pointing out.
	if err := os.Symlink(repo, filepath.Join(out, "into-repo")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(repo, "to-out")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		path string
		want bool
	}{
		{"/proc/self/cwd/main.go", modifies},
		{"/proc/thread-self/cwd/src/a.go", modifies},
		{"/proc/self/root" + repo + "/a.go", modifies},
		{"/proc/1/cwd/a.go", modifies},
		{filepath.Join(out, "into-repo", "a.go"), modifies},
		{out + "/into-repo/../repo/a.go", modifies}, // .. applies after the link: base/repo/a.go
		{filepath.Join(repo, "src", "..", "a.go"), modifies},
		{"src/../a.go", modifies},
		{filepath.Join(repo, "to-out", "x.txt"), readOnly}, // a link in the project to outside
		{filepath.Join(out, "plan.md"), readOnly},
		{filepath.Join(home, ".claude", "plans", "p.md"), readOnly},
		{filepath.Join(home, ".gitconfig"), modifies},
		{filepath.Join(home, ".config", "jj", "config.toml"), modifies},
		{filepath.Join(base, "go.work"), modifies},
		{filepath.Join(base, "notes.md"), readOnly},
		{"/usr/local/bin/ls", modifies},
		{"/etc/profile.d/x.sh", modifies},
		{base, modifies}, // an ancestor of the project
	}
	for _, tt := range tests {
		in, _ := json.Marshal(map[string]string{"file_path": tt.path, "content": "x"})
		v := Classify(ToolCall{Name: "Write", Tool: testTool("Write"), Input: in, Root: repo, Cwd: repo, Getenv: getenv}, DefaultPolicy())
		if v.Modifies != tt.want {
			t.Errorf("Write %s: modifies=%v (%s), want %v", tt.path, v.Modifies, v.Reason, tt.want)
		}
	}
}

// Class 10: bounds. Every input past a bound is denied with the bound
// named (how fast is BenchmarkAnalysisWorstInput's).
func TestAnalysisBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range analysisBounds {
		v := AnalyzeBash(tt.cmd, DefaultPolicy())
		if !v.Modifies || !strings.Contains(v.Reason, tt.bound) {
			t.Errorf("%s: %v %q; want a denial naming %s", tt.name, v.Modifies, v.Reason, tt.bound)
		}
	}
	// Many distinct paths: resolving them is bounded (maxPathChecks); past
	// the bound a write gets no outside credit.
	if v := AnalyzeBashAt(manyOutsidePaths(), DefaultPolicy(), fixtureWhere(t)); !v.Modifies {
		t.Errorf("thousands of outside writes: %s; want no credit past the bound", v.Reason)
	}
	// Within the bounds, it is read to the end.
	for _, cmd := range []string{strings.Repeat("( ", 50) + "ls" + strings.Repeat(" )", 50), nestedBashC(4), strings.Repeat("echo a;", 1000), "echo $((" + strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40) + "))"} {
		if v := AnalyzeBash(cmd, DefaultPolicy()); v.Modifies {
			t.Errorf("%.40q…: %s", cmd, v.Reason)
		}
	}
}

// analysisBounds are inputs past each bound, and the bound each is denied
// for.
var analysisBounds = []struct {
	name, cmd, bound string
}{
	{"256 KiB of (", strings.Repeat("(", 256<<10), "MaxCommandBytes"},
	{"100 KiB of (", strings.Repeat("(", 100<<10), "MaxBracketDepth"},
	{"deep $(", strings.Repeat("$(", 200) + "ls" + strings.Repeat(")", 200), "MaxBracketDepth"},
	{"deep {", strings.Repeat("{ ", 150) + "ls;" + strings.Repeat(" }", 150), "MaxBracketDepth"},
	{"deep [[", strings.Repeat("[", 300), "MaxBracketDepth"},
	{"deep backticks", strings.Repeat("`", 150), "MaxBracketDepth"},
	{"long command", "echo " + strings.Repeat("a", MaxCommandBytes), "MaxCommandBytes"},
	{"many nodes", strings.Repeat("a;", 60_000), "MaxNodes"},
	{"many words", "echo " + strings.Repeat("a ", 60_000), "MaxNodes"},
	{"long pipeline", strings.Repeat("ls|", 5000) + "ls", "MaxOperators"},
	{"long && chain", strings.Repeat("ls&&", 5000) + "ls", "MaxOperators"},
	{"deep bash -c", nestedBashC(8), "nested"},
	{"deep eval", strings.Repeat("eval ", 20) + "ls", "nested"},
	{"deep sudo", strings.Repeat("sudo ", 20) + "ls", "nested"},
}

// manyOutsidePaths is a command just under MaxCommandBytes that writes to
// and enters thousands of distinct directories outside any project.
func manyOutsidePaths() string {
	var many strings.Builder
	for i := 0; many.Len() < MaxCommandBytes-64; i++ {
		fmt.Fprintf(&many, "echo > /tmp/planq-bounds-%d/x; cd /tmp/planq-bounds-%d;", i, i)
	}
	return many.String()
}

func nestedBashC(n int) string {
	cmd := "ls"
	for range n {
		cmd = "bash -c " + shellQuote(cmd)
	}
	return cmd
}
