package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/sessiontest"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/workflow"
)

const parentSession = "7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f"

// workspaceWorld is a jj repo wired for Claude Code and OpenCode in local
// scope (sessiontest.WiredRepo), and a Runner that wires new workspaces
// the way `planq hook worktree-create` does.
type workspaceWorld struct {
	repo, home string
	r          *hooks.Runner
}

func newWorkspaceWorld(t *testing.T) *workspaceWorld {
	t.Helper()
	repo, home, wire := sessiontest.WiredRepo(t, "claude", "opencode")
	return &workspaceWorld{repo: repo, home: home, r: &hooks.Runner{WireWorkspace: wire}}
}

func (w *workspaceWorld) jj(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return sessiontest.JJ(t, dir, args...)
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
	one, err := workflow.CreateWorkspace(ctx, workflow.Options{Dir: w.repo}, workflow.NewWorkspace{Name: "one", Wire: w.r.WireWorkspace})
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
