package jj_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

func TestWorkspaces(t *testing.T) {
	for kind, dir := range repos(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			main := jj.New(dir)
			if err := main.Describe(ctx, "@", "main work"); err != nil {
				t.Fatal(err)
			}
			base, err := main.Current(ctx)
			if err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(t.TempDir(), "ws one")
			ws, err := main.WorkspaceAdd(ctx, dest, jj.WorkspaceAddOptions{Name: "one", Parents: []string{"@"}, Message: "agent one's task"})
			if err != nil {
				t.Fatal(err)
			}
			if ws.Name != "one" || !samePath(t, ws.Root, dest) {
				t.Fatalf("workspace = %+v, want one at %s", ws, dest)
			}
			if ws.Change.Description != "agent one's task" || len(ws.Change.Parents) != 1 || ws.Change.Parents[0] != base.ChangeID {
				t.Fatalf("workspace change = %+v, want %q on %s", ws.Change, "agent one's task", base.ChangeID)
			}
			if _, err := os.Stat(filepath.Join(dest, ".git")); err == nil {
				t.Errorf("WorkspaceAdd without Colocate made a git worktree in %s", dest)
			}

			if !jj.IsSecondaryWorkspace(dest) || jj.IsSecondaryWorkspace(dir) {
				t.Errorf("IsSecondaryWorkspace: workspace %v, main %v; want true, false", jj.IsSecondaryWorkspace(dest), jj.IsSecondaryWorkspace(dir))
			}
			if m, err := jj.MainRoot(dest); err != nil || !samePath(t, m, dir) {
				t.Errorf("MainRoot(workspace) = %q, %v; want %s", m, err, dir)
			}
			if m, err := jj.MainRoot(dir); err != nil || !samePath(t, m, dir) {
				t.Errorf("MainRoot(main) = %q, %v; want %s", m, err, dir)
			}
			gitRoot, err := main.GitRoot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, root := range []string{dir, dest} {
				if g, ok := jj.BackingGitDir(root); !ok || !samePath(t, g, gitRoot) {
					t.Errorf("BackingGitDir(%s) = %q, %v; want jj git root's %s", root, g, ok, gitRoot)
				}
			}

			all, err := main.Workspaces(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, w := range all {
				names = append(names, w.Name)
			}
			if strings.Join(names, ",") != "default,one" {
				t.Fatalf("workspaces = %v, want default,one", names)
			}

			in := jj.New(dest)
			cur, err := in.CurrentWorkspace(ctx)
			if err != nil || cur.Name != "one" {
				t.Fatalf("CurrentWorkspace in %s = %+v, %v; want one", dest, cur, err)
			}
			if cur, err := main.CurrentWorkspace(ctx); err != nil || cur.Name != "default" {
				t.Fatalf("CurrentWorkspace in the main working copy = %+v, %v; want default", cur, err)
			}

			// Edits in the workspace are its change's, not the main @'s.
			if err := os.WriteFile(filepath.Join(dest, "one.txt"), []byte("one\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := in.DiffSummary(ctx, "@")
			if err != nil || len(files) != 1 || files[0].Path != "one.txt" {
				t.Fatalf("workspace diff = %+v, %v; want one.txt", files, err)
			}
			if files, err := main.DiffSummary(ctx, "@"); err != nil || len(files) != 0 {
				t.Fatalf("main diff = %+v, %v; want nothing from the workspace", files, err)
			}

			details, err := main.WorkspaceDetails(ctx)
			if err != nil || len(details) != 2 {
				t.Fatalf("WorkspaceDetails = %+v, %v", details, err)
			}
			for _, d := range details {
				want := "0 files changed"
				if d.Name == "one" {
					want = "1 file changed"
				}
				if !strings.Contains(d.Stat, want) || d.Updated.IsZero() {
					t.Errorf("workspace %s: stat %q, updated %v; want %q and a time", d.Name, d.Stat, d.Updated, want)
				}
			}

			if err := main.WorkspaceForget(ctx, "one"); err != nil {
				t.Fatal(err)
			}
			if _, err := main.WorkspaceNamed(ctx, "one"); err == nil {
				t.Fatal("workspace one is still listed after WorkspaceForget")
			}
			kept, err := main.Show(ctx, ws.Change.ChangeID)
			if err != nil || kept.Description != "agent one's task" {
				t.Fatalf("the forgotten workspace's change = %+v, %v; want it kept", kept, err)
			}
		})
	}
}

// TestStaleWorkingCopyUpdated: after another workspace's operation leaves
// this one stale, a command brings it up to date, runs, and says so.
func TestStaleWorkingCopyUpdated(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	ctx := context.Background()
	main := jj.New(dir)
	dest := filepath.Join(t.TempDir(), "two")
	if _, err := main.WorkspaceAdd(ctx, dest, jj.WorkspaceAddOptions{Name: "two", Message: "two"}); err != nil {
		t.Fatal(err)
	}
	in := jj.New(dest)
	if err := os.WriteFile(filepath.Join(dest, "f"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Current(ctx); err != nil { // snapshot f
		t.Fatal(err)
	}
	// Restoring the main workspace to the operation before that snapshot
	// leaves workspace two's files ahead of the repo: stale.
	ops, err := main.Run(ctx, "op", "log", "--no-graph", "-T", `id ++ "\n"`, "--limit", "2")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(ops))
	if len(lines) < 2 {
		t.Fatalf("op log = %q", ops)
	}
	if err := main.OpRestore(ctx, lines[1]); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("jj", "status")
	cmd.Dir = dest
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "stale") {
		t.Fatalf("jj status in workspace two: %v\n%s\nwant a stale working copy", err, out)
	}
	nctx, notes := jj.WithNotes(ctx)
	cur, err := jj.New(dest).Current(nctx)
	if err != nil {
		t.Fatalf("Current in the stale workspace: %v; want it updated and answered", err)
	}
	if cur.Description != "two" {
		t.Fatalf("@ in workspace two = %q, want two", cur.Description)
	}
	if got := notes.List(); len(got) != 1 || got[0] != jj.StaleNote {
		t.Fatalf("notes = %q, want the stale note once", got)
	}
}

func samePath(t *testing.T, a, b string) bool {
	t.Helper()
	return jj.SamePath(a, b)
}
