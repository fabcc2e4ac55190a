package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/sessiontest"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

const parentSession = "7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f"

// workspaceWorld is a jj repo wired for Claude Code and OpenCode in local
// scope (sessiontest.WiredRepo), and the options that make workspaces there wired the way `planq
// hook worktree-create` wires them.
type workspaceWorld struct {
	repo, home string
	o          workflow.Options
	wire       sessiontest.Wire
}

func newWorkspaceWorld(t testing.TB) *workspaceWorld {
	t.Helper()
	repo, home, wire := sessiontest.WiredRepo(t, "claude", "opencode")
	return &workspaceWorld{repo: repo, home: home, o: workflow.Options{Dir: repo}, wire: wire}
}

// create makes the workspace n, wired.
func (w *workspaceWorld) create(ctx context.Context, n workflow.NewWorkspace) (workflow.Workspace, error) {
	n.Wire = w.wire
	return workflow.CreateWorkspace(ctx, w.o, n)
}

func (w *workspaceWorld) jj(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return sessiontest.JJ(t, dir, args...)
}

func TestWorkspacesForParallelAgents(t *testing.T) {
	w := newWorkspaceWorld(t)
	ctx := context.Background()
	started, err := workflow.Start(ctx, workflow.Options{Dir: w.repo}, "Main task")
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, w.repo, "main.txt", "main\n")

	// A fresh workspace: on trunk(), undeclared, gated like the main one.
	one, err := w.create(ctx, workflow.NewWorkspace{Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(w.repo, ".planq", "workspaces", "one"); one.Path != want || one.Existed {
		t.Fatalf("workspace one at %s (existed %v), want a new one at %s", one.Path, one.Existed, want)
	}
	if one.Change.Declared() || len(one.Change.Parents) != 1 || one.Change.Parents[0] != strings.Repeat("z", 32) {
		t.Errorf("workspace one's change = %+v, want an undeclared change on trunk() (the root here)", one.Change)
	}
	st := claude.Installed(one.Path, w.home)
	var gated bool
	for _, s := range st {
		gated = gated || s.Scope == claude.ScopeLocal && len(s.Hooks) > 0 && len(s.Missing) == 0
	}
	if !gated {
		t.Errorf("workspace one has no planq hooks in its local settings: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(one.Path, ".opencode", "plugin", "planq.js")); err != nil {
		t.Errorf("workspace one has no OpenCode plugin, though the main working copy has: %v", err)
	}
	if d := w.jj(t, w.repo, "diff", "--summary"); strings.Contains(d, ".planq") || strings.Contains(d, "settings.local") {
		t.Errorf("the main change took the workspace or its wiring:\n%s", d)
	}
	if d := w.jj(t, one.Path, "diff", "--summary"); strings.TrimSpace(d) != "" {
		t.Errorf("workspace one's change took planq's wiring:\n%s", d)
	}
	again, err := w.create(ctx, workflow.NewWorkspace{Name: "one"})
	if err != nil || !again.Existed || again.Path != one.Path {
		t.Errorf("creating workspace one again = %+v, %v; want the same one, found", again, err)
	}

	// head: on the creating session's @.
	two, err := w.create(ctx, workflow.NewWorkspace{Name: "two", Base: session.BaseHead})
	if err != nil {
		t.Fatal(err)
	}
	if len(two.Change.Parents) != 1 || two.Change.Parents[0] != started.Change.ChangeID {
		t.Errorf("workspace two's parents = %v, want the session's @ %s", two.Change.Parents, started.Change.ChangeID)
	}

	// A subagent's: a child of @, declared as part of the parent's lineage.
	sub, err := w.create(ctx, workflow.NewWorkspace{Name: "agent-a1b2c3", Subagent: true, SessionID: parentSession})
	if err != nil {
		t.Fatal(err)
	}
	if root, ok := jj.SessionRoot(sub.Change.Description); !ok || root != started.Root || !strings.Contains(sub.Change.Description, "Subagent agent-a1b2c3 for: Main task") {
		t.Errorf("subagent change description = %q, want it declared in lineage %s", sub.Change.Description, started.Root)
	}
	if len(sub.Change.Parents) != 1 || sub.Change.Parents[0] != started.Change.ChangeID {
		t.Errorf("subagent change parents = %v, want @ %s", sub.Change.Parents, started.Change.ChangeID)
	}

	for _, bad := range []string{"", "../escape", "a/b", "-x", ".."} {
		if _, err := w.create(ctx, workflow.NewWorkspace{Name: bad}); err == nil {
			t.Errorf("CreateWorkspace(%q) made a workspace", bad)
		}
	}

	// planq agents: every workspace, the main one first.
	list, err := workflow.Agents(ctx, workflow.Options{Dir: one.Path})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "default,agent-a1b2c3,one,two" || !list[0].Main || list[0].Summary != "Main task" || !list[0].Declared {
		t.Fatalf("agents = %+v", list)
	}
	if list[2].Declared || list[2].Path != one.Path {
		t.Errorf("agent one = %+v, want locked, at %s", list[2], one.Path)
	}

	// Removing a workspace keeps its undescribed edits in its change.
	testenv.WriteFile(t, one.Path, "unsaved.txt", "work nobody described\n")
	gone, err := workflow.RemoveWorkspace(ctx, w.o, one.Path)
	if err != nil {
		t.Fatal(err)
	}
	if gone.KeptDir {
		t.Errorf("the workspace's directory was kept: %s", gone.Why)
	}
	if _, err := os.Stat(one.Path); !os.IsNotExist(err) {
		t.Errorf("workspace directory %s still there (%v)", one.Path, err)
	}
	if ws := w.jj(t, w.repo, "workspace", "list"); strings.Contains(ws, "one:") {
		t.Errorf("jj still lists workspace one:\n%s", ws)
	}
	if files := w.jj(t, w.repo, "file", "list", "-r", gone.Change.ChangeID); !strings.Contains(files, "unsaved.txt") {
		t.Errorf("the removed workspace's change %s lost unsaved.txt: %q", gone.Change.ChangeID, files)
	}
	if _, err := workflow.RemoveAgent(ctx, workflow.Options{Dir: w.repo}, "default"); err == nil {
		t.Error("RemoveAgent removed the main working copy")
	}
	if r, err := workflow.RemoveAgent(ctx, workflow.Options{Dir: w.repo}, "two"); err != nil || r.Name != "two" {
		t.Errorf("RemoveAgent(two) = %+v, %v", r, err)
	}
}
