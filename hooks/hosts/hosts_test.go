package hosts

import (
	"context"
	"os"
	"path/filepath"
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
