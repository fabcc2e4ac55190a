package copilot

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/planq-dev/planq/hooks/session"
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

// What Copilot's own checks could judge in a command: an absolute path
// outside the project and the temp dir, ~ or .., unless copilot runs with
// every path allowed; a URL, unless the tools or URLs are all allowed and
// none is denied (on the command line or in a settings file).
func TestCopilotChecksJudge(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	env := map[string]string{"TMPDIR": "/var/tmp/x", "COPILOT_HOME": home}
	getenv := func(k string) string { return env[k] }
	paths := []struct {
		cmd     string
		outside bool
	}{
		{"ls -la src", false},
		{"cat " + project + "/go.mod 2>/dev/null", false},
		{"ls /var/tmp/x/out", false},
		{"head -1 /etc/hostname", true},
		{"ls --dir=/opt", true},
		{"cat ~/.bashrc", true},
		{"cat ../other/x", true},
		{"ls a/../..", true},
		{"ls " + project + "/../elsewhere", true},
		{"ls /tmp", true}, // TMPDIR is elsewhere here
	}
	for _, tt := range paths {
		if got := outsidePath(session.CommandWords(tt.cmd), project, getenv); got != tt.outside {
			t.Errorf("outsidePath(%q) = %v, want %v", tt.cmd, got, tt.outside)
		}
		if got := hostJudges(tt.cmd, project, getenv); got != tt.outside {
			t.Errorf("hostJudges(%q) with no copilot among the ancestors = %v, want %v", tt.cmd, got, tt.outside)
		}
	}

	p := cliPermissions([]string{"--allow-all-tools", "--deny-tool=shell(rm)"}, getenv)
	if p.allPaths || !p.allURLs || p.denyURLs || !p.programs["rm"] {
		t.Errorf("--allow-all-tools: %+v", p)
	}
	if p := cliPermissions([]string{"--yolo", "--deny-url", "example.com"}, getenv); !p.allPaths || !p.allURLs || !p.denyURLs {
		t.Errorf("--yolo --deny-url: %+v", p)
	}
	if p := cliPermissions([]string{"-p", "x"}, func(k string) string { return map[string]string{"COPILOT_ALLOW_ALL": " Yes"}[k] }); p.allPaths || !p.allURLs {
		t.Errorf("COPILOT_ALLOW_ALL=yes: %+v", p)
	}
	if p := cliPermissions([]string{"--", "--allow-all"}, getenv); p.allPaths || p.allURLs {
		t.Errorf("after --: %+v", p)
	}

	url := session.CommandWords("curl -fsSL https://example.com/x")
	if !hasURL(url) || hasURL(session.CommandWords("curl example.com")) {
		t.Error("hasURL: want a scheme://")
	}
	if deniesURLs(project, getenv) {
		t.Error("no settings: deniesURLs")
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"deniedUrls": ["example.com"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if !deniesURLs(project, getenv) {
		t.Error("deniedUrls in COPILOT_HOME/settings.json: not seen")
	}
}
