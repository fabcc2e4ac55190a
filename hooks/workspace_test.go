package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

const parentSession = "7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f"

// workspaceWorld is a jj repo wired for Claude Code in local scope, and a
// Runner that wires new workspaces the way `planq hook worktree-create`
// does.
type workspaceWorld struct {
	repo, home string
	r          *hooks.Runner
}

func newWorkspaceWorld(t *testing.T) *workspaceWorld { return newWorkspaceWorldB(t) }

func newWorkspaceWorldB(t testing.TB) *workspaceWorld {
	t.Helper()
	testenv.Isolate(t)
	w := &workspaceWorld{repo: testenv.JJRepo(t), home: os.Getenv("HOME")}
	if real, err := filepath.EvalSymlinks(w.repo); err == nil {
		w.repo = real
	}
	exe := filepath.Join(t.TempDir(), "planq")
	o := conffile.Options{Scope: conffile.ScopeLocal, ProjectDir: w.repo, Home: w.home, Exe: exe}
	for _, host := range []string{"claude", "opencode"} {
		ad, err := hosts.Lookup(host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ad.Install(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	w.r = &hooks.Runner{WireWorkspace: func(ctx context.Context, mainRoot, ws string) error {
		return hosts.WireWorkspace(ctx, conffile.Options{ProjectDir: mainRoot, Home: w.home, Exe: exe}, ws)
	}}
	return w
}

func (w *workspaceWorld) jj(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Run(t, dir, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
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
	one, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: "one"})
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
	again, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: "one"})
	if err != nil || !again.Existed || again.Path != one.Path {
		t.Errorf("creating workspace one again = %+v, %v; want the same one, found", again, err)
	}

	// head: on the creating session's @.
	two, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: "two", Base: session.BaseHead})
	if err != nil {
		t.Fatal(err)
	}
	if len(two.Change.Parents) != 1 || two.Change.Parents[0] != started.Change.ChangeID {
		t.Errorf("workspace two's parents = %v, want the session's @ %s", two.Change.Parents, started.Change.ChangeID)
	}

	// A subagent's: a child of @, declared as part of the parent's lineage.
	sub, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: "agent-a1b2c3", Subagent: true, SessionID: parentSession})
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
		if _, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: bad}); err == nil {
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
	gone, err := w.r.RemoveWorkspace(ctx, one.Path)
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
	if _, err := hooks.RemoveAgent(ctx, workflow.Options{Dir: w.repo}, "default"); err == nil {
		t.Error("RemoveAgent removed the main working copy")
	}
	if r, err := hooks.RemoveAgent(ctx, workflow.Options{Dir: w.repo}, "two"); err != nil || r.Name != "two" {
		t.Errorf("RemoveAgent(two) = %+v, %v", r, err)
	}
}

// TestSubagentWorkspaceReported: after the Agent call that ran a subagent in
// a workspace, the parent is told its change, once.
func TestSubagentWorkspaceReported(t *testing.T) {
	w := newWorkspaceWorld(t)
	ctx := context.Background()
	if _, err := workflow.Start(ctx, workflow.Options{Dir: w.repo}, "Main task"); err != nil {
		t.Fatal(err)
	}
	ev := session.Event{Name: session.EventSessionStart, Host: claude.Host, SessionID: parentSession, Cwd: w.repo, ProjectDir: w.repo, Source: "startup"}
	if _, err := w.r.Handle(ctx, ev); err != nil {
		t.Fatal(err)
	}
	create := session.Event{Name: session.EventWorktreeCreate, Host: claude.Host, SessionID: parentSession, Cwd: w.repo, ProjectDir: w.repo,
		Worktree: &session.Worktree{Name: "agent-f00d", Subagent: true}}
	reply, err := w.r.Handle(ctx, create)
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, reply.Path, "helper.txt", "from the subagent\n")

	after := session.Event{Name: session.EventPostToolUse, Host: claude.Host, SessionID: parentSession, Cwd: w.repo, ProjectDir: w.repo,
		Call: &session.Call{Name: "Agent", Tool: claude.GateTool("Agent"), Subagent: true}}
	out, err := w.r.Handle(ctx, after)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agent-f00d", "Subagent agent-f00d for: Main task", "1 file changed", "mcp__planq__jj_squash"} {
		if !strings.Contains(out.Context, want) {
			t.Errorf("report after the Agent call lacks %q:\n%s", want, out.Context)
		}
	}
	if again, err := w.r.Handle(ctx, after); err != nil || again.Context != "" {
		t.Errorf("second report = %q, %v; want nothing new", again.Context, err)
	}
}

// TestWorktreeRemoveEvent: Claude Code's WorktreeRemove forgets the
// workspace and keeps its change.
func TestWorktreeRemoveEvent(t *testing.T) {
	w := newWorkspaceWorld(t)
	ctx := context.Background()
	reply, err := w.r.Handle(ctx, session.Event{Name: session.EventWorktreeCreate, Host: claude.Host, Cwd: w.repo,
		Worktree: &session.Worktree{Name: "feature"}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, reply.Path, "f.txt", "x\n")
	if _, err := w.r.Handle(ctx, session.Event{Name: session.EventWorktreeRemove, Host: claude.Host, Cwd: reply.Path,
		Worktree: &session.Worktree{Path: reply.Path}}); err != nil {
		t.Fatal(err)
	}
	if log := w.jj(t, w.repo, "log", "-r", "all()", "--no-graph", "-T", `if(self.diff().files().any(|f| f.path().display() == "f.txt"), "has-f\n")`); !strings.Contains(log, "has-f") {
		t.Errorf("no change holds f.txt after the workspace went:\n%s", log)
	}
}

// TestWorktreeInGitOnlyRepo: where planq is wired but the repo has no jj
// (user-scope wiring), worktree-create makes the git worktree Claude Code
// would, and worktree-remove refuses to drop uncommitted work.
func TestWorktreeInGitOnlyRepo(t *testing.T) {
	testenv.Isolate(t)
	repo := t.TempDir()
	testenv.Run(t, repo, "git", "init", "-q", "-b", "main")
	testenv.WriteFile(t, repo, "a.txt", "a\n")
	testenv.Run(t, repo, "git", "add", "a.txt")
	testenv.Run(t, repo, "git", "commit", "-q", "-m", "a")
	r := &hooks.Runner{}
	ctx := context.Background()
	reply, err := r.Handle(ctx, session.Event{Name: session.EventWorktreeCreate, Host: claude.Host, Cwd: repo, Worktree: &session.Worktree{Name: "fix"}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(reply.Path) != "fix" || !strings.Contains(reply.Path, filepath.Join(".claude", "worktrees")) {
		t.Fatalf("worktree at %q", reply.Path)
	}
	if b := testenv.Run(t, reply.Path, "git", "branch", "--show-current"); strings.TrimSpace(b) != "worktree-fix" {
		t.Errorf("worktree branch = %q", b)
	}
	testenv.WriteFile(t, reply.Path, "a.txt", "changed\n")
	remove := session.Event{Name: session.EventWorktreeRemove, Host: claude.Host, Cwd: reply.Path, Worktree: &session.Worktree{Path: reply.Path}}
	if _, err := r.Handle(ctx, remove); err == nil {
		t.Error("a worktree with uncommitted changes was removed")
	}
	if got, err := os.ReadFile(filepath.Join(reply.Path, "a.txt")); err != nil || string(got) != "changed\n" {
		t.Errorf("uncommitted work = %q, %v", got, err)
	}
}

// TestConflictsBetweenAgentsShown: when one agent's change meets another's
// (a merge of both), the session-start context and planq agents name the
// conflicted files, and the context says which workspace it is.
func TestConflictsBetweenAgentsShown(t *testing.T) {
	w := newWorkspaceWorld(t)
	ctx := context.Background()
	if _, err := workflow.Start(ctx, workflow.Options{Dir: w.repo}, "Main task"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, w.repo, "shared.txt", "main's\n")
	one, err := w.r.CreateWorkspace(ctx, hooks.NewWorkspace{Dir: w.repo, Name: "one"})
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, one.Path, "shared.txt", "one's\n")
	mainAt := strings.TrimSpace(w.jj(t, w.repo, "log", "-r", "@", "--no-graph", "-T", "change_id"))
	oneAt := strings.TrimSpace(w.jj(t, one.Path, "log", "-r", "@", "--no-graph", "-T", "change_id"))
	w.jj(t, one.Path, "new", "-m", "Merge main's work into one's", mainAt, oneAt)

	out, err := w.r.Handle(ctx, session.Event{Name: session.EventSessionStart, Host: claude.Host, SessionID: parentSession, Cwd: one.Path, ProjectDir: one.Path, Source: "startup"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"jj workspace at " + one.Path, "conflicts", "shared.txt", "mcp__planq__jj_push"} {
		if !strings.Contains(out.Context, want) {
			t.Errorf("session-start context in the workspace lacks %q:\n%s", want, out.Context)
		}
	}
	list, err := workflow.Agents(ctx, workflow.Options{Dir: w.repo})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if want := a.Name == "one"; want != (len(a.Conflicts) == 1 && a.Conflicts[0] == "shared.txt") {
			t.Errorf("agent %s conflicts = %v", a.Name, a.Conflicts)
		}
	}
}
