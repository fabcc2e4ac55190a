package hosts

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestWireWorkspaceCarriesTheStatusLine: a parallel agent's jj workspace
// gets planq's status line when the project has it, and not otherwise.
func TestWireWorkspaceCarriesTheStatusLine(t *testing.T) {
	testenv.RequireJJ(t)
	for _, withStatusLine := range []bool{true, false} {
		home := testenv.Isolate(t)
		repo := testenv.JJRepo(t)
		if real, err := filepath.EvalSymlinks(repo); err == nil {
			repo = real
		}
		ctx := context.Background()
		o := conffile.Options{Scope: conffile.ScopeLocal, ProjectDir: repo, Home: home, Exe: "/opt/planq/bin/planq", StatusLine: withStatusLine}
		if _, err := claude.Install(ctx, claude.InstallOptions(o)); err != nil {
			t.Fatal(err)
		}
		ws := filepath.Join(repo, ".planq", "workspaces", "one")
		if err := os.MkdirAll(filepath.Dir(ws), 0o755); err != nil {
			t.Fatal(err)
		}
		testenv.Run(t, repo, "jj", "workspace", "add", "--name", "one", ws)
		if err := WireWorkspace(ctx, conffile.Options{ProjectDir: repo, Home: home, Exe: o.Exe}, ws); err != nil {
			t.Fatal(err)
		}
		settings, err := os.ReadFile(filepath.Join(ws, ".claude", "settings.local.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(settings), `"command": "/opt/planq/bin/planq statusline"`); got != withStatusLine {
			t.Errorf("project with status line %v: the workspace's settings have it: %v\n%s", withStatusLine, got, settings)
		}
	}
}

// planq's launch arguments go right after the host's CLI (and its
// subcommand) in an agent command, before the user's own words.
func TestAgentArgv(t *testing.T) {
	t.Parallel()
	codex, _ := Lookup("codex")
	claude, _ := Lookup("claude")
	opencode, _ := Lookup("opencode")
	tests := []struct {
		ad   Adapter
		cmd  []string
		args []string
		want []string
	}{
		{codex, []string{"codex", "exec", "--json", "Address the review"}, []string{"resume", "ID"}, []string{"codex", "exec", "resume", "ID", "--json", "Address the review"}},
		{codex, []string{"/usr/local/bin/codex", "exec"}, []string{"Task"}, []string{"/usr/local/bin/codex", "exec", "Task"}},
		{codex, []string{"codex"}, []string{"resume", "ID"}, []string{"codex", "resume", "ID"}},
		{claude, []string{"npx", "claude", "--model", "opus"}, []string{"Task"}, []string{"npx", "claude", "Task", "--model", "opus"}},
		{claude, []string{"claude", "-p", "Address the review"}, []string{"--resume", "ID"}, []string{"claude", "--resume", "ID", "-p", "Address the review"}},
		{claude, []string{"my-agent.sh", "--fast"}, []string{"Task"}, []string{"my-agent.sh", "--fast", "Task"}},
		{opencode, []string{"opencode", "run", "--model", "x/y"}, []string{"--session", "ID"}, []string{"opencode", "run", "--session", "ID", "--model", "x/y"}},
	}
	for _, tt := range tests {
		if got := AgentArgv(tt.ad, tt.cmd, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("AgentArgv(%s, %q, %q) = %q, want %q", tt.ad.Host().Name, tt.cmd, tt.args, got, tt.want)
		}
	}
}
