package copilot

import (
	"maps"
	"slices"
	"testing"
)

// The programs of the shell rules on copilot's command line, read as
// Copilot reads --allow-tool and --deny-tool: every form of giving them,
// commas outside parentheses, and only shell rules' first words.
func TestShellRulePrograms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--allow-all-tools", "--deny-tool", "shell(printf)"}, []string{"printf"}},
		{[]string{"--deny-tool=shell(git push)", "-p", "shell(rm)"}, []string{"git"}},
		{[]string{"--allow-tool", "shell(git:*)", "write", "shell(npm run test),MyMCP(tool),url(github.com)", "--yolo"}, []string{"git", "npm"}},
		{[]string{"--allow-tool=shell(echo),shell(  ./tools/run.sh  x)"}, []string{"./tools/run.sh", "echo"}},
		{[]string{"--deny-tool", "shell", "--allow-tool", "Shell(ls)"}, []string{"ls"}},
		{[]string{"--deny-tool", "--", "shell(x)"}, nil},
		{[]string{"-p", "shell(x)", "--model", "m"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		got := slices.Sorted(maps.Keys(shellRulePrograms(tt.args)))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}
